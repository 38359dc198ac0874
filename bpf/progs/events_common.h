/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The events side of the built-in programs (bpflinkfs(8), EVENTS): the ring
 * buffer, the per-slot switch, the per-slot drop counters and the count of
 * slots switched on. Every program file that includes this defines these
 * maps alike, so userspace hands them all one set (bpf_map__reuse_fd):
 * the counter's programs, the per-link raw tracepoint and fentry/fexit
 * instances, and, with a pin_dir, the programs of an earlier daemon.
 */
#ifndef BPFLINKFS_EVENTS_COMMON_H
#define BPFLINKFS_EVENTS_COMMON_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "../builtin/events_record.h"

/* per slot: EVENTS_ON | EVENTS_RETVAL while an events reader is open */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1); /* = hits' max_entries, set before load */
} events_on SEC(".maps");

/* per slot: records the ring had no room for */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1); /* = hits' max_entries, set before load */
} events_lost SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, EVENTS_RING_BYTES);
} events_ring SEC(".maps");

/*
 * How many slots record now: 0 keeps counting-only hits at one load. The
 * only variable of .bss, so that every program's .bss is alike and one map.
 */
volatile __u32 events_active;

/*
 * A record for a hit of @key with everything but the return value filled
 * in, or NULL (the drop counted) when the ring has no room: the kernel
 * never waits for a reader. The caller submits it.
 */
static __always_inline struct events_record *events_start(__u32 key)
{
	struct events_record *e;
	__u64 *lost;

	e = bpf_ringbuf_reserve(&events_ring, sizeof(*e), 0);
	if (!e) {
		lost = bpf_map_lookup_elem(&events_lost, &key);
		if (lost)
			__sync_fetch_and_add(lost, 1);
		return NULL;
	}
	e->ns = bpf_ktime_get_boot_ns();
	e->pid_tgid = bpf_get_current_pid_tgid();
	e->retval = 0;
	e->slot = key;
	e->cpu = bpf_get_smp_processor_id();
	e->flags = 0;
	e->reserved = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	return e;
}

/* The slot's switch when @key records now, else 0; one load when none do. */
static __always_inline __u32 events_flags(__u32 key)
{
	__u32 *on;

	if (!events_active)
		return 0;
	on = bpf_map_lookup_elem(&events_on, &key);
	return on && *on & EVENTS_ON ? *on : 0;
}

#endif
