/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Who holds each link: the processes with an fd of it. Link info never
 * says; bpftool asks a BPF iterator over every task's files, and so do we
 * (task_files.h: iter/task_file, a /proc walk where the kernel has none).
 * Read whenever asked, never kept.
 */
#ifndef BPFLINKFS_HOLDERS_H
#define BPFLINKFS_HOLDERS_H

#include <stddef.h>
#include <linux/types.h>

#include "task_files.h" /* struct link_holder */
#include "proc_cgroup.h"

/* Every (link, process) pair once, sorted by link id, then pid */
struct holder_index {
	struct link_holder *v;
	size_t n;
	__u32 self; /* the pid of the process that built it (getpid()) */
	/* where each holder runs, read on the first ask (holder_place()) */
	struct cgroup_cache *places;
};

/**
 * holder_index_build() - every process's link fds now
 * @idx: out; free with holder_index_free()
 * @tf: the task-file iterator to read them with (owned_task_files())
 *
 * Processes and fds that go away meanwhile are skipped. The daemon's own
 * fds are in it like any other process's (it holds the links it made, and
 * opens others for a moment to read them).
 *
 * Return: 0, or -ENOMEM, or -errno of task_files_read().
 */
int holder_index_build(struct holder_index *idx, struct task_files *tf);

/**
 * holder_index_wrap() - an index over holders found another way
 * @idx: out; free with holder_index_free(), which frees @v too
 * @v: malloc'd, sorted by link id then pid (the same id throughout for
 *     one perf event's holders)
 * @n: how many
 * Return: 0, or -ENOMEM (@v freed).
 */
int holder_index_wrap(struct holder_index *idx, struct link_holder *v,
		      size_t n);

/**
 * holder_index_share() - @idx for another thread: the same holders (read,
 * never copied), with a cgroup cache of its own, since holder_place()
 * fills the cache as it is asked
 * @out: out; free with holder_index_unshare() before @idx is freed
 * Return: 0, or -ENOMEM.
 */
int holder_index_share(const struct holder_index *idx,
		       struct holder_index *out);

/** holder_index_unshare() - free what holder_index_share() made */
void holder_index_unshare(struct holder_index *idx);

/**
 * holder_place() - where holder @pid runs: cgroup v2 path and container
 * (proc_cgroup.h), read from /proc/PID/cgroup once per index
 * Return: the place, or NULL on ENOMEM.
 */
const struct cgroup_place *holder_place(const struct holder_index *idx,
					__u32 pid);

/**
 * holder_index_build_link() - holder_index_build() for one link alone
 * @idx: out, holding only link @link_id's holders; free with
 *       holder_index_free()
 * @tf: the task-file iterator
 * @link_id: the link
 *
 * What one link's file needs: the kernel filters the fds (see
 * task_files_read_link()). Return: as holder_index_build().
 */
int holder_index_build_link(struct holder_index *idx, struct task_files *tf,
			    __u32 link_id);

/** holder_index_free() - free what holder_index_build() made */
void holder_index_free(struct holder_index *idx);

/**
 * holder_index_find() - the holders of link @link_id
 * @first: out, index of the first in @idx->v
 * Return: how many (0: none, *first unset).
 */
size_t holder_index_find(const struct holder_index *idx, __u32 link_id,
			 size_t *first);

#endif
