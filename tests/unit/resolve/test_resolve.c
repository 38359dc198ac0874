// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of bpf/uprobe/uprobe_target.c on real binaries that this test
 * builds itself with gcc (and clang + lld when present). Every expected file
 * offset is computed here from `readelf -sW` and `readelf -lW`, never from the
 * code under test. The fixtures are fixture.c's; skips when gcc or readelf is
 * missing.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "uprobe_target.h"

/*
 * Values of the defined symbols named exactly @name (as readelf prints the
 * name, with @VER / @@VER in .dynsym) in @table (".symtab", ".dynsym").
 */
static int readelf_syms(const char *file, const char *table, const char *name,
			uint64_t *vals, int max)
{
	struct fx_symtab t;
	int n = 0;
	size_t i;

	fx_symtab(file, table, &t);
	for (i = 0; i < t.n; i++)
		if (!strcmp(t.s[i].name, name) && t.s[i].ndx != FX_UND &&
		    n < max)
			vals[n++] = t.s[i].value;
	fx_symtab_free(&t);
	return n;
}

/* The one file offset readelf gives for @name; 0 and a FAIL if not one. */
static uint64_t expect_off(const char *file, const char *table,
			   const char *name)
{
	uint64_t v[4], off = 0;
	int n = readelf_syms(file, table, name, v, 4);

	EXPECT(n == 1, "%s: readelf shows %d defined '%s' in %s", file, n, name,
	       table);
	if (n >= 1)
		EXPECT(fx_vaddr_to_off(file, v[0], &off),
		       "%s: %s vaddr 0x%" PRIx64 " in no PT_LOAD", file, name,
		       v[0]);
	return off;
}

/* ---- helpers around the API ---- */

static int resolve(const char *path, const char *sym, uint64_t offset,
		   bool by_offset, bool ret, struct uprobe_target *t,
		   struct uprobe_err *e)
{
	memset(t, 0, sizeof(*t));
	memset(&e->e, 0, sizeof(e->e)); /* the columns stay */
	return uprobe_resolve(path, sym, offset, by_offset, ret, t, e);
}

static void check_sym(const char *path, const char *sym, uint64_t want)
{
	struct uprobe_target t;
	struct uprobe_err e = {.path_col = 3, .symbol_col = 7};
	int err = resolve(path, sym, 0, false, false, &t, &e);

	EXPECT(err == 0 && t.offset == want,
	       "%s:%s: err %d offset 0x%" PRIx64 " want 0x%" PRIx64 " (%s)",
	       path, sym, err, t.offset, want, e.e.msg);
}

static void check_err(const char *path, const char *sym, int want,
		      const char *needle)
{
	struct uprobe_target t;
	struct uprobe_err e = {.path_col = 3, .symbol_col = 7};
	int err = resolve(path, sym, 0, false, false, &t, &e);

	EXPECT(err == want && strstr(e.e.msg, needle) && e.e.column == 7,
	       "%s:%s: err %d want %d, msg '%s' lacks '%s'", path, sym, err,
	       want, e.e.msg, needle);
}

static void check_symbolize(const char *path, uint64_t off, const char *want)
{
	char buf[256] = "";
	int err = uprobe_symbolize(path, off, buf, sizeof(buf));

	EXPECT(err == 0 && !strcmp(buf, want),
	       "symbolize %s 0x%" PRIx64 ": err %d '%s' want '%s'", path, off,
	       err, buf, want);
}

/* ---- cases ---- */

/* Functions, a static name twice, an IFUNC: offsets and names. */
static uint64_t test_exe_symbols(const char *path)
{
	static const char *const funcs[] = {"func_a", "func_b", "tu_b", "main",
					    "asm_label"};
	struct uprobe_target t;
	struct uprobe_err e = {.path_col = 3, .symbol_col = 7};
	uint64_t off, a, v[4];
	char hex[32];
	struct stat st;
	size_t i;
	int n, err;

	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		char want[64];

		off = expect_off(path, ".symtab", funcs[i]);
		check_sym(path, funcs[i], off);
		snprintf(want, sizeof(want), "%s+0x0", funcs[i]);
		check_symbolize(path, off, want);
	}
	a = expect_off(path, ".symtab", "func_a");
	err = resolve(path, "func_a", 1, false, false, &t, &e);
	EXPECT(err == 0 && t.offset == a + 1, "func_a+1: %d 0x%" PRIx64, err,
	       t.offset);
	EXPECT(stat(path, &st) == 0 && t.dev == st.st_dev &&
		       t.ino == st.st_ino && !strcmp(t.path, path) &&
		       !t.warning[0],
	       "dev/ino/path/warning of %s", path);
	check_symbolize(path, a + 1, "func_a+0x1");

	/* two static helper()s in two translation units */
	n = readelf_syms(path, ".symtab", "helper", v, 4);
	EXPECT(n == 2, "readelf shows %d helpers", n);
	for (i = 0; i < (size_t)n; i++) {
		EXPECT(fx_vaddr_to_off(path, v[i], &off), "helper vaddr");
		snprintf(hex, sizeof(hex), "0x%" PRIx64, off);
		check_err(path, "helper", -EINVAL, hex);
	}

	off = expect_off(path, ".symtab", "fancy");
	err = resolve(path, "fancy", 0, false, false, &t, &e);
	EXPECT(err == 0 && t.offset == off &&
		       strstr(t.warning, "GNU indirect function"),
	       "ifunc: %d 0x%" PRIx64 " '%s'", err, t.offset, t.warning);
	return a;
}

