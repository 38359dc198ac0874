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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uprobe_internal.h"
#include "uprobe_target.h"

#define MAX_CANDS 8
/* .gnu.version entries: bit 15 marks a hidden (non-default) version */
#define VERSYM_HIDDEN 0x8000
#define VERSYM_VERSION 0x7fff

/* ---- program headers ---- */

/* vaddr -> file offset through the PT_LOAD segment that maps it */
static int vaddr_to_off(Elf *elf, GElf_Addr vaddr, uint64_t *off)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) != 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

/* file offset -> vaddr; an executable segment wins over overlapping ones */
static int off_to_vaddr(Elf *elf, uint64_t off, GElf_Addr *vaddr)
{
	int err = -ENOENT;
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) != 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    off < ph.p_offset || off - ph.p_offset >= ph.p_filesz)
			continue;
		*vaddr = off - ph.p_offset + ph.p_vaddr;
		err = 0;
		if (ph.p_flags & PF_X)
			break;
	}
	return err;
}

static bool off_in_exec_segment(Elf *elf, uint64_t off, off_t file_size)
{
	size_t n, i;
	GElf_Phdr ph;

	if ((uint64_t)file_size <= off || elf_getphdrnum(elf, &n) != 0)
		return false;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		if (off >= ph.p_offset && off - ph.p_offset < ph.p_filesz)
			return true;
	}
	return false;
}

/* ---- symbol tables ---- */

struct symtab {
	Elf *elf;
	Elf_Data *data;
	size_t count, strndx;
	Elf_Data *versym; /* dynsym only */
	Elf_Scn *verdef, *verneed;
};

