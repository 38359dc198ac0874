// SPDX-License-Identifier: GPL-2.0-only
/*
 * The two caches of uprobe targets, both for the same reason: a thousand
 * links or lines naming one binary must not parse it a thousand times.
 *
 * The resolution cache of uprobe_resolve(): a thousand lines naming one
 * binary must not parse it a thousand times. What resolving a SYMBOL needs
 * (PT_LOAD table, every symbol of .symtab and .dynsym with its version,
 * DT_NEEDED for the "only imported" message) is read once with libelf into
 * plain arrays, symbols sorted by name, and kept per file, keyed by what
 * changes when the file does (device, inode, mtime, ctime, size). Entries
 * are immutable once built and reference counted, so readers use them
 * without holding the lock and an evicted entry lives until its last user
 * is done. The Elf and its fd are closed right after building: nothing
 * stays open and the target is never mapped.
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
#include "uprobe_target.h"

#define RESCACHE_FILES 8
/* all entries together; a file needing more is resolved uncached */
#define RESCACHE_BYTES (64u << 20)

/* Process-wide on purpose: resolutions of unchanged ELF files (checked
 * against dev, inode, mtime and size) are the same whichever mount asks;
 * a memo private to this file, not part of the handle of owned.h, like
 * uprobe_symcache.c's symcache */
static pthread_mutex_t rescache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct uprobe_rfile *rescache[RESCACHE_FILES];
static size_t rescache_bytes;
static uint64_t rescache_clock;

static void rfile_free(struct uprobe_rfile *rf)
{
	if (!rf)
		return;
	free(rf->tab[0].s);
	free(rf->tab[1].s);
	free(rf->loads);
	free(rf->needed);
	free(rf->names);
	free(rf);
}

/* Copy @len bytes of @s and a NUL into the name blob; its offset in @at. */
static int names_put(struct uprobe_rfile *rf, const char *s, size_t len,
		     uint32_t *at)
{
	char *p;

	if (rf->names_len + len + 1 >= UPROBE_RNONE)
		return -E2BIG;
	if (rf->names_len + len + 1 > rf->names_cap) {
		size_t cap = (rf->names_cap + len + 1) * 2;

		p = realloc(rf->names, cap);
		if (!p)
			return -ENOMEM;
		rf->names = p;
		rf->names_cap = cap;
	}
	p = rf->names + rf->names_len;
	memcpy(p, s, len);
	p[len] = '\0';
	*at = rf->names_len;
	rf->names_len += len + 1;
	return 0;
}

/* By base name (without "@VER"), then in table order. */
static int rsym_cmp(const void *a, const void *b, void *names)
{
	const struct uprobe_rsym *x = a, *y = b;
	size_t n = x->baselen < y->baselen ? x->baselen : y->baselen;
	int c = memcmp((char *)names + x->name, (char *)names + y->name, n);

	if (c)
		return c;
	if (x->baselen != y->baselen)
		return x->baselen < y->baselen ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int rsym_add(struct uprobe_rfile *rf, const struct uprobe_symtab *t,
		    size_t i, struct uprobe_rsym *rs)
{
	struct uprobe_sym si;
	int err;

	/* a table with one unreadable symbol fails every scan of it */
	if (uprobe_sym_get(t, i, &si) != 0)
		return -EINVAL;
	err = names_put(rf, si.name, strlen(si.name), &rs->name);
	rs->ver = UPROBE_RNONE;
	if (!err && si.ver && si.baselen < strlen(si.name)) /* "name@VER" */
		rs->ver = rs->name + (si.ver - si.name);
	else if (!err && si.ver)
		err = names_put(rf, si.ver, strlen(si.ver), &rs->ver);
	rs->value = si.sym.st_value;
	rs->size = si.sym.st_size;
	rs->baselen = si.baselen;
	rs->idx = i;
	rs->shndx = si.sym.st_shndx;
	rs->info = si.sym.st_info;
	rs->hidden = si.hidden;
	rs->code = uprobe_is_code(t->elf, &si.sym);
	return err;
}

/* .symtab or .dynsym (@type); a missing or unreadable one is a state. */
static int rtab_build(struct uprobe_rfile *rf, Elf *elf, GElf_Word type,
		      struct uprobe_rtab *rt)
{
	struct uprobe_symtab t;
	size_t i;
	int err;

	rt->state = uprobe_symtab_load(elf, type, &t);
	if (rt->state == -ENOMEM)
		return -ENOMEM;
	if (rt->state)
		return 0;
	rt->s = calloc(t.count ? t.count : 1, sizeof(*rt->s));
	err = rt->s ? 0 : -ENOMEM;
	for (i = 1; !err && i < t.count; i++) {
		err = rsym_add(rf, &t, i, &rt->s[rt->n]);
		if (err == -EINVAL) {
			rt->state = err;
			rt->n = 0;
			err = 0;
			break;
		}
		if (!err)
			rt->n++;
	}
	uprobe_symtab_free(&t);
	if (!err)
		qsort_r(rt->s, rt->n, sizeof(*rt->s), rsym_cmp, rf->names);
	return err;
}

int uprobe_loads_read(Elf *elf, struct uprobe_rload **loads, size_t *nloads)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) != 0)
		return -EINVAL;
	*loads = calloc(n ? n : 1, sizeof(**loads));
	if (!*loads)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		(*loads)[(*nloads)++] =
			(struct uprobe_rload){ph.p_offset, ph.p_vaddr,
					      ph.p_filesz, ph.p_flags & PF_X};
	}
	return 0;
}

