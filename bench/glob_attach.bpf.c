// SPDX-License-Identifier: GPL-2.0-only
/* glob_attach's program: a uprobe_multi program that does nothing. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("uprobe.multi")
int glob_noop(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
