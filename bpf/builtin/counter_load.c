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
#include <sys/mman.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "counter_load.h"
#include "array_size.h"
#include "counter_priv.h"
#include "counter_row.h"
#include "link_info.h"
#include "log.h"
#include "counter.skel.h"

/* The events maps a pin_dir keeps (with "hits", pinned by owned_pins.c). */
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

static void counter_free(struct counter *c)
{
	pthread_mutex_destroy(&c->lock);
	free(c->seen);
	free(c->used);
	free(c->clean);
	free(c);
}

/*
 * A counter of @slots slots, of @stride per CPU row (0: a per-CPU map);
 * the maps are made or adopted by counter_load().
 */
static int counter_new(struct counter **out, uint32_t slots, uint32_t stride)
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
	c->stride = stride;
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
	bit_set(c->used, 0, true); /* cookie 0 means "not counted" */
	*out = c;
	return 0;
}

/* The events maps pinned in @dir: found there and reused, else pinned. */
static int set_event_pins(struct counter_bpf *skel, const char *dir)
{
	char path[PATH_MAX];
	size_t i;
	int err = 0;

	for (i = 0; !err && i < ARRAY_SIZE(event_pins); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, event_pins[i]);
		err = bpf_map__set_pin_path(event_map(skel, i), path);
	}
	return err;
}

/*
 * Map the hits map (BPF_F_MMAPABLE): hits are read and slots zeroed with
 * plain loads and stores, no bpf(2) call per slot or per read.
 */
static int rows_map(struct counter *c)
{
	size_t len = (size_t)c->ncpus * c->stride * sizeof(uint64_t);
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       bpf_map__fd(c->skel->maps.hits), 0);

	if (p == MAP_FAILED)
		return -errno;
	c->rows = p;
	return 0;
}

/* Entries of the events maps: a row of hits, or a per-CPU map's slots */
static uint32_t events_slots(const struct counter *c)
{
	return c->stride ? c->stride : c->slots;
}

/*
 * The programs of the layout in use: for the rows of hits, or for the
 * per-CPU hits_percpu (stride 0).
 */
static struct bpf_program *kprobe_prog(const struct counter *c)
{
	return c->stride ? c->skel->progs.counter_kprobe
			 : c->skel->progs.counter_kprobe_percpu;
}

static struct bpf_program *tp_prog(const struct counter *c)
{
	return c->stride ? c->skel->progs.counter_tp
			 : c->skel->progs.counter_tp_percpu;
}

static struct bpf_program *perf_prog(const struct counter *c)
{
	return c->stride ? c->skel->progs.counter_perf
			 : c->skel->progs.counter_perf_percpu;
}

/*
 * Load only the programs of the layout in use (counter_common.h), and
 * make only its hits map: a new one of a row per CPU, or @reuse_fd.
 */
static int layout_choose(struct counter *c, int reuse_fd)
{
	struct counter_bpf *s = c->skel;
	struct bpf_map *used = c->stride ? s->maps.hits : s->maps.hits_percpu;
	struct bpf_map *other = c->stride ? s->maps.hits_percpu : s->maps.hits;
	struct bpf_program *p;
	int err;

	bpf_object__for_each_program(p, s->obj)
		bpf_program__set_autoload(p, p == kprobe_prog(c) ||
						     p == tp_prog(c) ||
						     p == perf_prog(c));
	err = bpf_map__set_autocreate(other, false);
	if (!err && reuse_fd >= 0)
		err = bpf_map__reuse_fd(used, reuse_fd);
	else if (!err)
		err = bpf_map__set_max_entries(used,
					       c->stride * (uint32_t)c->ncpus);
	return err;
}

