// SPDX-License-Identifier: GPL-2.0-only
/*
 * USDT probes (SystemTap SDT notes, <sys/sdt.h>) to uprobe locations: see
 * uprobe_usdt_resolve() in uprobe_target.h. The note format is
 * SystemTap's:
 * https://sourceware.org/systemtap/wiki/UserSpaceProbeImplementation
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uprobe_elf.h"
#include "uprobe_err.h"
#include "uprobe_usdt.h"

#define SDT_NOTE_TYPE 3
#define SDT_NOTE_OWNER "stapsdt"
#define SDT_NOTE_SECTION ".note.stapsdt"
#define SDT_BASE_SECTION ".stapsdt.base"

/* One decoded note; the strings point into the section's data. */
struct sdt_note {
	uint64_t pc, base, semaphore;
	const char *provider, *name;
};

/* What a scan over the notes found. */
struct sdt_scan {
	const char *provider, *name; /* asked for; provider may be "" */
	bool glob;		     /* either is a pattern: no ambiguity */
	struct usdt_location *locs;
	size_t n;
	const char *matched_provider; /* the first provider that had NAME */
	bool ambiguous;		      /* NAME under several providers */
	bool provider_seen;	      /* a note of PROVIDER (or a match) */
	char have[200];		      /* "prov:name, ..." for the message */
	size_t have_len;
	bool have_cut;
};

