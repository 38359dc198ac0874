// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of fs/uprobe_target.c on real binaries that this test builds
 * itself with gcc (and clang + lld when present). Every expected file offset
 * is computed here from `readelf -sW` and `readelf -lW`, never from the code
 * under test. Exits 77 when gcc or readelf is missing.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uprobe_target.h"

static int failures, checks;
static char dir[256]; /* canonical temp dir with the fixtures */

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

static const char fx_a[] =
	"#include <stdio.h>\n"
	"int global_counter = 5;\n"
	"__attribute__((noinline)) static int helper(int x)"
	" { return x * 3 + 1; }\n"
	"__attribute__((noinline)) int func_a(int x)"
	" { return helper(x) + 1; }\n"
	"int tu_b(int x);\n"
	"static int impl_fast(void) { return 1; }\n"
	"static void *resolve_fancy(void) { return (void *)impl_fast; }\n"
	"int fancy(void) __attribute__((ifunc(\"resolve_fancy\")));\n"
	"__asm__(\".text\\n.globl asm_label\\nasm_label:\\n\\tret\\n\");\n"
	"int main(int argc, char **argv)\n"
	"{ printf(\"%d\\n\", func_a(argc) + tu_b(argc) + fancy());"
	" return 0; }\n";

static const char fx_b[] =
	"__attribute__((noinline)) static int helper(int x)"
	" { return x - 7; }\n"
	"__attribute__((noinline)) int func_b(int x) { return x ^ 0x55; }\n"
	"int tu_b(int x) { return helper(x) + func_b(x); }\n";

static const char fx_v[] =
	"__attribute__((symver(\"foo@VER_1\"))) int foo_v1(int x)"
	" { return x + 1; }\n"
	"__attribute__((symver(\"foo@@VER_2\"))) int foo_v2(int x)"
	" { return x + 2; }\n"
	"int bar(int x) { return x * 2; }\n";

static const char fx_map[] = "VER_1 { global: foo; bar; local: *; };\n"
			     "VER_2 { global: foo; } VER_1;\n";

static void write_file(const char *name, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(p);
		exit(1);
	}
}

static int run(const char *fmt, ...)
{
	char cmd[3072], full[3400];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(full, sizeof(full), "cd '%s' && %s", dir, cmd);
	st = system(full);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void fixture_path(const char *name, char *out)
{
	snprintf(out, PATH_MAX, "%s/%s", dir, name);
}

/* ---- readelf, the independent source of expected values ---- */

struct load {
	uint64_t off, vaddr, filesz;
	bool exec;
};

static int readelf_loads(const char *file, struct load *l, int max)
{
	char cmd[PATH_MAX + 32], line[512];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "readelf -lW '%s'", file);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p) && n < max) {
		uint64_t o, v, pa, fs, ms;
		int used;

		if (sscanf(line,
			   " LOAD %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64
			   " %" SCNx64 " %n",
			   &o, &v, &pa, &fs, &ms, &used) < 5)
			continue;
		l[n].off = o;
		l[n].vaddr = v;
		l[n].filesz = fs;
		/* the flags column reads "R E", "R", "RW ": E marks code */
		l[n].exec = strchr(line + used, 'E') != NULL;
		n++;
	}
	if (p)
		pclose(p);
	return n;
}

static bool expect_vaddr_to_off(const char *file, uint64_t vaddr, uint64_t *off)
{
	struct load l[16];
	int n = readelf_loads(file, l, 16), i;

	for (i = 0; i < n; i++) {
		if (vaddr >= l[i].vaddr && vaddr < l[i].vaddr + l[i].filesz) {
			*off = vaddr - l[i].vaddr + l[i].off;
			return true;
		}
	}
	return false;
}

static bool expect_in_exec(const char *file, uint64_t off)
{
	struct load l[16];
	int n = readelf_loads(file, l, 16), i;

	for (i = 0; i < n; i++)
		if (l[i].exec && off >= l[i].off &&
		    off < l[i].off + l[i].filesz)
			return true;
	return false;
}

