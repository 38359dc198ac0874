/* SPDX-License-Identifier: GPL-2.0-only */
/* USDT probes (SystemTap SDT notes) to uprobe locations (uprobe_usdt.c). */
#ifndef BPFLINKFS_UPROBE_USDT_H
#define BPFLINKFS_UPROBE_USDT_H

#include <stddef.h>
#include <stdint.h>

#include "uprobe_target.h"

/* One place a USDT probe sits in its file. */
struct usdt_location {
	uint64_t offset;	 /* file offset of the probe's nop */
	uint64_t ref_ctr_offset; /* file offset of its semaphore, or 0 */
};

/**
 * uprobe_usdt_resolve() - the locations of a USDT probe
 * @canonical: path from uprobe_resolve_path()
 * @provider: PROVIDER, or "" to take NAME from whichever provider has it
 *            (then it must be one provider's only)
 * @name: NAME
 * (Either may be a glob pattern, fnmatch(3): then every location of every
 * probe that matches, in note order, and no ambiguity.)
 * @locs: out, a malloc'd array of the probe's locations (caller frees)
 * @n: out, their count (>= 1 on success)
 * @t: out, path, device and inode of the file (offset unset)
 * @terr: out, a message on failure; the caret under PATH, or under
 *        [PROVIDER:]NAME (@terr->symbol_col) for an unknown probe
 *
 * Reads the SystemTap SDT notes (.note.stapsdt, type 3, owner "stapsdt":
 * address, .stapsdt.base address, semaphore address, provider, name,
 * arguments) with libelf. A location moves by the difference between the
 * file's .stapsdt.base and the one the note recorded (prelinked files);
 * locations and semaphores become file offsets through the PT_LOAD
 * segment that maps them (executable for a location, not for a semaphore).
 *
 * Return: 0, -ENOENT (no SDT notes, no such probe or none that matches:
 * the message lists the
 * probes the file has, as many as fit), -EINVAL (a NAME several providers
 * have, a note or address outside the file's segments), or another -errno.
 */
int uprobe_usdt_resolve(const char *canonical, const char *provider,
			const char *name, struct usdt_location **locs,
			size_t *n, struct uprobe_target *t,
			struct uprobe_err *terr);

#endif
