// SPDX-License-Identifier: GPL-2.0-only
/*
 * Links this mount created, and the reaper that closes removed ones. The
 * kernel needs up to ~0.1 s to release one uprobe link, so removal only
 * unlists the link; reaper threads close its fd meanwhile.
 */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "counter.h"
#include "log.h"
#include "owned.h"
#include "pin.h"

#define REAPER_THREADS 4

/* Kept compact: strings are allocated to size (about 100 bytes a link). */
struct owned_link {
	__u32 id;
	int fd;
	int slot;
	unsigned int nslots; /* multi links: slots in a row from slot */
	__u32 link_type;
	enum probe_kind kind;
	enum perf_link_kind perf_kind;
	__u32 event_type;
	__u64 offset; /* as made: the kernel reports only 32 bits */
	__u64 cookie, config, addr;
	dev_t dev;
	ino_t ino;
	char *name, *category, *spec;
};

/* the counter owned links count in (owned_counter_set()) */
static struct counter *the_counter;

void owned_counter_set(struct counter *c)
{
	the_counter = c;
}

struct counter *owned_counter(void)
{
	return the_counter;
}

struct dying_link {
	struct dying_link *next;
	__u32 id;
	int fd;
	int slot;
	unsigned int nslots;
	bool unpinned; /* its pin was removed by hand (pin_sync()) */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reaper_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t reaper_idle = PTHREAD_COND_INITIALIZER;
static struct owned_link **owned; /* sorted by id */
static size_t owned_len, owned_cap;
static struct dying_link *dying_head, **dying_tail = &dying_head;
static struct dying_link *closing; /* the kernel still lists these ids */
static size_t dying_busy;	   /* queued or being closed */

/* Index of @id in owned[], or where it would go; lock held. */
static size_t owned_find(__u32 id, bool *found)
{
	size_t lo = 0, hi = owned_len;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (owned[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < owned_len && owned[lo]->id == id;
	return lo;
}

static void owned_free(struct owned_link *l)
{
	free(l->name);
	free(l->category);
	free(l->spec);
	free(l);
}

static struct owned_link *owned_pack(const struct owned_info *info, int fd)
{
	struct owned_link *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	*l = (struct owned_link){.id = info->id,
				 .fd = fd,
				 .slot = info->slot,
				 .nslots = info->nslots,
				 .link_type = info->f.link_type,
				 .kind = info->kind,
				 .perf_kind = info->f.kind,
				 .offset = info->f.offset,
				 .event_type = info->f.event_type,
				 .cookie = info->f.cookie,
				 .config = info->f.config,
				 .addr = info->f.addr,
				 .dev = info->dev,
				 .ino = info->ino,
				 .name = strdup(info->f.name),
				 .category = strdup(info->category),
				 .spec = strdup(info->spec)};
	if (!l->name || !l->category || !l->spec) {
		owned_free(l);
		return NULL;
	}
	return l;
}

static void owned_unpack(const struct owned_link *l, struct owned_info *out)
{
	memset(&out->f, 0, offsetof(struct link_fields, name));
	out->id = out->f.id = l->id;
	out->slot = l->slot;
	out->nslots = l->nslots;
	out->kind = l->kind;
	out->dev = l->dev;
	out->ino = l->ino;
	out->f.link_type = l->link_type ? l->link_type : LINK_TYPE_PERF_EVENT;
	out->f.kind = l->perf_kind;
	out->f.offset = l->offset;
	out->f.event_type = l->event_type;
	out->f.cookie = l->cookie;
	out->f.config = l->config;
	out->f.addr = l->addr;
	snprintf(out->f.name, sizeof(out->f.name), "%s", l->name);
	snprintf(out->category, sizeof(out->category), "%s", l->category);
	snprintf(out->spec, sizeof(out->spec), "%s", l->spec);
}

int owned_add(const struct owned_info *info, int fd)
{
	struct owned_link *l = owned_pack(info, fd);
	bool found;
	size_t at;

	if (!l)
		return -ENOMEM;
	pthread_mutex_lock(&lock);
	if (owned_len == owned_cap) {
		size_t cap = owned_cap ? owned_cap * 2 : 64;
		void *p = realloc(owned, cap * sizeof(*owned));

		if (!p) {
			pthread_mutex_unlock(&lock);
			owned_free(l);
			return -ENOMEM;
		}
		owned = p;
		owned_cap = cap;
	}
	at = owned_find(info->id, &found);
	memmove(&owned[at + 1], &owned[at], (owned_len - at) * sizeof(*owned));
	owned[at] = l;
	owned_len++;
	pthread_mutex_unlock(&lock);
	return 0;
}

int owned_get(__u32 id, struct owned_info *out)
{
	bool found;
	size_t at;

	pthread_mutex_lock(&lock);
	at = owned_find(id, &found);
	if (found)
		owned_unpack(owned[at], out);
	pthread_mutex_unlock(&lock);
	return found ? 0 : -ENOENT;
}

bool owned_is_dying(__u32 id)
{
	struct dying_link *d;
	bool dying = false;

	pthread_mutex_lock(&lock);
	for (d = dying_head; d && !dying; d = d->next)
		dying = d->id == id;
	for (d = closing; d && !dying; d = d->next)
		dying = d->id == id;
	pthread_mutex_unlock(&lock);
	return dying;
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

int owned_dying_ids(__u32 **out)
{
	struct dying_link *d;
	size_t n = 0;
	__u32 *ids;

	pin_sync(owned_pin_owner()); /* pins removed by hand: dying too */
	pthread_mutex_lock(&lock);
	ids = malloc((dying_busy + 1) * sizeof(*ids));
	for (d = dying_head; ids && d; d = d->next)
		ids[n++] = d->id;
	for (d = closing; ids && d; d = d->next)
		ids[n++] = d->id;
	pthread_mutex_unlock(&lock);
	if (!ids)
		return -ENOMEM;
	qsort(ids, n, sizeof(*ids), cmp_u32);
	*out = ids;
	return n;
}

/* Move owned[at] to the reaper's queue; lock held. */
static int owned_unlist(size_t at, bool unpinned)
{
	struct owned_link *l = owned[at];
	struct dying_link *d = malloc(sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->next = NULL;
	d->id = l->id;
	d->fd = l->fd;
	d->slot = l->slot;
	d->nslots = l->nslots;
	d->unpinned = unpinned;
	if (pin_enabled() && !unpinned)
		pin_drop(l->id); /* durable at once; the reaper waits */
	*dying_tail = d;
	dying_tail = &d->next;
	dying_busy++;
	memmove(&owned[at], &owned[at + 1],
		(owned_len - at - 1) * sizeof(*owned));
	owned_len--;
	owned_free(l);
	pthread_cond_signal(&reaper_wake);
	return 0;
}

/* Unlist @id for the reaper; -ENOENT when it is not owned. */
static int owned_take(__u32 id, bool unpinned)
{
	bool found;
	size_t at;
	int err;

	pthread_mutex_lock(&lock);
	at = owned_find(id, &found);
	err = found ? owned_unlist(at, unpinned) : -ENOENT;
	pthread_mutex_unlock(&lock);
	return err;
}

int owned_remove(__u32 id)
{
	int err = owned_take(id, false);

	if (err == -ENOENT) {
		__u32 type;

		/* A live link that is not ours: refuse; else it is unknown. */
		if (!owned_is_dying(id) && link_type_read(id, &type) == 0 &&
		    type == LINK_TYPE_PERF_EVENT)
			return -EPERM;
	}
	return err;
}

int owned_forget(__u32 id)
{
	return owned_take(id, true);
}

int owned_ids(__u32 **out)
{
	__u32 *ids;
	size_t i;

	pthread_mutex_lock(&lock);
	ids = malloc((owned_len ? owned_len : 1) * sizeof(*ids));
	for (i = 0; ids && i < owned_len; i++)
		ids[i] = owned[i]->id;
	pthread_mutex_unlock(&lock);
	if (!ids)
		return -ENOMEM;
	*out = ids;
	return i;
}

int owned_remove_all(void)
{
	int n = 0;

	pthread_mutex_lock(&lock);
	while (owned_len && owned_unlist(owned_len - 1, false) == 0)
		n++;
	pthread_mutex_unlock(&lock);
	return n;
}

char *owned_list(size_t *len)
{
	size_t cap = 4096, used = 0, i;
	char *buf = malloc(cap);

	if (!buf)
		return NULL;
	/* links whose pins were removed by hand are not listed */
	pin_sync(owned_pin_owner());
	pthread_mutex_lock(&lock);
	for (i = 0; i < owned_len; i++) {
		const struct owned_link *o = owned[i];
		size_t need = strlen(o->spec) + 16;

		if (used + need >= cap) {
			char *p = realloc(buf, cap * 2 + need);

			if (!p) {
				pthread_mutex_unlock(&lock);
				free(buf);
				return NULL;
			}
			buf = p;
			cap = cap * 2 + need;
		}
		used += snprintf(buf + used, cap - used, "%u\t%s\n", o->id,
				 o->spec);
	}
	pthread_mutex_unlock(&lock);
	buf[used] = '\0';
	*len = used;
	return buf;
}

/* A pinned link is owned with no fd: its pin holds it. */
static int owned_add_pinned(const struct owned_info *info)
{
	return owned_add(info, -1);
}

static const struct pin_owner registry = {
	.ids = owned_ids,
	.forget = owned_forget,
	.add = owned_add_pinned,
};

const struct pin_owner *owned_pin_owner(void)
{
	return &registry;
}

size_t owned_count(void)
{
	size_t n;

	pthread_mutex_lock(&lock);
	n = owned_len;
	pthread_mutex_unlock(&lock);
	return n;
}

static void closing_unlink(struct dying_link *d)
{
	struct dying_link **pp;

	for (pp = &closing; *pp; pp = &(*pp)->next)
		if (*pp == d) {
			*pp = d->next;
			return;
		}
}

/*
 * Another process may still hold the link through GET_FD_BY_ID (bpftool,
 * a reader): keep the id hidden, and its slot taken, until the kernel lets
 * go (5 s at most).
 */
static void wait_released(__u32 id)
{
	struct timespec tick = {0, 5 * 1000 * 1000};
	__u32 next;
	int i;

	for (i = 0; i < 1000; i++) {
		if (link_next_id(id - 1, &next) || next != id)
			return;
		nanosleep(&tick, NULL);
	}
}

/*
 * A link whose pin was moved out of the pin_dir, not removed, lives on and
 * counts into its slot: keep the slot from reuse until the daemon stops.
 */
static bool still_held(const struct dying_link *d)
{
	int fd = d->unpinned ? bpf_link_get_fd_by_id(d->id) : -1;

	if (fd < 0)
		return false;
	close(fd);
	log_msg(LOG_WARNING,
		"link %u left the pin_dir but is still held "
		"elsewhere: its counter slot stays taken",
		d->id);
	return true;
}

/* A multi link's slots, one per target, or a single link's one. */
static void slots_free(const struct dying_link *d)
{
	unsigned int i;

	for (i = 0; i < (d->nslots ? d->nslots : 1); i++)
		counter_slot_free(the_counter, d->slot + i);
}

static void *reaper_main(void *arg)
{
	for (;;) {
		struct dying_link *d;

		pthread_mutex_lock(&lock);
		while (!dying_head)
			pthread_cond_wait(&reaper_wake, &lock);
		d = dying_head;
		dying_head = d->next;
		if (!dying_head)
			dying_tail = &dying_head;
		d->next = closing;
		closing = d;
		pthread_mutex_unlock(&lock);

		/* The slot is reused only once the kernel has let go. */
		if (d->fd >= 0)
			close(d->fd);
		if (pin_enabled())
			pin_unlink(d->id);
		wait_released(d->id);
		if (d->slot > 0 && the_counter && !still_held(d))
			slots_free(d);
		pthread_mutex_lock(&lock);
		closing_unlink(d);
		if (--dying_busy == 0)
			pthread_cond_broadcast(&reaper_idle);
		pthread_mutex_unlock(&lock);
		free(d);
	}
	return NULL;
}

int reaper_start(void)
{
	pthread_t t;
	int i, err;

	for (i = 0; i < REAPER_THREADS; i++) {
		err = pthread_create(&t, NULL, reaper_main, NULL);
		if (err)
			return -err;
		pthread_detach(t);
	}
	return 0;
}

void reaper_drain(void)
{
	/* with pin_dir, owned links outlive the daemon: it adopts them again */
	int n = pin_enabled() ? 0 : owned_remove_all();

	if (n)
		log_msg(LOG_INFO, "detaching %d owned link(s)", n);
	pthread_mutex_lock(&lock);
	while (dying_busy)
		pthread_cond_wait(&reaper_idle, &lock);
	pthread_mutex_unlock(&lock);
}