/*
 * Values of the defined symbols named exactly @name (as readelf prints the
 * name, with @VER / @@VER in .dynsym) in @table (".symtab", ".dynsym").
 */
static int readelf_syms(const char *file, const char *table, const char *name,
			uint64_t *vals, int max)
{
	char cmd[PATH_MAX + 32], line[1024], cur[64] = "";
	char *tok[16], *save;
	FILE *p;
	int n = 0, nt;

	snprintf(cmd, sizeof(cmd), "readelf -sW '%s'", file);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		if (sscanf(line, "Symbol table '%63[^']'", cur) == 1)
			continue;
		nt = 0;
		for (tok[nt] = strtok_r(line, " \t\n", &save);
		     tok[nt] && nt < 15;
		     tok[++nt] = strtok_r(NULL, " \t\n", &save))
			;
		if (nt < 8 || !strchr(tok[0], ':') || strcmp(cur, table))
			continue;
		if (tok[nt - 1][0] == '(') /* "puts@GLIBC_2.2.5 (2)" */
			nt--;
		if (strcmp(tok[nt - 1], name) || !strcmp(tok[nt - 2], "UND"))
			continue;
		if (n < max)
			vals[n++] = strtoull(tok[1], NULL, 16);
	}
	if (p)
		pclose(p);
	return n;
}

/* The one file offset readelf gives for @name; 0 and a FAIL if not one. */
static uint64_t expect_off(const char *file, const char *table,
			   const char *name)
{
	uint64_t v[4], off = 0;
	int n = readelf_syms(file, table, name, v, 4);

	CHECK(n == 1, "%s: readelf shows %d defined '%s' in %s", file, n, name,
	      table);
	if (n >= 1)
		CHECK(expect_vaddr_to_off(file, v[0], &off),
		      "%s: %s vaddr 0x%" PRIx64 " in no PT_LOAD", file, name,
		      v[0]);
	return off;
}

/* ---- helpers around the API ---- */

static int resolve(const char *path, const char *sym, uint64_t offset,
		   bool by_offset, bool ret, struct uprobe_target *t,
		   struct target_error *e)
{
	memset(t, 0, sizeof(*t));
	memset(e, 0, sizeof(*e));
	return uprobe_resolve(path, sym, offset, by_offset, ret, t, e);
}

static void check_sym(const char *path, const char *sym, uint64_t want)
{
	struct uprobe_target t;
	struct target_error e;
	int err = resolve(path, sym, 0, false, false, &t, &e);

	CHECK(err == 0 && t.offset == want,
	      "%s:%s: err %d offset 0x%" PRIx64 " want 0x%" PRIx64 " (%s)",
	      path, sym, err, t.offset, want, e.msg);
}

static void check_err(const char *path, const char *sym, int want,
		      const char *needle)
{
	struct uprobe_target t;
	struct target_error e;
	int err = resolve(path, sym, 0, false, false, &t, &e);

	CHECK(err == want && strstr(e.msg, needle) && e.column_hint == 1,
	      "%s:%s: err %d want %d, msg '%s' lacks '%s'", path, sym, err,
	      want, e.msg, needle);
}

static void check_symbolize(const char *path, uint64_t off, const char *want)
{
	char buf[256] = "";
	int err = uprobe_symbolize(path, off, buf, sizeof(buf));

	CHECK(err == 0 && !strcmp(buf, want),
	      "symbolize %s 0x%" PRIx64 ": err %d '%s' want '%s'", path, off,
	      err, buf, want);
}

/* ---- cases ---- */

