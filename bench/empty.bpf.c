// SPDX-License-Identifier: GPL-2.0-only
/* The floor of cost_per_hit.sh: a program that does nothing. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("uprobe")
int empty_uprobe(void *ctx)
{
	return 0;
}

SEC("tracepoint")
int empty_tp(void *ctx)
{
	return 0;
}

/* the target is set at load (empty_attach: bpf_program__set_attach_target) */
SEC("fentry")
int empty_fentry(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
