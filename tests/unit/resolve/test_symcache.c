// SPDX-License-Identifier: GPL-2.0-only
/*
 * The symbol cache of uprobe_symbolize(): for every offset of the code of
 * real files (fixture.c's, bash, libc) the cached lookup must name a
 * symbol that `readelf -lW -SW -sW` shows containing it (or none when
 * readelf shows none), and the fixture's own symbols are named as
 * fixture.c wrote them. A file changed in place is parsed again; more
 * files than the cache holds still resolve; threads share it; a cold cache
 * (flushed before each lookup) agrees with a warm one. Skips when gcc or
 * readelf is missing.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "uprobe_cache.h"
#include "uprobe_symcache.h"
#include "uprobe_target.h"

/*
 * ---- what readelf says: no ranking of our own ----
 *
 * The expected value of an offset is not computed by a second symbolizer
 * (that would copy the code under test): it is the set of symbols that
 * readelf shows containing the address, and the name of one of them is
 * what uprobe_symbolize() must give. Which one wins a tie (global over
 * local, sized over unsized) is checked on the fixture's own symbols,
 * whose names and kinds fixture.c wrote (test_known).
 */

/* A function, an IFUNC, or an untyped label inside executable code. */
static bool is_code(const struct fx_elf *e, const struct fx_sym *s)
{
	if (!strcmp(s->type, "FUNC") || !strcmp(s->type, "IFUNC"))
		return true;
	return !strcmp(s->type, "NOTYPE") && s->ndx >= 0 && s->ndx < 1024 &&
	       e->exec_scn[s->ndx];
}

/*
 * @s contains file offset @off: its address, put in the file by the
 * PT_LOAD that holds it, is @off or (sized) starts @s->size bytes at most
 * before it. @k: how far in.
 */
static bool contains(const struct fx_elf *e, const struct fx_sym *s,
		     uint64_t off, uint64_t *k)
{
	uint64_t soff;

	if (s->ndx == FX_UND || s->ndx == FX_ABS || !*s->name ||
	    !fx_load_off(e->loads, e->nloads, s->value, &soff) || soff > off)
		return false;
	*k = off - soff;
	return s->size ? *k < s->size : *k == 0;
}

/*
 * The name readelf prints for @s, as a symbol line shows it: from .dynsym
 * the default version (NAME@@VER) bare, another (NAME@VER) as it stands.
 */
static void shown_name(const struct fx_sym *s, bool dyn, char *buf, size_t len)
{
	const char *at = dyn ? strstr(s->name, "@@") : NULL;

	snprintf(buf, len, "%.*s",
		 at ? (int)(at - s->name) : (int)strlen(s->name), s->name);
}

/*
 * @got (err @err) for offset @off: 0 and "NAME+0xK" of a code symbol that
 * contains it (.symtab's, else .dynsym's), or -ENOENT when no symbol of
 * either table does. Return: whether it holds; @cands counts
 * the symbols that would do.
 */
static bool readelf_agrees(const struct fx_elf *e, uint64_t off, int err,
			   const char *got, size_t *cands)
{
	const struct fx_symtab *tabs[2] = {&e->symtab, &e->dynsym};
	bool has[2] = {e->has_symtab, e->has_dynsym}, match = false;
	char want[512], name[480];
	size_t i, n = 0;
	uint64_t k;
	int t;

	for (t = 0; t < 2 && !n; t++) {
		for (i = 0; has[t] && i < tabs[t]->n; i++) {
			const struct fx_sym *si = &tabs[t]->s[i];

			if (!is_code(e, si) || !contains(e, si, off, &k))
				continue;
			n++;
			shown_name(si, t == 1, name, sizeof(name));
			snprintf(want, sizeof(want), "%s+0x%" PRIx64, name, k);
			match |= !err && !strcmp(got, want);
		}
	}
	*cands = n;
	return n ? match : err == -ENOENT;
}

/* The file offset of @name's address, as readelf shows it in @table. */
static uint64_t readelf_off(const char *path, const char *table,
			    const char *name)
{
	struct fx_symtab t;
	uint64_t off = 0;
	size_t i;

	if (fx_symtab(path, table, &t))
		return 0;
	for (i = 0; i < t.n; i++)
		if (!strcmp(t.s[i].name, name) &&
		    fx_vaddr_to_off(path, t.s[i].value, &off))
			break;
	fx_symtab_free(&t);
	return off;
}

/* ---- cases ---- */

