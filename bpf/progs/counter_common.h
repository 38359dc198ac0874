/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The counting step the built-in programs share. The hits map (defined by
 * each program file alike, so userspace hands them all one map) is a
 * plain array with a row of slots per possible CPU (../counter_row.h): a
 * hit adds one to its slot in the row of the CPU it runs on. A per-CPU
 * array did the same with an indirection more: the kernel's inlined
 * look-up loads the slot's per-CPU pointer from the map, then the slot;
 * the plain array's look-up is arithmetic on constants and one load
 * (bench/README.md, "Cost per hit").
 *
 * Each program comes twice: for the rows, and for the per-CPU map that
 * pin_dirs of earlier versions keep (hits_percpu, a slot per entry). The
 * daemon loads one set, and makes only the map it uses.
 */
#ifndef BPFLINKFS_COUNTER_COMMON_H
#define BPFLINKFS_COUNTER_COMMON_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "../builtin/counter_row.h"

#define COUNTER_HITS_MAP(name)                                                 \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_ARRAY);                              \
		__type(key, __u32);                                            \
		__type(value, __u64);                                          \
		__uint(max_entries, 1); /* set or reused from userspace */     \
		__uint(map_flags, BPF_F_MMAPABLE); /* read by the daemon */    \
	} name SEC(".maps")

#define COUNTER_HITS_PERCPU_MAP(name)                                          \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);                       \
		__type(key, __u32);                                            \
		__type(value, __u64);                                          \
		__uint(max_entries, 1); /* reused from userspace */            \
	} name SEC(".maps")

/*
 * The hits of slot @key on this CPU, or NULL: in @map's rows, or with
 * @percpu in the per-CPU map @map. Slot 0 counts nowhere: userspace never
 * hands it out, nor a slot past a row.
 */
static __always_inline __u64 *counter_slot(void *map, __u32 key, int percpu)
{
	__u32 i = key;

	if (!key || key >= COUNTER_ROW_SLOTS)
		return NULL;
	if (!percpu)
		i = bpf_get_smp_processor_id() * COUNTER_ROW_SLOTS + key;
	return bpf_map_lookup_elem(map, &i);
}

/* Another program may interrupt this one on the CPU: the add is atomic. */
static __always_inline void counter_add(void *map, __u32 key, int percpu)
{
	__u64 *v = counter_slot(map, key, percpu);

	if (v)
		__sync_fetch_and_add(v, 1);
}

#endif
