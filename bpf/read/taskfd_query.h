/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Probe details of a perf-event link on kernels without perf link info
 * (before 6.6), from BPF_TASK_FD_QUERY on a perf event fd that a process
 * holds next to the link, as bpftool perf show does.
 */
#ifndef BPFLINKFS_TASKFD_QUERY_H
#define BPFLINKFS_TASKFD_QUERY_H

#include <linux/types.h>

#include "link_info.h"

/**
 * link_info_from_task_fd() - probe kind, name, offset and address of a link
 * @link_id: kernel link id (a perf-event link)
 * @prog_id: the program the link runs (from the generic link info)
 * @f: out; only kind, name, offset and addr are written, and only on success
 *
 * Walks /proc/PID/fd of every process. A process counts when it holds the
 * link (fdinfo link_id) and no other perf-event link running @prog_id; each
 * perf event fd it holds is asked with BPF_TASK_FD_QUERY, and the answers
 * whose program is @prog_id are kept. The result is used only when all kept
 * answers agree (one perf event seen through forked or dup'ed fds); two
 * different answers, or none, give -ENOENT: nothing is guessed.
 *
 * What the kernel answers: uprobe/uretprobe: the path the attacher passed
 * and the file offset; kprobe/kretprobe: the function and the offset from
 * it, addr 0 (6.1 gives an address only for a probe made by address, and
 * then no name); tracepoint: the event name without its category. Perf
 * events of other kinds (software, hardware) are not answered by the kernel
 * (EOPNOTSUPP), so they give -ENOENT. Needs CAP_SYS_ADMIN (or CAP_PERFMON)
 * and ptrace access to the processes; others are passed over. Costs a walk
 * of every fd of every process: callers should keep the result per link id.
 *
 * Return: 0, -ENOENT (no unambiguous answer), -EOVERFLOW (offset above
 * 4 GiB, which link_fields cannot hold), -ENOMEM, or -errno from
 * opendir(/proc).
 */
int link_info_from_task_fd(__u32 link_id, __u32 prog_id,
			   struct link_fields *f);

#endif
