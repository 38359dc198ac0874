// SPDX-License-Identifier: GPL-2.0-only
/*
 * The events streams: fan-out of ring records to open `events` handles,
 * bounded per-handle queues with in-place `# lost N` lines, deferred reads,
 * poll notifications, and the end of every stream at shutdown or unmount
 * (mount_watch.c tells of the unmount).
 *
 * One mutex (hub->set.lock) guards links, streams, queues and pending reads;
 * FUSE replies and notifications are sent after it is released.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "events.h"
#include "array_size.h"
#include "stream.h"
#include "event_ring.h"
#include "mount_watch.h"
#include "counter_load.h"
#include "owned.h"
#include "render.h"
#include "render_multi.h"

/* per stream: ~4,000 lines; a reader further behind loses events */
#define STREAM_QUEUE_BYTES (256u << 10)
#define LINE_MAX_BYTES 1024

struct event_link;

struct event_stream {
	struct stream base; /* queue, reads, poll (stream.h) */
	struct event_hub *hub;
	struct event_link *link; /* NULL once ended or closed */
	struct event_stream *next;
	uint64_t since_ns; /* CLOCK_BOOTTIME of the open: older records skip */
};

struct event_link {
	__u32 id;
	bool retval; /* a return probe: the RETVAL column */
	bool multi;  /* a multi link: the TARGET column */
	/* counter slots (= cookies): one, or one per target of a multi link */
	struct link_slot {
		uint32_t slot;
		uint64_t lost_seen; /* events_lost(), already given out */
		char *target;	    /* TARGET column (multi links), or NULL */
	} * slots;
	size_t nslots;
	struct event_stream *streams;
	struct event_link *next;
};

struct event_hub {
	struct stream_set set; /* its lock guards the hub too */
	struct owned *reg;     /* the links streamed, their counter */
	struct events_reader *reader;
	struct event_link *links;
	struct event_link **by_slot;
	uint32_t *slot_index; /* slot -> its index in by_slot[slot]->slots */
	uint32_t slots;
	bool ended;
	uint64_t last_sweep_ns;
	struct mount_watch *watch; /* the unmount watcher, or NULL */
};

static uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* An own multi link: one slot per target, named as `funcs` names it. */
static int multi_slots(struct owned *reg, const struct owned_info *own,
		       struct link_slot **out, bool *multi)
{
	struct link_view *v = malloc(sizeof(*v));
	struct reader r = {false};
	char **names = NULL;
	int n = v ? link_view_load(reg, own->id, v) : -ENOMEM, i;

	if (!n) {
		v->reader = &r;
		n = multi_target_names(v, &names);
	}
	free(v);
	if (n > 0 && !(*out = calloc(n, sizeof(**out)))) {
		for (i = 0; i < n; i++)
			free(names[i]);
		n = -ENOMEM;
	}
	for (i = 0; n > 0 && i < n; i++) {
		(*out)[i].slot = own->slot + i;
		(*out)[i].target = names[i];
	}
	free(names);
	*multi = n > 0;
	return n ? n : -ENOENT;
}

/*
 * The counter slots of an own link, with their TARGET names. A perf-event
 * link has one slot (its cookie) and no TARGET column. HOOK for multi links
 * (one counter slot, i.e. one cookie, per target): fill one entry per
 * target, .target the SYMBOL or FUNC as `funcs` writes it (malloc'd; freed
 * with the link), and set *multi.
 * Return: the number of slots (calloc'd in *out), or -errno.
 */
static int link_slots(struct owned *reg, const struct owned_info *own,
		      struct link_slot **out, bool *multi)
{
	*multi = false;
	if (own->slot <= 0)
		return -ENOENT;
	if (own->nslots)
		return multi_slots(reg, own, out, multi);
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)[0].slot = own->slot;
	return 1;
}

/* TARGET only on multi links; "-" when no name was found */
static const char *target_of(const struct event_link *l, uint32_t i)
{
	if (!l->multi)
		return NULL;
	return l->slots[i].target ? l->slots[i].target : "-";
}

static void on_record(void *ctx, const struct events_record *r)
{
	struct event_hub *hub = ctx;
	struct event_link *l;
	struct event_stream *s;
	char line[LINE_MAX_BYTES];
	int n = -1;

	pthread_mutex_lock(&hub->set.lock);
	l = r->slot < hub->slots ? hub->by_slot[r->slot] : NULL;
	if (l)
		n = events_line(r, target_of(l, hub->slot_index[r->slot]),
				l->retval, line, sizeof(line));
	for (s = l ? l->streams : NULL; n > 0 && s; s = s->next)
		if (r->ns >= s->since_ns)
			stream_push(&s->base, line, n);
	pthread_mutex_unlock(&hub->set.lock);
}

