// SPDX-License-Identifier: GPL-2.0-only
/*
 * The symbol cache of uprobe_symbolize(): for every offset of the code of
 * real files (fixtures built here with gcc, bash, libc) the cached lookup
 * must give exactly what a plain linear scan of the symbol tables gives
 * (the reference below, written for this test); a file changed in place is
 * parsed again; more files than the cache holds still resolve; threads
 * share it. Prints the speed-up over parsing the file on each call. Exits
 * 77 when gcc is missing.
 */
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "uprobe_internal.h"
#include "uprobe_target.h"

static int failures, checks;
static char dir[256];

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
	"__attribute__((noinline)) static int helper(int x)"
	" { return x * 3 + 1; }\n"
	"__attribute__((noinline)) int func_a(int x)"
	" { return helper(x) + 1; }\n"
	"__attribute__((weak)) int weak_fn(int x) { return x; }\n"
	"__asm__(\".text\\n.globl asm_label\\nasm_label:\\n\\tret\\n\");\n"
	"int main(int argc, char **argv)"
	" { return func_a(argc) + weak_fn(argc); }\n";

static const char fx_v[] =
	"__attribute__((symver(\"foo@VER_1\"))) int foo_v1(int x)"
	" { return x + 1; }\n"
	"__attribute__((symver(\"foo@@VER_2\"))) int foo_v2(int x)"
	" { return x + 2; }\n"
	"int bar(int x) { return x * 2; }\n";

static const char fx_map[] = "VER_1 { global: foo; bar; local: *; };\n"
			     "VER_2 { global: foo; } VER_1;\n";

/* ---- the reference: a linear scan, as DESIGN.md 2 defines `symbol` ---- */

static int rank(const GElf_Sym *s)
{
	unsigned char b = GELF_ST_BIND(s->st_info);

	return b == STB_GLOBAL || b == STB_GNU_UNIQUE ? 2 : b == STB_WEAK;
}

/*
 * The code symbol containing @vaddr in @t: sized ones that contain it, or
 * unsized ones exactly at it; global beats weak beats local, a size beats
 * none, and the first in the table wins a tie.
 */
static int ref_table(const struct uprobe_symtab *t, GElf_Addr vaddr, char *buf,
		     size_t len)
{
	struct uprobe_sym si, best;
	int score, best_score = -1;
	bool sized;
	size_t i;

	for (i = 1; i < t->count; i++) {
		if (uprobe_sym_get(t, i, &si))
			return -EINVAL;
		if (si.sym.st_shndx == SHN_UNDEF ||
		    si.sym.st_shndx == SHN_ABS || !*si.name ||
		    !uprobe_is_code(t->elf, &si.sym) || si.sym.st_value > vaddr)
			continue;
		sized = si.sym.st_size &&
			vaddr - si.sym.st_value < si.sym.st_size;
		if (!sized && (si.sym.st_size || si.sym.st_value != vaddr))
			continue;
		score = rank(&si.sym) * 2 + sized;
		if (score > best_score) {
			best_score = score;
			best = si;
		}
	}
	if (best_score < 0)
		return -ENOENT;
	if (t->versym && best.hidden && best.ver)
		snprintf(buf, len, "%s@%s+0x%" PRIx64, best.name, best.ver,
			 (uint64_t)(vaddr - best.sym.st_value));
	else
		snprintf(buf, len, "%s+0x%" PRIx64, best.name,
			 (uint64_t)(vaddr - best.sym.st_value));
	return 0;
}

static int ref_symbolize(Elf *elf, uint64_t off, char *buf, size_t len)
{
	static const GElf_Word types[] = {SHT_SYMTAB, SHT_DYNSYM};
	struct uprobe_symtab t;
	GElf_Addr vaddr;
	int i, err;

	if (uprobe_off_to_vaddr(elf, off, &vaddr))
		return -ENOENT;
	for (i = 0; i < 2; i++) {
		err = uprobe_symtab_load(elf, types[i], &t);
		if (err == -ENOENT)
			continue;
		if (!err)
			err = ref_table(&t, vaddr, buf, len);
		uprobe_symtab_free(&t);
		if (err != -ENOENT)
			return err;
	}
	return -ENOENT;
}

