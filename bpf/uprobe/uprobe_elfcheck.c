// SPDX-License-Identifier: GPL-2.0-only
/*
 * What an ELF file may make resolution cost: its headers, read raw before
 * libelf sees them, must describe a file that holds what they claim. libelf
 * reads every section header at elf_begin() and a whole table at its first
 * use, so a header that claims 50 million sections or a symbol table of
 * gigabytes in a 4 GiB sparse file would have the daemon allocate and read
 * all of it. Here such a file is refused at once, with what is wrong.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array_size.h"
#include "uprobe_elf.h"
#include "uprobe_elfcheck.h"
#include "uprobe_err.h"

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_ELFDATA ELFDATA2LSB
#else
#define HOST_ELFDATA ELFDATA2MSB
#endif

/* What a message calls a section of @type. */
static const char *kind_of(uint32_t type)
{
	switch (type) {
	case SHT_SYMTAB:
		return "symbol table (.symtab)";
	case SHT_DYNSYM:
		return "dynamic symbol table (.dynsym)";
	case SHT_STRTAB:
		return "string table";
	default:
		return "section";
	}
}

/* Section and program header counts, the extended forms included. */
static int header_counts(int fd, const Elf64_Ehdr *eh, uint64_t *shnum,
			 uint64_t *phnum)
{
	Elf64_Shdr sh0;

	*shnum = eh->e_shnum;
	*phnum = eh->e_phnum;
	if (!eh->e_shoff || (*shnum && *phnum != PN_XNUM))
		return 0;
	/* counts that do not fit the ELF header live in section 0 */
	if (pread(fd, &sh0, sizeof(sh0), eh->e_shoff) != sizeof(sh0))
		return -EINVAL;
	if (!*shnum)
		*shnum = sh0.sh_size;
	if (*phnum == PN_XNUM)
		*phnum = sh0.sh_info;
	return 0;
}

/* A table of @n entries of @ent bytes at @off lies inside @size bytes. */
static bool inside(uint64_t off, uint64_t n, uint64_t ent, uint64_t size)
{
	return off <= size && (!ent || n <= (size - off) / ent);
}

/* The header tables: counts under the limits, inside the file. */
static int check_headers(const Elf64_Ehdr *eh, uint64_t shnum, uint64_t phnum,
			 uint64_t size, const char *path,
			 struct uprobe_err *terr)
{
	if (shnum > UPROBE_ELF_MAX_HEADERS || phnum > UPROBE_ELF_MAX_HEADERS) {
		uprobe_set_err(terr, 0,
			       "%s claims %" PRIu64
			       " %s headers, over the limit of %u",
			       path, shnum > phnum ? shnum : phnum,
			       shnum > phnum ? "section" : "program",
			       UPROBE_ELF_MAX_HEADERS);
		return -EINVAL;
	}
	if ((shnum && eh->e_shentsize != sizeof(Elf64_Shdr)) ||
	    (phnum && eh->e_phentsize != sizeof(Elf64_Phdr))) {
		uprobe_set_err(terr, 0, "%s has headers of a wrong size", path);
		return -EINVAL;
	}
	if (!inside(eh->e_shoff, shnum, sizeof(Elf64_Shdr), size) ||
	    !inside(eh->e_phoff, phnum, sizeof(Elf64_Phdr), size)) {
		uprobe_set_err(
			terr, 0,
			"the %s headers of %s end beyond the end of the file",
			inside(eh->e_shoff, shnum, sizeof(Elf64_Shdr), size)
				? "program"
				: "section",
			path);
		return -EINVAL;
	}
	return 0;
}

/* The bytes [@off, @off + @len) were written: no hole of a sparse file. */
static bool written(int fd, uint64_t off, uint64_t len)
{
	off_t hole;

	if (!len)
		return true;
	hole = lseek(fd, (off_t)off, SEEK_HOLE);
	/* no SEEK_HOLE here: every byte counts as data */
	return hole < 0 || (uint64_t)hole >= off + len;
}

/*
 * The sections read whole: the first of each type below (as
 * uprobe_find_scn() finds them) and the string tables they name. Those of
 * .symtab may be over the size limits here: then only symbols cannot be
 * resolved (uprobe_symtab_load() says -EFBIG), file offsets still can.
 */
static const uint32_t whole_types[] = {SHT_SYMTAB,     SHT_DYNSYM,
				       SHT_DYNAMIC,    SHT_GNU_versym,
				       SHT_GNU_verdef, SHT_GNU_verneed};
#define NWHOLE ARRAY_SIZE(whole_types)

struct whole {
	size_t idx[2 * NWHOLE]; /* a section, then the one it links */
};

