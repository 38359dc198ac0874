// SPDX-License-Identifier: GPL-2.0-only
/*
 * The resolution cache of uprobe_resolve(): on a fixture of 1000 functions
 * (bench/fixture_gen.sh, path in argv[1]) every function resolves through
 * the cache to the file offset nm and readelf give, and to exactly what
 * uprobe_resolve_uncached() gives; so do the error cases and every .dynsym
 * name of bash and libc (result, message, warning, device, inode). A file
 * rewritten in place, or renamed over, is parsed again; more files than the
 * cache holds still resolve; threads share it; no fd stays open. Prints
 * the time of 1000 calls with and without the cache. Exits 77 when gcc, nm
 * or readelf is missing.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "uprobe_internal.h"
#include "uprobe_target.h"

#define NFUNC 1000

static int failures, checks;
static char dir[256];
static char names[NFUNC][32];
static uint64_t want_a[NFUNC], want_b[NFUNC]; /* fixture, fixture_b */

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		checks++;                                                      \
		if (!(cond)) {                                                 \
			failures++;                                            \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);                                   \
			printf("\n");                                          \
		}                                                              \
	} while (0)

static int run(const char *cmd)
{
	char full[1024];

	snprintf(full, sizeof(full), "cd '%s' && %s", dir, cmd);
	return system(full) == 0 ? 0 : -1;
}

static void fpath(const char *name, char *out)
{
	snprintf(out, PATH_MAX, "%s/%s", dir, name);
}

/* ---- nm and readelf, the independent source of expected offsets ---- */

struct load {
	uint64_t off, vaddr, filesz;
};

static int readelf_loads(const char *file, struct load *l, int max)
{
	char cmd[PATH_MAX + 32], line[512];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "readelf -lW '%s'", file);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p) && n < max) {
		uint64_t o, v, pa, fs;

		if (sscanf(line,
			   " LOAD %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64,
			   &o, &v, &pa, &fs) == 4)
			l[n++] = (struct load){o, v, fs};
	}
	if (p)
		pclose(p);
	return n;
}

/* The file offset of each bench_fn_NNNN of @file, by nm and readelf. */
static void expected_offsets(const char *file, uint64_t *want)
{
	char cmd[PATH_MAX + 64], line[256], name[64];
	struct load l[16];
	int nl = readelf_loads(file, l, 16), i, idx;
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
		CHECK(want[i], "%s: no offset for bench_fn_%04d", file, i);
}

/* ---- cached against uncached ---- */

struct res {
	int err;
	struct uprobe_target t;
	struct target_error e;
};

static void resolve2(const char *path, const char *sym, uint64_t off,
		     bool by_off, bool ret, struct res *c, struct res *u)
{
	memset(c, 0, sizeof(*c));
	memset(u, 0, sizeof(*u));
	c->err = uprobe_resolve(path, sym, off, by_off, ret, &c->t, &c->e);
	u->err = uprobe_resolve_uncached(path, sym, off, by_off, ret, &u->t,
					 &u->e);
}

static bool same(const struct res *c, const struct res *u)
{
	if (c->err != u->err)
		return false;
	if (c->err)
		return c->e.column_hint == u->e.column_hint &&
		       !strcmp(c->e.msg, u->e.msg);
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
	CHECK(same(c, &u),
	      "%s %s+0x%" PRIx64 ": cached %d '%s' 0x%" PRIx64
	      ", uncached %d '%s' 0x%" PRIx64,
	      path, sym ? sym : "(offset)", off, c->err, c->e.msg, c->t.offset,
	      u.err, u.e.msg, u.t.offset);
}

static void test_all_functions(const char *path, const uint64_t *want)
{
	struct res c;
	int i;

	printf("# %s: %d functions, cached = uncached = nm/readelf\n", path,
	       NFUNC);
	uprobe_rescache_flush();
	for (i = 0; i < NFUNC; i++) {
		compare(path, names[i], 0, false, false, &c);
		CHECK(!c.err && c.t.offset == want[i],
		      "%s: %d '%s' 0x%" PRIx64 ", want 0x%" PRIx64, names[i],
		      c.err, c.e.msg, c.t.offset, want[i]);
		compare(path, names[i], 4, false, false, &c);
		CHECK(!c.err && c.t.offset == want[i] + 4, "%s+4", names[i]);
	}
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

	printf("# %s: error cases alike\n", path);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		compare(path, bad[i], 0, false, false, &c);
	compare(path, names[1], 0x100000, false, false, &c);
	CHECK(c.err == -EINVAL, "past the end: %d", c.err);
	compare(path, names[1], 4, false, true, &c);
	CHECK(c.err == -EINVAL, "uretprobe +4: %d", c.err);
	compare(path, NULL, want_a[2], true, false, &c);
	compare(path, NULL, 0, true, false, &c);
	CHECK(c.err == -EINVAL, "offset 0: %d", c.err);
	compare(path, NULL, 1ull << 40, true, false, &c);
	compare("/nonexistent/x", names[1], 0, false, false, &c);
	CHECK(c.err == -ENOENT, "missing file: %d", c.err);
}