/* Drops the ring counted for @l since the last look: to every stream. */
static void link_take_lost(struct event_hub *hub, struct event_link *l)
{
	struct event_stream *s;
	uint64_t lost, more = 0;
	size_t i;

	for (i = 0; i < l->nslots; i++) {
		if (events_lost(hub->reader, l->slots[i].slot, &lost) ||
		    lost <= l->slots[i].lost_seen)
			continue;
		more += lost - l->slots[i].lost_seen;
		l->slots[i].lost_seen = lost;
	}
	for (s = l->streams; more && s; s = s->next)
		s->base.lost += more;
}

static void ev_stream_end(struct event_stream *s)
{
	stream_end(&s->base);
	s->link = NULL;
}

static void link_free(struct event_hub *hub, struct event_link *l)
{
	struct event_link **p;

	size_t i;

	for (i = 0; i < l->nslots; i++) {
		if (hub->reader)
			events_switch(hub->reader, l->slots[i].slot, 0);
		if (hub->by_slot[l->slots[i].slot] == l)
			hub->by_slot[l->slots[i].slot] = NULL;
		free(l->slots[i].target);
	}
	free(l->slots);
	for (p = &hub->links; *p; p = &(*p)->next)
		if (*p == l) {
			*p = l->next;
			break;
		}
	free(l);
}

/* A removed link's streams end (its slot may be given to another link). */
static void link_check_alive(struct event_hub *hub, struct event_link *l,
			     struct outbox *out)
{
	struct owned_info *own = malloc(sizeof(*own));
	struct event_stream *s;

	/* a link keeps its slots: the first one tells a reused id */
	if (own && owned_get(hub->reg, l->id, own) == 0 &&
	    (own->slot == (int)l->slots[0].slot || own->slot <= 0)) {
		free(own);
		return;
	}
	free(own);
	if (!own)
		return;
	for (s = l->streams; s; s = s->next) {
		ev_stream_end(s);
		stream_serve(&s->base, out);
	}
	l->streams = NULL;
	link_free(hub, l);
}

static void on_batch_end(void *ctx)
{
	struct event_hub *hub = ctx;
	struct event_link *l, *next;
	struct event_stream *s;
	struct outbox out;
	uint64_t now = boot_ns();
	bool sweep, more;

	out.nr = out.nph = 0;
	do {
		pthread_mutex_lock(&hub->set.lock);
		sweep = now - hub->last_sweep_ns >= EVENTS_TICK_MS * 1000000ull;
		if (sweep)
			hub->last_sweep_ns = now;
		more = false;
		for (l = hub->links; l; l = next) {
			next = l->next;
			link_take_lost(hub, l);
			for (s = l->streams; s; s = s->next)
				stream_serve(&s->base, &out);
			if (sweep)
				link_check_alive(hub, l, &out);
		}
		more = outbox_full(&out);
		pthread_mutex_unlock(&hub->set.lock);
		outbox_send(&out);
		sweep = false;
	} while (more);
}

static const struct events_ops hub_ops = {
	.record = on_record,
	.batch_end = on_batch_end,
};

int event_hub_start(struct event_hub **out, struct owned *reg)
{
	struct counter *c = owned_counter(reg);
	struct counter_events maps;
	struct event_hub *hub;
	int err = counter_events_maps(c, &maps);

	if (err)
		return err;
	hub = calloc(1, sizeof(*hub));
	if (!hub)
		return -ENOMEM;
	hub->by_slot = calloc(maps.slots, sizeof(*hub->by_slot));
	hub->slot_index = calloc(maps.slots, sizeof(*hub->slot_index));
	hub->slots = maps.slots;
	hub->reg = reg;
	stream_set_init(&hub->set);
	err = !hub->by_slot || !hub->slot_index ? -ENOMEM : 0;
	if (!err)
		err = events_reader_start(&hub->reader, c, &hub_ops, hub);
	if (err) {
		stream_set_destroy(&hub->set);
		free(hub->by_slot);
		free(hub->slot_index);
		free(hub);
		return err;
	}
	*out = hub;
	return 0;
}

static void hub_end_streams(struct event_hub *hub)
{
	struct event_stream *s;
	struct outbox out;
	bool more;

	out.nr = out.nph = 0;
	do {
		pthread_mutex_lock(&hub->set.lock);
		hub->ended = true;
		while (hub->links && !hub->links->streams)
			link_free(hub, hub->links);
		while ((s = hub->links ? hub->links->streams : NULL) &&
		       out.nr < ARRAY_SIZE(out.r) - 1 &&
		       out.nph < ARRAY_SIZE(out.ph) - 1) {
			hub->links->streams = s->next;
			ev_stream_end(s);
			stream_serve(&s->base, &out);
			while (hub->links && !hub->links->streams)
				link_free(hub, hub->links);
		}
		more = hub->links != NULL;
		pthread_mutex_unlock(&hub->set.lock);
		outbox_send(&out);
	} while (more);
}

