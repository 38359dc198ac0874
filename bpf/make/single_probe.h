/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BPFLINKFS_SINGLE_PROBE_H
#define BPFLINKFS_SINGLE_PROBE_H

#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "error.h"
#include "request_ids.h"
#include "parse.h"

struct owned;

/**
 * single_probe_create() - make the link(s) for one parsed probe line
 * without a wildcard (probe_create() in make_links.c sends wildcards and usdt
 * lines elsewhere)
 * @o: the registry the links are owned in (owned.h), and whose counter
 *     the built-in program counts them in
 * @p: the parsed probe; its columns index @line
 * @line: the line as written, trimmed (stored as each link's spec), @len
 *        bytes
 * @pid: the writer; relative uprobe paths resolve against its cwd
 * @made: ids of the links made are appended
 * @memo: path resolution memo of the current write request, or NULL
 * @e: out, the error on failure (its column indexes @line); on success,
 *     its warning, when non-empty, is one to log all the same
 *
 * software/hardware events make one link per online CPU unless cpu= or
 * pid= narrows them; if one fails, those already made for this line stay
 * in @made for the caller to remove.
 *
 * Return: 0, or -errno (bpflinkfs(8), ERRORS).
 */
int single_probe_create(struct owned *o, const struct probe_spec *p,
			const char *line, size_t len, pid_t pid,
			struct request_ids *made, struct path_memo *memo,
			struct bl_error *e);

struct uprobe_target;

/**
 * perf_probe_link_make() - one perf-event link of @p on @cpu (-1: every
 * CPU), with the built-in counter (a counter slot as its cookie) or
 * @p's prog=, registered in @o with @spec as its spec
 * @ut: the resolved uprobe target (uprobe kinds), else NULL
 * @id: out, the new link's id
 * Return: 0, or -errno with @e set (bpflinkfs(8), ERRORS); nothing is left made
 * on failure.
 */
int perf_probe_link_make(struct owned *o, const struct probe_spec *p,
			 const struct uprobe_target *ut, int cpu,
			 const char *spec, struct bl_error *e, __u32 *id);

#endif