static void test_exe(const char *name)
{
	static const char *const funcs[] = {"func_a", "func_b", "tu_b", "main",
					    "asm_label"};
	struct uprobe_target t;
	struct target_error e;
	char path[PATH_MAX], hex[32];
	uint64_t off, a, v[4];
	struct stat st;
	size_t i;
	int n, err;

	printf("# %s\n", name);
	fixture_path(name, path);
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		char want[64];

		off = expect_off(path, ".symtab", funcs[i]);
		check_sym(path, funcs[i], off);
		snprintf(want, sizeof(want), "%s+0x0", funcs[i]);
		check_symbolize(path, off, want);
	}
	a = expect_off(path, ".symtab", "func_a");
	err = resolve(path, "func_a", 1, false, false, &t, &e);
	CHECK(err == 0 && t.offset == a + 1, "func_a+1: %d 0x%" PRIx64, err,
	      t.offset);
	CHECK(stat(path, &st) == 0 && t.dev == st.st_dev &&
		      t.ino == st.st_ino && !strcmp(t.path, path) &&
		      !t.warning[0],
	      "dev/ino/path/warning of %s", path);
	check_symbolize(path, a + 1, "func_a+0x1");

	/* two static helper()s in two translation units */
	n = readelf_syms(path, ".symtab", "helper", v, 4);
	CHECK(n == 2, "readelf shows %d helpers", n);
	for (i = 0; i < (size_t)n; i++) {
		CHECK(expect_vaddr_to_off(path, v[i], &off), "helper vaddr");
		snprintf(hex, sizeof(hex), "0x%" PRIx64, off);
		check_err(path, "helper", -EINVAL, hex);
	}

	off = expect_off(path, ".symtab", "fancy");
	err = resolve(path, "fancy", 0, false, false, &t, &e);
	CHECK(err == 0 && t.offset == off &&
		      strstr(t.warning, "GNU indirect function"),
	      "ifunc: %d 0x%" PRIx64 " '%s'", err, t.offset, t.warning);

	check_err(path, "global_counter", -EINVAL, "not a function");
	check_err(path, "printf", -ENOENT, "only imported");
	check_err(path, "printf", -ENOENT, "libc.so.6");
	check_err(path, "nosuch_fn", -ENOENT, "no symbol 'nosuch_fn'");
	check_err(path, "func_a@@V1", -ENOENT, "func_a");

	err = resolve(path, "func_a", 4, false, true, &t, &e);
	CHECK(err == -EINVAL && e.column_hint == 1, "uretprobe +4: %d", err);
	err = resolve(path, "func_a", 0, false, true, &t, &e);
	CHECK(err == 0 && t.offset == a, "uretprobe: %d", err);
	err = resolve(path, "func_a", 0x100000, false, false, &t, &e);
	CHECK(err == -EINVAL, "func_a+0x100000: %d", err);

	err = resolve(path, NULL, a, true, false, &t, &e);
	CHECK(err == 0 && t.offset == a, "by offset: %d (%s)", err, e.msg);
	err = resolve(path, NULL, 0, true, false, &t, &e);
	CHECK(err == (expect_in_exec(path, 0) ? 0 : -EINVAL),
	      "by offset 0: %d (%s)", err, e.msg);
	err = resolve(path, NULL, st.st_size, true, false, &t, &e);
	CHECK(err == -EINVAL, "by offset past EOF: %d", err);
	CHECK(uprobe_symbolize(path, 0x7fffffff, hex, sizeof(hex)) == -ENOENT,
	      "symbolize far offset");
}

static void test_stripped(void)
{
	struct uprobe_target t;
	struct target_error e;
	char pie[PATH_MAX], path[PATH_MAX], buf[64];
	uint64_t a;
	int err;

	printf("# stripped\n");
	fixture_path("pie", pie);
	fixture_path("stripped", path);
	a = expect_off(pie, ".symtab", "func_a");
	check_err(path, "func_a", -ENOENT, "no symbol table");
	err = resolve(path, NULL, a, true, false, &t, &e);
	CHECK(err == 0 && t.offset == a, "stripped by offset: %d", err);
	err = uprobe_symbolize(path, a, buf, sizeof(buf));
	CHECK(err == -ENOENT, "symbolize stripped: %d '%s'", err, buf);

	fixture_path("static_stripped", path);
	if (access(path, F_OK) == 0)
		check_err(path, "func_b", -ENOENT, "no symbol table");
	else
		printf("# skip: no static libc, no fully stripped case\n");
}

