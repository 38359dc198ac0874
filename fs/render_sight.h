/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The files of links made with latency or by= (render_sight.c), for the
 * table of render.c: they read the link's own maps (bpf/sight/sight.h).
 */
#ifndef BPFLINKFS_RENDER_SIGHT_H
#define BPFLINKFS_RENDER_SIGHT_H

#include <stddef.h>

#include "render.h"

/*
 * hits_by: `PID<TAB>COMM<TAB>HITS`, `COMM<TAB>HITS` or
 * `CGROUP_PATH<TAB>HITS` a line, busiest first, then `# other N` with
 * the hits of keys no longer in the map (N > 0 only); comm and path
 * escaped as `links` escapes values. Returns the length it needs, as the
 * other renderers do.
 */
int render_hits_by(const struct link_view *v, char *buf, size_t len);

/*
 * latency: bpftrace's hist() of the call times in ns; a link whose line
 * was a pattern (or made several targets) prints one per target hit,
 * under `@[TARGET]:`.
 */
int render_latency(const struct link_view *v, char *buf, size_t len);

#endif
