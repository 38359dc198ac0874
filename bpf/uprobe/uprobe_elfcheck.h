/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The bounds of a hostile ELF file, checked raw before libelf reads it.
 */
#ifndef BPFLINKFS_UPROBE_ELFCHECK_H
#define BPFLINKFS_UPROBE_ELFCHECK_H

#include <sys/stat.h>

#include "uprobe_target.h"

/*
 * What an ELF file may cost (uprobe_elfcheck.c, uprobe_symtab_load()):
 * header tables of at most this many entries, symbol and string tables of
 * at most these sizes (read whole: the largest real binaries have a few
 * million symbols, 24 bytes each).
 */
#define UPROBE_ELF_MAX_HEADERS 65536u
#define UPROBE_SYMTAB_MAX_BYTES (64u << 20)
#define UPROBE_STRTAB_MAX_BYTES (256u << 20)

/**
 * uprobe_elf_bounds() - refuse a 64-bit ELF file whose headers claim more
 * than the file holds
 * @fd: the file, open
 * @st: its fstat()
 * @path: for messages
 * @terr: out, a message on failure (may be NULL)
 *
 * Read raw, before libelf allocates by what the headers say: section and
 * program header counts (extended numbering included) over
 * UPROBE_ELF_MAX_HEADERS or tables past the end of the file, a section
 * past the end of the file, symbol tables with entries of another size,
 * and symbol or string tables in a hole of a sparse file are refused.
 * Anything that is no 64-bit ELF file of the host's byte order is left to
 * libelf's checks.
 *
 * Return: 0, -EINVAL (with a message), or -ENOMEM.
 */
int uprobe_elf_bounds(int fd, const struct stat *st, const char *path,
		      struct uprobe_err *terr);

#endif
