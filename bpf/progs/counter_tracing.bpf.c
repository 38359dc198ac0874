// SPDX-License-Identifier: GPL-2.0-only
/*
 * The built-in counter for raw tracepoint and tracing (fentry/fexit)
 * links. Cookies reach these programs only on newer kernels (raw_tp
 * cookies 6.10, tracing cookies 5.19), so instead each link gets its own
 * loaded instance of this program with its counter slot in .rodata, set
 * before load (bpf/tracing.c). A tracing program is loaded for one target
 * anyway, so this costs nothing more there.
 *
 * Only counter_rawtp is loaded from this object: bpf/tracing.c loads its
 * final instructions again as a BPF_PROG_TYPE_TRACING program for the
 * fentry/fexit target (the code never reads its context, so it is valid
 * for both).
 */
#include "counter_common.h"

const volatile __u32 slot = 0;

COUNTER_HITS_MAP(hits);

SEC("raw_tp")
int counter_rawtp(void *ctx)
{
	counter_add(&hits, slot);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
