/* SPDX-License-Identifier: GPL-2.0-only */
/* What tracefs says about tracepoints it lists. */
#ifndef BPFLINKFS_TRACEFS_H
#define BPFLINKFS_TRACEFS_H

#include <stddef.h>

/**
 * tracefs_root() - where tracefs is mounted: /sys/kernel/tracing, else
 * /sys/kernel/debug/tracing (the directory that has events/)
 * Return: the path, or NULL when tracefs is not mounted.
 */
const char *tracefs_root(void);

/**
 * tracefs_category() - the category of a tracepoint named @name, when
 * exactly one category of tracefs's events/ has it; answers are kept for
 * a few seconds (a scan stats every category)
 * @out: the category, @len bytes
 * Return: 0, or -ENODATA (none, several, or tracefs not mounted).
 */
int tracefs_category(const char *name, char *out, size_t len);

#endif
