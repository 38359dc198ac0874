/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A probe-able ELF file and its tables, read with libelf: opening it,
 * symbol tables with versions, program headers (vaddr <-> file offset).
 */
#ifndef BPFLINKFS_UPROBE_ELF_H
#define BPFLINKFS_UPROBE_ELF_H

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "uprobe_target.h"

struct uprobe_elf {
	int fd;
	Elf *elf;
	struct stat st;
};

/**
 * uprobe_elf_open() - open a probe-able ELF file
 * @f: out, the open file; close it with uprobe_elf_close()
 * @path: the file
 * @terr: out, a message on failure (may be NULL)
 *
 * Probe-able: a regular 64-bit executable or shared object for the host's
 * architecture. On error nothing stays open.
 *
 * Return: 0, -EINVAL (not such a file), -ENOSYS (libelf unusable), or the
 * -errno of open()/fstat().
 */
int uprobe_elf_open(struct uprobe_elf *f, const char *path,
		    struct uprobe_err *terr);

/* Close what uprobe_elf_open() opened; safe to call twice. */
void uprobe_elf_close(struct uprobe_elf *f);

/* A symbol table (.symtab or .dynsym) of an open ELF file. */
struct uprobe_symtab {
	Elf *elf;
	Elf_Data *data;
	size_t count, strndx;
	Elf_Data *versym;  /* dynsym only */
	const char **vers; /* with versym: version names by index */
	size_t nvers;	   /* entries of vers: the largest index + 1 */
};

/* One symbol with its name split from a "@VER" / "@@VER" suffix. */
struct uprobe_sym {
	GElf_Sym sym;
	const char *name; /* as stored; may carry "@VER" in .symtab */
	size_t baselen;
	const char *ver; /* NULL: unversioned */
	bool hidden;	 /* a non-default (compat) version */
};

/* The first section of type @type, its header in @sh; NULL if none. */
Elf_Scn *uprobe_find_scn(Elf *elf, GElf_Word type, GElf_Shdr *sh);

/*
 * Load .symtab or .dynsym (@type): 0, -ENOENT (none), -EINVAL, -EFBIG (it
 * or its string table is over UPROBE_SYMTAB_MAX_BYTES or
 * UPROBE_STRTAB_MAX_BYTES).
 */
int uprobe_symtab_load(Elf *elf, GElf_Word type, struct uprobe_symtab *t);

/* Free what uprobe_symtab_load() allocated; the Elf stays. */
void uprobe_symtab_free(struct uprobe_symtab *t);

/*
 * Symbol @i of @t with its version: from the name's "@VER" (.symtab) or
 * .gnu.version with verdef/verneed (.dynsym). 0 or -EINVAL.
 */
int uprobe_sym_get(const struct uprobe_symtab *t, size_t i,
		   struct uprobe_sym *si);

/* A function, an IFUNC, or an untyped label inside executable code. */
bool uprobe_is_code(Elf *elf, const GElf_Sym *s);

/*
 * Program headers (from libelf), the only source of the vaddr <-> file
 * offset mapping. uprobe_vaddr_to_off(): through the PT_LOAD segment whose
 * file part maps @vaddr. uprobe_off_to_vaddr(): the other way; an
 * executable segment wins over overlapping ones. Both return 0, -ENOENT (no
 * such segment) or -EINVAL (no program headers).
 */
int uprobe_vaddr_to_off(Elf *elf, GElf_Addr vaddr, uint64_t *off);
int uprobe_off_to_vaddr(Elf *elf, uint64_t off, GElf_Addr *vaddr);

/* @off is inside the file part of an executable PT_LOAD and below @size. */
bool uprobe_off_in_exec(Elf *elf, uint64_t off, off_t file_size);

/* 2 global or unique, 1 weak, 0 local: who wins at the same address. */
int uprobe_bind_rank(unsigned char bind);

#endif
