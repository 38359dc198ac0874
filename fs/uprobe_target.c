// SPDX-License-Identifier: GPL-2.0-only
/*
 * Uprobe targets, the symbol half: which file offset a SYMBOL[+OFFSET]
 * names in an ELF file, and which function contains a file offset. libelf
 * reads the ELF file; uprobe_path.c finds and checks it.
 */
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "uprobe_internal.h"
#include "uprobe_target.h"

#define MAX_CANDS 8

struct sym_req {
	const char *name; /* the spec as written */
	size_t baselen;
	const char *ver; /* NULL: the default version */
	bool dflt;	 /* "@@VER" */
};

static void req_parse(const char *symbol, struct sym_req *r)
{
	const char *at = strchr(symbol, '@');

	r->name = symbol;
	r->baselen = at ? (size_t)(at - symbol) : strlen(symbol);
	r->dflt = at && at[1] == '@';
	r->ver = at ? at + (r->dflt ? 2 : 1) : NULL;
}

static bool name_matches(const struct uprobe_sym *si, const struct sym_req *r)
{
	if (si->baselen != r->baselen ||
	    memcmp(si->name, r->name, r->baselen) != 0)
		return false;
	if (!r->ver)
		return !si->hidden;
	return si->ver && strcmp(si->ver, r->ver) == 0 &&
	       (!r->dflt || !si->hidden);
}

struct cand {
	GElf_Addr addr;
	GElf_Xword size;
	unsigned char bind, type;
};

struct scan {
	struct cand c[MAX_CANDS];
	int n;		/* distinct addresses kept in c[] */
	int more;	/* distinct addresses beyond MAX_CANDS */
	bool undef;	/* an undefined import of that name */
	bool nonfunc;	/* a defined non-function of that name */
	bool base_seen; /* the bare name, in some version */
	bool not_dflt;	/* name@@VER asked, but VER is a compat version */
};

static int bind_rank(unsigned char bind)
{
	return bind == STB_GLOBAL || bind == STB_GNU_UNIQUE ? 2
	       : bind == STB_WEAK			    ? 1
							    : 0;
}

static void scan_add(struct scan *sc, const GElf_Sym *s)
{
	struct cand *c;
	int i;

	for (i = 0; i < sc->n; i++) {
		c = &sc->c[i];
		if (c->addr != s->st_value)
			continue;
		/* an alias at the same address: merge its facts */
		if (bind_rank(GELF_ST_BIND(s->st_info)) > bind_rank(c->bind))
			c->bind = GELF_ST_BIND(s->st_info);
		if (GELF_ST_TYPE(s->st_info) == STT_GNU_IFUNC)
			c->type = STT_GNU_IFUNC;
		if (s->st_size > c->size)
			c->size = s->st_size;
		return;
	}
	if (sc->n == MAX_CANDS) {
		sc->more++;
		return;
	}
	c = &sc->c[sc->n++];
	c->addr = s->st_value;
	c->size = s->st_size;
	c->bind = GELF_ST_BIND(s->st_info);
	c->type = GELF_ST_TYPE(s->st_info);
}

static int scan_table(const struct uprobe_symtab *t, const struct sym_req *r,
		      struct scan *sc)
{
	struct uprobe_sym si;
	size_t i;
	int err;

	for (i = 1; i < t->count; i++) {
		err = uprobe_sym_get(t, i, &si);
		if (err)
			return err;
		if (si.baselen != r->baselen ||
		    memcmp(si.name, r->name, r->baselen) != 0)
			continue;
		/* an import of any version: its definition is elsewhere */
		if (si.sym.st_shndx == SHN_UNDEF) {
			sc->undef = true;
			continue;
		}
		sc->base_seen = true;
		if (!name_matches(&si, r)) {
			sc->not_dflt |=
				r->dflt && si.ver && !strcmp(si.ver, r->ver);
			continue;
		}
		if (si.sym.st_shndx == SHN_ABS ||
		    !uprobe_is_code(t->elf, &si.sym)) {
			sc->nonfunc = true;
			continue;
		}
		scan_add(sc, &si.sym);
	}
	return 0;
}

