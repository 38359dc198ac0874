/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One parsed PROBE line to its link(s): the entry of link creation. A
 * usdt line (patterns included) goes to usdt_probe.c, which makes its one
 * multi link through multi_probe.c's usdt_multi_create(); a wildcard
 * uprobe/kprobe line to multi_probe.c (a uprobe SYMBOL that is exactly a
 * symbol's name is one target); a fentry/fexit pattern to tracing_glob.c;
 * a uprobe line with latency to one session link (multi_probe.c); any
 * other to single_probe.c. All call down only (multi_probe.c and
 * tracing_glob.c fall back to single_probe.c one match at a time).
 */
#ifndef BPFLINKFS_MAKE_LINKS_H
#define BPFLINKFS_MAKE_LINKS_H

#include "single_probe.h"

/**
 * probe_create() - make the link(s) for one parsed probe line
 *
 * @o: the registry the links are owned in, whose counter they count in
 * Other arguments, errors and what is left in @made on failure as
 * single_probe_create() (single_probe.h); a wildcard line makes one multi link
 * (multi_probe_create()), or one perf-event link per match where the
 * kernel has no multi links, with @e's warning saying so; a fentry/fexit
 * pattern one tracing link per match (tracing_glob_create()).
 *
 * Return: 0, or -errno (bpflinkfs(8), ERRORS).
 */
int probe_create(struct owned *o, const struct probe_spec *p, const char *line,
		 size_t len, pid_t pid, struct request_ids *made,
		 struct path_memo *memo, struct bl_error *e);

#endif
