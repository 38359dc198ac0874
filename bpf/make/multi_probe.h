/* SPDX-License-Identifier: GPL-2.0-only */
/* Wildcard probe lines: one multi link for all matches (multi_probe.c). */
#ifndef BPFLINKFS_MULTI_PROBE_H
#define BPFLINKFS_MULTI_PROBE_H

#include "single_probe.h"
#include "uprobe_usdt.h"

/**
 * multi_probe_create() - make the link for a wildcard line (p->wildcard)
 *
 * uprobe/uretprobe: the functions of PATH whose names match SYMBOL
 * (uprobe_glob()); kprobe/kretprobe: the functions of tracefs
 * available_filter_functions that FUNC matches (and of MODULE, when
 * given). One uprobe_multi or kprobe_multi link for all of them; with
 * the built-in program each target gets its own counter slot, in a row,
 * as its cookie; with prog= every target gets cookie=. On a kernel
 * without that link type, one perf-event link per match through
 * single_probe_create(), and @e's warning says so.
 *
 * Arguments and return as single_probe_create(); -ENOENT with the caret under
 * the pattern when nothing matches.
 */
int multi_probe_create(struct owned *o, const struct probe_spec *p,
		       const char *line, size_t len, pid_t pid,
		       struct request_ids *made, struct path_memo *memo,
		       struct bl_error *e);

/**
 * usdt_multi_create() - one uprobe_multi link for the locations of a USDT
 * probe (or of every probe a USDT pattern matched)
 * @o: the registry the link is owned in, with the counter it counts in
 * @p: the parsed usdt line (opts: pid=, prog=, cookie=)
 * @ut: the file (resolve_usdt(): path, device, inode, and the descriptor
 *      the kernel probes, which stays the caller's)
 * @locs: @n locations: offsets and semaphores (ref_ctr_offsets, 0: none)
 * @line: the line as written, @len bytes: the link's spec
 * @made: the new link's id is appended
 * @e: out, the error on failure
 *
 * With the built-in program each location gets its own counter slot (its
 * cookie), so `funcs` shows hits per location. The caller checks
 * multi_link_creatable() first.
 * Return: 0, or -errno (bpflinkfs(8), ERRORS); nothing is made on failure.
 */
int usdt_multi_create(struct owned *o, const struct probe_spec *p,
		      const struct uprobe_target *ut,
		      const struct usdt_location *locs, size_t n,
		      const char *line, size_t len, struct request_ids *made,
		      struct bl_error *e);

/**
 * session_probe_create() - a uprobe line without a wildcard that asks for
 * latency, where the kernel has uprobe session links: one uprobe session
 * link (uprobe_multi) of its one target, resolved as single_probe_create()
 * resolves it
 * Return: 0, or -errno (bpflinkfs(8), ERRORS); nothing is made on failure.
 */
int session_probe_create(struct owned *o, const struct probe_spec *p,
			 const char *line, size_t len, pid_t pid,
			 struct request_ids *made, struct path_memo *memo,
			 struct bl_error *e);

#endif
