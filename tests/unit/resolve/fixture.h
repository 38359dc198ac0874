/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ELF fixtures of the resolver tests (test_resolve, test_symcache,
 * test_rescache), built here with gcc in a temporary directory, and
 * readelf's view of any ELF file: the independent source of every expected
 * value, never the code under test.
 */
#ifndef BPFLINKFS_TESTS_FIXTURE_H
#define BPFLINKFS_TESTS_FIXTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

/* ---- the temporary directory ---- */

/* fx_init() - make /tmp/@name.XXXXXX (canonical); 0 or -1 */
int fx_init(const char *name);
/* fx_dir() - its path */
const char *fx_dir(void);
/* fx_path() - @name inside it, in @out */
void fx_path(const char *name, char out[PATH_MAX]);
/* fx_write() - a file of @text inside it; 0 or -1 */
int fx_write(const char *name, const char *text);
/* fx_run() - a shell command run inside it: its exit status, -1 if none */
__attribute__((format(printf, 1, 2))) int fx_run(const char *fmt, ...);
/* fx_cleanup() - remove the directory */
void fx_cleanup(void);

/*
 * fx_build() - the fixture set (see fixture.c): pie and nopie from two
 * translation units, stripped, a.o, libv.so with symbol versions and its
 * stripped copy, notelf.txt, sub/, link -> pie; static_stripped and lld
 * where the tools allow (then fx_have() is true for them).
 * Return: 0, or -1 when gcc could not build the required ones.
 */
int fx_build(void);
bool fx_have(const char *name);

/*
 * fx_start() - in a test: the fixture set in /tmp/@name.XXXXXX, or the
 * whole test skipped (no gcc, strip or readelf) or bailed out (a build
 * failed).
 */
static inline void fx_start(const char *name)
{
	if (system("command -v gcc >/dev/null && command -v readelf "
		   ">/dev/null && command -v strip >/dev/null") != 0)
		skip_all("needs gcc, strip and readelf");
	if (fx_init(name) || fx_build())
		bail_out("building the fixtures in %s failed", fx_dir());
}

/* ---- readelf -lW, -SW, -sW ---- */

struct fx_load {
	uint64_t off, vaddr, filesz;
	bool exec;
};

/* The PT_LOAD segments of @file; how many (at most @max). */
int fx_loads(const char *file, struct fx_load *l, int max);

struct fx_sym {
	uint64_t value, size;
	char type[16], bind[16];
	int ndx;    /* section index; FX_UND, FX_ABS or FX_OTHER if none */
	char *name; /* as readelf prints it: "@VER" / "@@VER" in .dynsym */
};
#define FX_UND (-1)
#define FX_ABS (-2)
#define FX_OTHER (-3)

struct fx_symtab {
	struct fx_sym *s; /* in table order, from index 1 */
	size_t n;
};

/* Table @table (".symtab", ".dynsym") of @file: 0, or -1 if it has none. */
int fx_symtab(const char *file, const char *table, struct fx_symtab *t);
void fx_symtab_free(struct fx_symtab *t);

/* readelf's whole view of one file, as far as symbolizing needs it. */
struct fx_elf {
	struct fx_load loads[16];
	int nloads;
	bool exec_scn[1024]; /* section index -> SHF_EXECINSTR */
	struct fx_symtab symtab, dynsym;
	bool has_symtab, has_dynsym;
};

int fx_elf_read(const char *file, struct fx_elf *e);
void fx_elf_free(struct fx_elf *e);

/*
 * The file offset of virtual address @vaddr: through the PT_LOAD whose
 * file part holds it. false if none does.
 */
bool fx_vaddr_to_off(const char *file, uint64_t vaddr, uint64_t *off);
/* The same through the @n segments @l that fx_loads() gave. */
bool fx_load_off(const struct fx_load *l, int n, uint64_t vaddr, uint64_t *off);
/* @off is in the file part of an executable PT_LOAD. */
bool fx_off_in_exec(const char *file, uint64_t off);

#endif /* BPFLINKFS_TESTS_FIXTURE_H */