/* Every @step-th offset of each executable segment, and a bit around. */
static void compare_file(const char *path, uint64_t step)
{
	char got[512];
	size_t done = 0, named = 0, cands;
	int i, e1, bad = 0;
	uint64_t off, end;
	struct fx_elf e;

	if (fx_elf_read(path, &e)) {
		skip("%s: readelf shows no PT_LOAD", path);
		return;
	}
	for (i = 0; i < e.nloads && bad < 20; i++) {
		if (!e.loads[i].exec)
			continue;
		end = e.loads[i].off + e.loads[i].filesz + 64;
		off = e.loads[i].off > 64 ? e.loads[i].off - 64 : 0;
		for (; off < end && bad < 20; off += step, done++) {
			got[0] = '\0';
			e1 = uprobe_symbolize(path, off, got, sizeof(got));
			bad += !EXPECT(readelf_agrees(&e, off, e1, got, &cands),
				       "%s 0x%" PRIx64
				       ": cache %d '%s', readelf "
				       "shows %zu containing symbol(s)",
				       path, off, e1, got, cands);
			named += cands > 0;
		}
	}
	fx_elf_free(&e);
	EXPECT(named > 0, "%s: no offset had a symbol", path);
	group_end("%s: %zu offsets (step %" PRIu64 "), %zu named, as readelf "
		  "says",
		  path, done, step, named);
}

/* Symbolize @off in @p and check it against readelf's symbols of @p. */
static void expect_readelf(const char *p, uint64_t off, const char *what)
{
	char b[128] = "";
	struct fx_elf e;
	size_t cands = 0;
	int err;

	err = uprobe_symbolize(p, off, b, sizeof(b));
	if (fx_elf_read(p, &e)) {
		EXPECT(0, "%s: readelf cannot read %s", what, p);
		return;
	}
	EXPECT(readelf_agrees(&e, off, err, b, &cands),
	       "%s 0x%" PRIx64 ": cache %d '%s', readelf shows %zu symbol(s)",
	       what, off, err, b, cands);
	fx_elf_free(&e);
	diag("%s: 0x%" PRIx64 " is '%s'", what, off, err ? "(none)" : b);
}

/* A file rewritten in place (same inode) must be parsed again. */
static void test_invalidation(void)
{
	char p[PATH_MAX], name[128] = "";
	uint64_t off;

	fx_path("changing", p);
	EXPECT(fx_run("cp pie changing") == 0, "cp");
	/* func_a's start in pie; something else in nopie */
	off = readelf_off(p, ".symtab", "func_a");
	EXPECT(off, "readelf shows no func_a in %s", p);
	expect_readelf(p, off, "before");
	EXPECT(uprobe_symbolize(p, off, name, sizeof(name)) == 0 &&
		       !strcmp(name, "func_a+0x0"),
	       "before: '%s', not func_a+0x0", name);
	/* same inode, other content: cat, not cp --remove-destination */
	EXPECT(fx_run("sleep 0.01; cat nopie > changing") == 0, "rewrite");
	expect_readelf(p, off, "after the rewrite");
}

/*
 * The fixture's own symbols (fixture.c wrote them): each one's address, as
 * readelf gives it, is named after it. A global IFUNC beats the local
 * resolver at the same address; in a file with only .dynsym, the default
 * version is bare and another keeps its @VER.
 */
static void test_known(void)
{
	static const struct {
		const char *file, *table, *sym, *want;
	} k[] = {
		{"pie", ".symtab", "func_a", "func_a+0x0"},
		{"pie", ".symtab", "func_b", "func_b+0x0"},
		{"pie", ".symtab", "weak_fn", "weak_fn+0x0"},
		{"pie", ".symtab", "asm_label", "asm_label+0x0"},
		{"pie", ".symtab", "fancy", "fancy+0x0"},
		{"nopie", ".symtab", "tu_b", "tu_b+0x0"},
		{"libv_stripped.so", ".dynsym", "foo@VER_1", "foo@VER_1+0x0"},
		{"libv_stripped.so", ".dynsym", "foo@@VER_2", "foo+0x0"},
	};
	char p[PATH_MAX], got[128];
	uint64_t off;
	size_t i;
	int err;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		fx_path(k[i].file, p);
		off = readelf_off(p, k[i].table, k[i].sym);
		got[0] = '\0';
		err = off ? uprobe_symbolize(p, off, got, sizeof(got))
			  : -ENOENT;
		EXPECT(off && !err && !strcmp(got, k[i].want),
		       "%s %s (0x%" PRIx64 "): %d '%s', want '%s'", k[i].file,
		       k[i].sym, off, err, got, k[i].want);
	}
}