/* Global beats weak at another address (as the dynamic linker decides). */
static void scan_prefer_global(struct scan *sc)
{
	bool global = false;
	int i, j;

	for (i = 0; i < sc->n; i++)
		global |= bind_rank(sc->c[i].bind) == 2;
	if (!global)
		return;
	for (i = j = 0; i < sc->n; i++)
		if (sc->c[i].bind != STB_WEAK)
			sc->c[j++] = sc->c[i];
	sc->n = j;
}

/* Candidates for @r from .symtab, or from .dynsym when .symtab has none. */
static int find_symbol(Elf *elf, const struct sym_req *r, struct scan *sc,
		       bool *stripped)
{
	struct uprobe_symtab t;
	bool any = false;
	int err;

	memset(sc, 0, sizeof(*sc));
	err = uprobe_symtab_load(elf, SHT_SYMTAB, &t);
	*stripped = err == -ENOENT;
	if (!err) {
		any = true;
		err = scan_table(&t, r, sc);
		if (err || sc->n)
			return err;
	} else if (err != -ENOENT) {
		return err;
	}
	err = uprobe_symtab_load(elf, SHT_DYNSYM, &t);
	if (!err) {
		any = true;
		err = scan_table(&t, r, sc);
	} else if (err == -ENOENT) {
		err = 0;
	}
	return err ? err : any ? 0 : -ENODATA;
}

