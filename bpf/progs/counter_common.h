/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The counting step the built-in programs share. The hits map (defined by
 * each program file alike, so userspace hands them all one map) is a
 * plain array with a row of hits_stride slots per possible CPU: a hit
 * adds one to its slot in the row of the CPU it runs on. A per-CPU array
 * did the same with an indirection more: the kernel's inlined look-up
 * loads the slot's per-CPU pointer from the map, then the slot, two
 * memory lines a run that the empty program never touches; a plain
 * array's look-up is arithmetic on constants and one line
 * (bench/README.md, "Cost per hit").
 *
 * hits_stride 0 is that per-CPU array, as pin_dirs of earlier versions
 * keep it: a daemon that adopts such a map loads this code with 0, and
 * the verifier, which knows .rodata, drops the branch not taken.
 */
#ifndef BPFLINKFS_COUNTER_COMMON_H
#define BPFLINKFS_COUNTER_COMMON_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define COUNTER_HITS_MAP(name)                                                 \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_ARRAY);                              \
		__type(key, __u32);                                            \
		__type(value, __u64);                                          \
		__uint(max_entries, 1); /* set or reused from userspace */     \
		__uint(map_flags, BPF_F_MMAPABLE); /* read by the daemon */    \
	} name SEC(".maps")

/* Slots in a CPU's row of the hits map, set before load; 0: per-CPU map. */
const volatile __u32 hits_stride = 0;

/*
 * The hits of slot @key on this CPU, or NULL. Slot 0 counts nowhere:
 * userspace never hands it out, nor a slot past a row.
 */
static __always_inline __u64 *counter_slot(void *map, __u32 key)
{
	__u32 i = key;

	if (!key)
		return NULL;
	if (hits_stride) {
		if (key >= hits_stride)
			return NULL;
		i = bpf_get_smp_processor_id() * hits_stride + key;
	}
	return bpf_map_lookup_elem(map, &i);
}

/* Another program may interrupt this one on the CPU: the add is atomic. */
static __always_inline void counter_add(void *map, __u32 key)
{
	__u64 *v = counter_slot(map, key);

	if (v)
		__sync_fetch_and_add(v, 1);
}

#endif
