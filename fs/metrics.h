/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics.prom: the tree in the Prometheus text format (metrics.c). */
#ifndef BPFLINKFS_METRICS_H
#define BPFLINKFS_METRICS_H

#include <stddef.h>

struct bare_perf_set;
struct owned;
struct stats_switch;

#include "render.h"

/**
 * render_metrics() - the Prometheus text exposition (format 0.0.4) of
 * every link (bpflinkfs(8), metrics.prom): link info, hits of own links,
 * missed, links per type, each program's recursion misses, own links' share of
 * the built-in program's run time and, while the kernel's run statistics are on
 * (stats_collecting(@sw), whoever turned them on), the run count and time
 * of each program attached by a link
 * @len: out, the text's length
 * Return: malloc'd text (caller frees), or NULL with errno (ENOMEM, or
 * the errno of the link enumeration).
 */
char *render_metrics(struct owned *reg, struct bare_perf_set *attached,
		     struct stats_switch *sw, size_t *len);

#endif
