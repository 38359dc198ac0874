// SPDX-License-Identifier: GPL-2.0-only
/*
 * The symbolizer's cache (uprobe_symbolize(), uprobe_symbolize_many()):
 * file offset -> the function containing it, for `symbol` and `funcs`.
 */
#include <errno.h>
#include <inttypes.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "uprobe_cache.h"
#include "uprobe_elf.h"
#include "uprobe_symcache.h"
#include "uprobe_target.h"

/*
 * ---- offset -> name, cached ----
 *
 * A thousand links into one libc must not parse it a thousand times: each
 * file's code symbols are kept, sorted by address, with its PT_LOAD table,
 * keyed by what changes when the file does (device, inode, mtime, size).
 * uprobe_symbolize() answers from it only: there is no uncached path.
 */
#define SYMCACHE_FILES 16

struct csym {
	uint64_t start, size;
	uint64_t max_end; /* highest end among this and all earlier symbols */
	uint32_t idx;	  /* in the ELF table: equal scores go to the first */
	uint32_t name;	  /* offset in symfile.names */
	int rank;	  /* uprobe_bind_rank() */
};

struct csyms {
	struct csym *s;
	size_t n;
};

struct symfile {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	off_t size;
	uint64_t used; /* LRU clock */
	struct uprobe_rload *loads;
	size_t nloads;
	struct csyms tab[2]; /* .symtab, .dynsym */
	char *names;
	size_t names_len, names_cap;
};

/* Process-wide on purpose, like uprobe_cache.c's rescache: the symbols of
 * an unchanged file are the same whichever mount asks */
static pthread_mutex_t symcache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct symfile *symcache[SYMCACHE_FILES];
static uint64_t symcache_clock;

static void symfile_free(struct symfile *sf)
{
	if (!sf)
		return;
	free(sf->tab[0].s);
	free(sf->tab[1].s);
	free(sf->loads);
	free(sf->names);
	free(sf);
}

static int names_add(struct symfile *sf, const struct uprobe_symtab *t,
		     const struct uprobe_sym *si, uint32_t *at)
{
	size_t need = strlen(si->name) + 2 + (si->ver ? strlen(si->ver) : 0);
	bool named_ver = t->versym && si->hidden && si->ver;
	char *p;

	if (sf->names_len + need > UINT32_MAX)
		return -E2BIG;
	if (sf->names_len + need > sf->names_cap) {
		size_t cap = (sf->names_cap + need) * 2;

		p = realloc(sf->names, cap);
		if (!p)
			return -ENOMEM;
		sf->names = p;
		sf->names_cap = cap;
	}
	p = sf->names + sf->names_len;
	/* a .dynsym compat version must be named */
	sf->names_len +=
		sprintf(p, named_ver ? "%s@%s" : "%s", si->name, si->ver) + 1;
	*at = p - sf->names;
	return 0;
}