/*
 * Every .dynsym name of @path, bare and with its version as "@VER" and
 * "@@VER": imports (whose message names the defining library), versions,
 * aliases, IFUNCs and data objects.
 */
static void test_dynsym(const char *path)
{
	struct uprobe_symtab t;
	struct uprobe_sym si;
	struct uprobe_elf f;
	char name[512];
	struct res c;
	size_t i, n = 0;

	if (uprobe_elf_open(&f, path, NULL) ||
	    uprobe_symtab_load(f.elf, SHT_DYNSYM, &t)) {
		printf("# skip %s: no .dynsym\n", path);
		uprobe_elf_close(&f);
		return;
	}
	for (i = 1; i < t.count; i++) {
		if (uprobe_sym_get(&t, i, &si) || !si.baselen)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)si.baselen, si.name);
		compare(path, name, 0, false, false, &c);
		if (si.ver) {
			snprintf(name, sizeof(name), "%.*s@%s", (int)si.baselen,
				 si.name, si.ver);
			compare(path, name, 0, false, false, &c);
			snprintf(name, sizeof(name), "%.*s@@%s",
				 (int)si.baselen, si.name, si.ver);
			compare(path, name, 0, false, false, &c);
		}
		n++;
	}
	uprobe_symtab_free(&t);
	uprobe_elf_close(&f);
	printf("# %s: %zu .dynsym names alike\n", path, n);
}

/* ---- the cache follows the file ---- */

static void expect_at(const char *p, int i, uint64_t want, const char *what)
{
	struct res c;
	struct stat st;

	compare(p, names[i], 0, false, false, &c);
	CHECK(stat(p, &st) == 0 && !c.err && c.t.offset == want &&
		      c.t.ino == st.st_ino,
	      "%s: %s %d 0x%" PRIx64 ", want 0x%" PRIx64, what, names[i], c.err,
	      c.t.offset, want);
}

static void test_invalidation(void)
{
	char p[PATH_MAX], canon[PATH_MAX];
	struct target_error e;
	struct stat st0, st1;
	struct res c;
	int i = 500;

	printf("# rewrite in place, rename over\n");
	fpath("changing", p);
	CHECK(want_a[i] != want_b[i], "the layouts must differ");
	CHECK(run("cp fixture changing") == 0, "cp");
	expect_at(p, i, want_a[i], "first");
	CHECK(stat(p, &st0) == 0, "stat");
	/* same inode, other layout: cat, not cp --remove-destination */
	CHECK(run("sleep 0.01; cat fixture_b > changing") == 0, "rewrite");
	CHECK(stat(p, &st1) == 0 && st1.st_ino == st0.st_ino, "same inode");
	expect_at(p, i, want_b[i], "rewritten in place");
	CHECK(run("cp fixture tmp && mv tmp changing") == 0, "rename");
	CHECK(stat(p, &st1) == 0 && st1.st_ino != st0.st_ino, "new inode");
	expect_at(p, i, want_a[i], "renamed over");
	/* no longer ELF: the path check must not trust the cache */
	CHECK(run("sleep 0.01; echo text > changing") == 0, "text");
	CHECK(uprobe_resolve_path(p, 0, canon, &e) == -EINVAL,
	      "path of a text file: '%s'", e.msg);
	compare(p, names[i], 0, false, false, &c);
	CHECK(c.err == -EINVAL, "text file: %d '%s'", c.err, c.e.msg);
	CHECK(run("cat fixture > changing") == 0, "back");
	CHECK(uprobe_resolve_path(p, 0, canon, &e) == 0, "%s", e.msg);
	expect_at(p, i, want_a[i], "ELF again");
}

