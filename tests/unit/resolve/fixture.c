// SPDX-License-Identifier: GPL-2.0-only
/*
 * The resolver tests' fixtures and readelf's view of ELF files (fixture.h).
 * No code of the project: expected values must not come from the code
 * under test.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"

static char dir[256];

/*
 * a.c and b.c: two static helper()s in two translation units, an IFUNC,
 * an assembly label without .type, a weak function, a data object and an
 * import (printf).
 */
static const char fx_a[] =
	"#include <stdio.h>\n"
	"int global_counter = 5;\n"
	"__attribute__((noinline)) static int helper(int x)"
	" { return x * 3 + 1; }\n"
	"__attribute__((noinline)) int func_a(int x)"
	" { return helper(x) + 1; }\n"
	"__attribute__((weak)) int weak_fn(int x) { return x; }\n"
	"int tu_b(int x);\n"
	"static int impl_fast(void) { return 1; }\n"
	"static void *resolve_fancy(void) { return (void *)impl_fast; }\n"
	"int fancy(void) __attribute__((ifunc(\"resolve_fancy\")));\n"
	"__asm__(\".text\\n.globl asm_label\\nasm_label:\\n\\tret\\n\");\n"
	"int main(int argc, char **argv)\n"
	"{ printf(\"%d\\n\", func_a(argc) + tu_b(argc) + fancy() +"
	" weak_fn(argc)); return 0; }\n";

static const char fx_b[] =
	"__attribute__((noinline)) static int helper(int x)"
	" { return x - 7; }\n"
	"__attribute__((noinline)) int func_b(int x) { return x ^ 0x55; }\n"
	"int tu_b(int x) { return helper(x) + func_b(x); }\n";

/* libv.so: foo in two versions, bar in one */
static const char fx_v[] =
	"__attribute__((symver(\"foo@VER_1\"))) int foo_v1(int x)"
	" { return x + 1; }\n"
	"__attribute__((symver(\"foo@@VER_2\"))) int foo_v2(int x)"
	" { return x + 2; }\n"
	"int bar(int x) { return x * 2; }\n";

static const char fx_map[] = "VER_1 { global: foo; bar; local: *; };\n"
			     "VER_2 { global: foo; } VER_1;\n";

int fx_init(const char *name)
{
	char tmpl[128];

	snprintf(tmpl, sizeof(tmpl), "/tmp/%s.XXXXXX", name);
	if (!mkdtemp(tmpl) || !realpath(tmpl, dir))
		return -1;
	return 0;
}

const char *fx_dir(void)
{
	return dir;
}

void fx_path(const char *name, char out[PATH_MAX])
{
	snprintf(out, PATH_MAX, "%s/%s", dir, name);
}

int fx_write(const char *name, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	fx_path(name, p);
	f = fopen(p, "w");
	if (!f)
		return -1;
	if (fputs(text, f) < 0) {
		fclose(f);
		return -1;
	}
	return fclose(f) ? -1 : 0;
}

int fx_run(const char *fmt, ...)
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

void fx_cleanup(void)
{
	if (dir[0])
		fx_run("rm -rf '%s'", dir);
}

bool fx_have(const char *name)
{
	char p[PATH_MAX];

	fx_path(name, p);
	return access(p, F_OK) == 0;
}

int fx_build(void)
{
	if (fx_write("a.c", fx_a) || fx_write("b.c", fx_b) ||
	    fx_write("v.c", fx_v) || fx_write("v.map", fx_map) ||
	    fx_write("notelf.txt", "just text\n"))
		return -1;
	if (fx_run("gcc -O0 a.c b.c -o pie && gcc -O0 -no-pie -fno-pie a.c b.c"
		   " -o nopie && strip -o stripped pie && gcc -c a.c -o a.o &&"
		   " gcc -shared -fPIC v.c -Wl,--version-script=v.map"
		   " -o libv.so && strip -o libv_stripped.so libv.so &&"
		   " mkdir sub && ln -s pie link"))
		return -1;
	fx_run("printf 'int main(void){return 0;}\\n' > s.c && gcc -static "
	       "-O0 s.c -o static_stripped 2>/dev/null && strip static_stripped"
	       " || rm -f static_stripped");
	fx_run("clang -O0 -fuse-ld=lld a.c b.c -o lld 2>/dev/null || rm -f lld");
	return 0;
}

/* ---- readelf ---- */

static FILE *readelf(const char *opts, const char *file)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "readelf %s '%s' 2>/dev/null", opts, file);
	return popen(cmd, "r");
}

