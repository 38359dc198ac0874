// SPDX-License-Identifier: GPL-2.0-only
/*
 * The resolution cache of uprobe_resolve(): on a fixture of 1000 functions
 * (bench/fixture_gen.sh, path in argv[1]) every function resolves through
 * the cache to the file offset nm and readelf give, and to exactly what
 * uprobe_resolve_uncached() gives; so do the error cases and every .dynsym
 * name of bash and libc (result, message, warning, device, inode). A file
 * rewritten in place, or renamed over, is parsed again; more files than the
 * cache holds still resolve; threads share it; no fd stays open. (How
 * much faster the cache is belongs in bench/, as a ratio, not here.) Skips
 * when gcc, nm or readelf is missing.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "uprobe_cache.h"
#include "uprobe_target.h"

#define NFUNC 1000

static char names[NFUNC][32];
static uint64_t want_a[NFUNC], want_b[NFUNC]; /* fixture, fixture_b */

/* ---- nm and readelf, the independent source of expected offsets ---- */

/* The file offset of each bench_fn_NNNN of @file, by nm and readelf. */
static void expected_offsets(const char *file, uint64_t *want)
{
	char cmd[PATH_MAX + 64], line[256], name[64];
	struct fx_load l[16];
	int nl = fx_loads(file, l, 16), i, idx;
	uint64_t v;
	FILE *p;

	memset(want, 0, NFUNC * sizeof(*want));
	snprintf(cmd, sizeof(cmd), "nm --defined-only '%s'", file);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%" SCNx64 " %*s %63s", &v, name) != 2 ||
		    sscanf(name, "bench_fn_%d", &idx) != 1 || idx < 0 ||
		    idx >= NFUNC)
			continue;
		for (i = 0; i < nl; i++)
			if (v >= l[i].vaddr && v - l[i].vaddr < l[i].filesz)
				want[idx] = v - l[i].vaddr + l[i].off;
	}
	if (p)
		pclose(p);
	for (i = 0; i < NFUNC; i++)
		EXPECT(want[i], "%s: no offset for bench_fn_%04d", file, i);
}

/* ---- cached against uncached ---- */

struct res {
	int err;
	struct uprobe_target t;
	struct uprobe_err e;
};

static void resolve2(const char *path, const char *sym, uint64_t off,
		     bool by_off, bool ret, struct res *c, struct res *u)
{
	memset(c, 0, sizeof(*c));
	memset(u, 0, sizeof(*u));
	c->e.symbol_col = u->e.symbol_col = 7;
	c->err = uprobe_resolve(path, sym, off, by_off, ret, &c->t, &c->e);
	u->err = uprobe_resolve_uncached(path, sym, off, by_off, ret, &u->t,
					 &u->e);
}

static bool same(const struct res *c, const struct res *u)
{
	if (c->err != u->err)
		return false;
	if (c->err)
		return c->e.e.column == u->e.e.column &&
		       !strcmp(c->e.e.msg, u->e.e.msg);
	return c->t.offset == u->t.offset && c->t.dev == u->t.dev &&
	       c->t.ino == u->t.ino && !strcmp(c->t.path, u->t.path) &&
	       !strcmp(c->t.warning, u->t.warning);
}

/* @sym (with +@off) in @path: both ways alike; the cached result in @c. */
static void compare(const char *path, const char *sym, uint64_t off,
		    bool by_off, bool ret, struct res *c)
{
	struct res u;

	resolve2(path, sym, off, by_off, ret, c, &u);
	EXPECT(same(c, &u),
	       "%s %s+0x%" PRIx64 ": cached %d '%s' 0x%" PRIx64
	       ", uncached %d '%s' 0x%" PRIx64,
	       path, sym ? sym : "(offset)", off, c->err, c->e.e.msg,
	       c->t.offset, u.err, u.e.e.msg, u.t.offset);
}

static void test_all_functions(const char *path, const uint64_t *want)
{
	struct res c;
	int i;

	uprobe_rescache_flush();
	for (i = 0; i < NFUNC; i++) {
		compare(path, names[i], 0, false, false, &c);
		EXPECT(!c.err && c.t.offset == want[i],
		       "%s: %d '%s' 0x%" PRIx64 ", want 0x%" PRIx64, names[i],
		       c.err, c.e.e.msg, c.t.offset, want[i]);
		compare(path, names[i], 4, false, false, &c);
		EXPECT(!c.err && c.t.offset == want[i] + 4, "%s+4", names[i]);
	}
	group_end("%s: %d functions, cached = uncached = nm/readelf", path,
		  NFUNC);
}

