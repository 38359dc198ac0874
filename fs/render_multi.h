/* SPDX-License-Identifier: GPL-2.0-only */
/* The files of multi links (render_multi.c), for the table of render.c. */
#ifndef BPFLINKFS_RENDER_MULTI_H
#define BPFLINKFS_RENDER_MULTI_H

#include <stddef.h>
#include <stdint.h>

#include "render.h"

/* count: link info's count of targets */
int render_count(const struct link_view *v, char *buf, size_t len);

/* pid: a uprobe_multi link's pid filter; -ENODATA when it has none */
int render_pid(const struct link_view *v, char *buf, size_t len);

/*
 * funcs: a header line, then one line per target (bpflinkfs(8), THE TREE).
 * Of any length: returns the length it needs (>= @len) when it does not
 * fit, so link_file_render_alloc() can ask again with room.
 */
int render_funcs(const struct link_view *v, char *buf, size_t len);

/* hits of an owned link: the sum over its slots (every target's) */
int render_multi_hits(const struct link_view *v, uint64_t *sum);

/**
 * multi_target_names() - each target of an own multi link named as `funcs`
 * names it (SYMBOL of uprobe_multi, FUNC of kprobe_multi), by counter slot
 * @v: the link, loaded, owned, with own.nslots > 0
 * @names: out, calloc'd array of own.nslots malloc'd strings: the target
 *         counted in slot own.slot + i at [i]; "-" where unknown (a file
 *         replaced, a kernel that reports no kprobe_multi cookies)
 * Return: own.nslots, or -errno (-ENOENT: the link is gone).
 */
int multi_target_names(const struct link_view *v, char ***names);

#endif