int fx_loads(const char *file, struct fx_load *l, int max)
{
	FILE *p = readelf("-lW", file);
	char line[512];
	int n = 0;

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

bool fx_load_off(const struct fx_load *l, int n, uint64_t vaddr, uint64_t *off)
{
	int i;

	for (i = 0; i < n; i++) {
		if (vaddr >= l[i].vaddr && vaddr - l[i].vaddr < l[i].filesz) {
			*off = vaddr - l[i].vaddr + l[i].off;
			return true;
		}
	}
	return false;
}

bool fx_vaddr_to_off(const char *file, uint64_t vaddr, uint64_t *off)
{
	struct fx_load l[16];

	return fx_load_off(l, fx_loads(file, l, 16), vaddr, off);
}

bool fx_off_in_exec(const char *file, uint64_t off)
{
	struct fx_load l[16];
	int n = fx_loads(file, l, 16), i;

	for (i = 0; i < n; i++)
		if (l[i].exec && off >= l[i].off &&
		    off - l[i].off < l[i].filesz)
			return true;
	return false;
}

/* Split @line at blanks into @tok (at most @max); how many. */
static int split(char *line, char **tok, int max)
{
	char *save;
	int n = 0;

	for (tok[n] = strtok_r(line, " \t\n", &save); tok[n] && n < max - 1;
	     tok[++n] = strtok_r(NULL, " \t\n", &save))
		;
	return n;
}

/*
 * readelf names a type or binding it does not know for this file's OS ABI
 * "<OS specific>: 10" (lld leaves EI_OSABI at 0): one token "OS_10", and
 * STT_GNU_IFUNC and STB_GNU_UNIQUE (10) by their GNU names.
 */
static void join_specific(char *line)
{
	char *p, *q;

	while ((p = strstr(line, "<OS specific>: ")) ||
	       (p = strstr(line, "<processor specific>: "))) {
		q = strstr(p, ": ") + 2;
		memmove(p + 3, q, strlen(q) + 1);
		memcpy(p, p[1] == 'O' ? "OS_" : "PR_", 3);
	}
}

static void gnu_name(char *out, size_t len, const char *tok, const char *gnu)
{
	snprintf(out, len, "%s", strcmp(tok, "OS_10") ? tok : gnu);
}

/*
 * One row of readelf -sW: "N: VALUE SIZE TYPE BIND VIS [other] NDX NAME
 * [(VER)]". Return: N, or -1 when @line is no symbol row.
 */
static int sym_row(char *line, struct fx_sym *s)
{
	char *tok[24];
	int n, i = 6;

	join_specific(line);
	n = split(line, tok, 24);

	if (n < 7 || !strchr(tok[0], ':'))
		return -1;
	while (i < n && tok[i][0] == '[') /* "[VARIANT_PCS]", "[<other>: 8]" */
		while (i < n && !strchr(tok[i++], ']'))
			;
	if (i >= n)
		return -1;
	s->value = strtoull(tok[1], NULL, 16);
	s->size = strtoull(tok[2], NULL, 0);
	gnu_name(s->type, sizeof(s->type), tok[3], "IFUNC");
	gnu_name(s->bind, sizeof(s->bind), tok[4], "UNIQUE");
	if (!strcmp(tok[i], "UND"))
		s->ndx = FX_UND;
	else if (!strcmp(tok[i], "ABS"))
		s->ndx = FX_ABS;
	else if (tok[i][0] >= '0' && tok[i][0] <= '9')
		s->ndx = atoi(tok[i]);
	else
		s->ndx = FX_OTHER;
	s->name = strdup(i + 1 < n ? tok[i + 1] : "");
	return s->name ? atoi(tok[0]) : -1;
}

int fx_symtab(const char *file, const char *table, struct fx_symtab *t)
{
	FILE *p = readelf("-sW", file);
	char line[4096], cur[64] = "";
	bool found = false;
	struct fx_sym s;
	size_t cap = 0;
	int num;

	t->s = NULL;
	t->n = 0;
	while (p && fgets(line, sizeof(line), p)) {
		if (sscanf(line, "Symbol table '%63[^']'", cur) == 1) {
			found |= !strcmp(cur, table);
			continue;
		}
		if (strcmp(cur, table))
			continue;
		num = sym_row(line, &s);
		if (num <= 0) { /* index 0 is the null symbol */
			if (!num)
				free(s.name);
			continue;
		}
		if (t->n == cap) {
			cap = cap ? 2 * cap : 256;
			t->s = realloc(t->s, cap * sizeof(*t->s));
			if (!t->s)
				abort();
		}
		t->s[t->n++] = s;
	}
	if (p)
		pclose(p);
	return found ? 0 : -1;
}

void fx_symtab_free(struct fx_symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->s[i].name);
	free(t->s);
	t->s = NULL;
	t->n = 0;
}

/* readelf -SW: which section indexes hold code (flag X). */
static void exec_sections(const char *file, bool *exec, size_t max)
{
	FILE *p = readelf("-SW", file);
	char line[512], *tok[16], *br;
	int idx;

	memset(exec, 0, max * sizeof(*exec));
	while (p && fgets(line, sizeof(line), p)) {
		br = strchr(line, ']');
		if (!br || sscanf(line, " [%d]", &idx) != 1 || idx < 0 ||
		    (size_t)idx >= max)
			continue;
		/* NAME TYPE ADDR OFF SIZE ES FLG LK INF AL: ten with flags */
		if (split(br + 1, tok, 16) == 10)
			exec[idx] = strchr(tok[6], 'X') != NULL;
	}
	if (p)
		pclose(p);
}

int fx_elf_read(const char *file, struct fx_elf *e)
{
	e->nloads = fx_loads(file, e->loads, 16);
	exec_sections(file, e->exec_scn, 1024);
	e->has_symtab = !fx_symtab(file, ".symtab", &e->symtab);
	e->has_dynsym = !fx_symtab(file, ".dynsym", &e->dynsym);
	return e->nloads ? 0 : -1;
}

void fx_elf_free(struct fx_elf *e)
{
	fx_symtab_free(&e->symtab);
	fx_symtab_free(&e->dynsym);
}
