// SPDX-License-Identifier: GPL-2.0-only
/*
 * Wildcard uprobe targets: every function of a file whose name matches a
 * glob, as bpftrace picks them for a uprobe_multi link: symbols that are
 * code, .symtab then .dynsym, one target per distinct file offset.
 *
 * The symbols come from the resolution cache (uprobe_cache.h), parsed once
 * per file and sorted by name: a pattern's literal head ("bench_fn_" of
 * "bench_fn_*") picks the range of names that can match by binary search,
 * and fnmatch() runs on that range only. A file the cache cannot hold, or
 * whose table it could not read whole, is walked with libelf as it is.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uprobe_cache.h"
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
	char *names;
	size_t nlen, ncap;
};

/* @seq: .symtab's index, or .dynsym's with bit 32 set (table order) */
static int acc_add(struct glob_acc *a, uint64_t off, const char *name,
		   size_t len, size_t seq)
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
	m->seq = seq;
	m->name = (char *)(uintptr_t)a->nlen; /* made a pointer at the end */
	a->nlen += len + 1;
	a->n++;
	return 0;
}

/* Table order of symbol @idx of .symtab (@which 0) or .dynsym (1). */
static size_t table_seq(int which, size_t idx)
{
	return (size_t)which << 32 | idx;
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
		err = acc_add(a, off, name, si.baselen,
			      table_seq(type == SHT_DYNSYM, i));
	}
	uprobe_symtab_free(&t);
	return err;
}

/* Both tables of an open file, uncached. */
static int glob_elf(Elf *elf, const char *pattern, struct glob_acc *a)
{
	int err = glob_table(elf, SHT_SYMTAB, pattern, a);

	return err ? err : glob_table(elf, SHT_DYNSYM, pattern, a);
}

/*
 * The length of @pattern's literal head: the bytes before its first
 * special character (fnmatch(3) without flags: '*', '?', '[', '\\'),
 * ASCII only, so that no locale can match them other than byte for byte.
 * Every name the pattern matches starts with them.
 */
static size_t literal_head(const char *pattern)
{
	size_t n = 0;

	while (pattern[n] && !(pattern[n] & 0x80) &&
	       !strchr("*?[\\", pattern[n]))
		n++;
	return n;
}

/* Table @which of the cached @rf: as glob_table(), on the names that
 * start with the pattern's literal head only. */
static int glob_rtab(const struct uprobe_rfile *rf, int which,
		     const char *pattern, struct glob_acc *a)
{
	const struct uprobe_rtab *rt = &rf->tab[which];
	char name[PROBE_GLOB_NAME_MAX];
	size_t first, n, i;
	uint64_t off;
	int err = 0;

	n = uprobe_rtab_prefixed(rf, which, pattern, literal_head(pattern),
				 &first);
	for (i = first; !err && i < first + n; i++) {
		const struct uprobe_rsym *s = &rt->s[i];

		if (s->shndx == SHN_UNDEF || !s->value ||
		    s->baselen >= sizeof(name) || !s->code)
			continue;
		memcpy(name, rf->names + s->name, s->baselen);
		name[s->baselen] = '\0';
		if (fnmatch(pattern, name, 0) ||
		    uprobe_rfile_vaddr_to_off(rf, s->value, &off))
			continue;
		err = acc_add(a, off, name, s->baselen,
			      table_seq(which, s->idx));
	}
	return err;
}

/* The cache read both tables whole, or knows the file has none. */
static bool rfile_whole(const struct uprobe_rfile *rf)
{
	return (!rf->tab[0].state || rf->tab[0].state == -ENOENT) &&
	       (!rf->tab[1].state || rf->tab[1].state == -ENOENT);
}

/*
 * The matches of @pattern in @canonical into @a, and the file's identity:
 * from the cache when it holds the file whole, else read with libelf.
 */
static int glob_file(const char *canonical, const char *pattern,
		     struct glob_acc *a, struct uprobe_matches *out,
		     struct uprobe_err *terr, bool *opened)
{
	struct uprobe_rfile *rf = NULL;
	struct uprobe_elf f;
	int err = uprobe_rescache_get(canonical, &rf, &f, terr);

	*opened = err >= 0;
	if (err < 0)
		return err;
	if (!err && rfile_whole(rf)) {
		err = glob_rtab(rf, 0, pattern, a);
		if (!err)
			err = glob_rtab(rf, 1, pattern, a);
		out->dev = rf->dev;
		out->ino = rf->ino;
		uprobe_rescache_put(rf);
		return err;
	}
	uprobe_rescache_put(rf);
	/* 1: not cacheable, @f is open; else a table to read as it is */
	err = err ? 0 : uprobe_elf_open(&f, canonical, terr);
	*opened = !err;
	if (err)
		return err;
	err = glob_elf(f.elf, pattern, a);
	out->dev = f.st.st_dev;
	out->ino = f.st.st_ino;
	uprobe_elf_close(&f);
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
	bool opened;
	int err;

	memset(out, 0, sizeof(*out));
	err = glob_file(canonical, pattern, &a, out, terr, &opened);
	if (err && !opened) {
		free(a.m);
		free(a.names);
		return err;
	}
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
