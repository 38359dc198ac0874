/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BPF program run statistics: what the kernel counts for every program
 * while statistics are on (bpf_prog_info.run_cnt and run_time_ns, kernel
 * 5.1+), and recursion_misses (5.12+), counted always. Statistics are on
 * while kernel.bpf_stats_enabled is 1 or while any process holds an fd
 * from bpf(BPF_ENABLE_STATS) (5.8+); the kernel closes that fd with its
 * holder, so a crash leaves them off. The stats switch holds such an fd
 * for as long as someone asks, and tells whether statistics are on
 * whoever turned them on.
 */
#ifndef BPFLINKFS_PROG_STATS_H
#define BPFLINKFS_PROG_STATS_H

#include <stddef.h>
#include <linux/types.h>

struct prog_stats {
	__u64 run_cnt;		/* bpf_prog_info.run_cnt: runs counted */
	__u64 run_time_ns;	/* bpf_prog_info.run_time_ns: their time, ns */
	__u64 recursion_misses; /* runs skipped: already running on the CPU */
	char name[16];		/* bpf_prog_info.name (BPF_OBJ_NAME_LEN) */
};

struct stats_switch;

/**
 * bpf_stats_enabled() - the kernel.bpf_stats_enabled sysctl
 * Reads /proc/sys/kernel/bpf_stats_enabled. It says nothing of
 * BPF_ENABLE_STATS fds: stats_collecting() does.
 * Return: 1 or 0, or -errno (no such sysctl: a kernel before 5.1).
 */
int bpf_stats_enabled(void);

/**
 * prog_stats_read() - run count, run time, recursion misses and name of a
 * program
 * @prog_id: kernel program id
 * @out: filled from BPF_OBJ_GET_INFO_BY_FD (struct bpf_prog_info)
 *
 * The counts only grow while statistics are on; they keep their value
 * when they are turned off.
 *
 * Return: 0, -ENOENT (program gone; EAGAIN from GET_FD_BY_ID counts as
 * gone), or -errno from bpf(2).
 */
int prog_stats_read(__u32 prog_id, struct prog_stats *out);

/**
 * stats_switch_open() - the switch, off; loads a two-instruction socket
 * filter that stats_collecting() runs once (BPF_PROG_TEST_RUN) to see
 * whether the kernel counts it
 * Return: 0, or -ENOMEM. Without the probe program (no BPF_PROG_LOAD),
 * stats_collecting() falls back to the sysctl and the switch's own fd.
 */
int stats_switch_open(struct stats_switch **out);

/** stats_switch_close() - drop the fd if held, unload; NULL is ignored */
void stats_switch_close(struct stats_switch *sw);

/**
 * stats_switch_hold() - one more user wants statistics on: the first one
 * opens the BPF_ENABLE_STATS fd (BPF_STATS_RUN_TIME)
 * Return: 0, or -errno of bpf(2) (EINVAL: a kernel before 5.8; EPERM);
 * then nothing is held.
 */
int stats_switch_hold(struct stats_switch *sw);

/** stats_switch_drop() - one user less: the last one closes the fd */
void stats_switch_drop(struct stats_switch *sw);

/**
 * stats_collecting() - does the kernel collect run statistics now,
 * whoever turned them on? True while this switch holds its fd or the
 * sysctl is 1; else the probe program runs once and the answer is
 * whether its run_cnt moved (another process's BPF_ENABLE_STATS fd,
 * which the sysctl does not show).
 * Return: 1 or 0.
 */
int stats_collecting(struct stats_switch *sw);

#endif