/* Which DT_NEEDED library defines @r: for the "only imported" message. */
static int find_definer(Elf *elf, const struct sym_req *r, char *out,
			size_t len)
{
	GElf_Shdr sh;
	Elf_Scn *scn = uprobe_find_scn(elf, SHT_DYNAMIC, &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	char canon[PATH_MAX];
	struct uprobe_elf lib;
	struct scan sc;
	const char *needed;
	GElf_Dyn dyn;
	bool stripped;
	int i;

	for (i = 0; d && gelf_getdyn(d, i, &dyn) && dyn.d_tag != DT_NULL; i++) {
		if (dyn.d_tag != DT_NEEDED)
			continue;
		needed = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
		if (!needed || uprobe_ldcache_lookup(needed, out, len) != 0 ||
		    uprobe_elf_open(&lib, out, NULL) != 0)
			continue;
		if (find_symbol(lib.elf, r, &sc, &stripped) == 0 && sc.n) {
			uprobe_elf_close(&lib);
			if (realpath(out, canon) && strlen(canon) < len)
				strcpy(out, canon);
			return 0;
		}
		uprobe_elf_close(&lib);
	}
	return -ENOENT;
}

static int not_found(Elf *elf, const char *path, const struct sym_req *r,
		     const struct scan *sc, bool stripped,
		     struct target_error *terr)
{
	char lib[PATH_MAX];

	if (sc->nonfunc) {
		uprobe_set_err(terr, 1, "'%s' in %s is not a function", r->name,
			       path);
		return -EINVAL;
	}
	if (sc->undef && find_definer(elf, r, lib, sizeof(lib)) == 0)
		uprobe_set_err(
			terr, 1,
			"'%s' is only imported by %s, not defined there; it is defined in %s",
			r->name, path, lib);
	else if (sc->undef)
		uprobe_set_err(
			terr, 1,
			"'%s' is only imported by %s, not defined there; probe the library that defines it",
			r->name, path);
	else if (sc->not_dflt)
		uprobe_set_err(
			terr, 1,
			"%s is not the default version in %s; write %.*s@%s",
			r->ver, path, (int)r->baselen, r->name, r->ver);
	else if (sc->base_seen && !r->ver)
		uprobe_set_err(
			terr, 1,
			"'%s' in %s has only non-default versions; name one as %s@VERSION",
			r->name, path, r->name);
	else if (sc->base_seen)
		uprobe_set_err(terr, 1, "no version '%s' of '%.*s' in %s",
			       r->ver, (int)r->baselen, r->name, path);
	else if (stripped)
		uprobe_set_err(
			terr, 1,
			"no symbol '%s' in %s: no symbol table (stripped), and .dynsym does not define it",
			r->name, path);
	else
		uprobe_set_err(terr, 1, "no symbol '%s' in %s", r->name, path);
	return -ENOENT;
}

static int ambiguous(Elf *elf, const struct sym_req *r, const struct scan *sc,
		     struct target_error *terr)
{
	char list[200];
	size_t used = 0;
	uint64_t off;
	int i, n;

	list[0] = '\0';
	for (i = 0; i < sc->n && used < sizeof(list); i++) {
		if (uprobe_vaddr_to_off(elf, sc->c[i].addr, &off) != 0)
			off = 0;
		n = snprintf(list + used, sizeof(list) - used, "%s0x%" PRIx64,
			     i ? ", " : "", off);
		used += n > 0 ? (size_t)n : 0;
	}
	uprobe_set_err(
		terr, 1,
		"symbol '%s' is ambiguous: %d candidates at file offsets %s%s; probe one as PATH:0xOFFSET",
		r->name, sc->n + sc->more, list, sc->more ? ", ..." : "");
	return -EINVAL;
}

static int resolve_symbol(Elf *elf, const char *path, const char *symbol,
			  uint64_t offset, struct uprobe_target *t,
			  struct target_error *terr)
{
	struct sym_req r;
	struct scan sc;
	bool stripped;
	uint64_t off;
	int err;

	req_parse(symbol, &r);
	if (!r.baselen || (r.ver && !*r.ver)) {
		uprobe_set_err(terr, 1, "bad symbol name '%s'", symbol);
		return -EINVAL;
	}
	err = find_symbol(elf, &r, &sc, &stripped);
	if (err == -ENODATA) {
		uprobe_set_err(terr, 1, "no symbol table in %s (stripped)",
			       path);
		return -ENOENT;
	}
	if (err) {
		uprobe_set_err(terr, 1, "cannot read the symbols of %s", path);
		return err;
	}
	scan_prefer_global(&sc);
	if (!sc.n)
		return not_found(elf, path, &r, &sc, stripped, terr);
	if (sc.n > 1 || sc.more)
		return ambiguous(elf, &r, &sc, terr);
	if (sc.c[0].size && offset >= sc.c[0].size) {
		uprobe_set_err(terr, 1,
			       "+0x%" PRIx64
			       " is past the end of %s (size 0x%" PRIx64 ")",
			       offset, symbol, (uint64_t)sc.c[0].size);
		return -EINVAL;
	}
	if (uprobe_vaddr_to_off(elf, sc.c[0].addr, &off) != 0) {
		uprobe_set_err(terr, 1,
			       "%s at 0x%" PRIx64
			       " is in no loadable segment of %s",
			       symbol, (uint64_t)sc.c[0].addr, path);
		return -EINVAL;
	}
	t->offset = off + offset;
	if (sc.c[0].type == STT_GNU_IFUNC)
		snprintf(
			t->warning, sizeof(t->warning),
			"%.*s is a GNU indirect function: probing its resolver, which runs once at load time",
			(int)r.baselen, symbol);
	return 0;
}

int uprobe_resolve(const char *canonical, const char *symbol, uint64_t offset,
		   bool by_offset, bool retprobe, struct uprobe_target *t,
		   struct target_error *terr)
{
	struct uprobe_target res;
	struct uprobe_elf f;
	int err;

	if (!canonical || !t || (!by_offset && (!symbol || !*symbol))) {
		uprobe_set_err(terr, 1, "no symbol or file offset given");
		return -EINVAL;
	}
	if (!by_offset && retprobe && offset) {
		uprobe_set_err(
			terr, 1,
			"a uretprobe fires at the function's return: give the symbol without +OFFSET");
		return -EINVAL;
	}
	if (strlen(canonical) >= sizeof(res.path)) {
		uprobe_set_err(terr, 0, "path too long");
		return -ENAMETOOLONG;
	}
	memset(&res, 0, sizeof(res));
	strcpy(res.path, canonical);
	err = uprobe_elf_open(&f, canonical, terr);
	if (err)
		return err;
	res.dev = f.st.st_dev;
	res.ino = f.st.st_ino;
	if (by_offset)
		res.offset = offset;
	else
		err = resolve_symbol(f.elf, canonical, symbol, offset, &res,
				     terr);
	if (!err && !uprobe_off_in_exec(f.elf, res.offset, f.st.st_size)) {
		uprobe_set_err(terr, 1,
			       "file offset 0x%" PRIx64
			       " is not inside an executable segment of %s",
			       res.offset, canonical);
		err = -EINVAL;
	}
	uprobe_elf_close(&f);
	if (!err)
		*t = res;
	return err;
}

/*
 * ---- offset -> name, cached ----
 *
 * A thousand links into one libc must not parse it a thousand times: each
 * file's code symbols are kept, sorted by address, with its PT_LOAD table,
 * keyed by what changes when the file does (device, inode, mtime, size).
 * The lookup gives what uprobe_symbolize_uncached() gives.
 */
#define SYMCACHE_FILES 16

struct csym {
	uint64_t start, size;
	uint64_t max_end; /* highest end among this and all earlier symbols */
	uint32_t idx;	  /* in the ELF table: equal scores go to the first */
	uint32_t name;	  /* offset in symfile.names */
	int rank;	  /* bind_rank() */
};

struct csyms {
	struct csym *s;
	size_t n;
};

struct cload {
	uint64_t off, vaddr, filesz;
	bool exec;
};

struct symfile {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	off_t size;
	uint64_t used; /* LRU clock */
	struct cload *loads;
	size_t nloads;
	struct csyms tab[2]; /* .symtab, .dynsym */
	char *names;
	size_t names_len, names_cap;
};

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
	/* as format_sym(): a .dynsym compat version must be named */
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

/* The code symbols of @t, as best_in_table() would consider them. */
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
		c->rank = bind_rank(GELF_ST_BIND(si.sym.st_info));
		cs->n++;
	}
	qsort(cs->s, cs->n, sizeof(*cs->s), csym_cmp);
	for (i = 0; i < cs->n; i++) {
		end = cs->s[i].start + (cs->s[i].size ? cs->s[i].size : 1);
		if (end > max_end)
			max_end = end;
		cs->s[i].max_end = max_end;
	}
	return 0;
}

