/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The counting step the built-in programs share: one atomic add to a slot
 * of the per-CPU hits map (the map is defined by each program file, all
 * with this layout, so userspace can hand them one map).
 */
#ifndef BPFLINKFS_COUNTER_COMMON_H
#define BPFLINKFS_COUNTER_COMMON_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define COUNTER_HITS_MAP(name)                                                 \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);                       \
		__type(key, __u32);                                            \
		__type(value, __u64);                                          \
		__uint(max_entries, 1); /* set or reused from userspace */     \
	} name SEC(".maps")

/* Slot 0 counts nowhere: userspace never hands it out. */
static __always_inline void counter_add(void *map, __u32 key)
{
	__u64 *v;

	if (!key)
		return;
	v = bpf_map_lookup_elem(map, &key);
	/* per-CPU, but another program may interrupt this one on the CPU */
	if (v)
		__sync_fetch_and_add(v, 1);
}

#endif
