// SPDX-License-Identifier: GPL-2.0-only
/*
 * The counter's slots: which are taken, zeroing them for reuse, and
 * reading their hits (from the mapped rows of the hits map, or with
 * bpf(2) from the per-CPU map of an earlier version's pin_dir).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "counter_load.h"
#include "counter_priv.h"

static void slot_set(struct counter *c, uint32_t slot, bool taken)
{
	bit_set(c->used, slot, taken);
}

static bool slot_taken(const struct counter *c, uint32_t slot)
{
	return bit_test(c->used, slot);
}

static void clean_set(struct counter *c, uint32_t slot, bool clean)
{
	bit_set(c->clean, slot, clean);
}

/* Every slot of @n from @first is known to be 0; lock held. */
static bool range_clean(const struct counter *c, uint32_t first, uint32_t n)
{
	uint32_t s;

	for (s = first; s < first + n; s++)
		if (!bit_test(c->clean, s))
			return false;
	return true;
}

/*
 * Zero @n slots from @first in every CPU's row. Nothing counts into them
 * meanwhile: they belong to no link.
 */
static void rows_zero(struct counter *c, uint32_t first, uint32_t n)
{
	int cpu;

	for (cpu = 0; cpu < c->ncpus; cpu++)
		memset(row_slot(c, cpu, first), 0,
		       (size_t)n * sizeof(uint64_t));
}

/* Zero a slot on every possible CPU, so a reused slot starts at 0. */
static int slot_zero(struct counter *c, uint32_t slot)
{
	uint64_t *zeros;
	int err;

	if (c->rows) {
		rows_zero(c, slot, 1);
		return 0;
	}
	zeros = calloc(c->ncpus, sizeof(*zeros));
	if (!zeros)
		return -ENOMEM;
	err = bpf_map_update_elem(counter_map_fd(c), &slot, zeros, BPF_ANY);
	free(zeros);
	return err < 0 ? err : 0;
}

/*
 * Zero @n slots from @first with one BPF_MAP_UPDATE_BATCH (a glob's
 * thousand slots were a thousand updates, ~5% of making the link); slot by
 * slot where the kernel has no batch update (before 5.6).
 */
static int slots_zero(struct counter *c, uint32_t first, uint32_t n)
{
	uint32_t *keys, count = n, i;
	uint64_t *zeros;
	int err;

	if (c->rows) {
		rows_zero(c, first, n);
		return 0;
	}
	keys = calloc(n, sizeof(*keys));
	zeros = calloc((size_t)n * c->ncpus, sizeof(*zeros));
	err = keys && zeros ? 0 : -ENOMEM;

	for (i = 0; !err && i < n; i++)
		keys[i] = first + i;
	if (!err &&
	    bpf_map_update_batch(counter_map_fd(c), keys, zeros, &count, NULL))
		err = 1; /* try slot by slot */
	free(keys);
	free(zeros);
	if (err > 0)
		for (i = 0, err = 0; !err && i < n; i++)
			err = slot_zero(c, first + i);
	return err;
}