/* What is not a function, uretprobe offsets, offsets out of range. */
static void test_exe_errors(const char *path, uint64_t a)
{
	struct uprobe_target t;
	struct uprobe_err e = {.path_col = 3, .symbol_col = 7};
	struct stat st = {0};
	char hex[32];
	int err;

	check_err(path, "global_counter", -EINVAL, "not a function");
	check_err(path, "printf", -ENOENT, "only imported");
	check_err(path, "printf", -ENOENT, "libc.so.6");
	check_err(path, "nosuch_fn", -ENOENT, "no symbol 'nosuch_fn'");
	check_err(path, "func_a@@V1", -ENOENT, "func_a");

	err = resolve(path, "func_a", 4, false, true, &t, &e);
	EXPECT(err == -EINVAL && e.e.column == 7, "uretprobe +4: %d", err);
	err = resolve(path, "func_a", 0, false, true, &t, &e);
	EXPECT(err == 0 && t.offset == a, "uretprobe: %d", err);
	err = resolve(path, "func_a", 0x100000, false, false, &t, &e);
	EXPECT(err == -EINVAL, "func_a+0x100000: %d", err);

	err = resolve(path, NULL, a, true, false, &t, &e);
	EXPECT(err == 0 && t.offset == a, "by offset: %d (%s)", err, e.e.msg);
	err = resolve(path, NULL, 0, true, false, &t, &e);
	EXPECT(err == (fx_off_in_exec(path, 0) ? 0 : -EINVAL),
	       "by offset 0: %d (%s)", err, e.e.msg);
	stat(path, &st);
	err = resolve(path, NULL, st.st_size, true, false, &t, &e);
	EXPECT(err == -EINVAL, "by offset past EOF: %d", err);
	EXPECT(uprobe_symbolize(path, 0x7fffffff, hex, sizeof(hex)) == -ENOENT,
	       "symbolize far offset");
}

static void test_exe(const char *name)
{
	char path[PATH_MAX];

	fx_path(name, path);
	test_exe_errors(path, test_exe_symbols(path));
}

static void test_stripped(void)
{
	struct uprobe_target t;
	struct uprobe_err e = {.path_col = 3, .symbol_col = 7};
	char pie[PATH_MAX], path[PATH_MAX], buf[64];
	uint64_t a;
	int err;

	fx_path("pie", pie);
	fx_path("stripped", path);
	a = expect_off(pie, ".symtab", "func_a");
	check_err(path, "func_a", -ENOENT, "no symbol table");
	err = resolve(path, NULL, a, true, false, &t, &e);
	EXPECT(err == 0 && t.offset == a, "stripped by offset: %d", err);
	err = uprobe_symbolize(path, a, buf, sizeof(buf));
	EXPECT(err == -ENOENT, "symbolize stripped: %d '%s'", err, buf);

	fx_path("static_stripped", path);
	if (fx_have("static_stripped"))
		check_err(path, "func_b", -ENOENT, "no symbol table");
	else
		diag("no static libc, no fully stripped case");
}

static void test_versions(const char *name, const char *v2_name)
{
	char path[PATH_MAX];
	uint64_t v1, v2, bar;

	fx_path(name, path);
	v1 = expect_off(path, ".dynsym", "foo@VER_1");
	v2 = expect_off(path, ".dynsym", "foo@@VER_2");
	bar = expect_off(path, ".dynsym", "bar@@VER_1");
	EXPECT(v1 != v2, "two versions of foo");
	check_sym(path, "foo", v2);
	check_sym(path, "foo@@VER_2", v2);
	check_sym(path, "foo@VER_2", v2);
	check_sym(path, "foo@VER_1", v1);
	check_sym(path, "bar", bar);
	check_sym(path, "bar@VER_1", bar);
	check_err(path, "foo@@VER_1", -ENOENT, "write foo@VER_1");
	check_err(path, "@@VER_2", -EINVAL, "bad symbol name");
	check_err(path, "foo@VER_9", -ENOENT, "VER_9");
	check_symbolize(path, v1, "foo@VER_1+0x0");
	check_symbolize(path, v2, v2_name);
	check_symbolize(path, bar + 2, "bar+0x2");
}

