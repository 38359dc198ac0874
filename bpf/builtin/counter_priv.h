/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The counter's state, shared by counter_load.c (the programs and their maps)
 * and counter_slots.c (the slot allocator and the reading of hits). Not
 * for other files: they use counter_load.h.
 */
#ifndef BPFLINKFS_COUNTER_PRIV_H
#define BPFLINKFS_COUNTER_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct counter_bpf;

/*
 * The kernel runs at most BPF_TRACE_MAX_PROGS (64) programs on one
 * tracepoint, so more instances than that can never all be attached to
 * one; any one tracepoint needs at most 64.
 */
#define COUNTER_MAX_TP_INSTANCES 64

#define BITS_PER_WORD (8 * sizeof(uint64_t))

struct counter {
	struct counter_bpf *skel;
	pthread_mutex_t lock;
	uint32_t slots;
	int ncpus; /* possible CPUs: the rows of the hits map */
	/*
	 * slots in a CPU's row of the hits map (COUNTER_ROW_SLOTS), or 0
	 * for the per-CPU map of an earlier version's pin_dir
	 * (progs/counter_common.h)
	 */
	uint32_t stride;
	uint64_t *rows;	 /* the hits map, mapped (stride > 0), else NULL */
	uint64_t *used;	 /* bitmap of taken slots; slot 0 is always taken */
	uint64_t *clean; /* free slots known to hold 0 on every CPU */
	/* tp_fd[i]: tracepoint instance i + 1, or -1 until loaded */
	int tp_fd[COUNTER_MAX_TP_INSTANCES - 1];
	/* the kprobe program loaded for multi links, or -1 until loaded */
	int kmulti_fd, umulti_fd;
	/*
	 * kernel ids of every loaded instance, to know our links' programs:
	 * kprobe, tracepoint, perf_event, the tracepoint copies, then the
	 * kprobe_multi and uprobe_multi copies
	 */
	uint32_t prog_ids[3 + COUNTER_MAX_TP_INSTANCES - 1 + 2];
	uint32_t ring_id; /* the events ring's map id */
	/* programs looked at by counter_runs_prog() beyond prog_ids */
	struct prog_seen {
		uint32_t id;
		bool ours;
	} * seen;
	size_t nseen, seen_cap;
};

/* Bit @slot of bitmap @words (the used and the clean slots) */
static inline void bit_set(uint64_t *words, uint32_t slot, bool on)
{
	uint64_t bit = (uint64_t)1 << (slot % BITS_PER_WORD);

	if (on)
		words[slot / BITS_PER_WORD] |= bit;
	else
		words[slot / BITS_PER_WORD] &= ~bit;
}

static inline bool bit_test(const uint64_t *words, uint32_t slot)
{
	return words[slot / BITS_PER_WORD] >> (slot % BITS_PER_WORD) & 1;
}

/* The hits of @slot in @cpu's row; stride > 0 */
static inline uint64_t *row_slot(const struct counter *c, int cpu,
				 uint32_t slot)
{
	return &c->rows[(size_t)cpu * c->stride + slot];
}

#endif
