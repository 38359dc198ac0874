// SPDX-License-Identifier: GPL-2.0-only
/*
 * The built-in counter: every program adds one to the slot named by the
 * link's cookie, in this CPU's row of the hits map (counter_common.h).
 * Userspace hands out the cookies (counter_load.c), so a cookie outside the
 * map, or 0, simply counts nowhere.
 *
 * While a reader has a link's `events` file open, the daemon switches the
 * slot's recording on (events_on) and the program also writes one record
 * per hit into a ring buffer (events_common.h; bpf/builtin/event_ring.c reads
 * it). With no reader anywhere, the cost over counting is one load of
 * events_active.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "counter_common.h"
#include "events_common.h"

COUNTER_HITS_MAP(hits);
COUNTER_HITS_PERCPU_MAP(hits_percpu);

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

/*
 * @has_regs: ctx is a struct pt_regs (kprobe and uprobe programs)
 * @atomic: whether another run of this link's program can come between
 * the load and the store of its slot (see the callers)
 * @percpu: count in hits_percpu (counter_common.h)
 */
static __always_inline void count(void *ctx, int has_regs, int atomic,
				  int percpu)
{
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	__u32 flags;
	__u64 *v;

	v = percpu ? counter_slot(&hits_percpu, key, 1)
		   : counter_slot(&hits, key, 0);
	if (v && atomic)
		__sync_fetch_and_add(v, 1);
	else if (v)
		*v += 1;
	if (!v)
		return;
	flags = events_flags(key);
	if (flags)
		record(ctx, key, flags, has_regs);
}

/*
 * Kprobes and uprobes alike: both are BPF_PROG_TYPE_KPROBE, and so are
 * the multi links. A uprobe_multi link runs its program with only
 * migration disabled (kernel/trace/bpf_trace.c, uprobe_prog_run()): a
 * task preempted between load and store would lose another's hit on the
 * same CPU, so the add is atomic.
 */
SEC("kprobe")
int counter_kprobe(void *ctx)
{
	count(ctx, 1, 1, 0);
	return 0;
}

/*
 * Never reads its context: the kernel refuses the attach (EACCES) when a
 * program may read past a tracepoint's record, and records differ.
 *
 * A plain add: a tracepoint's programs run from trace_call_bpf(), with
 * preemption off and the CPU's bpf_prog_active taken (a kprobe, tracepoint
 * or perf_event program that fires meanwhile on this CPU does not run),
 * so nothing else adds to this link's slot between the load and the
 * store, and the lock prefix of an atomic add buys nothing here.
 */
SEC("tracepoint")
int counter_tp(void *ctx)
{
	count(ctx, 0, 0, 0);
	return 0;
}

/*
 * Atomic: the perf_event path (bpf_overflow_handler()) also holds
 * bpf_prog_active, but no benchmark row measures it, so it keeps the add
 * that is safe whatever runs it.
 */
SEC("perf_event")
int counter_perf(void *ctx)
{
	count(ctx, 0, 1, 0);
	return 0;
}

/* The three again, on the per-CPU map of an earlier version's pin_dir. */
SEC("kprobe")
int counter_kprobe_percpu(void *ctx)
{
	count(ctx, 1, 1, 1);
	return 0;
}

SEC("tracepoint")
int counter_tp_percpu(void *ctx)
{
	count(ctx, 0, 0, 1);
	return 0;
}

SEC("perf_event")
int counter_perf_percpu(void *ctx)
{
	count(ctx, 0, 1, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
