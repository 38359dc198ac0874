/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the per-link program (progs/sight.bpf.c) and the daemon share: the
 * keys and layout of its maps.
 */
#ifndef BPFLINKFS_SIGHT_ABI_H
#define BPFLINKFS_SIGHT_ABI_H

#include <linux/types.h>

/* by_mode in .rodata: what by= counts hits per */
#define SIGHT_BY_PID 1
#define SIGHT_BY_COMM 2
#define SIGHT_BY_CGROUP 3

/* at most this many keys per link; the least recently hit are evicted */
#define SIGHT_BY_KEYS 10240

/* sight_by's key: by=pid: tgid and comm; by=comm: comm; by=cgroup: the
 * cgroup v2 id (the inode number of its directory) */
struct sight_by_key {
	__u64 id;
	char comm[16];
};

/* stack_flags in .rodata: which stacks stacks= takes */
#define SIGHT_STACK_USER 1
#define SIGHT_STACK_KERNEL 2

/* distinct stacks per link; the rest are counted in sight_dropped */
#define SIGHT_STACKS 16384
/* user stacks kept as build ids too (taken at a stack's first hit) */
#define SIGHT_BID_STACKS 4096
/* frames a stack keeps: the kernel's most (PERF_MAX_STACK_DEPTH) */
#define SIGHT_STACK_DEPTH 127

/* sight_stacks' key: stack ids in sight_stackmap, -1 for none */
struct sight_stack_key {
	__u32 tgid; /* user stacks: the process, whose mappings name them */
	__s32 ustack;
	__s32 kstack;
	__u32 pad;
};

/* entry/return pairs: threads inside a call at once, per link */
#define SIGHT_PAIR_THREADS 16384

/*
 * sight_lat holds SIGHT_LAT_STRIDE u64 per target: bucket 0 counts calls
 * of 0 ns, bucket i (1..64) those of [2^(i-1), 2^i) ns, as bpftrace's
 * hist() does; then the sum of all times in ns.
 */
#define SIGHT_LAT_BUCKETS 65
#define SIGHT_LAT_SUM SIGHT_LAT_BUCKETS
#define SIGHT_LAT_STRIDE (SIGHT_LAT_BUCKETS + 1)

#endif