static Elf_Scn *section_named(Elf *elf, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

/* Decode a note's descriptor: 3 addresses, then 3 NUL-terminated strings. */
static int note_decode(const char *desc, size_t len, struct sdt_note *n)
{
	const char *end = desc + len, *s = desc + 3 * sizeof(uint64_t), *z;

	if (len < 3 * sizeof(uint64_t) + 3)
		return -EINVAL;
	memcpy(&n->pc, desc, sizeof(uint64_t));
	memcpy(&n->base, desc + 8, sizeof(uint64_t));
	memcpy(&n->semaphore, desc + 16, sizeof(uint64_t));
	n->provider = s;
	z = memchr(s, '\0', end - s);
	if (!z)
		return -EINVAL;
	n->name = z + 1;
	return memchr(n->name, '\0', end - n->name) ? 0 : -EINVAL;
}

/* "prov:name" is already in the list (another location of it) */
static bool have_has(const struct sdt_scan *sc, const char *item)
{
	size_t len = strlen(item);
	const char *p = sc->have;

	while ((p = strstr(p, item))) {
		if ((p == sc->have || p[-1] == ' ') &&
		    (p[len] == ',' || p[len] == '\0'))
			return true;
		p++;
	}
	return false;
}

/* Remember "prov:name" for the message, once each, as many as fit. */
static void have_add(struct sdt_scan *sc, const struct sdt_note *n)
{
	char item[128];
	int len = snprintf(item, sizeof(item), "%s:%s", n->provider, n->name);

	if (len < 0 || len >= (int)sizeof(item) || have_has(sc, item))
		return;
	if (sc->have_len + len + 2 >= sizeof(sc->have)) {
		sc->have_cut = true;
		return;
	}
	sc->have_len += snprintf(sc->have + sc->have_len,
				 sizeof(sc->have) - sc->have_len, "%s%s",
				 sc->have_len ? ", " : "", item);
}

/* A matching note's location (and semaphore) as file offsets. */
static int note_location(Elf *elf, const struct sdt_note *n, uint64_t base,
			 off_t file_size, struct usdt_location *loc)
{
	uint64_t pc = n->pc;

	/* prelink moved the file: the note kept the old .stapsdt.base */
	if (base && n->base)
		pc += base - n->base;
	if (uprobe_vaddr_to_off(elf, pc, &loc->offset) ||
	    !uprobe_off_in_exec(elf, loc->offset, file_size))
		return -EINVAL;
	loc->ref_ctr_offset = 0;
	if (n->semaphore &&
	    uprobe_vaddr_to_off(elf, n->semaphore, &loc->ref_ctr_offset))
		return -EINVAL;
	return 0;
}

static int scan_add(struct sdt_scan *sc, const struct usdt_location *loc,
		    const char *provider)
{
	struct usdt_location *more;

	if (!sc->matched_provider)
		sc->matched_provider = provider;
	else if (!sc->glob && strcmp(sc->matched_provider, provider))
		sc->ambiguous = true;
	more = realloc(sc->locs, (sc->n + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	sc->locs = more;
	sc->locs[sc->n++] = *loc;
	return 0;
}

/* The note is of the PROVIDER asked for, or one its pattern matches. */
static bool provider_matches(const struct sdt_scan *sc,
			     const struct sdt_note *n)
{
	if (!sc->provider[0])
		return true;
	return sc->glob ? !fnmatch(sc->provider, n->provider, 0)
			: !strcmp(n->provider, sc->provider);
}

/* The note is the probe asked for, or one the pattern matches. */
static bool note_matches(const struct sdt_scan *sc, const struct sdt_note *n)
{
	if (sc->glob)
		return !fnmatch(sc->name, n->name, 0) &&
		       (!sc->provider[0] ||
			!fnmatch(sc->provider, n->provider, 0));
	return !strcmp(n->name, sc->name) &&
	       (!sc->provider[0] || !strcmp(n->provider, sc->provider));
}

/* Walk every note of .note.stapsdt; matches go to @sc. */
static int notes_scan(struct uprobe_elf *f, Elf_Scn *notes, uint64_t base,
		      struct sdt_scan *sc)
{
	Elf_Data *data = elf_getdata(notes, NULL);
	size_t off = 0, name_off, desc_off, next;
	struct usdt_location loc;
	struct sdt_note n;
	GElf_Nhdr nh;
	int err = 0;

	while (!err && data &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		off = next;
		if (nh.n_type != SDT_NOTE_TYPE ||
		    nh.n_namesz != sizeof(SDT_NOTE_OWNER) ||
		    memcmp((char *)data->d_buf + name_off, SDT_NOTE_OWNER,
			   sizeof(SDT_NOTE_OWNER)) ||
		    note_decode((char *)data->d_buf + desc_off, nh.n_descsz,
				&n))
			continue;
		have_add(sc, &n);
		sc->provider_seen |= provider_matches(sc, &n);
		if (!note_matches(sc, &n))
			continue;
		err = note_location(f->elf, &n, base, f->st.st_size, &loc);
		if (!err)
			err = scan_add(sc, &loc, n.provider);
	}
	return err;
}

static int scan_result(const struct sdt_scan *sc, const char *path,
		       struct uprobe_err *terr)
{
	if (sc->ambiguous) {
		uprobe_set_err(terr, true,
			       "USDT probe '%s' is in several providers of "
			       "%s: name one as PROVIDER:NAME (%s%s)",
			       sc->name, path, sc->have,
			       sc->have_cut ? ", ..." : "");
		return -EINVAL;
	}
	if (!sc->n) {
		uprobe_set_err(terr, true,
			       "no USDT probe %s'%s%s%s' in %s; it has: %s%s",
			       sc->glob ? "matches " : "", sc->provider,
			       sc->provider[0] ? ":" : "", sc->name, path,
			       sc->have, sc->have_cut ? ", ..." : "");
		/* under NAME, unless no probe has that PROVIDER */
		if (terr && sc->provider[0] && !sc->provider_seen)
			terr->e.column = terr->provider_col;
		return -ENOENT;
	}
	return 0;
}

int uprobe_usdt_resolve(const char *canonical, const char *provider,
			const char *name, struct usdt_location **locs,
			size_t *n, struct uprobe_target *t,
			struct uprobe_err *terr)
{
	struct sdt_scan sc = {.provider = provider,
			      .name = name,
			      .glob = strpbrk(provider, "*?[") ||
				      strpbrk(name, "*?[")};
	struct uprobe_elf f;
	GElf_Shdr sh;
	Elf_Scn *notes;
	uint64_t base = 0;
	int err;

	err = uprobe_elf_open(&f, canonical, terr);
	if (err)
		return err;
	notes = section_named(f.elf, SDT_NOTE_SECTION, &sh);
	if (!notes || sh.sh_type != SHT_NOTE) {
		uprobe_set_err(terr, false, "%s has no USDT probes (no %s)",
			       canonical, SDT_NOTE_SECTION);
		uprobe_elf_close(&f);
		return -ENOENT;
	}
	if (section_named(f.elf, SDT_BASE_SECTION, &sh))
		base = sh.sh_addr;
	err = notes_scan(&f, notes, base, &sc);
	if (err == -EINVAL)
		uprobe_set_err(terr, true,
			       "a USDT note of %s points outside its segments",
			       canonical);
	else if (!err)
		err = scan_result(&sc, canonical, terr);
	if (!err) {
		snprintf(t->path, sizeof(t->path), "%s", canonical);
		t->dev = f.st.st_dev;
		t->ino = f.st.st_ino;
		*locs = sc.locs;
		*n = sc.n;
	} else {
		free(sc.locs);
	}
	uprobe_elf_close(&f);
	return err;
}
