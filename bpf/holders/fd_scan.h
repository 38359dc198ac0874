/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Link holders and perf events by a scan of each process's fd table
 * (progs/fd_tables.bpf.c): the records of task_files' links-only and
 * perf-events-only programs at a fifth of their cost,
 * where the kernel has bpf_rdonly_cast() (6.2+) and bpf_loop() (5.17+).
 * task_files.c uses it in their place where it loads and finds the handle's
 * own links.
 */
#ifndef BPFLINKFS_FD_SCAN_H
#define BPFLINKFS_FD_SCAN_H

#include <linux/types.h>

#include "task_files.h"

/* The scan's iterator links: link fds, filtered, perf events */
#define FD_SCAN_OWN_MAX 3

struct fd_scan;

/**
 * fd_scan_open() - load the scan programs and attach their iterators
 * @out: the new handle, for fd_scan_holders() and fd_scan_close()
 *
 * Return: 0, or -errno of the load or attach (a kernel without the
 * kfuncs or helpers the programs call refuses them), -ENOMEM.
 */
int fd_scan_open(struct fd_scan **out);

/** fd_scan_close() - detach and unload; NULL is allowed */
void fd_scan_close(struct fd_scan *s);

/**
 * fd_scan_own_link_ids() - the ids of the handle's iterator links, which
 * its reads see held by the caller
 * @ids: out, room for FD_SCAN_OWN_MAX
 * Return: how many.
 */
int fd_scan_own_link_ids(const struct fd_scan *s,
			 __u32 ids[FD_SCAN_OWN_MAX]);

/**
 * fd_scan_holders() - the link fds of every process, or one link's
 * @s: the handle
 * @link_id: 0 for every link; else only that link's, one record per fd
 *           table that holds it. For one link the scan opens an fd of the
 *           link (BPF_LINK_GET_FD_BY_ID) while it runs, through which the
 *           program learns the link's address and compares each file's
 *           with it; that fd is left out of the records.
 * @out: malloc'd array (the caller frees), with room for as many records
 *       again after the last (a sort's scratch); pids are the kernel's
 *       (init namespace) thread-group ids, as task_files reports them
 *
 * Records come by task id and fd, but for tables of over 1,024 open fds
 * (one program run writes at most 24 KiB, a record's worth counted for
 * each open fd), whose rest is read after the walk and comes last. Not
 * sorted, not unique: the caller sorts. The handle's own links are in
 * them.
 *
 * Return: the count (0 for a link id that is gone), or -errno of
 * read(2) on the iterator or of the link's open (-EMFILE), -ENOMEM,
 * -E2BIG when the filter map is full (more than 1,024 threads reading),
 * -EOPNOTSUPP when the program did not find the link through its fd.
 */
int fd_scan_holders(struct fd_scan *s, __u32 link_id,
		    struct link_holder **out);

/**
 * fd_scan_perf_events() - every perf event fd with a BPF program attached
 * @s: the handle
 * @out: malloc'd array of TASK_FILE_PERF_EVENT records (the caller frees),
 *       as task_files_read_perf_events() gives them, by task id and fd but
 *       for the rest of tables of over 384 open fds, which comes last
 *
 * Return: the count, or -errno as fd_scan_holders().
 */
int fd_scan_perf_events(struct fd_scan *s, struct task_file **out);

#endif
