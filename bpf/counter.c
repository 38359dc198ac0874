// SPDX-License-Identifier: GPL-2.0-only
/*
 * The built-in counter: one loaded program per program type, further
 * tracepoint instances on demand, and the slot allocator for the hits map.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "counter.h"
#include "linkinfo.h"
#include "log.h"
#include "counter.skel.h"

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
	int ncpus;	 /* possible CPUs: the per-CPU value count */
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

/* The events maps a pin_dir keeps (with "hits", pinned by pin.c). */
static const char *const event_pins[] = {"events_ring", "events_on",
					 "events_lost", "events_bss"};

/* the counter's maps of event_pins[], in that order */
static struct bpf_map *event_map(struct counter_bpf *skel, size_t i)
{
	struct bpf_map *maps[] = {skel->maps.events_ring, skel->maps.events_on,
				  skel->maps.events_lost, skel->maps.bss};

	return maps[i];
}

static uint32_t prog_id_of(int fd)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/* Bit @slot of bitmap @words (the used and the clean slots) */
static void bit_set(uint64_t *words, uint32_t slot, bool on)
{
	uint64_t bit = (uint64_t)1 << (slot % BITS_PER_WORD);

	if (on)
		words[slot / BITS_PER_WORD] |= bit;
	else
		words[slot / BITS_PER_WORD] &= ~bit;
}

static bool bit_test(const uint64_t *words, uint32_t slot)
{
	return words[slot / BITS_PER_WORD] >> (slot % BITS_PER_WORD) & 1;
}

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

static void counter_free(struct counter *c)
{
	pthread_mutex_destroy(&c->lock);
	free(c->seen);
	free(c->used);
	free(c->clean);
	free(c);
}

static int counter_new(struct counter **out, uint32_t slots)
{
	struct counter *c;
	size_t i;
	int err;

	if (!slots)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	pthread_mutex_init(&c->lock, NULL);
	for (i = 0; i < COUNTER_MAX_TP_INSTANCES - 1; i++)
		c->tp_fd[i] = -1;
	c->kmulti_fd = c->umulti_fd = -1;
	c->slots = slots;
	c->used = calloc((slots + BITS_PER_WORD - 1) / BITS_PER_WORD,
			 sizeof(uint64_t));
	/* none known clean: an adopted map holds counts */
	c->clean = calloc((slots + BITS_PER_WORD - 1) / BITS_PER_WORD,
			  sizeof(uint64_t));
	c->ncpus = libbpf_num_possible_cpus();
	if (!c->used || !c->clean || c->ncpus < 0) {
		err = c->ncpus < 0 ? c->ncpus : -ENOMEM;
		counter_free(c);
		return err;
	}
	slot_set(c, 0, true); /* cookie 0 means "not counted" */
	*out = c;
	return 0;
}

/* The events maps pinned in @dir: found there and reused, else pinned. */
static int set_event_pins(struct counter_bpf *skel, const char *dir)
{
	char path[PATH_MAX];
	size_t i;
	int err = 0;

	for (i = 0; !err && i < sizeof(event_pins) / sizeof(*event_pins); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, event_pins[i]);
		err = bpf_map__set_pin_path(event_map(skel, i), path);
	}
	return err;
}

/* Open and load the skeleton (see counter_load()). */
static int skel_load(struct counter *c, int reuse_fd, const char *pin_dir)
{
	int err;

	c->skel = counter_bpf__open();
	if (!c->skel)
		return errno ? -errno : -ENOMEM;
	if (reuse_fd >= 0)
		err = bpf_map__reuse_fd(c->skel->maps.hits, reuse_fd);
	else
		err = bpf_map__set_max_entries(c->skel->maps.hits, c->slots);
	/* the events switch and drop counters: one entry per slot too */
	if (!err)
		err = bpf_map__set_max_entries(c->skel->maps.events_on,
					       c->slots);
	if (!err)
		err = bpf_map__set_max_entries(c->skel->maps.events_lost,
					       c->slots);
	if (!err && pin_dir)
		err = set_event_pins(c->skel, pin_dir);
	if (!err)
		err = counter_bpf__load(c->skel);
	if (err) {
		counter_bpf__destroy(c->skel);
		c->skel = NULL;
	}
	return err;
}

/* No slot records: what a daemon killed while a reader was open left. */
static void events_all_off(struct counter *c)
{
	uint32_t slot, zero = 0;
	int fd = bpf_map__fd(c->skel->maps.events_on);

	if (!c->skel->bss->events_active)
		return;
	for (slot = 0; slot < c->slots; slot++)
		bpf_map_update_elem(fd, &slot, &zero, BPF_ANY);
	c->skel->bss->events_active = 0;
}

static uint32_t map_id_of(int fd)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/*
 * Load the skeleton, with a new hits map or with @reuse_fd's (if >= 0);
 * with @pin_dir, on the events maps pinned there (made and pinned when
 * missing), or, when those cannot be used, on new ones not pinned.
 */
