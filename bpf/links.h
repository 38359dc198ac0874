/* SPDX-License-Identifier: GPL-2.0-only */
/* Link enumeration: every link the kernel lists now. */
#ifndef BPFLINKFS_LINKS_H
#define BPFLINKFS_LINKS_H

#include <linux/types.h>

#include "link_ids.h"

/**
 * links_now() - every BPF link the kernel lists now with its type,
 * ascending by id; from the link iterator, else one BPF_LINK_GET_NEXT_ID
 * per link. The link cache is pruned to them.
 * @out: malloc'd array, the caller frees it
 * Return: the count, or -errno.
 */
int links_now(struct link_id_type **out);

/**
 * perf_link_ids() - ids of all perf-event links now, and of the tracing and
 * raw tracepoint links this mount owns, ascending, not dying
 * @ids: out, malloc'd array (caller frees)
 * Return: the count, or -errno.
 */
int perf_link_ids(__u32 **ids);

#endif
