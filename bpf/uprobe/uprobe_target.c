// SPDX-License-Identifier: GPL-2.0-only
/*
 * Uprobe targets, the symbol half: which file offset a SYMBOL[+OFFSET]
 * names in an ELF file. libelf reads the ELF file; uprobe_path.c finds and
 * checks it; uprobe_cache.c keeps what resolving needs of it, and holds
 * the symbolizer (which function contains a file offset).
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

#include "uprobe_cache.h"
#include "uprobe_elf.h"
#include "uprobe_elfcheck.h"
#include "uprobe_err.h"
#include "uprobe_ldcache.h"
#include "uprobe_target.h"

#define MAX_CANDS 8
#define MAX_DEFINERS 64 /* DT_NEEDED libraries searched for a definition */

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

static void scan_add(struct scan *sc, const GElf_Sym *s)
{
	struct cand *c;
	int i;

	for (i = 0; i < sc->n; i++) {
		c = &sc->c[i];
		if (c->addr != s->st_value)
			continue;
		/* an alias at the same address: merge its facts */
		if (uprobe_bind_rank(GELF_ST_BIND(s->st_info)) >
		    uprobe_bind_rank(c->bind))
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

/* Global beats weak at another address (as the dynamic linker decides). */
static void scan_prefer_global(struct scan *sc)
{
	bool global = false;
	int i, j;

	for (i = 0; i < sc->n; i++)
		global |= uprobe_bind_rank(sc->c[i].bind) == 2;
	if (!global)
		return;
	for (i = j = 0; i < sc->n; i++)
		if (sc->c[i].bind != STB_WEAK)
			sc->c[j++] = sc->c[i];
	sc->n = j;
}

/* One symbol whose base name is the one asked for. */
static void scan_one(struct scan *sc, const struct sym_req *r,
		     const struct uprobe_sym *si, bool code)
{
	/* an import of any version: its definition is elsewhere */
	if (si->sym.st_shndx == SHN_UNDEF) {
		sc->undef = true;
		return;
	}
	sc->base_seen = true;
	if (!name_matches(si, r)) {
		sc->not_dflt |= r->dflt && si->ver && !strcmp(si->ver, r->ver);
		return;
	}
	if (si->sym.st_shndx == SHN_ABS || !code) {
		sc->nonfunc = true;
		return;
	}
	scan_add(sc, &si->sym);
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
		if (si.baselen == r->baselen &&
		    memcmp(si.name, r->name, r->baselen) == 0)
			scan_one(sc, r, &si, uprobe_is_code(t->elf, &si.sym));
	}
	return 0;
}

/* scan_table() on the cached copy: only the symbols of that base name. */
static void scan_rtab(const struct uprobe_rfile *rf, int which,
		      const struct sym_req *r, struct scan *sc)
{
	size_t first, i, n;

	n = uprobe_rtab_find(rf, which, r->name, r->baselen, &first);
	for (i = first; i < first + n; i++) {
		const struct uprobe_rsym *rs = &rf->tab[which].s[i];
		struct uprobe_sym si = {
			.sym = {.st_value = rs->value,
				.st_size = rs->size,
				.st_info = rs->info,
				.st_shndx = rs->shndx},
			.name = rf->names + rs->name,
			.baselen = rs->baselen,
			.ver = rs->ver == UPROBE_RNONE ? NULL
						       : rf->names + rs->ver,
			.hidden = rs->hidden,
		};

		scan_one(sc, r, &si, rs->code);
	}
}

/* Where resolution reads the file: libelf, or the cache's copy of it. */
struct res_src {
	Elf *elf;		       /* uncached, or NULL */
	const struct uprobe_rfile *rf; /* cached, or NULL */
	off_t size;		       /* of the file */
};

/* Scan table @which (0 .symtab, 1 .dynsym): 0, -ENOENT (none), -EINVAL. */
static int src_scan(const struct res_src *s, int which, const struct sym_req *r,
		    struct scan *sc)
{
	struct uprobe_symtab t;
	int err;

	if (s->rf) {
		err = s->rf->tab[which].state;
		if (!err)
			scan_rtab(s->rf, which, r, sc);
		return err;
	}
	err = uprobe_symtab_load(s->elf, which ? SHT_DYNSYM : SHT_SYMTAB, &t);
	if (!err)
		err = scan_table(&t, r, sc);
	uprobe_symtab_free(&t);
	return err;
}

static int src_vaddr_to_off(const struct res_src *s, GElf_Addr vaddr,
			    uint64_t *off)
{
	return s->rf ? uprobe_rfile_vaddr_to_off(s->rf, vaddr, off)
		     : uprobe_vaddr_to_off(s->elf, vaddr, off);
}

static bool src_off_in_exec(const struct res_src *s, uint64_t off)
{
	return s->rf ? uprobe_rfile_off_in_exec(s->rf, off)
		     : uprobe_off_in_exec(s->elf, off, s->size);
}

/* Candidates for @r from .symtab, or from .dynsym when .symtab has none. */
static int find_symbol(const struct res_src *s, const struct sym_req *r,
		       struct scan *sc, bool *stripped)
{
	bool any = false;
	int err;

	memset(sc, 0, sizeof(*sc));
	err = src_scan(s, 0, r, sc);
	*stripped = err == -ENOENT;
	if (!err) {
		any = true;
		if (sc->n)
			return 0;
	} else if (err != -ENOENT) {
		return err;
	}
	err = src_scan(s, 1, r, sc);
	if (!err)
		any = true;
	else if (err == -ENOENT)
		err = 0;
	return err ? err : any ? 0 : -ENODATA;
}

/* Does the library @needed (a DT_NEEDED name) define @r? Its path in @out. */
static int definer_is(const char *needed, const struct sym_req *r, char *out,
		      size_t len)
{
	char canon[PATH_MAX];
	struct uprobe_elf lib;
	struct res_src ls;
	struct scan sc;
	bool stripped;
	int err;

	if (uprobe_ldcache_lookup(needed, out, len) != 0 ||
	    uprobe_elf_open(&lib, out, NULL) != 0)
		return -ENOENT;
	ls = (struct res_src){.elf = lib.elf, .size = lib.st.st_size};
	err = find_symbol(&ls, r, &sc, &stripped) == 0 && sc.n ? 0 : -ENOENT;
	uprobe_elf_close(&lib);
	if (!err && realpath(out, canon) && strlen(canon) < len)
		strcpy(out, canon);
	return err;
}

/* Which DT_NEEDED library defines @r: for the "only imported" message. */
static int find_definer(const struct res_src *s, const struct sym_req *r,
			char *out, size_t len)
{
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;
	const char *needed;
	GElf_Dyn dyn;
	size_t i, n;

	/* each candidate is parsed whole: look at the first few only */
	if (s->rf) {
		for (i = 0; i < s->rf->nneeded && i < MAX_DEFINERS; i++)
			if (!definer_is(s->rf->names + s->rf->needed[i], r, out,
					len))
				return 0;
		return -ENOENT;
	}
	scn = uprobe_find_scn(s->elf, SHT_DYNAMIC, &sh);
	d = scn ? elf_getdata(scn, NULL) : NULL;
	for (i = 0, n = 0; d && gelf_getdyn(d, i, &dyn) &&
			   dyn.d_tag != DT_NULL && n < MAX_DEFINERS;
	     i++) {
		if (dyn.d_tag != DT_NEEDED)
			continue;
		n++;
		needed = elf_strptr(s->elf, sh.sh_link, dyn.d_un.d_val);
		if (needed && !definer_is(needed, r, out, len))
			return 0;
	}
	return -ENOENT;
}

static int not_found(const struct res_src *s, const char *path,
		     const struct sym_req *r, const struct scan *sc,
		     bool stripped, struct uprobe_err *terr)
{
	char lib[PATH_MAX];

	if (sc->nonfunc) {
		uprobe_set_err(terr, 1, "'%s' in %s is not a function", r->name,
			       path);
		return -EINVAL;
	}
	if (sc->undef && find_definer(s, r, lib, sizeof(lib)) == 0)
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

static int ambiguous(const struct res_src *s, const struct sym_req *r,
		     const struct scan *sc, struct uprobe_err *terr)
{
	char list[200];
	size_t used = 0;
	uint64_t off;
	int i, n;

	list[0] = '\0';
	for (i = 0; i < sc->n && used < sizeof(list); i++) {
		if (src_vaddr_to_off(s, sc->c[i].addr, &off) != 0)
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

/* Why find_symbol() failed with @err, for the writer. */
static int symbols_unread(int err, const char *path, struct uprobe_err *terr)
{
	if (err == -ENODATA) {
		uprobe_set_err(terr, 1, "no symbol table in %s (stripped)",
			       path);
		return -ENOENT;
	}
	if (err == -EFBIG) {
		uprobe_set_err(
			terr, 1,
			"the symbol table of %s is over the limit of %u MiB (or its string table over %u MiB); probe it as PATH:0xOFFSET",
			path, UPROBE_SYMTAB_MAX_BYTES >> 20,
			UPROBE_STRTAB_MAX_BYTES >> 20);
		return -EINVAL;
	}
	uprobe_set_err(terr, 1, "cannot read the symbols of %s", path);
	return err;
}

static int resolve_symbol(const struct res_src *s, const char *path,
			  const char *symbol, uint64_t offset,
			  struct uprobe_target *t, struct uprobe_err *terr)
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
	err = find_symbol(s, &r, &sc, &stripped);
	if (err)
		return symbols_unread(err, path, terr);
	scan_prefer_global(&sc);
	if (!sc.n)
		return not_found(s, path, &r, &sc, stripped, terr);
	if (sc.n > 1 || sc.more)
		return ambiguous(s, &r, &sc, terr);
	if (sc.c[0].size && offset >= sc.c[0].size) {
		uprobe_set_err(terr, 1,
			       "+0x%" PRIx64
			       " is past the end of %s (size 0x%" PRIx64 ")",
			       offset, symbol, (uint64_t)sc.c[0].size);
		return -EINVAL;
	}
	if (src_vaddr_to_off(s, sc.c[0].addr, &off) != 0) {
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

/* The checks before any file is read; @res gets the path. */
static int resolve_prepare(const char *canonical, const char *symbol,
			   uint64_t offset, bool by_offset, bool retprobe,
			   struct uprobe_target *t, struct uprobe_target *res,
			   struct uprobe_err *terr)
{
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
	if (strlen(canonical) >= sizeof(res->path)) {
		uprobe_set_err(terr, 0, "path too long");
		return -ENAMETOOLONG;
	}
	memset(res, 0, sizeof(*res));
	strcpy(res->path, canonical);
	return 0;
}

/* Resolve from @s into @res (path, dev and ino already set). */
static int resolve_in(const struct res_src *s, const char *symbol,
		      uint64_t offset, bool by_offset,
		      struct uprobe_target *res, struct uprobe_err *terr)
{
	int err = 0;

	if (by_offset)
		res->offset = offset;
	else
		err = resolve_symbol(s, res->path, symbol, offset, res, terr);
	if (!err && !src_off_in_exec(s, res->offset)) {
		uprobe_set_err(terr, 1,
			       "file offset 0x%" PRIx64
			       " is not inside an executable segment of %s",
			       res->offset, res->path);
		err = -EINVAL;
	}
	return err;
}

/* Resolve from the open @f with libelf, then close it. */
static int resolve_elf(struct uprobe_elf *f, const char *symbol,
		       uint64_t offset, bool by_offset,
		       struct uprobe_target *res, struct uprobe_err *terr)
{
	struct res_src s = {.elf = f->elf, .size = f->st.st_size};
	int err;

	res->dev = f->st.st_dev;
	res->ino = f->st.st_ino;
	err = resolve_in(&s, symbol, offset, by_offset, res, terr);
	uprobe_elf_close(f);
	return err;
}

int uprobe_resolve_uncached(const char *canonical, const char *symbol,
			    uint64_t offset, bool by_offset, bool retprobe,
			    struct uprobe_target *t, struct uprobe_err *terr)
{
	struct uprobe_target res;
	struct uprobe_elf f;
	int err;

	err = resolve_prepare(canonical, symbol, offset, by_offset, retprobe, t,
			      &res, terr);
	if (!err)
		err = uprobe_elf_open(&f, canonical, terr);
	if (!err)
		err = resolve_elf(&f, symbol, offset, by_offset, &res, terr);
	if (!err)
		*t = res;
	return err;
}

/*
 * Through the resolution cache (uprobe_cache.c): one stat() and a
 * binary search by name when the file is known and unchanged.
 */
int uprobe_resolve(const char *canonical, const char *symbol, uint64_t offset,
		   bool by_offset, bool retprobe, struct uprobe_target *t,
		   struct uprobe_err *terr)
{
	struct uprobe_target res;
	struct uprobe_rfile *rf;
	struct uprobe_elf f;
	int err;

	err = resolve_prepare(canonical, symbol, offset, by_offset, retprobe, t,
			      &res, terr);
	if (!err)
		err = uprobe_rescache_get(canonical, &rf, &f, terr);
	if (err == 1) {
		err = resolve_elf(&f, symbol, offset, by_offset, &res, terr);
	} else if (!err) {
		res.dev = rf->dev;
		res.ino = rf->ino;
		err = resolve_in(&(struct res_src){.rf = rf, .size = rf->size},
				 symbol, offset, by_offset, &res, terr);
		uprobe_rescache_put(rf);
	}
	if (!err)
		*t = res;
	return err;
}

bool uprobe_has_symbol(const char *canonical, const char *name)
{
	struct uprobe_rfile *rf;
	struct uprobe_elf f;
	struct sym_req r;
	struct res_src src;
	struct scan sc;
	bool stripped, found = false;
	size_t first;
	int err = uprobe_rescache_get(canonical, &rf, &f, NULL);

	req_parse(name, &r);
	if (err == 1) {
		src = (struct res_src){.elf = f.elf, .size = f.st.st_size};
		found = find_symbol(&src, &r, &sc, &stripped) == 0 &&
			(sc.n || sc.undef || sc.nonfunc || sc.base_seen);
		uprobe_elf_close(&f);
	} else if (!err) {
		found = uprobe_rtab_find(rf, 0, r.name, r.baselen, &first) ||
			uprobe_rtab_find(rf, 1, r.name, r.baselen, &first);
		uprobe_rescache_put(rf);
	}
	return found;
}