/* The mount went (umount -l included): every stream ends now. */
static void on_unmount(void *ctx)
{
	hub_end_streams(ctx);
}

int event_hub_watch_mount(struct event_hub *hub, const char *mountpoint)
{
	return mount_watch_start(&hub->watch, mountpoint, on_unmount, hub);
}

void event_hub_stop(struct event_hub *hub)
{
	if (!hub)
		return;
	mount_watch_stop(hub->watch);
	hub->watch = NULL;
	events_reader_stop(hub->reader);
	hub->reader = NULL;
	hub_end_streams(hub);
}

void event_hub_free(struct event_hub *hub)
{
	if (!hub)
		return;
	event_hub_stop(hub);
	stream_set_destroy(&hub->set);
	free(hub->by_slot);
	free(hub->slot_index);
	free(hub);
}

/* The link of @own, found or made with recording switched on. */
static int hub_link(struct event_hub *hub, const struct owned_info *own,
		    struct event_link **out)
{
	struct event_link *l;
	size_t i;
	int err;

	for (l = hub->links; l && l->id != own->id; l = l->next)
		;
	if (l) {
		*out = l;
		return 0;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->id = own->id;
	l->retval = own->kind == PROBE_URETPROBE ||
		    own->kind == PROBE_KRETPROBE || own->kind == PROBE_FEXIT;
	err = link_slots(hub->reg, own, &l->slots, &l->multi);
	l->nslots = err > 0 ? err : 0;
	for (i = 0; err >= 0 && i < l->nslots; i++) {
		struct link_slot *ls = &l->slots[i];

		err = ls->slot && ls->slot < hub->slots ? 0 : -ENOENT;
		if (!err)
			err = events_lost(hub->reader, ls->slot,
					  &ls->lost_seen);
		if (!err)
			err = events_switch(
				hub->reader, ls->slot,
				EVENTS_ON | (l->retval ? EVENTS_RETVAL : 0));
		if (!err) {
			hub->by_slot[ls->slot] = l;
			hub->slot_index[ls->slot] = i;
		}
	}
	if (err < 0) {
		link_free(hub, l); /* switches off what was switched on */
		return err;
	}
	l->next = hub->links;
	hub->links = l;
	*out = l;
	return 0;
}

int event_stream_open(struct event_hub *hub, __u32 id,
		      struct event_stream **out)
{
	struct owned_info *own = malloc(sizeof(*own));
	struct event_stream *s = calloc(1, sizeof(*s));
	struct event_link *l = NULL;
	int err = own && s ? owned_get(hub->reg, id, own) : -ENOMEM;

	if (!err)
		err = stream_init(&s->base, &hub->set, STREAM_QUEUE_BYTES);
	if (!err) {
		pthread_mutex_lock(&hub->set.lock);
		err = hub->ended || !hub->reader ? -ENOENT
						 : hub_link(hub, own, &l);
		if (!err) {
			/* drops before this open are not this stream's */
			link_take_lost(hub, l);
			s->hub = hub;
			s->link = l;
			s->since_ns = boot_ns();
			s->next = l->streams;
			l->streams = s;
			stream_attach(&s->base);
		}
		pthread_mutex_unlock(&hub->set.lock);
	}
	free(own);
	if (err) {
		if (s)
			stream_free_queue(&s->base);
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

void event_stream_read(struct event_stream *s, fuse_req_t req, size_t size,
		       off_t off, bool nonblock)
{
	stream_read(&s->base, req, size, off, nonblock);
}

void event_stream_poll(struct event_stream *s, fuse_req_t req,
		       struct fuse_pollhandle *ph)
{
	stream_poll(&s->base, req, ph);
}

void event_stream_close(struct event_stream *s)
{
	struct event_hub *hub;
	struct event_stream **p;
	struct outbox out;

	if (!s)
		return;
	hub = s->hub;
	out.nr = out.nph = 0;
	pthread_mutex_lock(&hub->set.lock);
	if (s->link) {
		for (p = &s->link->streams; *p && *p != s; p = &(*p)->next)
			;
		if (*p)
			*p = s->next;
		if (!s->link->streams)
			link_free(hub, s->link);
	}
	ev_stream_end(s);
	stream_detach(&s->base, &out);
	pthread_mutex_unlock(&hub->set.lock);
	outbox_send(&out);
	stream_free_queue(&s->base);
	free(s);
}