static void test_system(void)
{
	char out[PATH_MAX], want[PATH_MAX], line[1024], lib[PATH_MAX] = "";
	struct uprobe_err e = {.path_col = 3, .symbol_col = 7};
	uint64_t off;
	FILE *p;

	if (realpath("/usr/bin/bash", want)) {
		EXPECT(uprobe_resolve_path("bash", 0, out, &e) == 0 &&
			       !strcmp(out, want),
		       "bash -> '%s' (%s)", out, e.e.msg);
		off = expect_off(want, ".dynsym", "readline");
		check_sym(want, "readline", off);
		check_symbolize(want, off, "readline+0x0");
		check_err(want, "malloc", -ENOENT, "only imported");
	}
	p = popen("ldconfig -p 2>/dev/null || /sbin/ldconfig -p", "r");
	while (p && fgets(line, sizeof(line), p))
		if (sscanf(line, " libc.so.6 (libc6,x86-64) => %4095s", lib) ==
		    1)
			break;
	if (p)
		pclose(p);
	EXPECT(lib[0] && realpath(lib, want), "ldconfig -p names libc.so.6");
	EXPECT(uprobe_resolve_path("libc", 0, out, &e) == 0 &&
		       !strcmp(out, want),
	       "libc -> '%s' want '%s' (%s)", out, want, e.e.msg);
	EXPECT(uprobe_resolve_path("libc.so.6", 0, out, &e) == 0 &&
		       !strcmp(out, want),
	       "libc.so.6 -> '%s' (%s)", out, e.e.msg);
	off = expect_off(want, ".dynsym", "malloc@@GLIBC_2.2.5");
	check_sym(want, "malloc", off);
	check_sym(want, "malloc@@GLIBC_2.2.5", off);
	EXPECT(uprobe_resolve_path("libpthread", 0, out, &e) == 0 &&
		       strstr(out, "/libpthread.so"),
	       "libpthread -> '%s' (%s)", out, e.e.msg);
	EXPECT(uprobe_resolve_path("no-such-cmd-xyz", 0, out, &e) == -ENOENT &&
		       strstr(e.e.msg, "no-such-cmd-xyz"),
	       "missing command: %s", e.e.msg);
	EXPECT(uprobe_resolve_path("libno-such-xyz", 0, out, &e) == -ENOENT,
	       "missing library: %s", e.e.msg);
}

static void expect_path(const char *in, pid_t pid, const char *want)
{
	char out[PATH_MAX] = "";
	struct uprobe_err e = {.path_col = 3, .symbol_col = 7};
	int err = uprobe_resolve_path(in, pid, out, &e);

	EXPECT(err == 0 && !strcmp(out, want), "'%s' pid %d: %d '%s' (%s)", in,
	       (int)pid, err, out, e.e.msg);
}

static void expect_path_err(const char *in, int want, const char *needle)
{
	char out[PATH_MAX];
	struct uprobe_err e = {.path_col = 3, .symbol_col = 7};
	int err = uprobe_resolve_path(in, 0, out, &e);

	EXPECT(err == want && strstr(e.e.msg, needle) && e.e.column == 3,
	       "'%s': %d want %d, msg '%s' lacks '%s'", in, err, want, e.e.msg,
	       needle);
}

/* A writer the daemon cannot see: no cwd, no /proc/self; absolute works. */
static void expect_unseen(void)
{
	char out[PATH_MAX], pie[PATH_MAX], loop[PATH_MAX];
	struct uprobe_err e = {.path_col = 3, .symbol_col = 7};
	int err;

	fx_path("pie", pie);
	err = uprobe_resolve_path("./pie", UPROBE_PID_UNSEEN, out, &e);
	CHECK(err == -EINVAL && strstr(e.e.msg, "not visible"),
	      "unseen writer, relative path: %d '%s'", err, e.e.msg);
	err = uprobe_resolve_path("/proc/self/exe", UPROBE_PID_UNSEEN, out, &e);
	CHECK(err == -EINVAL && strstr(e.e.msg, "/proc/self"),
	      "unseen writer, /proc/self: %d '%s'", err, e.e.msg);
	expect_path(pie, UPROBE_PID_UNSEEN, pie);
	/* a symlink loop ends */
	fx_path("loop", loop);
	CHECK(symlink("loop", loop) == 0 || errno == EEXIST, "symlink loop");
	err = uprobe_resolve_path(loop, 0, out, &e);
	CHECK(err == -ELOOP, "symlink loop: %d '%s'", err, e.e.msg);
}