/* More files than the cache holds (8): each still right. */
static void test_many_files(void)
{
	char p[PATH_MAX], cmd[128];
	int i, round;

	printf("# 20 files, 3 rounds\n");
	for (i = 0; i < 20; i++) {
		snprintf(cmd, sizeof(cmd), "cp fixture%s many%d",
			 i % 2 ? "_b" : "", i);
		CHECK(run(cmd) == 0, "%s", cmd);
	}
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 20; i++) {
			snprintf(cmd, sizeof(cmd), "many%d", i);
			fpath(cmd, p);
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
	struct target_error e;
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

	printf("# 4 threads\n");
	for (i = 0; i < 4; i++) {
		fpath("fixture", th[i].paths[0]);
		fpath("fixture_b", th[i].paths[1]);
		th[i].seed = i;
		th[i].bad = 0;
		CHECK(pthread_create(&id[i], NULL, thread_fn, &th[i]) == 0,
		      "thread");
	}
	for (i = 0; i < 4; i++)
		CHECK(pthread_join(id[i], NULL) == 0 && !th[i].bad,
		      "thread %d: %d wrong", i, th[i].bad);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 1000 calls, one per function, as 1000 control-file lines would make. */
static double time_calls(const char *path, bool cached)
{
	struct uprobe_target t;
	struct target_error e;
	double t0 = now();
	int i, bad = 0;

	for (i = 0; i < NFUNC; i++)
		bad += cached ? uprobe_resolve(path, names[i], 0, false, false,
					       &t, &e) != 0
			      : uprobe_resolve_uncached(path, names[i], 0,
							false, false, &t,
							&e) != 0;
	CHECK(!bad, "%d calls failed", bad);
	return now() - t0;
}

static void bench(void)
{
	char p[PATH_MAX];
	double u, c;

	fpath("fixture", p);
	uprobe_rescache_flush();
	u = time_calls(p, false);
	c = time_calls(p, true); /* the first call parses */
	printf("# 1000 uprobe_resolve() on %d functions: uncached %.2f ms "
	       "(%.1f us/call), cached %.2f ms (%.2f us/call), %.0fx\n",
	       NFUNC, u * 1e3, u * 1e3, c * 1e3, c * 1e3, u / c);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

/* The fixture and a second build of it with another layout (-O0). */
static void build_fixtures(const char *gen)
{
	char cmd[PATH_MAX + 64], p[PATH_MAX];
	FILE *f;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "sh '%s' . %d", gen, NFUNC);
	if (run(cmd) || run("gcc -O0 -fno-ipa-icf -fno-inline fixture.c "
			    "-o fixture_b")) {
		fprintf(stderr, "building the fixtures failed\n");
		exit(1);
	}
	fpath("symbols.txt", p);
	f = fopen(p, "r");
	while (f && n < NFUNC && fscanf(f, "%31s", names[n]) == 1)
		n++;
	if (f)
		fclose(f);
	CHECK(n == NFUNC, "symbols.txt: %d names", n);
	fpath("fixture", p);
	expected_offsets(p, want_a);
	fpath("fixture_b", p);
	expected_offsets(p, want_b);
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/test_rescache.XXXXXX", p[PATH_MAX];
	int fds_before;

	if (argc < 2 || system("command -v gcc >/dev/null && command -v nm "
			       ">/dev/null && command -v readelf >/dev/null")) {
		printf("SKIP: needs gcc, nm, readelf and fixture_gen.sh\n");
		return 77;
	}
	if (!mkdtemp(tmpl) || !realpath(tmpl, p) || strlen(p) >= sizeof(dir)) {
		perror("mkdtemp");
		return 1;
	}
	strcpy(dir, p);
	build_fixtures(argv[1]);
	fds_before = count_fds();
	fpath("fixture", p);
	test_all_functions(p, want_a);
	test_errors(p);
	fpath("fixture_b", p);
	test_all_functions(p, want_b);
	if (uprobe_resolve_path("bash", 0, p, NULL) == 0)
		test_dynsym(p);
	if (uprobe_resolve_path("libc.so.6", 0, p, NULL) == 0)
		test_dynsym(p);
	test_invalidation();
	test_many_files();
	test_threads();
	bench();
	uprobe_rescache_flush();
	CHECK(count_fds() == fds_before, "fd leak: %d -> %d", fds_before,
	      count_fds());
	run("rm -rf \"$PWD\"");
	printf("%s: %d of %d checks failed\n", failures ? "FAIL" : "PASS",
	       failures, checks);
	return failures ? 1 : 0;
}