/* Open and load the skeleton (see counter_load()). */
static int skel_load(struct counter *c, int reuse_fd, const char *pin_dir)
{
	int err;

	c->skel = counter_bpf__open();
	if (!c->skel)
		return errno ? -errno : -ENOMEM;
	err = layout_choose(c, reuse_fd);
	/*
	 * the events switch and drop counters: an entry per slot of a row,
	 * so that a daemon adopting the maps (slots = a row) finds them alike
	 */
	if (!err)
		err = bpf_map__set_max_entries(c->skel->maps.events_on,
					       events_slots(c));
	if (!err)
		err = bpf_map__set_max_entries(c->skel->maps.events_lost,
					       events_slots(c));
	if (!err && pin_dir)
		err = set_event_pins(c->skel, pin_dir);
	if (!err)
		err = counter_bpf__load(c->skel);
	if (!err && c->stride)
		err = rows_map(c);
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
	for (slot = 0; slot < events_slots(c); slot++)
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
	c->prog_ids[0] = prog_id_of(bpf_program__fd(kprobe_prog(c)));
	c->prog_ids[1] = prog_id_of(bpf_program__fd(tp_prog(c)));
	c->prog_ids[2] = prog_id_of(bpf_program__fd(perf_prog(c)));
	return 0;
}

/*
 * The slots and the row stride of the hits map @map_fd: a plain
 * mmapable array of a row per possible CPU, or the per-CPU array of an
 * earlier version (stride 0). -EINVAL for any other map: the programs
 * would count into a foreign one.
 */
static int hits_map_shape(int map_fd, uint32_t *slots, uint32_t *stride)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);
	int ncpus = libbpf_num_possible_cpus();

	if (ncpus < 0)
		return ncpus;
	if (!bpf_fd_is("bpf-map", map_fd))
		return -EINVAL;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		return -errno;
	if (info.key_size != sizeof(uint32_t) ||
	    info.value_size != sizeof(uint64_t))
		return -EINVAL;
	if (info.type == BPF_MAP_TYPE_PERCPU_ARRAY) {
		*slots = info.max_entries;
		*stride = 0;
		return 0;
	}
	if (info.type != BPF_MAP_TYPE_ARRAY ||
	    !(info.map_flags & BPF_F_MMAPABLE) ||
	    info.max_entries != (uint32_t)ncpus * COUNTER_ROW_SLOTS)
		return -EINVAL;
	*slots = *stride = COUNTER_ROW_SLOTS;
	return 0;
}

int counter_open_pinned(struct counter **out, uint32_t slots, int map_fd,
			const char *pin_dir)
{
	struct counter *c;
	uint32_t stride = 0;
	int err, ncpus;

	if (map_fd >= 0) {
		err = hits_map_shape(map_fd, &slots, &stride);
		if (err)
			return err;
	} else {
		ncpus = libbpf_num_possible_cpus();
		if (ncpus < 0)
			return ncpus;
		if (slots > COUNTER_ROW_SLOTS ||
		    (uint32_t)ncpus > UINT32_MAX / COUNTER_ROW_SLOTS)
			return -E2BIG;
		stride = COUNTER_ROW_SLOTS;
	}
	err = counter_new(&c, slots, stride);
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

	for (i = 0; i < ARRAY_SIZE(event_pins); i++) {
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

	for (i = 0; i < ARRAY_SIZE(event_pins); i++)
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
	if (c->rows)
		munmap(c->rows,
		       (size_t)c->ncpus * c->stride * sizeof(uint64_t));
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
	const struct bpf_program *prog = tp_prog(c);
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
	const struct bpf_program *prog = kprobe_prog(c);
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
		prog = kprobe_prog(c);
		break;
	case PROBE_TRACEPOINT:
		if (instance)
			return tp_instance_fd(c, instance);
		prog = tp_prog(c);
		break;
	case PROBE_SOFTWARE:
	case PROBE_HARDWARE:
		prog = perf_prog(c);
		break;
	default:
		return -EINVAL;
	}
	/* Only a tracepoint refuses one program twice (see counter_load.h). */
	if (instance)
		return -EINVAL;
	return bpf_program__fd(prog);
}

int counter_map_fd(struct counter *c)
{
	return bpf_map__fd(c->stride ? c->skel->maps.hits
				     : c->skel->maps.hits_percpu);
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
	info.nr_map_ids = ARRAY_SIZE(ids);
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
	for (i = 0; !found && i < ARRAY_SIZE(c->prog_ids); i++)
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
	out->hits_fd = counter_map_fd(c);
	out->hits_percpu = !c->stride;
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
