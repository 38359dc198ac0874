/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What this kernel and host let the daemon create, found once at start by
 * trying: loading a tiny program of each kind (a host may refuse a load
 * whatever the capabilities, as lockdown or an LSM does for fentry), and
 * for the multi links a link create that fails cleanly or a real one that
 * is closed at once (libbpf's feature probes do the same).
 */
#ifndef BPFLINKFS_KERNEL_OFFERS_H
#define BPFLINKFS_KERNEL_OFFERS_H

#include <stdbool.h>

struct kernel_offers {
	bool fentry;	   /* a BPF_TRACE_FENTRY program loads */
	bool raw_tp;	   /* a raw tracepoint program loads */
	bool kprobe_multi; /* a kprobe_multi link attaches (CONFIG_FPROBE) */
	bool uprobe_multi; /* the uprobe_multi link type exists (6.6+) */
	bool usdt;	   /* uprobes with a reference counter (semaphore) */
};

/**
 * kernel_offers_detect() - try each kind once; later calls return at once
 * (pthread_once). Needs CAP_BPF/CAP_SYS_ADMIN like every other load.
 */
void kernel_offers_detect(void);

/** kernel_offers() - what kernel_offers_detect() found (detects on first use) */
const struct kernel_offers *kernel_offers(void);

#endif
