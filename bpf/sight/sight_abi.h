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
