// SPDX-License-Identifier: GPL-2.0-only
/*
 * The built-in counter with what a line's options ask for besides
 * counting: hits per process, command or cgroup (by=), and call times
 * (latency). Loaded once per link that asks (bpf/builtin/sight_load.c), with
 * its options and first counter slot in .rodata, so the verifier drops the
 * branches it does not take; a link without these options runs
 * counter.bpf.c and pays nothing for them.
 *
 * It counts hits exactly as counter.bpf.c does (the counter's hits and
 * events maps are reused), so `hits` and `events` stay what they are; the
 * per-link maps below are its own, and the daemon finds them through the
 * link's program (their names).
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "counter_common.h"
#include "events_common.h"
#include "../builtin/sight_abi.h"

const volatile __u32 by_mode = 0;     /* SIGHT_BY_* */
const volatile __u32 first_slot = 0;  /* multi links: target 0's slot */
const volatile __u32 stack_flags = 0; /* SIGHT_STACK_* */

COUNTER_HITS_MAP(hits);

/* by=: hits per key; the least recently hit are evicted */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct sight_by_key);
	__type(value, __u64);
	__uint(max_entries, SIGHT_BY_KEYS); /* 1 when by= is not asked */
} sight_by SEC(".maps");

/*
 * stacks=: stacks by id, as addresses (the cost of bpftrace's ustack and
 * kstack); and for each user stack, once, when it is first seen, the same
 * stack as build ids and file offsets, which name its frames after the
 * process has exited (the kernel reads the build ids: too dear per hit)
 */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, SIGHT_STACK_DEPTH * sizeof(__u64));
	__uint(max_entries, 1); /* SIGHT_STACKS when asked, before load */
} sight_ustackmap SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size,
	       SIGHT_STACK_DEPTH * sizeof(struct bpf_stack_build_id));
	__uint(max_entries, 1); /* SIGHT_BID_STACKS when asked, before load */
	__uint(map_flags, BPF_F_STACK_BUILD_ID);
} sight_ubidmap SEC(".maps");

/* a user stack's id in sight_ustackmap -> its id in sight_ubidmap */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __s32);
	__uint(max_entries, 1); /* SIGHT_BID_STACKS when asked */
} sight_ubid SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, SIGHT_STACK_DEPTH * sizeof(__u64));
	__uint(max_entries, 1); /* SIGHT_STACKS when asked, before load */
} sight_kstackmap SEC(".maps");

/* the hits of each (process, user stack, kernel stack) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct sight_stack_key);
	__type(value, __u64);
	__uint(max_entries, 1); /* SIGHT_STACKS when asked */
} sight_stacks SEC(".maps");

/* stacks=: hits whose stack had no room (map full, id collision) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} sight_dropped SEC(".maps");

/* latency: per target, SIGHT_LAT_STRIDE u64: buckets, then the sum of ns */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, SIGHT_LAT_STRIDE); /* x targets, set before load */
} sight_lat SEC(".maps");

/* latency without session links: the entry time per thread (pid_tgid) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u64);
	__uint(max_entries, 1); /* SIGHT_PAIR_THREADS for a pair, before load */
} sight_start SEC(".maps");

extern __u64 *bpf_session_cookie(void) __ksym __weak;
extern bool bpf_session_is_return(void) __ksym __weak;

static __always_inline void by_count(void)
{
	struct sight_by_key k = {};
	__u64 one = 1, *v;

	if (by_mode == SIGHT_BY_PID) {
		k.id = bpf_get_current_pid_tgid() >> 32;
		bpf_get_current_comm(k.comm, sizeof(k.comm));
	} else if (by_mode == SIGHT_BY_COMM) {
		bpf_get_current_comm(k.comm, sizeof(k.comm));
	} else {
		k.id = bpf_get_current_cgroup_id();
	}
	v = bpf_map_lookup_elem(&sight_by, &k);
	if (v) {
		__sync_fetch_and_add(v, 1);
		return;
	}
	/* another CPU may insert it first: then add to its entry */
	if (bpf_map_update_elem(&sight_by, &k, &one, BPF_NOEXIST)) {
		v = bpf_map_lookup_elem(&sight_by, &k);
		if (v)
			__sync_fetch_and_add(v, 1);
	}
}

static __always_inline void stack_drop(void)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&sight_dropped, &zero);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/* A user stack first seen: its build-id form too, once per stack id */
static __always_inline void ubid_note(void *ctx, __u32 ustack)
{
	__s32 bid;

	if (bpf_map_lookup_elem(&sight_ubid, &ustack))
		return;
	bid = bpf_get_stackid(ctx, &sight_ubidmap, BPF_F_USER_STACK);
	if (bid >= 0)
		bpf_map_update_elem(&sight_ubid, &ustack, &bid, BPF_NOEXIST);
}

/*
 * One hit of this process's stacks. A stack that cannot be taken (no room
 * in the stack map, another stack in its bucket) drops the hit; none to
 * take (a kernel thread's user stack: -EFAULT) leaves it empty.
 */
