// SPDX-License-Identifier: GPL-2.0-only
/*
 * The symbol cache of uprobe_symbolize(): for every offset of the code of
 * real files (fixture.c's, bash, libc) the cached lookup must give exactly
 * what a plain linear scan of the symbol tables gives; the reference below
 * reads those tables with `readelf -lW -SW -sW` (never with the code under
 * test). A file changed in place is parsed again; more files than the
 * cache holds still resolve; threads share it; a cold cache (flushed
 * before each lookup) agrees with a warm one. Skips when gcc or readelf is
 * missing.
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

/* ---- the reference: a linear scan, as bpflinkfs(8), THE TREE defines `symbol`
 * ---- */

static int rank(const struct fx_sym *s)
{
	if (!strcmp(s->bind, "GLOBAL") || !strcmp(s->bind, "UNIQUE"))
		return 2;
	return !strcmp(s->bind, "WEAK");
}

/* A function, an IFUNC, or an untyped label inside executable code. */
static bool is_code(const struct fx_elf *e, const struct fx_sym *s)
{
	if (!strcmp(s->type, "FUNC") || !strcmp(s->type, "IFUNC"))
		return true;
	return !strcmp(s->type, "NOTYPE") && s->ndx >= 0 && s->ndx < 1024 &&
	       e->exec_scn[s->ndx];
}

/*
 * The code symbol containing @vaddr in @t: sized ones that contain it, or
 * unsized ones exactly at it; global beats weak beats local, a size beats
 * none, and the first in the table wins a tie.
 */
static const struct fx_sym *ref_table(const struct fx_elf *e,
				      const struct fx_symtab *t, uint64_t vaddr)
{
	const struct fx_sym *si, *best = NULL;
	int score, best_score = -1;
	bool sized;
	size_t i;

	for (i = 0; i < t->n; i++) {
		si = &t->s[i];
		if (si->ndx == FX_UND || si->ndx == FX_ABS || !*si->name ||
		    !is_code(e, si) || si->value > vaddr)
			continue;
		sized = si->size && vaddr - si->value < si->size;
		if (!sized && (si->size || si->value != vaddr))
			continue;
		score = rank(si) * 2 + sized;
		if (score > best_score) {
			best_score = score;
			best = si;
		}
	}
	return best;
}

/* The file offset @off as a virtual address: an executable PT_LOAD wins. */
static int ref_vaddr(const struct fx_elf *e, uint64_t off, uint64_t *vaddr)
{
	int i, err = -ENOENT;

	for (i = 0; i < e->nloads; i++) {
		const struct fx_load *l = &e->loads[i];

		if (off < l->off || off - l->off >= l->filesz)
			continue;
		*vaddr = off - l->off + l->vaddr;
		err = 0;
		if (l->exec)
			break;
	}
	return err;
}

/*
 * .symtab first, then .dynsym. A name from .symtab as it stands there;
 * from .dynsym with a non-default version as NAME@VER, else bare (readelf
 * prints the default one as NAME@@VER).
 */
static int ref_symbolize(const struct fx_elf *e, uint64_t off, char *buf,
			 size_t len)
{
	const struct fx_sym *best = NULL;
	int namelen;
	uint64_t vaddr;
	char *at;

	if (ref_vaddr(e, off, &vaddr))
		return -ENOENT;
	if (e->has_symtab)
		best = ref_table(e, &e->symtab, vaddr);
	if (!best && e->has_dynsym) {
		best = ref_table(e, &e->dynsym, vaddr);
		if (best && (at = strstr(best->name, "@@"))) {
			namelen = (int)(at - best->name);
			snprintf(buf, len, "%.*s+0x%" PRIx64, namelen,
				 best->name, vaddr - best->value);
			return 0;
		}
	}
	if (!best)
		return -ENOENT;
	snprintf(buf, len, "%s+0x%" PRIx64, best->name, vaddr - best->value);
	return 0;
}

/* ---- cases ---- */

/* Every @step-th offset of each executable segment, and a bit around. */
static void compare_file(const char *path, uint64_t step)
{
	char got[512], want[512];
	size_t done = 0, named = 0;
	int i, e1, e2, bad = 0;
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
			got[0] = want[0] = '\0';
			e1 = uprobe_symbolize(path, off, got, sizeof(got));
			e2 = ref_symbolize(&e, off, want, sizeof(want));
			named += !e2;
			bad += !EXPECT(e1 == e2 && (e1 || !strcmp(got, want)),
				       "%s 0x%" PRIx64
				       ": cache %d '%s', scan %d '%s'",
				       path, off, e1, got, e2, want);
		}
	}
	fx_elf_free(&e);
	EXPECT(named > 0, "%s: no offset had a symbol", path);
	group_end("%s: %zu offsets (step %" PRIu64 "), %zu named, as readelf "
		  "says",
		  path, done, step, named);
}

/* The first offset of @path that the reference names @prefix...; or 0. */
static uint64_t first_named(const char *path, const char *prefix, char *name,
			    size_t len)
{
	struct fx_elf e;
	uint64_t off, end = 0;
	int i;

	if (fx_elf_read(path, &e))
		return 0;
	for (i = 0; i < e.nloads; i++)
		if (e.loads[i].off + e.loads[i].filesz > end)
			end = e.loads[i].off + e.loads[i].filesz;
	for (off = 0; off < end; off++)
		if (!ref_symbolize(&e, off, name, len) &&
		    !strncmp(name, prefix, strlen(prefix)))
			break;
	fx_elf_free(&e);
	return off < end ? off : 0;
}

/* Symbolize @off in @p both ways: the cache and the readelf scan. */
static void expect_same(const char *p, uint64_t off, const char *what)
{
	char a[128] = "", b[128] = "";
	struct fx_elf e;
	int e1 = -ENOENT, e2;

	if (!fx_elf_read(p, &e)) {
		e1 = ref_symbolize(&e, off, a, sizeof(a));
		fx_elf_free(&e);
	}
	e2 = uprobe_symbolize(p, off, b, sizeof(b));
	EXPECT(e1 == e2 && (e1 || !strcmp(a, b)),
	       "%s 0x%" PRIx64 ": scan %d '%s', cache %d '%s'", what, off, e1,
	       a, e2, b);
	diag("%s: 0x%" PRIx64 " is '%s'", what, off, e2 ? "(none)" : b);
}

/* A file rewritten in place (same inode) must be parsed again. */
static void test_invalidation(void)
{
	char p[PATH_MAX], name[128];
	uint64_t off;

	fx_path("changing", p);
	EXPECT(fx_run("cp pie changing") == 0, "cp");
	/* an offset in func_a of pie; something else in nopie */
	off = first_named(p, "func_a+", name, sizeof(name));
	EXPECT(off, "no offset in func_a");
	expect_same(p, off, "before");
	/* same inode, other content: cat, not cp --remove-destination */
	EXPECT(fx_run("sleep 0.01; cat nopie > changing") == 0, "rewrite");
	expect_same(p, off, "after the rewrite");
}

/* More files than the cache holds: each still right, none lost. */
static void test_many_files(void)
{
	char p[PATH_MAX], want[128], got[128], name[32];
	uint64_t off;
	int i, round;

	fx_path("pie", p);
	off = first_named(p, "func_a+0x", want, sizeof(want));
	EXPECT(off, "no offset in func_a");
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
