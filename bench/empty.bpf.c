// SPDX-License-Identifier: GPL-2.0-only
/*
 * The baselines of cost_per_hit.sh: empty_* do nothing (what running any
 * program costs), floor_* do the least a counting program can do: add one
 * to a single global in .bss (one load and one store of map memory; not
 * per link, not per CPU, not atomic), so that a counter's cost can be put
 * against the least any counter could cost.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

__u64 floor_hits; /* .bss: read by empty_attach at exit */

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

SEC("uprobe")
int floor_uprobe(void *ctx)
{
	floor_hits++;
	return 0;
}

SEC("tracepoint")
int floor_tp(void *ctx)
{
	floor_hits++;
	return 0;
}

/* the target is set at load (empty_attach: bpf_program__set_attach_target) */
SEC("fentry")
int empty_fentry(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