/* ---- cases ---- */

/* Every @step-th offset of each executable segment, and a bit around. */
static void compare_file(const char *path, uint64_t step)
{
	char got[512], want[512];
	struct uprobe_elf f;
	size_t n, i, done = 0, named = 0;
	uint64_t off, end;
	GElf_Phdr ph;
	int e1, e2;

	if (uprobe_elf_open(&f, path, NULL)) {
		printf("# skip %s: cannot open\n", path);
		return;
	}
	CHECK(elf_getphdrnum(f.elf, &n) == 0, "phdrs of %s", path);
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(f.elf, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		end = ph.p_offset + ph.p_filesz + 64;
		off = ph.p_offset > 64 ? ph.p_offset - 64 : 0;
		for (; off < end; off += step, done++) {
			got[0] = want[0] = '\0';
			e1 = uprobe_symbolize(path, off, got, sizeof(got));
			e2 = ref_symbolize(f.elf, off, want, sizeof(want));
			named += !e2;
			if (e1 == e2 && (e1 || !strcmp(got, want)))
				continue;
			CHECK(0,
			      "%s 0x%" PRIx64 ": cache %d '%s', scan %d '%s'",
			      path, off, e1, got, e2, want);
			if (failures > 20)
				exit(1);
		}
	}
	uprobe_elf_close(&f);
	CHECK(named > 0, "%s: no offset had a symbol", path);
	printf("# %s: %zu offsets (step %" PRIu64 "), %zu named, all equal\n",
	       path, done, step, named);
}

static int run(const char *cmd)
{
	char full[1024];

	snprintf(full, sizeof(full), "cd '%s' && %s", dir, cmd);
	return system(full) == 0 ? 0 : -1;
}

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

/* A file rewritten in place (same inode) must be parsed again. */
static void test_invalidation(void)
{
	char p[PATH_MAX], a[128], b[128], before[128];
	struct uprobe_elf f;
	uint64_t off;

	printf("# invalidation\n");
	snprintf(p, sizeof(p), "%s/changing", dir);
	CHECK(run("cp pie changing") == 0, "cp");
	CHECK(uprobe_elf_open(&f, p, NULL) == 0, "open");
	/* the first executable byte that the two fixtures name differently */
	for (off = 0; off < (uint64_t)f.st.st_size; off++) {
		if (ref_symbolize(f.elf, off, a, sizeof(a)))
			continue;
		if (strncmp(a, "func_a+", 7) == 0)
			break;
	}
	uprobe_elf_close(&f);
	CHECK(uprobe_symbolize(p, off, b, sizeof(b)) == 0 && !strcmp(a, b),
	      "before: '%s' '%s'", a, b);
	snprintf(before, sizeof(before), "%s", b);
	/* same inode, other content: cat, not cp --remove-destination */
	CHECK(run("sleep 0.01; cat nopie > changing") == 0, "rewrite");
	CHECK(uprobe_elf_open(&f, p, NULL) == 0, "open again");
	a[0] = b[0] = '\0';
	int e1 = ref_symbolize(f.elf, off, a, sizeof(a));
	int e2 = uprobe_symbolize(p, off, b, sizeof(b));

	uprobe_elf_close(&f);
	CHECK(e1 == e2 && (e1 || !strcmp(a, b)),
	      "after rewrite: scan %d '%s', cache %d '%s'", e1, a, e2, b);
	printf("# 0x%" PRIx64 ": '%s' before, '%s' after\n", off, before,
	       e2 ? "(none)" : b);
}

