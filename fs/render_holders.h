/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `holders`: who holds a link or a bare perf event, and where each runs
 * (render_holders.c), as a table and as links.json's `pids` objects.
 */
#ifndef BPFLINKFS_RENDER_HOLDERS_H
#define BPFLINKFS_RENDER_HOLDERS_H

#include <stdbool.h>
#include <stddef.h>

#include "holders.h"
struct link_view; /* render.h */
#include "sbuf.h"

/**
 * holders_table() - the table of holders @first .. @first + @n - 1 of @idx
 * @skip_self: leave the daemon out (it opens foreign links only to read)
 * @buf: out, as far as @len allows, NUL-terminated
 *
 * A header `PID COMM CGROUP CONTAINER`, then a line per holder, one tab
 * between columns, a tab, newline or backslash in a value written \t, \n,
 * \\ (as `links` writes them); CGROUP and CONTAINER `-` when unknown.
 * Return: the length of the whole table (>= @len: cut short), -ENOMEM.
 */
int holders_table(const struct holder_index *idx, size_t first, size_t n,
		  bool skip_self, char *buf, size_t len);

/**
 * holders_json() - the same holders as a JSON array of
 * {"pid", "comm", "cgroup", "container"} (cgroup and container null when
 * unknown)
 */
void holders_json(struct sbuf *s, const struct holder_index *idx, size_t first,
		  size_t n, bool skip_self);

/** render_holders() - the `holders` file of a link (a link_files[] render) */
int render_holders(const struct link_view *v, char *buf, size_t len);

/**
 * link_pids_json() - links.json's `pids` of a link: @key, then
 * holders_json() of its holders, read once for the table (v->holders) or
 * now
 * Return: 0, or -errno of holder_index_build() (nothing appended).
 */
int link_pids_json(struct sbuf *s, const struct link_view *v, const char *key);

#endif
