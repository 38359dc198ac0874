// SPDX-License-Identifier: GPL-2.0-only
/*
 * Uprobe targets, the file half: whether a file is an ELF file we can
 * probe, and reading its tables (program headers, symbols and their
 * versions) with libelf.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "uprobe_arch.h"
#include "uprobe_elf.h"
#include "uprobe_elfcheck.h"
#include "uprobe_err.h"
#include "uprobe_target.h"

/* strerror() may use a static buffer; the descriptions are constant */
static const char *errstr(int e)
{
	const char *s = strerrordesc_np(e);

	return s ? s : "unknown error";
}

/* Process-wide on purpose: libelf's version check holds for the whole
 * process (elf_version() sets libelf's own global), done once */
static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
static int elf_usable;

static void elf_init(void)
{
	elf_usable = elf_version(EV_CURRENT) != EV_NONE;
}

static int elf_ready(void)
{
	pthread_once(&elf_once, elf_init);
	return elf_usable ? 0 : -ENOSYS;
}

/* A 64-bit executable or shared object for us. */
static int check_elf(Elf *elf, const char *path, struct uprobe_err *terr)
{
	GElf_Ehdr eh;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		uprobe_set_err(terr, 0, "%s is not an ELF file", path);
		return -EINVAL;
	}
	if (gelf_getclass(elf) != ELFCLASS64) {
		uprobe_set_err(
			terr, 0,
			"%s is a 32-bit ELF file; only 64-bit is supported",
			path);
		return -EINVAL;
	}
	if (eh.e_machine != UPROBE_HOST_MACHINE) {
		uprobe_set_err(terr, 0,
			       "%s is for another architecture (e_machine %u)",
			       path, eh.e_machine);
		return -EINVAL;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		uprobe_set_err(
			terr, 0,
			"%s is not an executable or shared object (ELF type %u)",
			path, eh.e_type);
		return -EINVAL;
	}
	return 0;
}

void uprobe_elf_close(struct uprobe_elf *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

int uprobe_elf_open(struct uprobe_elf *f, const char *path,
		    struct uprobe_err *terr)
{
	int err = elf_ready();

	f->fd = -1;
	f->elf = NULL;
	if (err) {
		uprobe_set_err(terr, 0, "libelf is unusable");
		return err;
	}
	/* O_NONBLOCK: a FIFO must not block the daemon; it is refused below */
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f->fd < 0 || fstat(f->fd, &f->st) < 0) {
		err = -errno;
		uprobe_set_err(terr, 0, "cannot open %s: %s", path,
			       errstr(errno));
		uprobe_elf_close(f);
		return err;
	}
	if (!S_ISREG(f->st.st_mode)) {
		uprobe_set_err(terr, 0, "%s is not a regular file", path);
		uprobe_elf_close(f);
		return -EINVAL;
	}
	/*
	 * Not ELF_C_READ_MMAP: each new mapping of a file makes the kernel
	 * write every uprobe already on it into that mapping, so mapping the
	 * target once per line costs O(links on the file).
	 */
	err = uprobe_elf_bounds(f->fd, &f->st, path, terr);
	if (!err)
		f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	if (!err)
		err = check_elf(f->elf, path, terr);
	if (err)
		uprobe_elf_close(f);
	return err;
}

/* ---- sections and symbol tables ---- */

/* .gnu.version entries: bit 15 marks a hidden (non-default) version */
#define VERSYM_HIDDEN 0x8000
#define VERSYM_VERSION 0x7fff