static void test_errors(const char *path)
{
	static const char *const bad[] = {"no_such_fn",
					  "bench_fn_0001@VER",
					  "bench_fn_0001@@VER",
					  "bench_fn",
					  "main",
					  "malloc",
					  "@x",
					  "bench_fn_0001@",
					  "_start",
					  "__bss_start"};
	struct res c;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		compare(path, bad[i], 0, false, false, &c);
	compare(path, names[1], 0x100000, false, false, &c);
	EXPECT(c.err == -EINVAL, "past the end: %d", c.err);
	compare(path, names[1], 4, false, true, &c);
	EXPECT(c.err == -EINVAL, "uretprobe +4: %d", c.err);
	compare(path, NULL, want_a[2], true, false, &c);
	compare(path, NULL, 0, true, false, &c);
	EXPECT(c.err == -EINVAL, "offset 0: %d", c.err);
	compare(path, NULL, 1ull << 40, true, false, &c);
	compare("/nonexistent/x", names[1], 0, false, false, &c);
	EXPECT(c.err == -ENOENT, "missing file: %d", c.err);
}

/*
 * Every .dynsym name of @path, bare and with its version as "@VER" and
 * "@@VER": imports (whose message names the defining library), versions,
 * aliases, IFUNCs and data objects.
 */
static void test_dynsym(const char *path)
{
	const char *at, *ver;
	struct fx_symtab t;
	char name[512];
	struct res c;
	size_t i, n = 0;
	int base;

	if (fx_symtab(path, ".dynsym", &t)) {
		skip("%s: no .dynsym", path);
		return;
	}
	for (i = 0; i < t.n; i++) {
		at = strchr(t.s[i].name, '@');
		base = at ? (int)(at - t.s[i].name) : (int)strlen(t.s[i].name);
		if (!base)
			continue;
		ver = at ? at + (at[1] == '@' ? 2 : 1) : NULL;
		/* a version's own symbol (ABS): readelf shows no version */
		if (!at && t.s[i].ndx == FX_ABS)
			ver = t.s[i].name;
		snprintf(name, sizeof(name), "%.*s", base, t.s[i].name);
		compare(path, name, 0, false, false, &c);
		if (ver) {
			snprintf(name, sizeof(name), "%.*s@%s", base,
				 t.s[i].name, ver);
			compare(path, name, 0, false, false, &c);
			snprintf(name, sizeof(name), "%.*s@@%s", base,
				 t.s[i].name, ver);
			compare(path, name, 0, false, false, &c);
		}
		n++;
	}
	fx_symtab_free(&t);
	group_end("%s: %zu .dynsym names alike", path, n);
}

/* ---- the cache follows the file ---- */

static void expect_at(const char *p, int i, uint64_t want, const char *what)
{
	struct res c;
	struct stat st;

	compare(p, names[i], 0, false, false, &c);
	EXPECT(stat(p, &st) == 0 && !c.err && c.t.offset == want &&
		       c.t.ino == st.st_ino,
	       "%s: %s %d 0x%" PRIx64 ", want 0x%" PRIx64, what, names[i],
	       c.err, c.t.offset, want);
}

static void test_invalidation(void)
{
	char p[PATH_MAX], canon[PATH_MAX];
	struct uprobe_err e = {.path_col = 3, .symbol_col = 7};
	struct stat st0, st1;
	struct res c;
	int i = 500;

	fx_path("changing", p);
	EXPECT(want_a[i] != want_b[i], "the layouts must differ");
	EXPECT(fx_run("cp fixture changing") == 0, "cp");
	expect_at(p, i, want_a[i], "first");
	EXPECT(stat(p, &st0) == 0, "stat");
	/* same inode, other layout: cat, not cp --remove-destination */
	EXPECT(fx_run("sleep 0.01; cat fixture_b > changing") == 0, "rewrite");
	EXPECT(stat(p, &st1) == 0 && st1.st_ino == st0.st_ino, "same inode");
	expect_at(p, i, want_b[i], "rewritten in place");
	EXPECT(fx_run("cp fixture tmp && mv tmp changing") == 0, "rename");
	EXPECT(stat(p, &st1) == 0 && st1.st_ino != st0.st_ino, "new inode");
	expect_at(p, i, want_a[i], "renamed over");
	/* no longer ELF: the path check must not trust the cache */
	EXPECT(fx_run("sleep 0.01; echo text > changing") == 0, "text");
	EXPECT(uprobe_resolve_path(p, 0, canon, &e) == -EINVAL,
	       "path of a text file: '%s'", e.e.msg);
	compare(p, names[i], 0, false, false, &c);
	EXPECT(c.err == -EINVAL, "text file: %d '%s'", c.err, c.e.e.msg);
	EXPECT(fx_run("cat fixture > changing") == 0, "back");
	EXPECT(uprobe_resolve_path(p, 0, canon, &e) == 0, "%s", e.e.msg);
	expect_at(p, i, want_a[i], "ELF again");
}

