// SPDX-License-Identifier: GPL-2.0-only
/*
 * The built-in counter: every program adds one to the per-CPU slot named by
 * the link's cookie. Userspace hands out the cookies (counter.c), so a
 * cookie outside the map, or 0, simply counts nowhere.
 *
 * While a reader has a link's `events` file open, the daemon switches the
 * slot's recording on (events_on) and the program also writes one record
 * per hit into a ring buffer (events_common.h; bpf/event_ring.c reads
 * it). With no reader anywhere, the cost over counting is one load of
 * events_active.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "events_common.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1); /* set from userspace before load */
} hits SEC(".maps");

static __always_inline void record(void *ctx, __u32 key, __u32 flags,
				   int has_regs)
{
	struct events_record *e = events_start(key);

	if (!e)
		return;
	if (has_regs && flags & EVENTS_RETVAL) {
		e->retval = PT_REGS_RC((struct pt_regs *)ctx);
		e->flags = EVENTS_REC_RETVAL;
	}
	bpf_ringbuf_submit(e, 0);
}

/* @has_regs: ctx is a struct pt_regs (kprobe and uprobe programs) */
static __always_inline void count(void *ctx, int has_regs)
{
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	__u32 flags;
	__u64 *v;

	if (!key)
		return;
	v = bpf_map_lookup_elem(&hits, &key);
	/*
	 * Per-CPU, but a perf_event program can interrupt a kprobe program
	 * on the same CPU, so the add must still be atomic.
	 */
	if (v)
		__sync_fetch_and_add(v, 1);
	flags = events_flags(key);
	if (flags)
		record(ctx, key, flags, has_regs);
}

/* Kprobes and uprobes alike: both are BPF_PROG_TYPE_KPROBE. */
SEC("kprobe")
int counter_kprobe(void *ctx)
{
	count(ctx, 1);
	return 0;
}

/*
 * Never reads its context: the kernel refuses the attach (EACCES) when a
 * program may read past a tracepoint's record, and records differ.
 */
SEC("tracepoint")
int counter_tp(void *ctx)
{
	count(ctx, 0);
	return 0;
}

SEC("perf_event")
int counter_perf(void *ctx)
{
	count(ctx, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