static int loads_build(Elf *elf, struct symfile *sf)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) != 0)
		return -EINVAL;
	sf->loads = calloc(n ? n : 1, sizeof(*sf->loads));
	if (!sf->loads)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		sf->loads[sf->nloads++] =
			(struct cload){ph.p_offset, ph.p_vaddr, ph.p_filesz,
				       ph.p_flags & PF_X};
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
	err = loads_build(f->elf, sf);
	for (i = 0; !err && i < 2; i++) {
		err = uprobe_symtab_load(f->elf, types[i], &t);
		if (err == -ENOENT)
			err = 0;
		else if (!err)
			err = csyms_build(sf, &t, &sf->tab[i]);
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
		const struct cload *l = &sf->loads[i];

		if (off < l->off || off - l->off >= l->filesz)
			continue;
		*vaddr = off - l->off + l->vaddr;
		err = 0;
		if (l->exec)
			break;
	}
	return err;
}

/* best_in_table() on the sorted copy: only symbols that may reach @vaddr. */
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
static int symcache_lookup(const struct stat *st, uint64_t file_offset,
			   char *buf, size_t len)
{
	struct symfile *sf;
	int err = 1;

	pthread_mutex_lock(&symcache_lock);
	sf = symcache_find(st);
	if (sf) {
		sf->used = ++symcache_clock;
		err = symfile_lookup(sf, file_offset, buf, len);
	}
	pthread_mutex_unlock(&symcache_lock);
	return err;
}

int uprobe_symbolize(const char *path, uint64_t file_offset, char *buf,
		     size_t len)
{
	struct symfile *sf, *had;
	struct uprobe_elf f;
	struct stat st;
	int err;

	if (!path || !buf || !len)
		return -EINVAL;
	if (stat(path, &st) < 0)
		return -errno;
	err = symcache_lookup(&st, file_offset, buf, len);
	if (err <= 0)
		return err;
	/* parse outside the lock; the key is the file actually opened */
	err = uprobe_elf_open(&f, path, NULL);
	if (err)
		return err;
	err = symfile_build(&f, &sf);
	uprobe_elf_close(&f);
	if (err)
		return err;
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
	err = symfile_lookup(sf, file_offset, buf, len);
	pthread_mutex_unlock(&symcache_lock);
	return err;
}
