/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to uprobe_path.c and uprobe_target.c, not public API: the error
 * helper, the ld.so cache and opening a probe-able ELF file.
 */
#ifndef BPFLINKFS_UPROBE_INTERNAL_H
#define BPFLINKFS_UPROBE_INTERNAL_H

#include <libelf.h>
#include <stddef.h>
#include <sys/stat.h>

#include "uprobe_target.h"

/* Fill @terr (may be NULL) with @column as its column_hint and a message. */
__attribute__((format(printf, 3, 4))) void
uprobe_set_err(struct target_error *terr, size_t column, const char *fmt, ...);

/**
 * uprobe_ldcache_lookup() - find a library for this architecture in the
 * ld.so cache
 * @name: "libc", "libc.so" or "libc.so.6" (exact names win over prefixes)
 * @out: out, the path the cache names (not yet canonical)
 * @outlen: size of @out
 *
 * Return: 0, -ENOENT (not in the cache), -EINVAL (unreadable cache format).
 */
int uprobe_ldcache_lookup(const char *name, char *out, size_t outlen);

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
		    struct target_error *terr);

/* Close what uprobe_elf_open() opened; safe to call twice. */
void uprobe_elf_close(struct uprobe_elf *f);

#endif
