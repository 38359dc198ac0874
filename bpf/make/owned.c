// SPDX-License-Identifier: GPL-2.0-only
/*
 * Links this mount created, and the reaper that closes removed ones. The
 * kernel needs up to ~0.1 s to release one uprobe link, so removal only
 * unlists the link; reaper threads close its fd meanwhile.
 *
 * Calls go one way: the registry sits on top of link enumeration
 * (links.c) and calls into it, to hide its iterator's links and to list
 * the kernel's links less its removed ones (listed_link_ids()); links.c
 * never calls back, so enumeration can be read and tested without it.
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

#include "counter_load.h"
#include "link_progs.h"
#include "link_list.h"
#include "log.h"
#include "owned.h"
#include "owned_pins.h"
#include "task_files.h"

#define REAPER_THREADS 4

/* Kept compact: strings are allocated to size (about 100 bytes a link). */
struct owned_link {
	__u32 id;
	int fd;
	int slot;
	unsigned int nslots; /* multi links: slots in a row from slot */
	unsigned int sight;  /* owned_info.sight */
	__u32 partner;	     /* owned_pair() */
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

struct dying_link {
	struct dying_link *next;
	__u32 id;
	int fd;
	int slot;
	unsigned int nslots;
	bool unpinned; /* its pin was removed by hand (pin_sync()) */
};

struct owned {
	pthread_mutex_t lock;
	pthread_cond_t reaper_wake, reaper_idle;
	struct owned_link **links; /* sorted by id */
	size_t len, cap;
	struct dying_link *dying_head, **dying_tail;
	struct dying_link *closing; /* the kernel still lists these ids */
	size_t dying_busy;	    /* queued or being closed */
	struct counter *counter;    /* the built-in program, its hits map */
	struct pin_dir *pin;	    /* -o pin_dir, or NULL */
	struct task_files *tf;	    /* who holds links: owned_task_files() */
	struct link_list *kernel_list;  /* enumeration: owned_link_list() */
	struct link_progs *lp;	    /* owned_link_progs(), or NULL */
	struct pin_owner as_owner;  /* this registry as owned_pins.c sees it */
	pthread_t reapers[REAPER_THREADS];
	int nreapers;
	bool stopping;	    /* owned_close(): the reapers end */
	bool latency_pairs; /* owned_set_latency_pairs() */
};

struct counter *owned_counter(const struct owned *o)
{
	return o->counter;
}

void owned_set_latency_pairs(struct owned *o, bool on)
{
	o->latency_pairs = on;
}

bool owned_latency_pairs(const struct owned *o)
{
	return o->latency_pairs;
}

bool owned_pinning(const struct owned *o)
{
	return o->pin != NULL;
}

struct task_files *owned_task_files(const struct owned *o)
{
	return o->tf;
}

struct link_list *owned_link_list(const struct owned *o)
{
	return o->kernel_list;
}

struct link_progs *owned_link_progs(const struct owned *o)
{
	return o->lp;
}

/* Load the task-file iterator, and the link-program one where it loads;
 * their own links stay out of the tree. */
static int open_task_files(struct owned *o)
{
	__u32 own[TASK_FILES_OWN_MAX];
	int i, n, err = task_files_open(&o->tf);

	if (err)
		return err;
	/* without it each program is asked on its own: slower, as live */
	if (link_progs_open(&o->lp) == 0)
		err = link_list_hide(o->kernel_list, link_progs_own(o->lp));
	if (err)
		return err;
	n = task_files_own_link_ids(o->tf, own);
	for (i = 0; !err && i < n; i++)
		err = link_list_hide(o->kernel_list, own[i]);
	return err;
}

/* Index of @id in o->links[], or where it would go; lock held. */
static size_t owned_find(const struct owned *o, __u32 id, bool *found)
{
	size_t lo = 0, hi = o->len;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (o->links[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < o->len && o->links[lo]->id == id;
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
				 .sight = info->sight,
				 .partner = info->partner,
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
	out->sight = l->sight;
	out->partner = l->partner;
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

int owned_add(struct owned *o, const struct owned_info *info, int fd)
{
	struct owned_link *l = owned_pack(info, fd);
	bool found;
	size_t at;

	if (!l)
		return -ENOMEM;
	pthread_mutex_lock(&o->lock);
	if (o->len == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 64;
		void *p = realloc(o->links, cap * sizeof(*o->links));

		if (!p) {
			pthread_mutex_unlock(&o->lock);
			owned_free(l);
			return -ENOMEM;
		}
		o->links = p;
		o->cap = cap;
	}
	at = owned_find(o, info->id, &found);
	memmove(&o->links[at + 1], &o->links[at],
		(o->len - at) * sizeof(*o->links));
	o->links[at] = l;
	o->len++;
	pthread_mutex_unlock(&o->lock);
	return 0;
}

int owned_get(struct owned *o, __u32 id, struct owned_info *out)
{
	bool found;
	size_t at;

	pthread_mutex_lock(&o->lock);
	at = owned_find(o, id, &found);
	if (found)
		owned_unpack(o->links[at], out);
	pthread_mutex_unlock(&o->lock);
	return found ? 0 : -ENOENT;
}

int owned_look(struct owned *o, __u32 id, struct owned_info *out)
{
	struct dying_link *d;
	bool found = false, dying = false;
	size_t at = 0;

	pthread_mutex_lock(&o->lock);
	for (d = o->dying_head; d && !dying; d = d->next)
		dying = d->id == id;
	for (d = o->closing; d && !dying; d = d->next)
		dying = d->id == id;
	if (!dying)
		at = owned_find(o, id, &found);
	if (found)
		owned_unpack(o->links[at], out);
	pthread_mutex_unlock(&o->lock);
	return dying ? -ENOENT : found;
}

bool owned_is_dying(struct owned *o, __u32 id)
{
	struct dying_link *d;
	bool dying = false;

	pthread_mutex_lock(&o->lock);
	for (d = o->dying_head; d && !dying; d = d->next)
		dying = d->id == id;
	for (d = o->closing; d && !dying; d = d->next)
		dying = d->id == id;
	pthread_mutex_unlock(&o->lock);
	return dying;
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

int owned_dying_ids(struct owned *o, __u32 **out)
{
	struct dying_link *d;
	size_t n = 0;
	__u32 *ids;

	pin_sync(o->pin, &o->as_owner); /* pins removed by hand: dying too */
	pthread_mutex_lock(&o->lock);
	ids = malloc((o->dying_busy + 1) * sizeof(*ids));
	for (d = o->dying_head; ids && d; d = d->next)
		ids[n++] = d->id;
	for (d = o->closing; ids && d; d = d->next)
		ids[n++] = d->id;
	pthread_mutex_unlock(&o->lock);
	if (!ids)
		return -ENOMEM;
	qsort(ids, n, sizeof(*ids), cmp_u32);
	*out = ids;
	return n;
}

/* Queue link @l for the reaper, and free its record; lock held. */
static int dying_push(struct owned *o, struct owned_link *l, bool unpinned)
{
	struct dying_link *d = malloc(sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->next = NULL;
	d->id = l->id;
	d->fd = l->fd;
	d->slot = l->slot;
	d->nslots = l->nslots;
	d->unpinned = unpinned;
	if (o->pin && !unpinned)
		pin_drop(o->pin, l->id); /* durable at once; the reaper waits */
	*o->dying_tail = d;
	o->dying_tail = &d->next;
	o->dying_busy++;
	owned_free(l);
	pthread_cond_signal(&o->reaper_wake);
	return 0;
}

/* Move o->links[at] to the reaper's queue; lock held. */
static int owned_unlist(struct owned *o, size_t at, bool unpinned)
{
	int err = dying_push(o, o->links[at], unpinned);

	if (err)
		return err;
	memmove(&o->links[at], &o->links[at + 1],
		(o->len - at - 1) * sizeof(*o->links));
	o->len--;
	return 0;
}

/*
 * Unlist @id for the reaper, and its partner (owned_pair()) with it;
 * -ENOENT when it is not owned.
 */
static int owned_take(struct owned *o, __u32 id, bool unpinned)
{
	__u32 partner = 0;
	bool found;
	size_t at;
	int err;

	pthread_mutex_lock(&o->lock);
	at = owned_find(o, id, &found);
	if (found)
		partner = o->links[at]->partner;
	err = found ? owned_unlist(o, at, unpinned) : -ENOENT;
	if (!err && partner) {
		at = owned_find(o, partner, &found);
		if (found)
			owned_unlist(o, at, false);
	}
	pthread_mutex_unlock(&o->lock);
	return err;
}

/*
 * Why @id, not owned, cannot be removed: -EPERM for a live link of
 * another, -ENOENT for none (or one being removed, or one of the daemon's
 * own iterator links, which no listing shows), or the errno of looking it
 * up (EMFILE when the daemon has no fd left).
 */
static int not_owned(struct owned *o, __u32 id)
{
	__u32 type;
	int err;

	if (owned_is_dying(o, id) || link_list_hidden(o->kernel_list, id))
		return -ENOENT;
	err = link_type_read(id, &type);
	return err ? err : -EPERM;
}

int owned_pair(struct owned *o, __u32 a, __u32 b)
{
	bool fa, fb;
	size_t ia, ib;

	pthread_mutex_lock(&o->lock);
	ia = owned_find(o, a, &fa);
	ib = owned_find(o, b, &fb);
	if (fa && fb) {
		o->links[ia]->partner = b;
		o->links[ib]->partner = a;
	}
	pthread_mutex_unlock(&o->lock);
	return fa && fb ? 0 : -ENOENT;
}

int owned_remove(struct owned *o, __u32 id)
{
	int err = owned_take(o, id, false);

	return err == -ENOENT ? not_owned(o, id) : err;
}

int owned_may_remove(struct owned *o, __u32 id)
{
	bool found;

	pthread_mutex_lock(&o->lock);
	owned_find(o, id, &found);
	pthread_mutex_unlock(&o->lock);
	return found ? 0 : not_owned(o, id);
}

static int cmp_id(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * @ids and the partners (owned_pair()) of those that have one, ascending,
 * into a new array of *@n; lock held. NULL (and @ids to be used alone)
 * when no memory is left.
 */
static __u32 *with_partners(struct owned *o, const __u32 *ids, size_t *n)
{
	__u32 *all = malloc(2 * (*n ? *n : 1) * sizeof(*all));
	size_t i, k = *n, at;
	bool found;

	if (!all)
		return NULL;
	memcpy(all, ids, *n * sizeof(*all));
	for (i = 0; i < *n; i++) {
		at = owned_find(o, ids[i], &found);
		if (found && o->links[at]->partner)
			all[k++] = o->links[at]->partner;
	}
	qsort(all, k, sizeof(*all), cmp_id);
	*n = k;
	return all;
}

int owned_remove_ids(struct owned *o, const __u32 *ids, size_t n)
{
	size_t i, j = 0, kept = 0;
	int removed = 0;
	__u32 *all;

	pthread_mutex_lock(&o->lock);
	all = with_partners(o, ids, &n);
	ids = all ? all : ids;
	/* one merge of two ascending lists: the rest keep their order */
	for (i = 0; i < o->len; i++) {
		struct owned_link *l = o->links[i];

		while (j < n && ids[j] < l->id)
			j++;
		if (j < n && ids[j] == l->id && dying_push(o, l, false) == 0)
			removed++;
		else
			o->links[kept++] = l;
	}
	o->len = kept;
	pthread_mutex_unlock(&o->lock);
	free(all);
	return removed;
}

bool owned_is_foreign(struct owned *o, __u32 id)
{
	bool found;
	__u32 type;

	pthread_mutex_lock(&o->lock);
	owned_find(o, id, &found);
	pthread_mutex_unlock(&o->lock);
	/* the daemon's own iterator links are unknown to everyone */
	return !found && !owned_is_dying(o, id) &&
	       !link_list_hidden(o->kernel_list, id) &&
	       link_type_read(id, &type) == 0;
}

int owned_forget(struct owned *o, __u32 id)
{
	return owned_take(o, id, true);
}

int owned_ids(struct owned *o, __u32 **out)
{
	__u32 *ids;
	size_t i;

	pthread_mutex_lock(&o->lock);
	ids = malloc((o->len ? o->len : 1) * sizeof(*ids));
	for (i = 0; ids && i < o->len; i++)
		ids[i] = o->links[i]->id;
	pthread_mutex_unlock(&o->lock);
	if (!ids)
		return -ENOMEM;
	*out = ids;
	return i;
}

int owned_remove_all(struct owned *o)
{
	int n = 0;

	pthread_mutex_lock(&o->lock);
	while (o->len && owned_unlist(o, o->len - 1, false) == 0)
		n++;
	pthread_mutex_unlock(&o->lock);
	return n;
}

char *owned_list(struct owned *o, size_t *len)
{
	size_t cap = 4096, used = 0, i;
	char *buf = malloc(cap);

	if (!buf)
		return NULL;
	/* links whose pins were removed by hand are not listed */
	pin_sync(o->pin, &o->as_owner);
	pthread_mutex_lock(&o->lock);
	for (i = 0; i < o->len; i++) {
		const struct owned_link *l = o->links[i];
		size_t need = strlen(l->spec) + 16;

		if (used + need >= cap) {
			char *p = realloc(buf, cap * 2 + need);

			if (!p) {
				pthread_mutex_unlock(&o->lock);
				free(buf);
				return NULL;
			}
			buf = p;
			cap = cap * 2 + need;
		}
		used += snprintf(buf + used, cap - used, "%u\t%s\n", l->id,
				 l->spec);
	}
	pthread_mutex_unlock(&o->lock);
	buf[used] = '\0';
	*len = used;
	return buf;
}

/* A pinned link is owned with no fd: its pin holds it. */
static int owned_add_held_by_pin(struct owned *o, const struct owned_info *info)
{
	return owned_add(o, info, -1);
}

int owned_add_pinned(struct owned *o, const struct owned_info *info, int fd,
		     struct bl_error *e)
{
	return pin_link(o->pin, info, fd, &o->as_owner, e);
}

int owned_adopt(struct owned *o)
{
	return o->pin ? pin_adopt(o->pin, &o->as_owner) : 0;
}

size_t owned_count(struct owned *o)
{
	size_t n;

	pthread_mutex_lock(&o->lock);
	n = o->len;
	pthread_mutex_unlock(&o->lock);
	return n;
}

static void closing_unlink(struct owned *o, struct dying_link *d)
{
	struct dying_link **pp;

	for (pp = &o->closing; *pp; pp = &(*pp)->next)
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
 * A removed link that lives on (a pin made by hand, another process's fd,
 * a pin moved out of the pin_dir) still counts into its slot: a new link
 * given that slot would count its hits. Keep the slot from reuse until
 * the daemon stops.
 */
static bool still_held(const struct dying_link *d)
{
	int fd = bpf_link_get_fd_by_id(d->id);

	if (fd < 0)
		return false;
	close(fd);
	log_msg(LOG_WARNING,
		"link %u was removed but is still held elsewhere%s: its "
		"counter slot stays taken",
		d->id, d->unpinned ? " (its pin left the pin_dir)" : "");
	return true;
}

/* A multi link's slots, one per target, or a single link's one. */
static void slots_free(struct counter *c, const struct dying_link *d)
{
	counter_slots_release(c, d->slot, d->nslots ? d->nslots : 1);
}

/* The next removed link to close, or NULL when owned_close() stops us. */
static struct dying_link *reaper_next(struct owned *o)
{
	struct dying_link *d;

	pthread_mutex_lock(&o->lock);
	while (!o->dying_head && !o->stopping)
		pthread_cond_wait(&o->reaper_wake, &o->lock);
	d = o->dying_head;
	if (d) {
		o->dying_head = d->next;
		if (!o->dying_head)
			o->dying_tail = &o->dying_head;
		d->next = o->closing;
		o->closing = d;
	}
	pthread_mutex_unlock(&o->lock);
	return d;
}

static void *reaper_main(void *arg)
{
	struct owned *o = arg;
	struct dying_link *d;

	while ((d = reaper_next(o))) {
		/* The slot is reused only once the kernel has let go. */
		if (d->fd >= 0)
			close(d->fd);
		if (o->pin)
			pin_unlink(o->pin, d->id);
		wait_released(d->id);
		if (d->slot > 0 && o->counter && !still_held(d))
			slots_free(o->counter, d);
		pthread_mutex_lock(&o->lock);
		closing_unlink(o, d);
		if (--o->dying_busy == 0)
			pthread_cond_broadcast(&o->reaper_idle);
		pthread_mutex_unlock(&o->lock);
		free(d);
	}
	return NULL;
}

int reaper_start(struct owned *o)
{
	int err;

	while (o->nreapers < REAPER_THREADS) {
		err = pthread_create(&o->reapers[o->nreapers], NULL,
				     reaper_main, o);
		if (err)
			return -err;
		o->nreapers++;
	}
	return 0;
}

void reaper_drain(struct owned *o)
{
	/* with pin_dir, owned links outlive the daemon: it adopts them again */
	int n = o->pin ? 0 : owned_remove_all(o);

	if (n)
		log_msg(LOG_INFO, "detaching %d owned link(s)", n);
	pthread_mutex_lock(&o->lock);
	while (o->dying_busy && o->nreapers)
		pthread_cond_wait(&o->reaper_idle, &o->lock);
	pthread_mutex_unlock(&o->lock);
}

int owned_open(struct owned **out, const char *pin_dir, __u32 slots,
	       struct bl_error *e)
{
	struct owned *o = calloc(1, sizeof(*o));
	int err;

	*out = NULL;
	if (!o)
		return -ENOMEM;
	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->reaper_wake, NULL);
	pthread_cond_init(&o->reaper_idle, NULL);
	o->dying_tail = &o->dying_head;
	o->as_owner = (struct pin_owner){.registry = o,
					 .ids = owned_ids,
					 .forget = owned_forget,
					 .add = owned_add_held_by_pin};
	err = link_list_open(&o->kernel_list);
	if (!err)
		err = pin_dir ? pin_dir_open(&o->pin, pin_dir, slots,
					     &o->counter, e)
			      : counter_open(&o->counter, slots);
	if (!err)
		err = open_task_files(o);
	if (err) {
		owned_start_failed(o);
		owned_close(o);
		return err;
	}
	*out = o;
	return 0;
}

void owned_start_failed(struct owned *o)
{
	if (o)
		pin_dir_undo(o->pin);
}

void owned_close(struct owned *o)
{
	int i;

	if (!o)
		return;
	pthread_mutex_lock(&o->lock);
	o->stopping = true;
	pthread_cond_broadcast(&o->reaper_wake);
	pthread_mutex_unlock(&o->lock);
	for (i = 0; i < o->nreapers; i++)
		pthread_join(o->reapers[i], NULL);
	while (o->len)
		owned_free(o->links[--o->len]);
	free(o->links);
	pin_dir_close(o->pin);
	counter_close(o->counter);
	task_files_close(o->tf);
	link_progs_close(o->lp);
	link_list_close(o->kernel_list);
	pthread_cond_destroy(&o->reaper_idle);
	pthread_cond_destroy(&o->reaper_wake);
	pthread_mutex_destroy(&o->lock);
	free(o);
}
