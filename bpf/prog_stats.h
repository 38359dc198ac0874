/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BPF program run statistics: what the kernel counts for every program
 * while kernel.bpf_stats_enabled is 1 (Documentation/admin-guide/sysctl/
 * kernel.rst; bpf_prog_info.run_cnt and run_time_ns, kernel 5.1+).
 */
#ifndef BPFLINKFS_PROG_STATS_H
#define BPFLINKFS_PROG_STATS_H

#include <stddef.h>
#include <linux/types.h>

struct prog_stats {
	__u64 run_cnt;	   /* bpf_prog_info.run_cnt: runs counted */
	__u64 run_time_ns; /* bpf_prog_info.run_time_ns: their time, ns */
	char name[16];	   /* bpf_prog_info.name (BPF_OBJ_NAME_LEN) */
};

/**
 * bpf_stats_enabled() - does the kernel collect run statistics now?
 * Reads /proc/sys/kernel/bpf_stats_enabled.
 * Return: 1 or 0, or -errno (no such sysctl: a kernel before 5.1).
 */
int bpf_stats_enabled(void);

/**
 * prog_stats_read() - run count, run time and name of a program
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

#endif