/* More files than the cache holds (8): each still right. */
static void test_many_files(void)
{
	char p[PATH_MAX], cmd[128];
	int i, round;

	for (i = 0; i < 20; i++)
		EXPECT(fx_run("cp fixture%s many%d", i % 2 ? "_b" : "", i) == 0,
		       "cp many%d", i);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 20; i++) {
			snprintf(cmd, sizeof(cmd), "many%d", i);
			fx_path(cmd, p);
			expect_at(p, (i * 37 + round) % NFUNC,
				  (i % 2 ? want_b
					 : want_a)[(i * 37 + round) % NFUNC],
				  "many");
		}
	}
}

struct thr {
	char paths[2][PATH_MAX];
	int seed, bad;
};

/* Resolve two files round-robin, flushing now and then. */
static void *thread_fn(void *arg)
{
	struct thr *th = arg;
	struct uprobe_target t;
	struct uprobe_err e = {.path_col = 3, .symbol_col = 7};
	int i, k, f;

	for (i = 0; i < 3000; i++) {
		if (i % 700 == th->seed)
			uprobe_rescache_flush();
		k = (i * 7 + th->seed * 131) % NFUNC;
		f = (i + th->seed) % 2;
		if (uprobe_resolve(th->paths[f], names[k], 0, false, false, &t,
				   &e) ||
		    t.offset != (f ? want_b : want_a)[k])
			th->bad++;
	}
	return NULL;
}

static void test_threads(void)
{
	struct thr th[4];
	pthread_t id[4];
	int i;

	for (i = 0; i < 4; i++) {
		fx_path("fixture", th[i].paths[0]);
		fx_path("fixture_b", th[i].paths[1]);
		th[i].seed = i;
		th[i].bad = 0;
		EXPECT(pthread_create(&id[i], NULL, thread_fn, &th[i]) == 0,
		       "thread");
	}
	for (i = 0; i < 4; i++)
		EXPECT(pthread_join(id[i], NULL) == 0 && !th[i].bad,
		       "thread %d: %d wrong", i, th[i].bad);
}

/* The fixture and a second build of it with another layout (-O0). */
static void build_fixtures(const char *gen)
{
	char p[PATH_MAX];
	FILE *f;
	int n = 0;

	if (fx_run("sh '%s' . %d", gen, NFUNC) ||
	    fx_run("gcc -O0 -fno-ipa-icf -fno-inline fixture.c -o fixture_b"))
		bail_out("building the fixtures in %s failed", fx_dir());
	fx_path("symbols.txt", p);
	f = fopen(p, "r");
	while (f && n < NFUNC && fscanf(f, "%31s", names[n]) == 1)
		n++;
	if (f)
		fclose(f);
	EXPECT(n == NFUNC, "symbols.txt: %d names", n);
	fx_path("fixture", p);
	expected_offsets(p, want_a);
	fx_path("fixture_b", p);
	expected_offsets(p, want_b);
	group_end("the fixtures: %d functions, offsets from nm and readelf",
		  NFUNC);
}

int main(int argc, char **argv)
{
	char p[PATH_MAX];
	int fds_before;

	if (argc < 2 || system("command -v gcc >/dev/null && command -v nm "
			       ">/dev/null && command -v readelf >/dev/null"))
		skip_all("needs gcc, nm, readelf and fixture_gen.sh");
	if (fx_init("test_rescache"))
		bail_out("mkdtemp failed");
	build_fixtures(argv[1]);
	fds_before = check_open_fds();
	fx_path("fixture", p);
	test_all_functions(p, want_a);
	test_errors(p);
	group_end("fixture: error cases alike");
	fx_path("fixture_b", p);
	test_all_functions(p, want_b);
	if (uprobe_resolve_path("bash", 0, p, NULL) == 0)
		test_dynsym(p);
	if (uprobe_resolve_path("libc.so.6", 0, p, NULL) == 0)
		test_dynsym(p);
	test_invalidation();
	group_end("rewritten in place, renamed over, not ELF, ELF again");
	test_many_files();
	group_end("20 files, 3 rounds");
	test_threads();
	group_end("4 threads, flushing now and then");
	uprobe_rescache_flush();
	CHECK(check_open_fds() == fds_before, "no fd leaked: %d -> %d",
	      fds_before, check_open_fds());
	fx_cleanup();
	return done_testing();
}
