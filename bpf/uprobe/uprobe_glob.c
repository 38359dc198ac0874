// SPDX-License-Identifier: GPL-2.0-only
/*
 * Wildcard uprobe targets: every function of a file whose name matches a
 * glob, as bpftrace picks them for a uprobe_multi link: symbols that are
 * code, .symtab then .dynsym, one target per distinct file offset.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uprobe_elf.h"
#include "uprobe_err.h"
#include "uprobe_target.h"

/*
 * The names go into one growing buffer, not one allocation each: a glob
 * of thousands of functions made as many strndup() calls, and a host
 * where some tool has uprobes on libc (bpftrace users do) traps each one.
 * Until the walk ends, a match's name holds its offset in that buffer.
 */
struct glob_acc {
	struct uprobe_match *m;
	size_t n, cap;
	size_t seq; /* table order, so that the first name at an offset wins */
	char *names;
	size_t nlen, ncap;
};

static int acc_add(struct glob_acc *a, uint64_t off, const char *name,
		   size_t len)
{
	struct uprobe_match *m;

	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;

		m = realloc(a->m, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		a->m = m;
		a->cap = cap;
	}
	if (a->nlen + len + 1 > a->ncap) {
		size_t cap = a->ncap ? 2 * a->ncap : 4096;
		char *p;

		while (cap < a->nlen + len + 1)
			cap *= 2;
		p = realloc(a->names, cap);
		if (!p)
			return -ENOMEM;
		a->names = p;
		a->ncap = cap;
	}
	memcpy(a->names + a->nlen, name, len);
	a->names[a->nlen + len] = '\0';
	m = &a->m[a->n];
	m->offset = off;
	m->seq = a->seq++;
	m->name = (char *)(uintptr_t)a->nlen; /* made a pointer at the end */
	a->nlen += len + 1;
	a->n++;
	return 0;
}

/* One symbol table: the defined code symbols whose base name matches. */
static int glob_table(Elf *elf, GElf_Word type, const char *pattern,
		      struct glob_acc *a)
{
	struct uprobe_symtab t;
	struct uprobe_sym si;
	char name[PROBE_GLOB_NAME_MAX];
	uint64_t off;
	size_t i;
	int err = uprobe_symtab_load(elf, type, &t);

	if (err)
		return err == -ENOENT ? 0 : err;
	for (i = 1; !err && i < t.count; i++) {
		if (uprobe_sym_get(&t, i, &si) ||
		    si.sym.st_shndx == SHN_UNDEF || !si.sym.st_value ||
		    si.baselen >= sizeof(name) || !uprobe_is_code(elf, &si.sym))
			continue;
		memcpy(name, si.name, si.baselen);
		name[si.baselen] = '\0';
		if (fnmatch(pattern, name, 0) ||
		    uprobe_vaddr_to_off(elf, si.sym.st_value, &off))
			continue;
		err = acc_add(a, off, name, si.baselen);
	}
	uprobe_symtab_free(&t);
	return err;
}

static int by_offset_then_seq(const void *x, const void *y)
{
	const struct uprobe_match *a = x, *b = y;

	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Sort by offset and keep the first name (in table order) of each. */
static void keep_distinct(struct glob_acc *a)
{
	size_t i, n = 0;

	if (a->n) /* qsort() wants a non-NULL base */
		qsort(a->m, a->n, sizeof(*a->m), by_offset_then_seq);
	for (i = 0; i < a->n; i++)
		if (!n || a->m[n - 1].offset != a->m[i].offset)
			a->m[n++] = a->m[i];
	a->n = n;
	for (i = 0; i < n; i++)
		a->m[i].name = a->names + (uintptr_t)a->m[i].name;
}

void uprobe_matches_free(struct uprobe_matches *m)
{
	size_t i;

	for (i = 0; !m->names && i < m->n; i++)
		free(m->m[i].name);
	free(m->names);
	free(m->m);
	m->m = NULL;
	m->names = NULL;
	m->n = 0;
}

int uprobe_glob(const char *canonical, const char *pattern,
		struct uprobe_matches *out, struct uprobe_err *terr)
{
	struct glob_acc a = {0};
	struct uprobe_elf f;
	int err;

	memset(out, 0, sizeof(*out));
	err = uprobe_elf_open(&f, canonical, terr);
	if (err)
		return err;
	err = glob_table(f.elf, SHT_SYMTAB, pattern, &a);
	if (!err)
		err = glob_table(f.elf, SHT_DYNSYM, pattern, &a);
	out->dev = f.st.st_dev;
	out->ino = f.st.st_ino;
	uprobe_elf_close(&f);
	if (!err)
		keep_distinct(&a);
	out->m = a.m;
	out->n = a.n;
	out->names = a.names; /* non-NULL whenever a name was added */
	if (!err && !a.n) {
		err = -ENOENT;
		uprobe_set_err(terr, true, "no function matches '%s' in %s",
			       pattern, canonical);
	} else if (err) {
		uprobe_set_err(terr, false, "cannot read the symbols of %s",
			       canonical);
	}
	if (err)
		uprobe_matches_free(out);
	return err;
}