static __always_inline void stack_count(void *ctx)
{
	struct sight_stack_key k = {.ustack = -1, .kstack = -1};
	__u64 one = 1, *v;
	long r;

	if (stack_flags & SIGHT_STACK_USER) {
		/* whose mappings name its frames: kernel stacks need none */
		k.tgid = bpf_get_current_pid_tgid() >> 32;
		k.ustack = bpf_get_stackid(ctx, &sight_ustackmap,
					   BPF_F_USER_STACK);
		if (k.ustack < 0 && k.ustack != -14 /* EFAULT */)
			goto drop;
		if (k.ustack < 0)
			k.ustack = -1;
	}
	if (stack_flags & SIGHT_STACK_KERNEL) {
		k.kstack = bpf_get_stackid(ctx, &sight_kstackmap, 0);
		if (k.kstack < 0 && k.kstack != -14)
			goto drop;
		if (k.kstack < 0)
			k.kstack = -1;
	}
	v = bpf_map_lookup_elem(&sight_stacks, &k);
	if (v) {
		__sync_fetch_and_add(v, 1);
		return;
	}
	r = bpf_map_update_elem(&sight_stacks, &k, &one, BPF_NOEXIST);
	if (!r) {
		if (k.ustack >= 0)
			ubid_note(ctx, k.ustack);
		return;
	}
	if (r == -17 /* EEXIST: another CPU's first */) {
		v = bpf_map_lookup_elem(&sight_stacks, &k);
		if (v)
			__sync_fetch_and_add(v, 1);
		return;
	}
drop:
	stack_drop();
}

/* counter.bpf.c's count(), with @key the link's (or target's) slot */
static __always_inline void count(void *ctx, __u32 key, int has_regs)
{
	struct events_record *e;
	__u32 flags;

	counter_add(&hits, key, 0);
	if (by_mode)
		by_count();
	if (stack_flags)
		stack_count(ctx);
	flags = events_flags(key);
	if (!flags)
		return;
	e = events_start(key);
	if (!e)
		return;
	if (has_regs && flags & EVENTS_RETVAL) {
		e->retval = PT_REGS_RC((struct pt_regs *)ctx);
		e->flags = EVENTS_REC_RETVAL;
	}
	bpf_ringbuf_submit(e, 0);
}

SEC("kprobe")
int sight_kprobe(void *ctx)
{
	count(ctx, (__u32)bpf_get_attach_cookie(ctx), 1);
	return 0;
}

SEC("tracepoint")
int sight_tp(void *ctx)
{
	count(ctx, (__u32)bpf_get_attach_cookie(ctx), 0);
	return 0;
}

SEC("perf_event")
int sight_perf(void *ctx)
{
	count(ctx, (__u32)bpf_get_attach_cookie(ctx), 0);
	return 0;
}

/* bpftrace's hist(): 0 for 0, else 1 + floor(log2(v)) */
static __always_inline __u32 log2_bucket(__u64 v)
{
	__u32 r = 0;

	if (!v)
		return 0;
	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r + 1;
}

static __always_inline void lat_add(__u32 target, __u64 ns)
{
	__u32 i = target * SIGHT_LAT_STRIDE + log2_bucket(ns);
	__u64 *v = bpf_map_lookup_elem(&sight_lat, &i);

	if (v)
		__sync_fetch_and_add(v, 1);
	i = target * SIGHT_LAT_STRIDE + SIGHT_LAT_SUM;
	v = bpf_map_lookup_elem(&sight_lat, &i);
	if (v)
		__sync_fetch_and_add(v, ns);
}

/*
 * A uprobe session (kprobe type, attach type BPF_TRACE_UPROBE_SESSION):
 * at entry it counts, keeps the time in the session's cookie and returns
 * 0 so the kernel runs it again at the return, where it files the time
 * the call took under its target.
 */
SEC("kprobe")
int sight_session(void *ctx)
{
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	__u64 *start = bpf_session_cookie();

	if (!start)
		return 1;
	if (!bpf_session_is_return()) {
		count(ctx, key, 1);
		*start = bpf_ktime_get_ns();
		return 0;
	}
	if (*start && key >= first_slot)
		lat_add(key - first_slot, bpf_ktime_get_ns() - *start);
	return 0;
}

/*
 * Where the kernel has no session links: an entry link runs sight_entry
 * (it counts and keeps the time per thread) and a return link on the same
 * target, with the same cookie, runs sight_return. A thread inside two
 * calls of the target at once (recursion) keeps only the inner entry, as
 * bcc's funclatency does.
 */
SEC("kprobe")
int sight_entry(void *ctx)
{
	__u64 tid = bpf_get_current_pid_tgid(), now;

	count(ctx, (__u32)bpf_get_attach_cookie(ctx), 1);
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&sight_start, &tid, &now, BPF_ANY);
	return 0;
}

SEC("kprobe")
int sight_return(void *ctx)
{
	__u64 tid = bpf_get_current_pid_tgid(), *start, d;
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);

	start = bpf_map_lookup_elem(&sight_start, &tid);
	if (!start)
		return 0;
	d = bpf_ktime_get_ns() - *start;
	bpf_map_delete_elem(&sight_start, &tid);
	if (key >= first_slot)
		lat_add(key - first_slot, d);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