static void whole_find(const Elf64_Shdr *all, uint64_t n, struct whole *w)
{
	size_t i, t;

	memset(w, 0, sizeof(*w));
	for (i = 1; i < n; i++)
		for (t = 0; t < NWHOLE; t++)
			if (all[i].sh_type == whole_types[t] &&
			    !w->idx[2 * t]) {
				w->idx[2 * t] = i;
				w->idx[2 * t + 1] = all[i].sh_link;
			}
}

/* 0: not read whole; 1: of .symtab; 2: read whole, within the limits. */
static int whole_of(const struct whole *w, size_t i)
{
	int how = 0;
	size_t k;

	for (k = 0; i && k < 2 * NWHOLE; k++)
		if (w->idx[k] == i)
			how = k < 2 ? (how ? how : 1) : 2;
	return how;
}

/* A table read whole and limited: its size. */
static int check_limit(const Elf64_Shdr *sh, size_t i, const char *path,
		       struct uprobe_err *terr)
{
	uint64_t max = sh->sh_type == SHT_STRTAB ? UPROBE_STRTAB_MAX_BYTES
						 : UPROBE_SYMTAB_MAX_BYTES;

	if (sh->sh_size <= max)
		return 0;
	uprobe_set_err(terr, 0,
		       "%s: %s %zu claims 0x%" PRIx64
		       " bytes, over the limit of %" PRIu64 " MiB",
		       path, kind_of(sh->sh_type), i, (uint64_t)sh->sh_size,
		       max >> 20);
	return -EINVAL;
}

/* Section @i: inside the file; a table read whole holds its bytes. */
static int check_section(int fd, const Elf64_Shdr *sh, size_t i, int whole,
			 uint64_t size, const char *path,
			 struct uprobe_err *terr)
{
	const char *kind = kind_of(sh->sh_type);

	if (sh->sh_type == SHT_NULL || sh->sh_type == SHT_NOBITS)
		return 0;
	if (!inside(sh->sh_offset, sh->sh_size, 1, size)) {
		uprobe_set_err(terr, 0,
			       "%s: %s %zu (0x%" PRIx64 " bytes at 0x%" PRIx64
			       ") ends beyond the end of the file (0x%" PRIx64
			       " bytes)",
			       path, kind, i, (uint64_t)sh->sh_size,
			       (uint64_t)sh->sh_offset, size);
		return -EINVAL;
	}
	if (!whole)
		return 0;
	if (whole == 2 && check_limit(sh, i, path, terr))
		return -EINVAL;
	if ((sh->sh_type == SHT_SYMTAB || sh->sh_type == SHT_DYNSYM) &&
	    sh->sh_entsize != sizeof(Elf64_Sym)) {
		uprobe_set_err(terr, 0,
			       "%s: %s %zu has entries of %" PRIu64
			       " bytes, not %zu",
			       path, kind, i, (uint64_t)sh->sh_entsize,
			       sizeof(Elf64_Sym));
		return -EINVAL;
	}
	if (!written(fd, sh->sh_offset, sh->sh_size)) {
		uprobe_set_err(
			terr, 0,
			"%s: %s %zu (0x%" PRIx64
			" bytes) lies in a hole of a sparse file: the file does not hold what its headers claim",
			path, kind, i, (uint64_t)sh->sh_size);
		return -EINVAL;
	}
	return 0;
}

static int check_sections(int fd, const Elf64_Ehdr *eh, uint64_t shnum,
			  uint64_t size, const char *path,
			  struct uprobe_err *terr)
{
	size_t len = shnum * sizeof(Elf64_Shdr), i;
	struct whole w;
	Elf64_Shdr *all;
	int err = 0;

	if (!shnum)
		return 0;
	all = malloc(len);
	if (!all)
		return -ENOMEM;
	if (pread(fd, all, len, eh->e_shoff) != (ssize_t)len) {
		uprobe_set_err(terr, 0, "cannot read the section headers of %s",
			       path);
		err = -EINVAL;
	}
	if (!err)
		whole_find(all, shnum, &w);
	for (i = 1; !err && i < shnum; i++)
		err = check_section(fd, &all[i], i, whole_of(&w, i), size, path,
				    terr);
	free(all);
	return err;
}

int uprobe_elf_bounds(int fd, const struct stat *st, const char *path,
		      struct uprobe_err *terr)
{
	uint64_t shnum, phnum, size = (uint64_t)st->st_size;
	Elf64_Ehdr eh;
	int err;

	/* what is no 64-bit ELF file of this byte order, libelf judges */
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != HOST_ELFDATA)
		return 0;
	err = header_counts(fd, &eh, &shnum, &phnum);
	if (err) {
		uprobe_set_err(terr, 0, "cannot read the section headers of %s",
			       path);
		return err;
	}
	err = check_headers(&eh, shnum, phnum, size, path, terr);
	if (!err)
		err = check_sections(fd, &eh, shnum, size, path, terr);
	return err;
}
