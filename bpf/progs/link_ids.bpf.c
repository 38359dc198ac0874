// SPDX-License-Identifier: GPL-2.0-only
/*
 * The link iterator: one read(2) of an iterator fd yields every BPF link
 * as (id, type) pairs, instead of one BPF_LINK_GET_NEXT_ID syscall per
 * link. The kernel's iterator (kernel/bpf/link_iter.c) walks the link IDR
 * in id order and skips links whose last reference is gone.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "iter_types.h"

SEC("iter/bpf_link")
int link_ids(struct bpf_iter__bpf_link *ctx)
{
	struct bpf_link *link = ctx->link;
	__u32 rec[2];

	/* no link: the end of the walk; id 0: allocated, not yet settled */
	if (!link || !link->id)
		return 0;
	rec[0] = link->id;
	rec[1] = link->type;
	bpf_seq_write(ctx->meta->seq, rec, sizeof(rec));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
