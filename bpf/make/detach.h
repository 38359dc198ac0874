/* SPDX-License-Identifier: GPL-2.0-only */
/* Taking another process's link away: BPF_LINK_DETACH by link id. */
#ifndef BPFLINKFS_DETACH_H
#define BPFLINKFS_DETACH_H

#include <linux/types.h>

/**
 * link_detach_id() - ask the kernel to detach link @id, as `bpftool link
 * detach` does (BPF_LINK_GET_FD_BY_ID, then BPF_LINK_DETACH)
 * @id: a link id
 *
 * The program stops running at once; the link itself lives on, defunct,
 * until its holders close it and its pins are removed. The kernel detaches
 * only link types with a detach operation (cgroup, netns, xdp, tcx,
 * netkit, netfilter, struct_ops, sockmap ...), and answers EOPNOTSUPP for
 * the others (perf_event, kprobe_multi, uprobe_multi, tracing,
 * raw_tracepoint, iter). Opening a link by id needs CAP_SYS_ADMIN.
 *
 * Return: 0, -ENOENT (no such link), -EOPNOTSUPP, or -errno of bpf(2).
 */
int link_detach_id(__u32 id);

#endif
