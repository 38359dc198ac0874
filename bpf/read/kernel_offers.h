/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What this kernel and host let the daemon create, found once at start by
 * trying: loading a tiny program of each kind (a host may refuse a load
 * whatever the capabilities, as lockdown or an LSM does for fentry), and
 * for the multi links a link create that fails cleanly or a real one that
 * is closed at once (libbpf's feature probes do the same).
 */
#ifndef BPFLINKFS_CAN_CREATE_H
#define BPFLINKFS_CAN_CREATE_H

#include <stdbool.h>

struct can_create {
	bool fentry;	   /* a BPF_TRACE_FENTRY program loads */
	bool raw_tp;	   /* a raw tracepoint program loads */
	bool kprobe_multi; /* a kprobe_multi link attaches (CONFIG_FPROBE) */
	bool uprobe_multi; /* the uprobe_multi link type exists (6.6+) */
	bool usdt;	   /* uprobes with a reference counter (semaphore) */
};

/**
 * can_create_detect() - try each kind once; later calls return at once
 * (pthread_once). Needs CAP_BPF/CAP_SYS_ADMIN like every other load.
 */
void can_create_detect(void);

/** can_create() - what can_create_detect() found (detects on first use) */
const struct can_create *can_create(void);

#endif