/* More files than the cache holds: each still right, none lost. */
static void test_many_files(void)
{
	char p[PATH_MAX], cmd[128], want[128], got[128];
	struct uprobe_elf f;
	uint64_t off = 0;
	int i, round;

	printf("# 40 files\n");
	snprintf(p, sizeof(p), "%s/pie", dir);
	CHECK(uprobe_elf_open(&f, p, NULL) == 0, "open pie");
	for (; off < (uint64_t)f.st.st_size; off++)
		if (!ref_symbolize(f.elf, off, want, sizeof(want)) &&
		    !strncmp(want, "func_a+0x", 9))
			break;
	uprobe_elf_close(&f);
	for (i = 0; i < 40; i++) {
		snprintf(cmd, sizeof(cmd), "cp pie many%d", i);
		CHECK(run(cmd) == 0, "%s", cmd);
	}
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 40; i++) {
			snprintf(p, sizeof(p), "%s/many%d", dir, i);
			got[0] = '\0';
			CHECK(uprobe_symbolize(p, off, got, sizeof(got)) == 0 &&
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

	printf("# threads\n");
	for (i = 0; i < 4; i++)
		CHECK(pthread_create(&th[i], NULL, thread_fn, (void *)libc) ==
			      0,
		      "thread");
	for (i = 0; i < 4; i++)
		CHECK(pthread_join(th[i], &ret) == 0 && !ret, "thread %d", i);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A thousand links into libc: cold (parse each time) against cached. */
static void bench(const char *libc)
{
	char buf[128];
	double t0, cold, warm;
	int i, err, bad = 0;

	t0 = now();
	for (i = 0; i < 200; i++) {
		uprobe_symcache_flush();
		err = uprobe_symbolize(libc, 0x30000 + i * 97, buf,
				       sizeof(buf));
		bad += err && err != -ENOENT;
	}
	cold = (now() - t0) / 200;
	t0 = now();
	for (i = 0; i < 1000; i++) {
		err = uprobe_symbolize(libc, 0x30000 + i * 97, buf,
				       sizeof(buf));
		bad += err && err != -ENOENT;
	}
	warm = (now() - t0) / 1000;
	CHECK(!bad, "%d libc lookups failed", bad);
	printf("# speed (%s): uncached %.1f us a lookup, cached %.2f us: "
	       "%.0fx\n",
	       libc, cold * 1e6, warm * 1e6, cold / warm);
}

int main(void)
{
	char tmpl[] = "/tmp/test_symcache.XXXXXX", libc[PATH_MAX], p[PATH_MAX];
	struct target_error e;

	if (system("command -v gcc >/dev/null") != 0) {
		printf("SKIP: needs gcc\n");
		return 77;
	}
	if (!mkdtemp(tmpl) || !realpath(tmpl, dir)) {
		perror("mkdtemp");
		return 1;
	}
	write_file("a.c", fx_a);
	write_file("v.c", fx_v);
	write_file("v.map", fx_map);
	if (run("gcc -O1 a.c -o pie && gcc -O0 -no-pie -fno-pie a.c -o nopie"
		" && gcc -shared -fPIC v.c -Wl,--version-script=v.map"
		" -o libv.so && strip -o libv_stripped.so libv.so")) {
		fprintf(stderr, "building the fixtures failed\n");
		return 1;
	}
	run("clang -O1 -fuse-ld=lld a.c -o lld 2>/dev/null || rm -f lld");
	static const char *const fx[] = {"pie", "nopie", "libv.so",
					 "libv_stripped.so", "lld"};
	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, fx[i]);
		if (access(p, F_OK) == 0)
			compare_file(p, 1);
	}
	if (realpath("/usr/bin/bash", p))
		compare_file(p, 61);
	CHECK(uprobe_resolve_path("libc", 0, libc, &e) == 0, "libc: %s", e.msg);
	compare_file(libc, 37);
	test_invalidation();
	test_many_files();
	test_threads(libc);
	bench(libc);
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	(void)!system(p);
	printf("%s: %d of %d checks failed\n", failures ? "FAIL" : "PASS",
	       failures, checks);
	return failures ? 1 : 0;
}
