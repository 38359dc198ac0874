/* SPDX-License-Identifier: GPL-2.0-only */
/* Perf events for every probe kind, and perf-event links on them. */
#ifndef BPFLINKFS_PERF_EVENT_LINK_H
#define BPFLINKFS_PERF_EVENT_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "parse.h"

struct perf_probe {
	enum probe_kind kind;
	/* kprobe: FUNC or MODULE:FUNC; uprobe: canonical absolute path */
	const char *target;
	/* uprobe: with @target_held, the file @target named when it was read,
	 * open on @target_fd: the one probed, whatever @target names now */
	bool target_held;
	int target_fd;
	uint64_t offset;	 /* kprobe: from FUNC; uprobe: file offset */
	uint64_t ref_ctr_offset; /* uprobe (usdt): semaphore file offset */
	const char *tp_category; /* tracepoint */
	const char *tp_name;
	size_t tp_category_col; /* where they start in the command line */
	size_t tp_name_col;
	uint32_t perf_type; /* software/hardware: PERF_TYPE_* */
	uint64_t config;
	uint64_t period; /* sample_period, used when freq is 0 */
	uint64_t freq;	 /* sample_freq (perf_event_attr.freq = 1) */
	pid_t pid;	 /* -1: every process */
	int cpu;	 /* -1: every CPU (kprobe/uprobe/tracepoint only) */
};

/**
 * perf_probe_open() - perf_event_open(2) for one probe on one CPU
 * @p: the probe; kprobe/uprobe PMU types and the retprobe bit come from
 *     /sys/bus/event_source/devices/{kprobe,uprobe}/, tracepoint ids from
 *     tracefs (/sys/kernel/tracing, else /sys/kernel/debug/tracing)
 * @e: out, a user-facing message on failure (may be NULL); @e->column is
 *     set only for a missing tracepoint (under its category or its name)
 *
 * Return: a perf event fd (O_CLOEXEC), or -EOPNOTSUPP (no kprobe/uprobe
 * support in this kernel), -ENOENT (no such tracepoint, no hardware PMU,
 * tracefs not mounted), or another -errno from the kernel.
 */
int perf_probe_open(const struct perf_probe *p, struct bl_error *e);

/**
 * perf_link_create() - BPF_LINK_CREATE with attach type BPF_PERF_EVENT
 * @prog_fd: program to attach
 * @perf_fd: from perf_probe_open(); the caller closes it afterwards (the
 *           link holds its own reference)
 * @cookie: bpf_cookie, read by bpf_get_attach_cookie()
 *
 * Return: a link fd, or -errno from the kernel (EEXIST: this program
 * already runs on that tracepoint; E2BIG: 64 programs on it).
 */
int perf_link_create(int prog_fd, int perf_fd, uint64_t cookie);

/**
 * pmu_present() - the kernel has the PMU @name ("kprobe", "uprobe") in
 * /sys/bus/event_source/devices
 */
bool pmu_present(const char *name);

/**
 * online_cpus() - parse /sys/devices/system/cpu/online
 * @cpus: out, CPU numbers
 * @max: capacity of @cpus
 * Return: number of CPUs, or -errno.
 */
int online_cpus(int *cpus, size_t max);

/**
 * prog_open_pinned() - open a program pinned in bpffs for prog=
 * @path: bpffs path
 * @kind: what it will attach to; the program type must fit (kprobe for
 *        kprobes/uprobes, tracepoint, perf_event)
 * @e: out, message on failure (may be NULL)
 * Return: a program fd, or -ENOENT, -EINVAL (not a program, wrong type).
 */
int prog_open_pinned(const char *path, enum probe_kind kind,
		     struct bl_error *e);

#endif
