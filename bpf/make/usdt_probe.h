/* SPDX-License-Identifier: GPL-2.0-only */
/* usdt lines (usdt_probe.c). */
#ifndef BPFLINKFS_USDT_PROBE_H
#define BPFLINKFS_USDT_PROBE_H

#include "single_probe.h"

/**
 * usdt_probe_create() - the link(s) of a usdt line: one uprobe_multi link
 * for every location of the probe (or of every probe a pattern matches),
 * semaphores as ref_ctr_offsets, one counter slot per location, where the
 * kernel has uprobe_multi links; else one perf uprobe link per location,
 * with a warning when there are several. The notes are read with libelf
 * (.note.stapsdt, resolve_usdt()).
 *
 * Arguments as single_probe_create().
 * Return: 0, or -errno (bpflinkfs(8), ERRORS): -ENOENT for an unknown probe
 * (error_log lists the file's probes); links made before a failure stay
 * in @made for the caller to remove (the line is all-or-nothing).
 */
int usdt_probe_create(struct owned *o, const struct probe_spec *p,
		      const char *line, size_t len, pid_t pid,
		      struct request_ids *made, struct path_memo *memo,
		      struct bl_error *e);

#endif
