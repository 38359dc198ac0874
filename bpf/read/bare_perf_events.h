/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Probes attached without a link: perf events that a process holds with a
 * BPF program set by the PERF_EVENT_IOC_SET_BPF ioctl (bcc, bpftrace 0.17),
 * which no link enumeration shows (bpflinkfs(8), Probes attached without a
 * link). Found with the task-file iterator (task_files.h), described with
 * BPF_TASK_FD_QUERY, as bpftool perf show does.
 */
#ifndef BPFLINKFS_BARE_PERF_EVENTS_H
#define BPFLINKFS_BARE_PERF_EVENTS_H

#include <linux/types.h>

#include "link_info.h"
#include "task_files.h" /* struct link_holder */

/* One perf event fd with a program and no link, the first holder's */
struct bare_perf_event {
	__u32 pid; /* thread-group id of the holder */
	__u32 fd;
	char comm[16]; /* NUL-terminated */
	/* the program's name where the iterator told it, else empty */
	char prog_name[16];
	/*
	 * As a perf link's fields: kind, name, offset (uprobe: file offset;
	 * kprobe: from the function), addr (kprobe; as the kernel showed it
	 * to the daemon), config and event_type (event), prog_id. id,
	 * link_type, cookie, missed and ref_ctr_offset are 0: the kernel
	 * does not tell them for a perf event.
	 */
	struct link_fields f;
};

/* Light form, for listings: no BPF_TASK_FD_QUERY asked */
struct bare_perf_id {
	__u32 pid;
	__u32 fd;
};

struct bare_perf_set; /* a cache over the task-file source; opaque */
struct owned;

/**
 * bare_perf_open() - the set of bare perf events, read with @reg's
 * task-file iterator (owned_task_files())
 * @out: the new set
 * @reg: the registry (owned.h): its links being removed are not listed
 *       among the links whose perf events are not bare
 * Return: 0, or -ENOMEM.
 */
int bare_perf_open(struct bare_perf_set **out, struct owned *reg);

/** bare_perf_close() - free the set (not @reg's iterator); NULL is allowed */
void bare_perf_close(struct bare_perf_set *s);

/**
 * bare_perf_ids() - every bare perf event now, as (pid, fd) by pid and fd
 * @s: the set
 * @out: malloc'd array (caller frees)
 *
 * A perf event with a program counts unless a link holds it: with the
 * iterator, a perf link whose perf event is the same (a libbpf-made link
 * keeps its perf event fd open in the process); with the /proc walk, a
 * perf link running the same program. Perf events held only by a pinned
 * link whose fd no process holds are not told apart by the iterator
 * either and count as bare. A perf event several processes share (fork,
 * SCM_RIGHTS) appears once, under the first holder by pid and fd.
 *
 * Return: the count, or -errno of task_files_read().
 */
int bare_perf_ids(struct bare_perf_set *s, struct bare_perf_id **out);

/**
 * bare_perf_get() - one bare perf event now, described
 * @s: the set
 * @pid, @fd: which
 * @p: out
 *
 * Return: 0, -ENOENT (the fd is closed, is no longer a bare perf event
 * with a program, or is not the first holder's), -ENOMEM, -errno.
 */
int bare_perf_get(struct bare_perf_set *s, __u32 pid, __u32 fd,
		 struct bare_perf_event *p);

/**
 * bare_perf_holders() - every process holding the perf event of entry
 * (@pid, @fd) now, each once, by pid (link_id 0)
 * @s: the set
 * @out: malloc'd (caller frees)
 *
 * The processes holding an fd of that very perf event (fork, SCM_RIGHTS)
 * with the iterator; with the /proc walk, which cannot tell one perf
 * event from another, the entry's holder alone.
 *
 * Return: the count, -ENOENT (no such entry now), -ENOMEM, -errno.
 */
int bare_perf_holders(struct bare_perf_set *s, __u32 pid, __u32 fd,
		     struct link_holder **out);

/**
 * bare_perf_read_all() - every bare perf event now, described
 * @s: the set
 * @out: malloc'd array by pid and fd (caller frees); entries closed
 *       between the walk and their query are left out
 *
 * For the tables (attached, attached.json, metrics.prom). Each entry is a
 * few KiB (the PATH_MAX name): callers with many should expect that.
 *
 * Return: the count, or -errno.
 */
int bare_perf_read_all(struct bare_perf_set *s, struct bare_perf_event **out);

/**
 * bare_perf_read_all_keyed() - bare_perf_read_all() for a caller that has
 * just walked every link itself: it gives the keys of the perf events
 * links hold, and no second walk of the links is made for them
 * @keys: the perf_key of every perf link (link_progs.h), sorted ascending;
 *        NULL: read them as bare_perf_read_all() does
 * @nkeys: how many
 * @out: as for bare_perf_read_all()
 *
 * Where the holders come from the /proc walk (no keys), @keys is not used.
 * Return: the count, or -errno.
 */
int bare_perf_read_all_keyed(struct bare_perf_set *s, const __u64 *keys,
			     size_t nkeys, struct bare_perf_event **out);

#endif