static int counter_load(struct counter *c, int reuse_fd, const char *pin_dir)
{
	int err = skel_load(c, reuse_fd, pin_dir);

	if (err && pin_dir) {
		log_msg(LOG_WARNING,
			"pin_dir %s: cannot use its events maps (%s): "
			"links adopted from it have no events",
			pin_dir, strerror(err < 0 ? -err : err));
		err = skel_load(c, reuse_fd, NULL);
	}
	if (err)
		return err;
	events_all_off(c);
	c->ring_id = map_id_of(bpf_map__fd(c->skel->maps.events_ring));
	c->prog_ids[0] =
		prog_id_of(bpf_program__fd(c->skel->progs.counter_kprobe));
	c->prog_ids[1] = prog_id_of(bpf_program__fd(c->skel->progs.counter_tp));
	c->prog_ids[2] =
		prog_id_of(bpf_program__fd(c->skel->progs.counter_perf));
	return 0;
}

int counter_open_pinned(struct counter **out, uint32_t slots, int map_fd,
			const char *pin_dir)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);
	struct counter *c;
	int err;

	if (map_fd >= 0) {
		if (!bpf_fd_is("bpf-map", map_fd))
			return -EINVAL;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
			return -errno;
		/* Else the programs would count into a foreign map. */
		if (info.type != BPF_MAP_TYPE_PERCPU_ARRAY ||
		    info.key_size != sizeof(uint32_t) ||
		    info.value_size != sizeof(uint64_t))
			return -EINVAL;
		slots = info.max_entries;
	}
	err = counter_new(&c, slots);
	if (err)
		return err;
	err = counter_load(c, map_fd, pin_dir);
	if (err) {
		counter_free(c);
		return err;
	}
	*out = c;
	return 0;
}

int counter_open(struct counter **out, uint32_t slots)
{
	return counter_open_pinned(out, slots, -1, NULL);
}

int counter_open_reuse(struct counter **out, int map_fd)
{
	return map_fd < 0 ? -EINVAL : counter_open_pinned(out, 0, map_fd, NULL);
}

int counter_pin_events(struct counter *c, const char *dir)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(event_pins) / sizeof(*event_pins); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, event_pins[i]);
		if (bpf_obj_pin(bpf_map__fd(event_map(c->skel, i)), path) &&
		    errno != EEXIST)
			return -errno;
	}
	return 0;
}

bool counter_is_pin_name(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(event_pins) / sizeof(*event_pins); i++)
		if (!strcmp(name, event_pins[i]))
			return true;
	return false;
}

void counter_close(struct counter *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < COUNTER_MAX_TP_INSTANCES - 1; i++)
		if (c->tp_fd[i] >= 0)
			close(c->tp_fd[i]);
	if (c->kmulti_fd >= 0)
		close(c->kmulti_fd);
	if (c->umulti_fd >= 0)
		close(c->umulti_fd);
	counter_bpf__destroy(c->skel);
	counter_free(c);
}

/*
 * Another copy of the loaded tracepoint program. After load, libbpf keeps
 * the final instructions, with the hits map's fd already in place, so the
 * copy shares the map without a second object.
 */
static int load_tp_copy(struct counter *c)
{
	const struct bpf_program *prog = c->skel->progs.counter_tp;
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	const struct bpf_insn *insns = bpf_program__insns(prog);
	size_t cnt = bpf_program__insn_cnt(prog);

	if (!insns || !cnt)
		return -ENOEXEC;
	return bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, bpf_program__name(prog),
			     "GPL", insns, cnt, &opts);
}

/*
 * The kprobe program again, for multi links: the kernel takes a program
 * for a kprobe_multi or uprobe_multi link only if it was loaded with that
 * expected_attach_type (BPF_TRACE_KPROBE_MULTI 42, BPF_TRACE_UPROBE_MULTI
 * 48), which also makes bpf_get_attach_cookie() read the target's cookie.
 */
static int load_multi_copy(struct counter *c, bool uprobe)
{
	const struct bpf_program *prog = c->skel->progs.counter_kprobe;
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = uprobe ? COUNTER_ATTACH_UPROBE_MULTI
						   : COUNTER_ATTACH_KPROBE_MULTI);
	const struct bpf_insn *insns = bpf_program__insns(prog);
	size_t cnt = bpf_program__insn_cnt(prog);
	int fd;

	if (!insns || !cnt)
		return -ENOEXEC;
	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, bpf_program__name(prog),
			   "GPL", insns, cnt, &opts);
	return fd < 0 ? -errno : fd;
}

int counter_multi_prog_fd(struct counter *c, bool uprobe)
{
	int *slot, fd;

	pthread_mutex_lock(&c->lock);
	slot = uprobe ? &c->umulti_fd : &c->kmulti_fd;
	if (*slot < 0) {
		fd = load_multi_copy(c, uprobe);
		if (fd >= 0)
			*slot = fd;
		if (fd >= 0)
			c->prog_ids[COUNTER_MAX_TP_INSTANCES + 2 + uprobe] =
				prog_id_of(fd);
	} else {
		fd = *slot;
	}
	pthread_mutex_unlock(&c->lock);
	return fd;
}

