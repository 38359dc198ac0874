/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The record the built-in program writes into its ring buffer for each hit
 * while a link's `events` file is open; shared by the BPF programs
 * (progs/events_common.h) and their reader (event_ring.c). Fixed-size
 * types only.
 */
#ifndef BPFLINKFS_EVENTS_RECORD_H
#define BPFLINKFS_EVENTS_RECORD_H

#include <linux/types.h>

/* the ring: a power of two of pages; ~65,000 records */
#define EVENTS_RING_BYTES (4u << 20)

/* values of the per-slot switch (map events_on) */
#define EVENTS_ON (1u << 0)
#define EVENTS_RETVAL (1u << 1) /* a return probe: record the return value */

/* ret_off of progs/counter_tracing.bpf.c: no return value to read */
#define EVENTS_NO_RET 0xffffffffu
/* the ctx slots a fexit program may read: MAX_BPF_FUNC_ARGS (12) */
#define EVENTS_CTX_SLOTS 12

/* events_record.flags */
#define EVENTS_REC_RETVAL (1u << 0) /* retval holds the return value */

struct events_record {
	__u64 ns;	/* bpf_ktime_get_boot_ns(): CLOCK_BOOTTIME */
	__u64 pid_tgid; /* bpf_get_current_pid_tgid(): tgid << 32 | tid */
	__u64 retval;	/* return probes: PT_REGS_RC, or fexit's from ctx */
	__u32 slot;	/* the counter slot (the link's cookie) hit */
	__u32 cpu;	/* bpf_get_smp_processor_id() */
	char comm[16];	/* bpf_get_current_comm() */
	/*
	 * EVENTS_REC_RETVAL when retval was read (a fexit of a function
	 * returning void has none to read)
	 */
	__u32 flags;
	__u32 reserved;
};

#endif