static void test_versions(const char *name, const char *v2_name)
{
	char path[PATH_MAX];
	uint64_t v1, v2, bar;

	printf("# %s\n", name);
	fixture_path(name, path);
	v1 = expect_off(path, ".dynsym", "foo@VER_1");
	v2 = expect_off(path, ".dynsym", "foo@@VER_2");
	bar = expect_off(path, ".dynsym", "bar@@VER_1");
	CHECK(v1 != v2, "two versions of foo");
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
	struct target_error e;
	uint64_t off;
	FILE *p;

	printf("# system binaries\n");
	if (realpath("/usr/bin/bash", want)) {
		CHECK(uprobe_resolve_path("bash", 0, out, &e) == 0 &&
			      !strcmp(out, want),
		      "bash -> '%s' (%s)", out, e.msg);
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
	CHECK(lib[0] && realpath(lib, want), "ldconfig -p names libc.so.6");
	CHECK(uprobe_resolve_path("libc", 0, out, &e) == 0 &&
		      !strcmp(out, want),
	      "libc -> '%s' want '%s' (%s)", out, want, e.msg);
	CHECK(uprobe_resolve_path("libc.so.6", 0, out, &e) == 0 &&
		      !strcmp(out, want),
	      "libc.so.6 -> '%s' (%s)", out, e.msg);
	off = expect_off(want, ".dynsym", "malloc@@GLIBC_2.2.5");
	check_sym(want, "malloc", off);
	check_sym(want, "malloc@@GLIBC_2.2.5", off);
	CHECK(uprobe_resolve_path("libpthread", 0, out, &e) == 0 &&
		      strstr(out, "/libpthread.so"),
	      "libpthread -> '%s' (%s)", out, e.msg);
	CHECK(uprobe_resolve_path("no-such-cmd-xyz", 0, out, &e) == -ENOENT &&
		      strstr(e.msg, "no-such-cmd-xyz"),
	      "missing command: %s", e.msg);
	CHECK(uprobe_resolve_path("libno-such-xyz", 0, out, &e) == -ENOENT,
	      "missing library: %s", e.msg);
}

static void expect_path(const char *in, pid_t pid, const char *want)
{
	char out[PATH_MAX] = "";
	struct target_error e = {0};
	int err = uprobe_resolve_path(in, pid, out, &e);

	CHECK(err == 0 && !strcmp(out, want), "'%s' pid %d: %d '%s' (%s)", in,
	      (int)pid, err, out, e.msg);
}

static void expect_path_err(const char *in, int want, const char *needle)
{
	char out[PATH_MAX];
	struct target_error e = {0};
	int err = uprobe_resolve_path(in, 0, out, &e);

	CHECK(err == want && strstr(e.msg, needle) && e.column_hint == 0,
	      "'%s': %d want %d, msg '%s' lacks '%s'", in, err, want, e.msg,
	      needle);
}

/* A writer the daemon cannot see: no cwd, no /proc/self; absolute works. */
static void expect_unseen(void)
{
	char out[PATH_MAX], pie[PATH_MAX], loop[PATH_MAX];
	struct target_error e = {0};
	int err;

	fixture_path("pie", pie);
	err = uprobe_resolve_path("./pie", UPROBE_PID_UNSEEN, out, &e);
	CHECK(err == -EINVAL && strstr(e.msg, "not visible"),
	      "unseen writer, relative path: %d '%s'", err, e.msg);
	err = uprobe_resolve_path("/proc/self/exe", UPROBE_PID_UNSEEN, out, &e);
	CHECK(err == -EINVAL && strstr(e.msg, "/proc/self"),
	      "unseen writer, /proc/self: %d '%s'", err, e.msg);
	expect_path(pie, UPROBE_PID_UNSEEN, pie);
	/* a symlink loop ends */
	fixture_path("loop", loop);
	CHECK(symlink("loop", loop) == 0 || errno == EEXIST, "symlink loop");
	err = uprobe_resolve_path(loop, 0, out, &e);
	CHECK(err == -ELOOP, "symlink loop: %d '%s'", err, e.msg);
}

static void test_paths(void)
{
	char pie[PATH_MAX], p[PATH_MAX];
	pid_t child;
	int fds[2];
	char c;

	printf("# paths\n");
	fixture_path("pie", pie);
	CHECK(chdir(dir) == 0, "chdir");
	expect_path("./pie", 0, pie);
	expect_path("sub/../pie", 0, pie);
	expect_path("./pie", getpid(), pie);
	expect_path("./link", 0, pie);
	fixture_path("link", p);
	expect_path(p, 0, pie);
	expect_path_err("./nosuch", -ENOENT, "nosuch");

	/* relative to another process's working directory */
	CHECK(pipe(fds) == 0, "pipe");
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
	snprintf(p, sizeof(p), "/proc/%d/root%s", (int)child, pie);
	expect_path(p, 0, pie);
	close(fds[1]);
	close(fds[0]);
	waitpid(child, NULL, 0);
	CHECK(chdir("/") == 0, "chdir /");
	expect_unseen();

	fixture_path("notelf.txt", p);
	expect_path_err(p, -EINVAL, "not an ELF");
	fixture_path("sub", p);
	expect_path_err(p, -EINVAL, "not a regular file");
	fixture_path("a.o", p);
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
	struct target_error e;
	char pie[PATH_MAX], buf[64];
	int i;

	fixture_path("pie", pie);
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

	printf("# threads\n");
	fixture_path("pie", pie);
	want = expect_off(pie, ".symtab", "func_a");
	for (i = 0; i < 4; i++)
		CHECK(pthread_create(&th[i], NULL, thread_fn, &want) == 0,
		      "thr");
	for (i = 0; i < 4; i++) {
		CHECK(pthread_join(th[i], &ret) == 0 && !ret, "thread %d", i);
	}
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

static void build_fixtures(bool *have_lld)
{
	write_file("a.c", fx_a);
	write_file("b.c", fx_b);
	write_file("v.c", fx_v);
	write_file("v.map", fx_map);
	write_file("notelf.txt", "just text\n");
	if (run("gcc -O0 a.c b.c -o pie && gcc -O0 -no-pie -fno-pie a.c b.c"
		" -o nopie && strip -o stripped pie && gcc -c a.c -o a.o &&"
		" gcc -shared -fPIC v.c -Wl,--version-script=v.map -o libv.so"
		" && strip -o libv_stripped.so libv.so && mkdir sub &&"
		" ln -s pie link")) {
		fprintf(stderr, "building the fixtures failed\n");
		exit(1);
	}
	run("printf 'int main(void){return 0;}\\n' > s.c && gcc -static "
	    "-O0 s.c -o static_stripped 2>/dev/null && strip static_stripped"
	    " || rm -f static_stripped");
	*have_lld =
		run("clang -O0 -fuse-ld=lld a.c b.c -o lld 2>/dev/null") == 0;
}

int main(void)
{
	char tmpl[] = "/tmp/test_resolve.XXXXXX", path[PATH_MAX];
	bool have_lld;
	int fds_before;

	if (system("command -v gcc >/dev/null && command -v readelf "
		   ">/dev/null && command -v strip >/dev/null") != 0) {
		printf("SKIP: needs gcc, strip and readelf\n");
		return 77;
	}
	if (!mkdtemp(tmpl) || !realpath(tmpl, path) ||
	    strlen(path) >= sizeof(dir)) {
		perror("mkdtemp");
		return 1;
	}
	strcpy(dir, path);
	build_fixtures(&have_lld);
	fds_before = count_fds();
	test_exe("pie");
	test_exe("nopie");
	if (have_lld)
		test_exe("lld");
	else
		printf("# skip: clang -fuse-ld=lld does not work here\n");
	test_stripped();
	test_versions("libv.so", "foo@@VER_2+0x0");
	test_versions("libv_stripped.so", "foo+0x0");
	test_system();
	test_paths();
	test_threads();
	CHECK(count_fds() == fds_before, "fd leak: %d -> %d", fds_before,
	      count_fds());
	run("rm -rf '%s'", dir);
	printf("%s: %d of %d checks failed\n", failures ? "FAIL" : "PASS",
	       failures, checks);
	return failures ? 1 : 0;
}