static int tp_instance_fd(struct counter *c, unsigned int instance)
{
	int *slot, fd;

	if (instance >= COUNTER_MAX_TP_INSTANCES)
		return -E2BIG;
	pthread_mutex_lock(&c->lock);
	slot = &c->tp_fd[instance - 1];
	if (*slot < 0) {
		fd = load_tp_copy(c);
		if (fd >= 0)
			*slot = fd;
		if (fd >= 0)
			c->prog_ids[2 + instance] = prog_id_of(fd);
	} else {
		fd = *slot;
	}
	pthread_mutex_unlock(&c->lock);
	return fd;
}

int counter_prog_fd(struct counter *c, enum probe_kind kind,
		    unsigned int instance)
{
	const struct bpf_program *prog;

	switch (kind) {
	case PROBE_KPROBE:
	case PROBE_KRETPROBE:
	case PROBE_UPROBE:
	case PROBE_URETPROBE:
	case PROBE_USDT:
		prog = c->skel->progs.counter_kprobe;
		break;
	case PROBE_TRACEPOINT:
		if (instance)
			return tp_instance_fd(c, instance);
		prog = c->skel->progs.counter_tp;
		break;
	case PROBE_SOFTWARE:
	case PROBE_HARDWARE:
		prog = c->skel->progs.counter_perf;
		break;
	default:
		return -EINVAL;
	}
	/* Only a tracepoint refuses one program twice (see counter.h). */
	if (instance)
		return -EINVAL;
	return bpf_program__fd(prog);
}

/* Zero a slot on every possible CPU, so a reused slot starts at 0. */
static int slot_zero(struct counter *c, uint32_t slot)
{
	uint64_t *zeros = calloc(c->ncpus, sizeof(*zeros));
	int err;

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
	uint32_t *keys = calloc(n, sizeof(*keys)), count = n, i;
	uint64_t *zeros = calloc((size_t)n * c->ncpus, sizeof(*zeros));
	int err = keys && zeros ? 0 : -ENOMEM;

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

int counter_hits(struct counter *c, uint32_t slot, uint64_t *hits)
{
	uint64_t *vals, sum = 0;
	int i, err;

	if (slot >= c->slots)
		return -EINVAL;
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

int counter_map_fd(struct counter *c)
{
	return bpf_map__fd(c->skel->maps.hits);
}

/* Does program @prog_id use the events ring @ring_id? From its map ids. */
static int prog_uses_map(uint32_t prog_id, uint32_t ring_id)
{
	uint32_t ids[16], i;
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(prog_id), err;

	if (fd < 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	info.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	info.map_ids = (uint64_t)(uintptr_t)ids;
	err = bpf_obj_get_info_by_fd(fd, &info, &len) ? -errno : 0;
	close(fd);
	for (i = 0; !err && i < info.nr_map_ids && i < 16; i++)
		if (ids[i] == ring_id)
			return 1;
	return err;
}

/* Remember what prog_uses_map() said of @prog_id (ids are not reused). */
static void seen_add(struct counter *c, uint32_t prog_id, bool ours)
{
	struct prog_seen *p;

	if (c->nseen == c->seen_cap) {
		if (c->seen_cap >= 65536) {
			c->nseen = 0; /* a bound: look again */
		} else {
			p = realloc(c->seen, (c->seen_cap ? 2 * c->seen_cap
							  : 64) *
						     sizeof(*p));
			if (!p)
				return;
			c->seen = p;
			c->seen_cap = c->seen_cap ? 2 * c->seen_cap : 64;
		}
	}
	c->seen[c->nseen++] = (struct prog_seen){prog_id, ours};
}

bool counter_runs_prog(struct counter *c, uint32_t prog_id)
{
	bool found = false, known = false;
	size_t i;
	int ours;

	if (!prog_id)
		return false;
	pthread_mutex_lock(&c->lock);
	for (i = 0; !found && i < sizeof(c->prog_ids) / sizeof(c->prog_ids[0]);
	     i++)
		found = c->prog_ids[i] == prog_id;
	for (i = 0; !found && !known && i < c->nseen; i++)
		if (c->seen[i].id == prog_id) {
			known = true;
			found = c->seen[i].ours;
		}
	if (!found && !known) {
		/* the tracing instances, programs of an adopted link */
		ours = prog_uses_map(prog_id, c->ring_id);
		found = ours > 0;
		if (ours >= 0)
			seen_add(c, prog_id, found);
	}
	pthread_mutex_unlock(&c->lock);
	return found;
}

int counter_events_maps(struct counter *c, struct counter_events *out)
{
	out->hits_fd = bpf_map__fd(c->skel->maps.hits);
	out->bss_fd = bpf_map__fd(c->skel->maps.bss);
	out->ring_fd = bpf_map__fd(c->skel->maps.events_ring);
	out->on_fd = bpf_map__fd(c->skel->maps.events_on);
	out->lost_fd = bpf_map__fd(c->skel->maps.events_lost);
	out->active = &c->skel->bss->events_active;
	out->slots = c->slots;
	out->ncpus = c->ncpus;
	if (out->ring_fd < 0 || out->on_fd < 0 || out->lost_fd < 0 ||
	    out->hits_fd < 0 || out->bss_fd < 0)
		return -EBADF;
	return 0;
}
