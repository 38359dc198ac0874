// SPDX-License-Identifier: GPL-2.0-only
/* The handoff of one render from LOOKUP to OPEN to GETATTR (handoff.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "handoff.h"

static unsigned long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ull + t.tv_nsec;
}

void handoff_init(struct handoff *h)
{
	memset(h, 0, sizeof(*h));
	pthread_mutex_init(&h->lock, NULL);
}

static void slot_clear(struct handoff_slot *s)
{
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

void handoff_free(struct handoff *h)
{
	size_t i;

	for (i = 0; i < HANDOFF_SLOTS; i++)
		slot_clear(&h->slot[i]);
	pthread_mutex_destroy(&h->lock);
}

/*
 * The slot of (@ino, @tid, a render or not) if fresh, else NULL; stale
 * slots are freed on the way. Called with the lock held.
 */
static struct handoff_slot *slot_find(struct handoff *h, unsigned long long ino,
				      pid_t tid, bool render,
				      unsigned long long now)
{
	struct handoff_slot *found = NULL;
	size_t i;

	for (i = 0; i < HANDOFF_SLOTS; i++) {
		struct handoff_slot *s = &h->slot[i];

		if (s->ino && now - s->at_ns > HANDOFF_MAX_AGE_NS)
			slot_clear(s);
		else if (s->ino == ino && s->tid == tid && !s->buf == !render)
			found = s;
	}
	return found;
}

/* A free slot, or else the oldest. Called with the lock held. */
static struct handoff_slot *slot_free_or_oldest(struct handoff *h)
{
	struct handoff_slot *oldest = &h->slot[0];
	size_t i;

	for (i = 0; i < HANDOFF_SLOTS; i++) {
		if (!h->slot[i].ino)
			return &h->slot[i];
		if (h->slot[i].at_ns < oldest->at_ns)
			oldest = &h->slot[i];
	}
	return oldest;
}

/* Keeps an entry, in place of one of the same key if there is one */
static void slot_put(struct handoff *h, unsigned long long ino, pid_t tid,
		     char *buf, size_t len, struct timespec made)
{
	unsigned long long now = now_ns();
	struct handoff_slot *s;

	pthread_mutex_lock(&h->lock);
	s = slot_find(h, ino, tid, buf != NULL, now);
	if (!s)
		s = slot_free_or_oldest(h);
	slot_clear(s);
	*s = (struct handoff_slot){ino, tid, now, buf, len, made};
	pthread_mutex_unlock(&h->lock);
}

void handoff_put_render(struct handoff *h, unsigned long long ino, pid_t tid,
			char *buf, size_t len)
{
	if (!buf || !tid) { /* pid 0: a request from another pid namespace */
		free(buf);
		return;
	}
	slot_put(h, ino, tid, buf, len, (struct timespec){0});
}

void handoff_put_size(struct handoff *h, unsigned long long ino, pid_t tid,
		      size_t len, struct timespec made)
{
	if (tid)
		slot_put(h, ino, tid, NULL, len, made);
}

char *handoff_take_render(struct handoff *h, unsigned long long ino, pid_t tid,
			  size_t *len)
{
	struct handoff_slot *s;
	char *buf = NULL;

	pthread_mutex_lock(&h->lock);
	s = slot_find(h, ino, tid, true, now_ns());
	if (s) {
		buf = s->buf;
		*len = s->len;
		s->buf = NULL;
		slot_clear(s);
	}
	pthread_mutex_unlock(&h->lock);
	return buf;
}

bool handoff_size(struct handoff *h, unsigned long long ino, pid_t tid,
		  size_t *len, struct timespec *made)
{
	struct handoff_slot *s;

	pthread_mutex_lock(&h->lock);
	s = slot_find(h, ino, tid, false, now_ns());
	if (s) {
		*len = s->len;
		*made = s->made;
	}
	pthread_mutex_unlock(&h->lock);
	return s != NULL;
}