/* The DT_NEEDED names that have a name, in order. */
static int needed_build(struct uprobe_rfile *rf, Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = uprobe_find_scn(elf, SHT_DYNAMIC, &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	const char *name;
	uint32_t *p;
	GElf_Dyn dyn;
	int i, err;

	for (i = 0; d && gelf_getdyn(d, i, &dyn) && dyn.d_tag != DT_NULL; i++) {
		if (dyn.d_tag != DT_NEEDED)
			continue;
		name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
		if (!name)
			continue;
		p = realloc(rf->needed, (rf->nneeded + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		rf->needed = p;
		err = names_put(rf, name, strlen(name), &p[rf->nneeded]);
		if (err)
			return err;
		rf->nneeded++;
	}
	return 0;
}

static int rfile_build(const struct uprobe_elf *f, struct uprobe_rfile **out)
{
	struct uprobe_rfile *rf = calloc(1, sizeof(*rf));
	int err;

	if (!rf)
		return -ENOMEM;
	rf->dev = f->st.st_dev;
	rf->ino = f->st.st_ino;
	rf->mtime = f->st.st_mtim;
	rf->ctime = f->st.st_ctim;
	rf->size = f->st.st_size;
	/* no program headers: no PT_LOAD, every offset is outside */
	err = uprobe_loads_read(f->elf, &rf->loads, &rf->nloads);
	if (err == -EINVAL)
		err = 0;
	if (!err)
		err = rtab_build(rf, f->elf, SHT_SYMTAB, &rf->tab[0]);
	if (!err)
		err = rtab_build(rf, f->elf, SHT_DYNSYM, &rf->tab[1]);
	if (!err)
		err = needed_build(rf, f->elf);
	rf->bytes = sizeof(*rf) + rf->names_cap +
		    rf->nloads * sizeof(*rf->loads) +
		    rf->nneeded * sizeof(*rf->needed) +
		    (rf->tab[0].n + rf->tab[1].n) * sizeof(struct uprobe_rsym);
	if (!err && rf->bytes > RESCACHE_BYTES)
		err = -E2BIG;
	if (err) {
		rfile_free(rf);
		return err;
	}
	*out = rf;
	return 0;
}

static bool ts_eq(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static bool rfile_is(const struct uprobe_rfile *rf, const struct stat *st)
{
	return rf->dev == st->st_dev && rf->ino == st->st_ino &&
	       rf->size == st->st_size && ts_eq(&rf->mtime, &st->st_mtim) &&
	       ts_eq(&rf->ctime, &st->st_ctim);
}

/* Under rescache_lock: the slot of the entry for @st, or -1. */
static int rescache_find(const struct stat *st)
{
	int i;

	for (i = 0; i < RESCACHE_FILES; i++)
		if (rescache[i] && rfile_is(rescache[i], st))
			return i;
	return -1;
}

/* Under rescache_lock: drop slot @i; its users keep it until they put it. */
static void rescache_unlink(int i)
{
	struct uprobe_rfile *rf = rescache[i];

	rescache[i] = NULL;
	rescache_bytes -= rf->bytes;
	rf->linked = false;
	if (!rf->refs)
		rfile_free(rf);
}

/* Under rescache_lock: keep @rf, evicting least recently used entries. */
static void rescache_insert(struct uprobe_rfile *rf)
{
	int i, victim;

	for (;;) {
		victim = -1;
		for (i = 0; i < RESCACHE_FILES; i++) {
			if (!rescache[i])
				break;
			if (victim < 0 ||
			    rescache[i]->used < rescache[victim]->used)
				victim = i;
		}
		if (i < RESCACHE_FILES &&
		    rescache_bytes + rf->bytes <= RESCACHE_BYTES)
			break;
		rescache_unlink(victim);
	}
	rescache[i] = rf;
	rescache_bytes += rf->bytes;
	rf->linked = true;
}

/* The cached entry for @st with a reference, or NULL. */
static struct uprobe_rfile *rescache_ref(const struct stat *st)
{
	struct uprobe_rfile *rf = NULL;
	int i;

	pthread_mutex_lock(&rescache_lock);
	i = rescache_find(st);
	if (i >= 0) {
		rf = rescache[i];
		rf->used = ++rescache_clock;
		rf->refs++;
	}
	pthread_mutex_unlock(&rescache_lock);
	return rf;
}

/* Cache the freshly built @rf unless another thread was quicker. */
static struct uprobe_rfile *rescache_add(struct uprobe_rfile *rf)
{
	struct stat key = {.st_dev = rf->dev,
			   .st_ino = rf->ino,
			   .st_size = rf->size,
			   .st_mtim = rf->mtime,
			   .st_ctim = rf->ctime};
	int i;

	pthread_mutex_lock(&rescache_lock);
	i = rescache_find(&key);
	if (i >= 0) {
		rfile_free(rf);
		rf = rescache[i];
	} else {
		rescache_insert(rf);
	}
	rf->used = ++rescache_clock;
	rf->refs++;
	pthread_mutex_unlock(&rescache_lock);
	return rf;
}

int uprobe_rescache_get(const char *path, struct uprobe_rfile **rfp,
			struct uprobe_elf *f, struct uprobe_err *terr)
{
	struct uprobe_rfile *rf;
	struct stat st;
	int err;

	f->fd = -1;
	f->elf = NULL;
	if (stat(path, &st) == 0) {
		*rfp = rescache_ref(&st);
		if (*rfp)
			return 0;
	}
	/* parse outside the lock; the key is the file actually opened */
	err = uprobe_elf_open(f, path, terr);
	if (err)
		return err;
	if (rfile_build(f, &rf) != 0)
		return 1;
	uprobe_elf_close(f);
	*rfp = rescache_add(rf);
	return 0;
}

void uprobe_rescache_put(struct uprobe_rfile *rf)
{
	if (!rf)
		return;
	pthread_mutex_lock(&rescache_lock);
	if (!--rf->refs && !rf->linked)
		rfile_free(rf);
	pthread_mutex_unlock(&rescache_lock);
}

bool uprobe_rescache_known(const char *path)
{
	struct stat st;
	bool known;

	if (stat(path, &st) != 0)
		return false;
	pthread_mutex_lock(&rescache_lock);
	known = rescache_find(&st) >= 0;
	pthread_mutex_unlock(&rescache_lock);
	return known;
}

void uprobe_rescache_flush(void)
{
	int i;

	pthread_mutex_lock(&rescache_lock);
	for (i = 0; i < RESCACHE_FILES; i++)
		if (rescache[i])
			rescache_unlink(i);
	pthread_mutex_unlock(&rescache_lock);
}

/*
 * The first entry of table @which not sorting before the @len bytes at
 * @key, as rsym_cmp() sorts (bytes, then the shorter first): an exact
 * name's entries and a prefix's names both start there.
 */
static size_t rtab_lower_bound(const struct uprobe_rfile *rf, int which,
			       const char *key, size_t len)
{
	const struct uprobe_rtab *rt = &rf->tab[which];
	size_t lo = 0, hi = rt->n, mid, n;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		n = rt->s[mid].baselen < len ? rt->s[mid].baselen : len;
		c = memcmp(rf->names + rt->s[mid].name, key, n);
		if (!c && rt->s[mid].baselen < len)
			c = -1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t uprobe_rtab_find(const struct uprobe_rfile *rf, int which,
			const char *name, size_t baselen, size_t *first)
{
	const struct uprobe_rtab *rt = &rf->tab[which];
	size_t n;

	*first = rtab_lower_bound(rf, which, name, baselen);
	for (n = *first; n < rt->n && rt->s[n].baselen == baselen &&
			 !memcmp(rf->names + rt->s[n].name, name, baselen);
	     n++)
		;
	return n - *first;
}

size_t uprobe_rtab_prefixed(const struct uprobe_rfile *rf, int which,
			    const char *prefix, size_t len, size_t *first)
{
	const struct uprobe_rtab *rt = &rf->tab[which];
	size_t n;

	/* the names that start with @prefix follow in a row */
	*first = rtab_lower_bound(rf, which, prefix, len);
	for (n = *first; n < rt->n && rt->s[n].baselen >= len &&
			 !memcmp(rf->names + rt->s[n].name, prefix, len);
	     n++)
		;
	return n - *first;
}

int uprobe_rfile_vaddr_to_off(const struct uprobe_rfile *rf, uint64_t vaddr,
			      uint64_t *off)
{
	size_t i;

	for (i = 0; i < rf->nloads; i++) {
		const struct uprobe_rload *l = &rf->loads[i];

		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz) {
			*off = vaddr - l->vaddr + l->off;
			return 0;
		}
	}
	return -ENOENT;
}

bool uprobe_rfile_off_in_exec(const struct uprobe_rfile *rf, uint64_t off)
{
	size_t i;

	if ((uint64_t)rf->size <= off)
		return false;
	for (i = 0; i < rf->nloads; i++) {
		const struct uprobe_rload *l = &rf->loads[i];

		if (l->exec && off >= l->off && off - l->off < l->filesz)
			return true;
	}
	return false;
}