static Elf_Scn *find_scn(Elf *elf, GElf_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

/* Load .symtab or .dynsym (@type); -ENOENT when the file has none. */
static int symtab_load(Elf *elf, GElf_Word type, struct symtab *t)
{
	GElf_Shdr sh, vsh;
	Elf_Scn *scn, *vs;

	memset(t, 0, sizeof(*t));
	t->elf = elf;
	scn = find_scn(elf, type, &sh);
	if (!scn || !sh.sh_entsize)
		return -ENOENT;
	t->data = elf_getdata(scn, NULL);
	if (!t->data)
		return -EINVAL;
	t->count = sh.sh_size / sh.sh_entsize;
	t->strndx = sh.sh_link;
	if (type != SHT_DYNSYM)
		return 0;
	vs = find_scn(elf, SHT_GNU_versym, &vsh);
	if (vs && vsh.sh_link == elf_ndxscn(scn))
		t->versym = elf_getdata(vs, NULL);
	t->verdef = find_scn(elf, SHT_GNU_verdef, &vsh);
	t->verneed = find_scn(elf, SHT_GNU_verneed, &vsh);
	return 0;
}

static const char *verdef_name(const struct symtab *t, unsigned int idx)
{
	Elf_Data *d = t->verdef ? elf_getdata(t->verdef, NULL) : NULL;
	GElf_Shdr sh;
	GElf_Verdef vd;
	GElf_Verdaux va;
	size_t off = 0;

	if (!d || !gelf_getshdr(t->verdef, &sh))
		return NULL;
	while (gelf_getverdef(d, off, &vd)) {
		if (vd.vd_ndx == idx &&
		    gelf_getverdaux(d, off + vd.vd_aux, &va))
			return elf_strptr(t->elf, sh.sh_link, va.vda_name);
		if (!vd.vd_next)
			break;
		off += vd.vd_next;
	}
	return NULL;
}

static const char *verneed_name(const struct symtab *t, unsigned int idx)
{
	Elf_Data *d = t->verneed ? elf_getdata(t->verneed, NULL) : NULL;
	GElf_Shdr sh;
	GElf_Verneed vn;
	GElf_Vernaux va;
	size_t off = 0, aoff;

	if (!d || !gelf_getshdr(t->verneed, &sh))
		return NULL;
	while (gelf_getverneed(d, off, &vn)) {
		for (aoff = off + vn.vn_aux; gelf_getvernaux(d, aoff, &va);
		     aoff += va.vna_next) {
			if (va.vna_other == idx)
				return elf_strptr(t->elf, sh.sh_link,
						  va.vna_name);
			if (!va.vna_next)
				break;
		}
		if (!vn.vn_next)
			break;
		off += vn.vn_next;
	}
	return NULL;
}

struct sym_info {
	GElf_Sym sym;
	const char *name; /* as stored; may carry "@VER" in .symtab */
	size_t baselen;
	const char *ver; /* NULL: unversioned */
	bool hidden;	 /* a non-default (compat) version */
};

static int sym_get(const struct symtab *t, size_t i, struct sym_info *si)
{
	const char *at;
	GElf_Versym vs;

	if (!gelf_getsym(t->data, i, &si->sym))
		return -EINVAL;
	si->name = elf_strptr(t->elf, t->strndx, si->sym.st_name);
	if (!si->name)
		return -EINVAL;
	si->ver = NULL;
	si->hidden = false;
	at = strchr(si->name, '@');
	si->baselen = at ? (size_t)(at - si->name) : strlen(si->name);
	if (at) {
		si->hidden = at[1] != '@';
		si->ver = at + (si->hidden ? 1 : 2);
		return 0;
	}
	if (!t->versym || !gelf_getversym(t->versym, i, &vs))
		return 0;
	si->hidden = vs & VERSYM_HIDDEN;
	vs &= VERSYM_VERSION;
	if (vs > VER_NDX_GLOBAL) {
		si->ver = verdef_name(t, vs);
		if (!si->ver)
			si->ver = verneed_name(t, vs);
	}
	return 0;
}

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

static bool name_matches(const struct sym_info *si, const struct sym_req *r)
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

static bool is_code(Elf *elf, const GElf_Sym *s)
{
	unsigned char type = GELF_ST_TYPE(s->st_info);
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return true;
	if (type != STT_NOTYPE)
		return false;
	/* assembly labels without .type: accept them only inside code */
	scn = elf_getscn(elf, s->st_shndx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
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

static int scan_table(const struct symtab *t, const struct sym_req *r,
		      struct scan *sc)
{
	struct sym_info si;
	size_t i;
	int err;

	for (i = 1; i < t->count; i++) {
		err = sym_get(t, i, &si);
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
		if (si.sym.st_shndx == SHN_ABS || !is_code(t->elf, &si.sym)) {
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
	struct symtab t;
	bool any = false;
	int err;

	memset(sc, 0, sizeof(*sc));
	err = symtab_load(elf, SHT_SYMTAB, &t);
	*stripped = err == -ENOENT;
	if (!err) {
		any = true;
		err = scan_table(&t, r, sc);
		if (err || sc->n)
			return err;
	} else if (err != -ENOENT) {
		return err;
	}
	err = symtab_load(elf, SHT_DYNSYM, &t);
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
	Elf_Scn *scn = find_scn(elf, SHT_DYNAMIC, &sh);
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
		if (vaddr_to_off(elf, sc->c[i].addr, &off) != 0)
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
	if (vaddr_to_off(elf, sc.c[0].addr, &off) != 0) {
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
	if (!err && !off_in_exec_segment(f.elf, res.offset, f.st.st_size)) {
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

/* ---- offset -> name ---- */

struct best {
	size_t idx;
	int score; /* -1: none yet */
};

static int best_in_table(const struct symtab *t, GElf_Addr vaddr,
			 struct best *b)
{
	struct sym_info si;
	size_t i;
	int score;
	bool sized;

	b->score = -1;
	for (i = 1; i < t->count; i++) {
		if (sym_get(t, i, &si) != 0)
			return -EINVAL;
		if (si.sym.st_shndx == SHN_UNDEF ||
		    si.sym.st_shndx == SHN_ABS || !*si.name ||
		    !is_code(t->elf, &si.sym) || si.sym.st_value > vaddr)
			continue;
		sized = si.sym.st_size &&
			vaddr - si.sym.st_value < si.sym.st_size;
		if (!sized && (si.sym.st_size || si.sym.st_value != vaddr))
			continue;
		score = bind_rank(GELF_ST_BIND(si.sym.st_info)) * 2 + sized;
		if (score > b->score) {
			b->score = score;
			b->idx = i;
		}
	}
	return b->score < 0 ? -ENOENT : 0;
}

static int format_sym(const struct symtab *t, const struct best *b,
		      GElf_Addr vaddr, char *buf, size_t len)
{
	struct sym_info si;
	int n;

	if (sym_get(t, b->idx, &si) != 0)
		return -EINVAL;
	/* a .dynsym compat version must be named, or it reads as the default */
	if (t->versym && si.hidden && si.ver)
		n = snprintf(buf, len, "%s@%s+0x%" PRIx64, si.name, si.ver,
			     (uint64_t)(vaddr - si.sym.st_value));
	else
		n = snprintf(buf, len, "%s+0x%" PRIx64, si.name,
			     (uint64_t)(vaddr - si.sym.st_value));
	return n < 0 || (size_t)n >= len ? -ERANGE : 0;
}

int uprobe_symbolize(const char *path, uint64_t file_offset, char *buf,
		     size_t len)
{
	static const GElf_Word types[] = {SHT_SYMTAB, SHT_DYNSYM};
	struct uprobe_elf f;
	struct symtab t;
	struct best b;
	GElf_Addr vaddr;
	size_t i;
	int err;

	if (!path || !buf || !len)
		return -EINVAL;
	err = uprobe_elf_open(&f, path, NULL);
	if (err)
		return err;
	err = off_to_vaddr(f.elf, file_offset, &vaddr);
	for (i = 0; !err && i < 2; i++) {
		err = symtab_load(f.elf, types[i], &t);
		if (!err)
			err = best_in_table(&t, vaddr, &b);
		if (!err)
			err = format_sym(&t, &b, vaddr, buf, len);
		if (err == -ENOENT)
			err = i == 0 ? 0 : -ENOENT;
		else
			break;
	}
	uprobe_elf_close(&f);
	return err;
}