Elf_Scn *uprobe_find_scn(Elf *elf, GElf_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

static int vers_build(struct uprobe_symtab *t);

/* Load .symtab or .dynsym (@type); -ENOENT when the file has none. */
int uprobe_symtab_load(Elf *elf, GElf_Word type, struct uprobe_symtab *t)
{
	Elf_Scn *scn, *vs, *strs;
	GElf_Shdr sh, vsh;

	memset(t, 0, sizeof(*t));
	t->elf = elf;
	scn = uprobe_find_scn(elf, type, &sh);
	if (!scn || !sh.sh_entsize)
		return -ENOENT;
	strs = elf_getscn(elf, sh.sh_link);
	if (sh.sh_size > UPROBE_SYMTAB_MAX_BYTES ||
	    (strs && gelf_getshdr(strs, &vsh) &&
	     vsh.sh_size > UPROBE_STRTAB_MAX_BYTES))
		return -EFBIG;
	t->data = elf_getdata(scn, NULL);
	if (!t->data)
		return -EINVAL;
	t->count = sh.sh_size / sh.sh_entsize;
	t->strndx = sh.sh_link;
	if (type != SHT_DYNSYM)
		return 0;
	vs = uprobe_find_scn(elf, SHT_GNU_versym, &vsh);
	if (vs && vsh.sh_link == elf_ndxscn(scn))
		t->versym = elf_getdata(vs, NULL);
	return t->versym ? vers_build(t) : 0;
}

#define VERSIONS 0x8000 /* .gnu.version holds 15-bit indexes */

/*
 * The name of each version index, looked up once per table rather than
 * once per symbol. As before, the first entry of .gnu.version_d with an
 * index names it, else the first of .gnu.version_r. Every entry takes 8
 * bytes or more, so a walk takes at most one step per 8 bytes of its
 * section, whatever its next-offsets say. The walks run twice: with
 * @seen NULL they only find the largest index (t->nvers is one more), so
 * that the table is as long as the file needs, not 32768 entries (256 KiB
 * allocated, zeroed and unmapped per table read).
 */
static bool vers_take(struct uprobe_symtab *t, bool *seen, size_t ndx)
{
	if (ndx >= VERSIONS)
		return false;
	if (!seen) {
		if (ndx >= t->nvers)
			t->nvers = ndx + 1;
		return false;
	}
	if (ndx >= t->nvers || seen[ndx])
		return false;
	seen[ndx] = true;
	return true;
}

static void vers_from_def(struct uprobe_symtab *t, Elf_Scn *scn, bool *seen)
{
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	size_t off = 0, steps;
	GElf_Verdaux va;
	GElf_Verdef vd;
	GElf_Shdr sh;

	if (!d || !gelf_getshdr(scn, &sh))
		return;
	for (steps = d->d_size / 8 + 1; steps && gelf_getverdef(d, off, &vd);
	     steps--) {
		if (gelf_getverdaux(d, off + vd.vd_aux, &va) &&
		    vers_take(t, seen, vd.vd_ndx)) {
			t->vers[vd.vd_ndx] =
				elf_strptr(t->elf, sh.sh_link, va.vda_name);
		}
		if (!vd.vd_next)
			break;
		off += vd.vd_next;
	}
}

static void vers_from_need(struct uprobe_symtab *t, Elf_Scn *scn, bool *seen)
{
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	size_t off = 0, aoff, steps;
	GElf_Vernaux va;
	GElf_Verneed vn;
	GElf_Shdr sh;

	if (!d || !gelf_getshdr(scn, &sh))
		return;
	steps = d->d_size / 8 + 1;
	while (steps && gelf_getverneed(d, off, &vn)) {
		steps--;
		for (aoff = off + vn.vn_aux;
		     steps && gelf_getvernaux(d, aoff, &va);
		     steps--, aoff += va.vna_next) {
			if (vers_take(t, seen, va.vna_other)) {
				t->vers[va.vna_other] = elf_strptr(
					t->elf, sh.sh_link, va.vna_name);
			}
			if (!va.vna_next)
				break;
		}
		if (!vn.vn_next)
			break;
		off += vn.vn_next;
	}
}

static int vers_build(struct uprobe_symtab *t)
{
	Elf_Scn *def = uprobe_find_scn(t->elf, SHT_GNU_verdef, &(GElf_Shdr){0});
	Elf_Scn *need =
		uprobe_find_scn(t->elf, SHT_GNU_verneed, &(GElf_Shdr){0});
	size_t i, n;
	bool *seen;

	t->nvers = 0;
	vers_from_def(t, def, NULL);
	vers_from_need(t, need, NULL);
	n = t->nvers;
	seen = calloc(2 * n + 1, sizeof(*seen));
	t->vers = calloc(n + 1, sizeof(*t->vers));
	if (!seen || !t->vers) {
		free(seen);
		return -ENOMEM;
	}
	vers_from_def(t, def, seen);
	/* an index .gnu.version_d names, but not to a name: ask _r */
	for (i = 0; i < n; i++)
		seen[n + i] = seen[i] && t->vers[i];
	vers_from_need(t, need, seen + n);
	free(seen);
	return 0;
}

void uprobe_symtab_free(struct uprobe_symtab *t)
{
	free(t->vers);
	t->vers = NULL;
}

int uprobe_sym_get(const struct uprobe_symtab *t, size_t i,
		   struct uprobe_sym *si)
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
	if (vs > VER_NDX_GLOBAL && vs < t->nvers)
		si->ver = t->vers[vs];
	return 0;
}

bool uprobe_is_code(Elf *elf, const GElf_Sym *s)
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

/* ---- program headers ---- */

int uprobe_vaddr_to_off(Elf *elf, GElf_Addr vaddr, uint64_t *off)
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

int uprobe_off_to_vaddr(Elf *elf, uint64_t off, GElf_Addr *vaddr)
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

bool uprobe_off_in_exec(Elf *elf, uint64_t off, off_t file_size)
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

int uprobe_bind_rank(unsigned char bind)
{
	return bind == STB_GLOBAL || bind == STB_GNU_UNIQUE ? 2
	       : bind == STB_WEAK			    ? 1
							    : 0;
}
