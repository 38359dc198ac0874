/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every link, its program and the program's run statistics in one read: a
 * BPF iterator over the kernel's links (iter/bpf_link, kernel 5.19+) that
 * writes per link its id and type (what the link iterator of link_ids.h
 * gives, so that a table walks the links once) and what
 * BPF_OBJ_GET_INFO_BY_FD of its program answers (id, name, run_cnt,
 * run_time_ns, recursion_misses), so that a listing of N links costs a few
 * read(2) calls instead of N program fds opened, asked and closed. The
 * values are the kernel's counters at the read: never kept.
 */
#ifndef BPFLINKFS_LINK_PROGS_H
#define BPFLINKFS_LINK_PROGS_H

#include <stdbool.h>
#include <linux/types.h>

#include "prog_stats.h"

struct link_progs;

/* one link's program, as link_progs_read() gives it */
struct link_prog {
	__u32 link_id;
	__u32 prog_id;		 /* 0: the link has no program now */
	__u32 type;		 /* BPF_LINK_TYPE_* */
	/* a perf link: its perf event's identity, the key of the event's
	 * fds in task_files_read() (task_files.h); else 0 */
	__u64 perf_key;
	bool has_stats; /* false: ask prog_stats_read() */
	struct prog_stats stats; /* as prog_stats_read() fills it */
};

/**
 * link_progs_open() - load the iterator and attach it
 * @out: the handle; NULL when this returns an error
 *
 * The iterator reads the programs' per-CPU counters itself, so it loads
 * only where BPF has bpf_map_lookup_percpu_elem() (5.19+: it locates
 * each CPU's copy) and there are at most 1024 possible CPUs; at start it checks
 * that it reads its own link's program as BPF_OBJ_GET_INFO_BY_FD does.
 * The attachment is a link of type iter the handle holds: hide its id
 * (link_progs_own()).
 *
 * Return: 0, or -errno (no link iterator, no BTF, no such helper, or a
 * check that failed: -EPROTO); callers then use prog_stats_read().
 */
int link_progs_open(struct link_progs **out);

/** link_progs_own() - the id of the handle's own iterator link, or 0 */
__u32 link_progs_own(const struct link_progs *lp);

/** link_progs_close() - detach and unload; NULL is ignored */
void link_progs_close(struct link_progs *lp);

/**
 * link_progs_read() - every live link now with its type and program, by
 * ascending link id, as link_ids_read() lists them (its own link left out)
 * @lp: the handle
 * @out: malloc'd array, the caller frees it
 * Return: the count, or -EOPNOTSUPP (@lp NULL), -ENOMEM, -errno of read(2).
 */
int link_progs_read(struct link_progs *lp, struct link_prog **out);

/* The most records link_progs_read_each() hands over at once */
#define LINK_PROGS_BATCH 256

/* A batch of @n records (at most LINK_PROGS_BATCH), the callee's to
 * change; return 0, or -errno to end the read with it */
typedef int (*link_progs_batch_fn)(struct link_prog *v, int n, void *arg);

/**
 * link_progs_read_each() - link_progs_read() a read(2) of the iterator at
 * a time: @fn(@v, @n, @arg) with each, in ascending link id, so that a
 * caller may work on the first links while the kernel walks the rest
 * @lp: the handle
 * Return: the count of records handed over, or -errno as link_progs_read(),
 * or @fn's.
 */
int link_progs_read_each(struct link_progs *lp, link_progs_batch_fn fn,
			 void *arg);

/**
 * link_prog_find() - the record of link @link_id in @v (sorted by link id)
 * Return: the record, or NULL.
 */
const struct link_prog *link_prog_find(const struct link_prog *v, size_t n,
				       __u32 link_id);

#endif
