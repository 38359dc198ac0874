/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics.prom: the tree in the Prometheus text format (metrics.c). */
#ifndef BPFLINKFS_METRICS_H
#define BPFLINKFS_METRICS_H

#include <stddef.h>

struct attached_set;
struct owned;

#include "render.h"

/**
 * render_metrics() - the Prometheus text exposition (format 0.0.4) of
 * every link (DESIGN 2.3): link info, hits of own links, missed, links per
 * type and, while kernel.bpf_stats_enabled is 1, the run count and time of
 * each program attached by a link
 * @len: out, the text's length
 * Return: malloc'd text (caller frees), or NULL with errno (ENOMEM, or
 * the errno of the link enumeration).
 */
char *render_metrics(struct owned *reg, struct attached_set *attached,
		     size_t *len);

#endif