/* More files than the cache holds: each still right, none lost. */
static void test_many_files(void)
{
	char p[PATH_MAX], want[128], got[128], name[32];
	uint64_t off;
	int i, round;

	fx_path("pie", p);
	off = readelf_off(p, ".symtab", "func_a") + 1;
	snprintf(want, sizeof(want), "func_a+0x1");
	EXPECT(off > 1, "readelf shows no func_a in %s", p);
	for (i = 0; i < 40; i++)
		EXPECT(fx_run("cp pie many%d", i) == 0, "cp pie many%d", i);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 40; i++) {
			snprintf(name, sizeof(name), "many%d", i);
			fx_path(name, p);
			got[0] = '\0';
			EXPECT(uprobe_symbolize(p, off, got, sizeof(got)) ==
					       0 &&
				       !strcmp(got, want),
			       "%s: '%s' want '%s'", p, got, want);
		}
	}
}

static void *thread_fn(void *arg)
{
	const char *path = arg;
	char a[128], b[128];
	int i;

	for (i = 0; i < 2000; i++) {
		if (i % 500 == 0)
			uprobe_symcache_flush();
		a[0] = b[0] = '\0'; /* untouched when there is no symbol */
		if (uprobe_symbolize(path, 0x1000 + i, a, sizeof(a)) !=
			    uprobe_symbolize(path, 0x1000 + i, b, sizeof(b)) ||
		    strcmp(a, b))
			return (void *)1;
	}
	return NULL;
}

static void test_threads(const char *libc)
{
	pthread_t th[4];
	void *ret;
	int i;

	for (i = 0; i < 4; i++)
		EXPECT(pthread_create(&th[i], NULL, thread_fn, (void *)libc) ==
			       0,
		       "thread");
	for (i = 0; i < 4; i++)
		EXPECT(pthread_join(th[i], &ret) == 0 && !ret, "thread %d", i);
}

/*
 * Lookups into libc on a cold cache (flushed before each) agree with the
 * warm ones, and a thousand warm ones fail nowhere. (How much faster the
 * cache is belongs in bench/, as a ratio, not here.)
 */
static void test_cold_warm(const char *libc)
{
	char cold[128], warm[128];
	int i, e1, e2;

	for (i = 0; i < 200; i++) {
		cold[0] = warm[0] = '\0';
		uprobe_symcache_flush();
		e1 = uprobe_symbolize(libc, 0x30000 + i * 97, cold,
				      sizeof(cold));
		e2 = uprobe_symbolize(libc, 0x30000 + i * 97, warm,
				      sizeof(warm));
		EXPECT((!e1 || e1 == -ENOENT) && e1 == e2 &&
			       !strcmp(cold, warm),
		       "0x%x: cold %d '%s', warm %d '%s'", 0x30000 + i * 97, e1,
		       cold, e2, warm);
	}
	for (i = 0; i < 1000; i++) {
		e1 = uprobe_symbolize(libc, 0x30000 + i * 97, warm,
				      sizeof(warm));
		EXPECT(!e1 || e1 == -ENOENT, "0x%x: %d", 0x30000 + i * 97, e1);
	}
}

int main(void)
{
	static const char *const fx[] = {"pie", "nopie", "libv.so",
					 "libv_stripped.so", "lld"};
	char libc[PATH_MAX], p[PATH_MAX];
	struct uprobe_err e = {.path_col = 3, .symbol_col = 7};
	size_t i;

	fx_start("test_symcache");
	for (i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
		fx_path(fx[i], p);
		if (fx_have(fx[i]))
			compare_file(p, 1);
	}
	if (realpath("/usr/bin/bash", p))
		compare_file(p, 61);
	libc[0] = '\0';
	if (!CHECK(uprobe_resolve_path("libc", 0, libc, &e) == 0,
		   "libc found: '%s' %s", libc, e.e.msg))
		bail_out("no libc");
	compare_file(libc, 37);
	test_known();
	group_end("the fixture's own symbols, named as fixture.c wrote them");
	test_invalidation();
	group_end("a file rewritten in place is read again");
	test_many_files();
	group_end("40 files, 3 rounds");
	test_threads(libc);
	group_end("4 threads, flushing now and then");
	test_cold_warm(libc);
	group_end("cold cache = warm cache");
	fx_cleanup();
	return done_testing();
}
