/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The files of links made with latency or by= (render_sight.c), for the
 * table of render.c: they read the link's own maps (bpf/builtin/sight.h).
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

/*
 * stacks (render_stacks.c): the folded stacks, busiest first, then
 * `# dropped N` when hits had no room for their stack; kernel frames only
 * for a reader who may see kernel addresses, else `[unknown]`.
 */
int render_stacks(const struct link_view *v, char *buf, size_t len);

/*
 * links.json: hits_by as [{"pid": N, "comm": "...", "hits": N} ...]
 * ({"comm", "hits"}, {"cgroup", "hits"}), then {"other": N} when some
 * hits have no line; latency as [{"low": NS, "high": NS, "count": N} ...]
 * for the buckets hit, with "target" first in each for a pattern's link.
 */
int json_hits_by(const struct link_view *v, struct sbuf *s);
int json_latency(const struct link_view *v, struct sbuf *s);

#endif
