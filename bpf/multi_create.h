/* SPDX-License-Identifier: GPL-2.0-only */
/* Wildcard probe lines: one multi link for all matches (multi_create.c). */
#ifndef BPFLINKFS_MULTI_CREATE_H
#define BPFLINKFS_MULTI_CREATE_H

#include "create.h"

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
 * single_probe_create(), and @warning says so.
 *
 * Arguments and return as single_probe_create(); -ENOENT with the caret under
 * the pattern when nothing matches.
 */
int multi_probe_create(struct owned *o, const struct probe_spec *p,
		       const char *line, size_t len, pid_t pid,
		       struct id_list *made, struct path_memo *memo,
		       struct bl_error *e, char *warning, size_t warning_len);

#endif