static int csym_cmp(const void *a, const void *b)
{
	const struct csym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The code symbols of @t: the ones csyms_best() chooses from. */
static int csyms_build(struct symfile *sf, const struct uprobe_symtab *t,
		       struct csyms *cs)
{
	struct uprobe_sym si;
	uint64_t end, max_end = 0;
	size_t i;
	int err;

	cs->s = calloc(t->count ? t->count : 1, sizeof(*cs->s));
	if (!cs->s)
		return -ENOMEM;
	for (i = 1; i < t->count; i++) {
		struct csym *c = &cs->s[cs->n];

		if (uprobe_sym_get(t, i, &si) != 0)
			return -EINVAL;
		if (si.sym.st_shndx == SHN_UNDEF ||
		    si.sym.st_shndx == SHN_ABS || !*si.name ||
		    !uprobe_is_code(t->elf, &si.sym))
			continue;
		err = names_add(sf, t, &si, &c->name);
		if (err)
			return err;
		c->start = si.sym.st_value;
		c->size = si.sym.st_size;
		c->idx = i;
		c->rank = uprobe_bind_rank(GELF_ST_BIND(si.sym.st_info));
		cs->n++;
	}
	if (cs->n) /* qsort() wants a non-NULL base */
		qsort(cs->s, cs->n, sizeof(*cs->s), csym_cmp);
	for (i = 0; i < cs->n; i++) {
		end = cs->s[i].start + (cs->s[i].size ? cs->s[i].size : 1);
		if (end > max_end)
			max_end = end;
		cs->s[i].max_end = max_end;
	}
	return 0;
}

static int symfile_build(const struct uprobe_elf *f, struct symfile **out)
{
	static const GElf_Word types[] = {SHT_SYMTAB, SHT_DYNSYM};
	struct symfile *sf = calloc(1, sizeof(*sf));
	struct uprobe_symtab t;
	int i, err;

	if (!sf)
		return -ENOMEM;
	sf->dev = f->st.st_dev;
	sf->ino = f->st.st_ino;
	sf->mtime = f->st.st_mtim;
	sf->size = f->st.st_size;
	err = uprobe_loads_read(f->elf, &sf->loads, &sf->nloads);
	for (i = 0; !err && i < 2; i++) {
		err = uprobe_symtab_load(f->elf, types[i], &t);
		if (err == -ENOENT)
			err = 0;
		else if (!err)
			err = csyms_build(sf, &t, &sf->tab[i]);
		uprobe_symtab_free(&t);
	}
	if (err) {
		symfile_free(sf);
		return err;
	}
	*out = sf;
	return 0;
}

/* As uprobe_off_to_vaddr(): an executable segment wins. */
static int symfile_vaddr(const struct symfile *sf, uint64_t off,
			 uint64_t *vaddr)
{
	int err = -ENOENT;
	size_t i;

	for (i = 0; i < sf->nloads; i++) {
		const struct uprobe_rload *l = &sf->loads[i];

		if (off < l->off || off - l->off >= l->filesz)
			continue;
		*vaddr = off - l->off + l->vaddr;
		err = 0;
		if (l->exec)
			break;
	}
	return err;
}

/* The best symbol containing @vaddr: only symbols that may reach it. */
static const struct csym *csyms_best(const struct csyms *cs, uint64_t vaddr)
{
	const struct csym *best = NULL, *c;
	size_t lo = 0, hi = cs->n, mid;
	int score, best_score = -1;
	bool sized;

	while (lo < hi) { /* lo: the first symbol starting after @vaddr */
		mid = lo + (hi - lo) / 2;
		if (cs->s[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && cs->s[lo].max_end > vaddr) {
		c = &cs->s[lo];
		sized = c->size && vaddr - c->start < c->size;
		if (!sized && (c->size || c->start != vaddr))
			continue;
		score = c->rank * 2 + sized;
		if (score > best_score ||
		    (score == best_score && c->idx < best->idx)) {
			best = c;
			best_score = score;
		}
	}
	return best;
}

static int symfile_lookup(const struct symfile *sf, uint64_t file_offset,
			  char *buf, size_t len)
{
	const struct csym *c = NULL;
	uint64_t vaddr;
	int i, n;

	if (symfile_vaddr(sf, file_offset, &vaddr))
		return -ENOENT;
	for (i = 0; !c && i < 2; i++)
		c = csyms_best(&sf->tab[i], vaddr);
	if (!c)
		return -ENOENT;
	n = snprintf(buf, len, "%s+0x%" PRIx64, sf->names + c->name,
		     vaddr - c->start);
	return n < 0 || (size_t)n >= len ? -ERANGE : 0;
}

static bool symfile_is(const struct symfile *sf, const struct stat *st)
{
	return sf->dev == st->st_dev && sf->ino == st->st_ino &&
	       sf->mtime.tv_sec == st->st_mtim.tv_sec &&
	       sf->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	       sf->size == st->st_size;
}

/* Under symcache_lock: the entry for @st, or NULL. */
static struct symfile *symcache_find(const struct stat *st)
{
	int i;

	for (i = 0; i < SYMCACHE_FILES; i++)
		if (symcache[i] && symfile_is(symcache[i], st))
			return symcache[i];
	return NULL;
}

/* Under symcache_lock: keep @sf, evicting the least recently used. */
static void symcache_insert(struct symfile *sf)
{
	int i, victim = 0;

	for (i = 0; i < SYMCACHE_FILES; i++) {
		if (!symcache[i]) {
			victim = i;
			break;
		}
		if (symcache[i]->used < symcache[victim]->used)
			victim = i;
	}
	symfile_free(symcache[victim]);
	symcache[victim] = sf;
}

void uprobe_symcache_flush(void)
{
	int i;

	pthread_mutex_lock(&symcache_lock);
	for (i = 0; i < SYMCACHE_FILES; i++) {
		symfile_free(symcache[i]);
		symcache[i] = NULL;
	}
	pthread_mutex_unlock(&symcache_lock);
}

/* Look @st up; 1 when it is not cached. */
/*
 * The cached symbols of @path, built on a miss. Return: the entry with
 * symcache_lock held (the caller unlocks), or NULL with *@err set.
 */
static struct symfile *symcache_get(const char *path, int *err)
{
	struct symfile *sf, *had;
	struct uprobe_elf f;
	struct stat st;

	if (stat(path, &st) < 0) {
		*err = -errno;
		return NULL;
	}
	pthread_mutex_lock(&symcache_lock);
	sf = symcache_find(&st);
	if (sf) {
		sf->used = ++symcache_clock;
		return sf;
	}
	pthread_mutex_unlock(&symcache_lock);
	/* parse outside the lock; the key is the file actually opened */
	*err = uprobe_elf_open(&f, path, NULL);
	if (*err)
		return NULL;
	*err = symfile_build(&f, &sf);
	uprobe_elf_close(&f);
	if (*err)
		return NULL;
	pthread_mutex_lock(&symcache_lock);
	had = symcache_find(&(struct stat){.st_dev = sf->dev,
					   .st_ino = sf->ino,
					   .st_mtim = sf->mtime,
					   .st_size = sf->size});
	if (had) { /* another thread was quicker */
		symfile_free(sf);
		sf = had;
	} else {
		symcache_insert(sf);
	}
	sf->used = ++symcache_clock;
	return sf;
}

int uprobe_symbolize(const char *path, uint64_t file_offset, char *buf,
		     size_t len)
{
	struct symfile *sf;
	int err;

	if (!path || !buf || !len)
		return -EINVAL;
	sf = symcache_get(path, &err);
	if (!sf)
		return err;
	err = symfile_lookup(sf, file_offset, buf, len);
	pthread_mutex_unlock(&symcache_lock);
	return err;
}

int uprobe_symbolize_many(const char *path, const uint64_t *offsets, size_t n,
			  char **names, char **text)
{
	char buf[PROBE_GLOB_NAME_MAX + 32], *p;
	size_t *at = calloc(n ? n : 1, sizeof(*at)), len = 0, cap = 0, k, i;
	struct symfile *sf = NULL;
	int err = at ? 0 : -ENOMEM;

	*text = NULL;
	memset(names, 0, n * sizeof(*names));
	if (!err)
		sf = symcache_get(path, &err);
	/* one buffer for all names: a strdup each trapped on hosts where a
	 * tool has uprobes on libc's str* functions */
	for (i = 0; sf && !err && i < n; i++) {
		at[i] = SIZE_MAX;
		if (symfile_lookup(sf, offsets[i], buf, sizeof(buf)))
			continue;
		k = strlen(buf) + 1;
		if (len + k > cap) {
			cap = cap ? 2 * cap + k : 64 * n + k;
			p = realloc(*text, cap);
			if (!p) {
				err = -ENOMEM;
				break;
			}
			*text = p;
		}
		memcpy(*text + len, buf, k);
		at[i] = len;
		len += k;
	}
	if (sf)
		pthread_mutex_unlock(&symcache_lock);
	for (i = 0; !err && i < n; i++)
		names[i] = at[i] == SIZE_MAX ? NULL : *text + at[i];
	free(at);
	if (err) {
		free(*text);
		*text = NULL;
	}
	return err;
}