int counter_slot_alloc(struct counter *c)
{
	uint32_t word, words = (c->slots + BITS_PER_WORD - 1) / BITS_PER_WORD;
	uint32_t slot;
	int err = -ENOSPC;

	pthread_mutex_lock(&c->lock);
	/* a word at a time: the first free slot of thousands without a scan */
	for (word = 0; word < words && !~c->used[word]; word++)
		;
	slot = word * BITS_PER_WORD +
	       (word < words ? __builtin_ctzll(~c->used[word]) : 0);
	if (word < words && slot < c->slots) {
		err = range_clean(c, slot, 1) ? 0 : slot_zero(c, slot);
		if (!err) {
			slot_set(c, slot, true);
			clean_set(c, slot, false);
			err = (int)slot;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return err;
}

/* The first of @n free slots in a row from @from, or c->slots; lock held. */
static uint32_t free_run(const struct counter *c, uint32_t from, uint32_t n)
{
	uint32_t run = 0, s;

	for (s = from; s < c->slots; s++) {
		if (!(s % BITS_PER_WORD) && !c->used[s / BITS_PER_WORD] &&
		    s + BITS_PER_WORD <= c->slots) {
			run += BITS_PER_WORD; /* a whole free word at once */
			s += BITS_PER_WORD - 1;
		} else {
			run = slot_taken(c, s) ? 0 : run + 1;
		}
		if (run >= n)
			return s + 1 - run;
	}
	return c->slots;
}

int counter_slot_alloc_range(struct counter *c, uint32_t n)
{
	uint32_t first, i;
	int err = 0;

	if (!n || n >= c->slots)
		return -ENOSPC;
	pthread_mutex_lock(&c->lock);
	first = free_run(c, 1, n);
	if (first >= c->slots)
		err = -ENOSPC;
	/* released slots were zeroed then (counter_slots_release()) */
	if (!err && !range_clean(c, first, n))
		err = slots_zero(c, first, n);
	for (i = 0; !err && i < n; i++) {
		slot_set(c, first + i, true);
		clean_set(c, first + i, false);
	}
	pthread_mutex_unlock(&c->lock);
	return err ? err : (int)first;
}

int counter_slot_claim(struct counter *c, uint32_t slot)
{
	int err = 0;

	if (!slot || slot >= c->slots)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	if (slot_taken(c, slot)) {
		err = -EBUSY;
	} else {
		slot_set(c, slot, true);
		clean_set(c, slot, false);
	}
	pthread_mutex_unlock(&c->lock);
	return err;
}

void counter_slot_free(struct counter *c, uint32_t slot)
{
	if (!slot || slot >= c->slots)
		return;
	pthread_mutex_lock(&c->lock);
	slot_set(c, slot, false);
	pthread_mutex_unlock(&c->lock);
}

void counter_slots_release(struct counter *c, uint32_t first, uint32_t n)
{
	bool zeroed;
	uint32_t i;

	if (!first || first >= c->slots || n > c->slots - first) {
		for (i = 0; i < n; i++)
			counter_slot_free(c, first + i);
		return;
	}
	/* outside the lock: taken slots are no one else's meanwhile */
	zeroed = n && slots_zero(c, first, n) == 0;
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < n; i++) {
		slot_set(c, first + i, false);
		clean_set(c, first + i, zeroed);
	}
	pthread_mutex_unlock(&c->lock);
}

/* The sum of @slot over the CPU rows; stride > 0 */
static uint64_t rows_sum(const struct counter *c, uint32_t slot)
{
	uint64_t sum = 0;
	int cpu;

	/* a u64 the programs add to: read whole, never torn */
	for (cpu = 0; cpu < c->ncpus; cpu++)
		sum += __atomic_load_n(row_slot(c, cpu, slot),
				       __ATOMIC_RELAXED);
	return sum;
}

int counter_hits(struct counter *c, uint32_t slot, uint64_t *hits)
{
	uint64_t *vals, sum = 0;
	int i, err;

	if (slot >= c->slots)
		return -EINVAL;
	if (c->rows) {
		*hits = rows_sum(c, slot);
		return 0;
	}
	vals = calloc(c->ncpus, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	err = bpf_map_lookup_elem(counter_map_fd(c), &slot, vals);
	if (!err) {
		for (i = 0; i < c->ncpus; i++)
			sum += vals[i];
		*hits = sum;
	}
	free(vals);
	return err < 0 ? err : 0;
}

/* One batch of up to @n slots from @first: the number read, or -errno. */
static int hits_batch(struct counter *c, uint32_t first, uint32_t n,
		      uint32_t *keys, uint64_t *vals, uint64_t *hits)
{
	uint32_t prev = first - 1, next, count = n, i;
	int err, cpu;

	/* the batch starts after in_batch; slot 0 is the map's first key */
	err = bpf_map_lookup_batch(counter_map_fd(c), first ? &prev : NULL,
				   &next, keys, vals, &count, NULL);
	if (err && err != -ENOENT)
		return err;
	for (i = 0; i < count; i++) {
		if (keys[i] != first + i)
			return -EIO;
		hits[i] = 0;
		for (cpu = 0; cpu < c->ncpus; cpu++)
			hits[i] += vals[(size_t)i * c->ncpus + cpu];
	}
	return count ? (int)count : -EIO;
}

int counter_hits_range(struct counter *c, uint32_t first, uint32_t n,
		       uint64_t *hits)
{
	uint32_t done = 0, *keys;
	uint64_t *vals;
	int got = 0;

	if (first >= c->slots || n > c->slots - first)
		return -EINVAL;
	if (c->rows) {
		for (; done < n; done++)
			hits[done] = rows_sum(c, first + done);
		return 0;
	}
	keys = calloc(n ? n : 1, sizeof(*keys));
	vals = calloc((size_t)(n ? n : 1) * c->ncpus, sizeof(*vals));
	while (keys && vals && done < n) {
		got = hits_batch(c, first + done, n - done, keys, vals,
				 hits + done);
		if (got < 0)
			break;
		done += (uint32_t)got;
	}
	free(keys);
	free(vals);
	if (!keys || !vals)
		return -ENOMEM;
	/* no batch look-up (before 5.6) or a short answer: slot by slot */
	for (; done < n; done++) {
		got = counter_hits(c, first + done, &hits[done]);
		if (got)
			return got;
	}
	return 0;
}
