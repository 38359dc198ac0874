/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One sample of every link's cost, and one `top` block from two samples
 * (top_sample.c): what fs/top.c's thread takes every interval.
 */
#ifndef BPFLINKFS_TOP_SAMPLE_H
#define BPFLINKFS_TOP_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "prog_stats.h"

struct owned;

struct link_sample {
	__u32 id;
	__u32 prog_id;
	int slot;	     /* own link of the built-in program: first slot */
	unsigned int nslots; /* its counter slots (1, or a multi link's) */
	bool kprobe;	     /* a kprobe link: `missed` is read live */
	__u64 hits;	     /* own built-in links: the sum of their slots */
	__u64 missed;	     /* kprobe links: link info's missed */
	uint64_t ns; /* CLOCK_MONOTONIC when hits and missed were read */
};

struct prog_sample {
	__u32 id;
	struct prog_stats st;
	uint64_t ns; /* CLOCK_MONOTONIC when read */
};

struct top_sample {
	uint64_t mono_ns; /* CLOCK_MONOTONIC when taken */
	uint64_t boot_ns; /* CLOCK_BOOTTIME, the clock of the block's line */
	struct link_sample *links; /* ascending by id */
	size_t nlinks;
	struct prog_sample *progs; /* ascending by id */
	size_t nprogs;
};

/**
 * top_sample_take() - every link now, with its program's statistics
 * @reg: the registry (own links, their counter)
 * @prev: the previous sample (what never changes for a link id is taken
 *        from it), or an empty one
 * @cur: out; free with top_sample_free()
 * Return: 0, or -errno of the enumeration (-ENOMEM).
 */
int top_sample_take(struct owned *reg, const struct top_sample *prev,
		    struct top_sample *cur);

/** top_sample_free() - free and empty @s */
void top_sample_free(struct top_sample *s);

/**
 * top_block() - the block from @a to @b: `# TIME`, the header, then one
 * line per link whose program ran (or missed), busiest first
 * @len: out, the length
 * Return: malloc'd text, or NULL (-ENOMEM).
 */
char *top_block(struct owned *reg, const struct top_sample *a,
		const struct top_sample *b, size_t *len);

#endif
