// SPDX-License-Identifier: GPL-2.0-only
/*
 * The built-in counter for raw tracepoint and tracing (fentry/fexit)
 * links. Cookies reach these programs only on newer kernels (raw_tp
 * cookies 6.10, tracing cookies 5.19), so instead each link gets its own
 * loaded instance of this program with its counter slot in .rodata, set
 * before load (bpf/make/tracing_probe.c). A tracing program is loaded for one
 * target anyway, so this costs nothing more there.
 *
 * Only counter_rawtp (or counter_rawtp_percpu) is loaded from this
 * object: bpf/make/tracing_probe.c loads its final instructions again as a
 * BPF_PROG_TYPE_TRACING program for the fentry/fexit target. The code reads its context only at ret_off, a
 * constant of .rodata the verifier sees, so both loads check the one read
 * (or none): a raw tracepoint program may read 12 u64 of its context, a
 * fexit program its arguments and the return value after them.
 *
 * Events (events_common.h): the maps are the counter's (bpf_map__reuse_fd),
 * .bss included, so with no reader a hit costs one load and one branch
 * more than counting, as in counter.bpf.c.
 */
#include "counter_common.h"
#include "events_common.h"

const volatile __u32 slot = 0;
/* fexit: the byte offset of the return value in ctx, from BTF; or none */
const volatile __u32 ret_off = EVENTS_NO_RET;

COUNTER_HITS_MAP(hits);
COUNTER_HITS_PERCPU_MAP(hits_percpu);

/*
 * The return value at ret_off. A ctx read must use a constant offset in
 * the instruction itself (the verifier refuses a moved ctx pointer), and
 * the compiler would merge plain reads of the branches into one read
 * through a moved pointer: hence one asm load per branch.
 */
static __always_inline int ret_read(const __u64 *ctx, __u64 *v)
{
#define RET_AT(i)                                                              \
	if (ret_off == (i)*8) {                                                \
		asm volatile("%0 = *(u64 *)(%1 + %2)"                          \
			     : "=r"(*v)                                        \
			     : "r"(ctx), "i"((i)*8));                          \
		return 1;                                                      \
	}
	RET_AT(0) RET_AT(1) RET_AT(2) RET_AT(3) RET_AT(4) RET_AT(5);
	RET_AT(6) RET_AT(7) RET_AT(8) RET_AT(9) RET_AT(10) RET_AT(11);
#undef RET_AT
	return 0;
}

static __always_inline void record(const __u64 *ctx, __u32 key, __u32 flags)
{
	struct events_record *e = events_start(key);

	if (!e)
		return;
	if (flags & EVENTS_RETVAL && ret_read(ctx, &e->retval))
		e->flags = EVENTS_REC_RETVAL;
	bpf_ringbuf_submit(e, 0);
}

static __always_inline void count(void *ctx, int percpu)
{
	__u32 key = slot, flags;

	if (percpu)
		counter_add(&hits_percpu, key, 1);
	else
		counter_add(&hits, key, 0);
	flags = events_flags(key);
	if (flags)
		record(ctx, key, flags);
}

SEC("raw_tp")
int counter_rawtp(void *ctx)
{
	count(ctx, 0);
	return 0;
}

/* on the per-CPU map of an earlier version's pin_dir (counter_common.h) */
SEC("raw_tp")
int counter_rawtp_percpu(void *ctx)
{
	count(ctx, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
