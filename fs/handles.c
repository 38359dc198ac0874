// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "daemon.h"
#include "handles.h"

/* fh = generation << 32 | (slot + 1): a stale fh never finds a new object */
struct handle {
	void *obj;
	void (*destroy)(void *obj);
	uint32_t gen;
	uint32_t users;
	bool open;
	uint32_t next_free;
};

void handle_table_init(struct handle_table *t)
{
	pthread_mutex_init(&t->lock, NULL);
	t->slots = NULL;
	t->nslots = 0;
	t->free_head = UINT32_MAX;
}

void handle_table_free(struct handle_table *t)
{
	uint32_t i;

	/* handles still open when the session ended (a lazy unmount, a
	 * signal): their readers get no RELEASE, so their objects go here */
	for (i = 0; i < t->nslots; i++)
		if (t->slots[i].obj)
			t->slots[i].destroy(t->slots[i].obj);
	free(t->slots);
	t->slots = NULL;
	t->nslots = 0;
	pthread_mutex_destroy(&t->lock);
}

static struct handle *slot_of(struct handle_table *t, uint64_t fh)
{
	uint32_t i = (uint32_t)fh - 1;

	if ((uint32_t)fh == 0 || i >= t->nslots ||
	    t->slots[i].gen != fh >> 32 || !t->slots[i].obj)
		return NULL;
	return &t->slots[i];
}

/* Double the table when no slot is free; lock held. Return: false on
 * ENOMEM. */
static bool grow(struct handle_table *t)
{
	uint32_t n = t->nslots ? t->nslots * 2 : 256, i;
	struct handle *p;

	if (t->free_head != UINT32_MAX)
		return true;
	p = realloc(t->slots, n * sizeof(*p));
	if (!p)
		return false;
	t->slots = p;
	for (i = t->nslots; i < n; i++)
		t->slots[i] = (struct handle){
			.next_free = i + 1 < n ? i + 1 : UINT32_MAX};
	t->free_head = t->nslots;
	t->nslots = n;
	return true;
}

uint64_t handle_new(struct handle_table *t, void *obj,
		    void (*destroy)(void *obj))
{
	struct handle *h;
	uint32_t i;

	pthread_mutex_lock(&t->lock);
	if (!grow(t)) {
		pthread_mutex_unlock(&t->lock);
		return 0;
	}
	i = t->free_head;
	h = &t->slots[i];
	t->free_head = h->next_free;
	h->obj = obj;
	h->destroy = destroy;
	h->gen++;
	h->users = 1; /* the open itself, until RELEASE */
	h->open = true;
	pthread_mutex_unlock(&t->lock);
	return (uint64_t)h->gen << 32 | (i + 1);
}

void *handle_get(struct handle_table *t, uint64_t fh)
{
	struct handle *h;
	void *obj = NULL;

	pthread_mutex_lock(&t->lock);
	h = slot_of(t, fh);
	if (h && h->open) {
		h->users++;
		obj = h->obj;
	}
	pthread_mutex_unlock(&t->lock);
	return obj;
}

uint64_t handle_find(struct handle_table *t, void (*destroy)(void *obj),
		     bool (*match)(const void *obj, const void *arg),
		     const void *arg, void **obj)
{
	uint64_t fh = 0;
	uint32_t i;

	pthread_mutex_lock(&t->lock);
	for (i = 0; i < t->nslots && !fh; i++) {
		struct handle *h = &t->slots[i];

		if (h->obj && h->open && h->destroy == destroy &&
		    match(h->obj, arg)) {
			h->users++;
			*obj = h->obj;
			fh = (uint64_t)h->gen << 32 | (i + 1);
		}
	}
	pthread_mutex_unlock(&t->lock);
	return fh;
}

/* lock held; returns what to destroy outside it */
static void drop(struct handle_table *t, struct handle *h, void **obj,
		 void (**destroy)(void *))
{
	if (--h->users)
		return;
	*obj = h->obj;
	*destroy = h->destroy;
	h->obj = NULL;
	h->next_free = t->free_head;
	t->free_head = h - t->slots;
}

static void put(struct handle_table *t, uint64_t fh, bool close)
{
	void (*destroy)(void *) = NULL;
	struct handle *h;
	void *obj = NULL;

	pthread_mutex_lock(&t->lock);
	h = slot_of(t, fh);
	if (h && (!close || h->open)) {
		if (close)
			h->open = false;
		drop(t, h, &obj, &destroy);
	}
	pthread_mutex_unlock(&t->lock);
	if (obj)
		destroy(obj);
}

void handle_put(struct handle_table *t, uint64_t fh)
{
	put(t, fh, false);
}

void handle_close(struct handle_table *t, uint64_t fh)
{
	put(t, fh, true);
}

void reply_open(fuse_req_t req, struct fuse_file_info *fi, int err, void *obj,
		void (*destroy)(void *obj))
{
	if (!err) {
		fi->fh = handle_new(req_handles(req), obj, destroy);
		err = fi->fh ? 0 : -ENOMEM;
	}
	if (err) {
		if (obj)
			destroy(obj);
		fuse_reply_err(req, -err);
		return;
	}
	fuse_reply_open(req, fi);
}