static void test_paths(void)
{
	char pie[PATH_MAX], p[PATH_MAX];
	pid_t child;
	int fds[2];
	char c;

	fx_path("pie", pie);
	EXPECT(chdir(fx_dir()) == 0, "chdir");
	expect_path("./pie", 0, pie);
	expect_path("sub/../pie", 0, pie);
	expect_path("./pie", getpid(), pie);
	expect_path("./link", 0, pie);
	fx_path("link", p);
	expect_path(p, 0, pie);
	expect_path_err("./nosuch", -ENOENT, "nosuch");

	/* relative to another process's working directory */
	EXPECT(pipe(fds) == 0, "pipe");
	child = fork();
	if (child == 0) {
		close(fds[1]);
		if (chdir("sub") == 0)
			(void)!read(fds[0], &c, 1);
		_exit(0);
	}
	usleep(100000);
	expect_path("../pie", child, pie);
	/* the writer's view: /proc/self is the writer, magic links followed */
	snprintf(p, sizeof(p), "/proc/%d/cwd/../pie", (int)child);
	expect_path(p, 0, pie);
	expect_path("/proc/self/cwd/../pie", child, pie);
	if (EXPECT(snprintf(p, sizeof(p), "/proc/%d/root%s", (int)child,
			    pie) < (int)sizeof(p),
		   "the fixture's path fits"))
		expect_path(p, 0, pie);
	close(fds[1]);
	close(fds[0]);
	waitpid(child, NULL, 0);
	EXPECT(chdir("/") == 0, "chdir /");
	expect_unseen();

	fx_path("notelf.txt", p);
	expect_path_err(p, -EINVAL, "not an ELF");
	fx_path("sub", p);
	expect_path_err(p, -EINVAL, "not a regular file");
	fx_path("a.o", p);
	expect_path_err(p, -EINVAL, "not an executable or shared object");
	if (access("/lib32/libc.so.6", R_OK) == 0)
		expect_path_err("/lib32/libc.so.6", -EINVAL, "32-bit");
	expect_path_err("/no/such/file", -ENOENT, "/no/such/file");
	expect_path_err("", -EINVAL, "empty");
}

static void *thread_fn(void *arg)
{
	const uint64_t *want = arg;
	struct uprobe_target t;
	struct uprobe_err e = {.path_col = 3, .symbol_col = 7};
	char pie[PATH_MAX], buf[64];
	int i;

	fx_path("pie", pie);
	for (i = 0; i < 100; i++) {
		if (uprobe_resolve(pie, "func_a", 0, false, false, &t, &e) ||
		    t.offset != *want ||
		    uprobe_symbolize(pie, *want, buf, sizeof(buf)) ||
		    strcmp(buf, "func_a+0x0"))
			return (void *)1;
	}
	return NULL;
}

static void test_threads(void)
{
	char pie[PATH_MAX];
	pthread_t th[4];
	uint64_t want;
	void *ret;
	int i;

	fx_path("pie", pie);
	want = expect_off(pie, ".symtab", "func_a");
	for (i = 0; i < 4; i++)
		EXPECT(pthread_create(&th[i], NULL, thread_fn, &want) == 0,
		       "thr");
	for (i = 0; i < 4; i++) {
		EXPECT(pthread_join(th[i], &ret) == 0 && !ret, "thread %d", i);
	}
}

int main(void)
{
	int fds_before;

	fx_start("test_resolve");
	fds_before = check_open_fds();
	test_exe("pie");
	group_end("pie: symbols, offsets, errors, symbolize");
	test_exe("nopie");
	group_end("nopie: symbols, offsets, errors, symbolize");
	if (fx_have("lld")) {
		test_exe("lld");
		group_end("lld: symbols, offsets, errors, symbolize");
	} else {
		skip("lld: clang -fuse-ld=lld does not work here");
	}
	test_stripped();
	group_end("stripped files: by offset only");
	test_versions("libv.so", "foo@@VER_2+0x0");
	group_end("libv.so: symbol versions");
	test_versions("libv_stripped.so", "foo+0x0");
	group_end("libv_stripped.so: symbol versions from .dynsym");
	test_system();
	group_end("bash and libc, found by name");
	test_paths();
	group_end("paths: relative, of another process, not ELF, missing");
	test_threads();
	group_end("4 threads at once");
	CHECK(check_open_fds() == fds_before, "no fd leaked: %d -> %d",
	      fds_before, check_open_fds());
	fx_cleanup();
	return done_testing();
}
