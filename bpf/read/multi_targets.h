/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The targets of multi links (kprobe_multi, uprobe_multi): their arrays of
 * addresses or offsets, ref_ctr_offsets and cookies, read from
 * struct bpf_link_info with the project's own copy of its ABI
 * (struct abi_link_info of link_info.h, and link_create's uprobe_multi part
 * here; tests/kernel/test_abi.c checks both against the kernel's BTF).
 */
#ifndef BPFLINKFS_MULTI_TARGETS_H
#define BPFLINKFS_MULTI_TARGETS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "link_info.h"

/*
 * union bpf_attr's link_create for a uprobe_multi link (6.6+): libbpf 1.1
 * predates it (its bpf_link_create_opts has no uprobe_multi part), so the
 * daemon calls bpf(2) BPF_LINK_CREATE itself with this layout.
 */
struct abi_link_create_uprobe_multi {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type; /* BPF_TRACE_UPROBE_MULTI (48) */
	__u32 flags;
	__u64 path;
	__u64 offsets;
	__u64 ref_ctr_offsets;
	__u64 cookies;
	__u32 cnt;
	__u32 uflags; /* link_create.uprobe_multi.flags */
	__u32 pid;
	__u32 pad;
};

/* One target of a multi link, in the kernel's order. */
struct multi_target {
	__u64 where;	      /* uprobe_multi: file offset; kprobe_multi:
			       * address, as the kernel showed it to us */
	__u64 ref_ctr_offset; /* uprobe_multi */
	__u64 cookie;
};

struct multi_link_targets {
	__u32 id;
	__u32 link_type; /* LINK_TYPE_KPROBE_MULTI or LINK_TYPE_UPROBE_MULTI */
	__u32 count;
	__u32 flags;  /* KPROBE_MULTI_RETURN, UPROBE_MULTI_RETURN */
	__u32 pid;    /* uprobe_multi: the filter, 0 when none */
	__u64 missed; /* kprobe_multi, when has_missed */
	bool has_missed;
	bool has_cookies;
	char path[PATH_MAX];	/* uprobe_multi */
	struct multi_target *t; /* @count entries (malloc'd) */
};

/** multi_link_type() - @link_type is kprobe_multi or uprobe_multi */
bool multi_link_type(__u32 link_type);

/**
 * multi_link_creatable() - the running kernel and host can make
 * uprobe_multi (@uprobe) or kprobe_multi links: kernel_offers()'s answer,
 * the same as the features file's
 */
bool multi_link_creatable(bool uprobe);

/**
 * multi_targets_read_fd() - a multi link's facts and every target
 * @fd: link fd
 * @mi: out; free mi->t with multi_targets_free()
 *
 * Three BPF_OBJ_GET_INFO_BY_FD calls: a zeroed struct for the type and
 * count, then the arrays sized from that count (and the path); if the
 * link changed size in between (it cannot, but the kernel says ENOSPC
 * then), once more.
 *
 * Return: 0, -EINVAL (not a multi link, or the kernel reports no multi
 * link info: before 6.6 for kprobe_multi, 6.8 for uprobe_multi), -ENOMEM,
 * or -errno from bpf(2).
 */
int multi_targets_read_fd(int fd, struct multi_link_targets *mi);

/**
 * multi_targets_read() - multi_targets_read_fd() on a link id, fd not kept
 * Return: as multi_targets_read_fd(), -ENOENT when the link is gone.
 */
int multi_targets_read(__u32 id, struct multi_link_targets *mi);

/** multi_targets_free() - free mi->t */
void multi_targets_free(struct multi_link_targets *mi);

#endif
