// SPDX-License-Identifier: GPL-2.0-only
/*
 * The built-in counter: every program adds one to the per-CPU slot named by
 * the link's cookie. Userspace hands out the cookies (counter.c), so a
 * cookie outside the map, or 0, simply counts nowhere.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1); /* set from userspace before load */
} hits SEC(".maps");

static __always_inline void count(void *ctx)
{
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
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
}

/* Kprobes and uprobes alike: both are BPF_PROG_TYPE_KPROBE. */
SEC("kprobe")
int counter_kprobe(void *ctx)
{
	count(ctx);
	return 0;
}

/*
 * Never reads its context: the kernel refuses the attach (EACCES) when a
 * program may read past a tracepoint's record, and records differ.
 */
SEC("tracepoint")
int counter_tp(void *ctx)
{
	count(ctx);
	return 0;
}

SEC("perf_event")
int counter_perf(void *ctx)
{
	count(ctx);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
