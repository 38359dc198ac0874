// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

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

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct handle *slots;
static uint32_t nslots, free_head = UINT32_MAX;

static struct handle *slot_of(uint64_t fh)
{
	uint32_t i = (uint32_t)fh - 1;

	if ((uint32_t)fh == 0 || i >= nslots || slots[i].gen != fh >> 32 ||
	    !slots[i].obj)
		return NULL;
	return &slots[i];
}

uint64_t handle_new(void *obj, void (*destroy)(void *obj))
{
	struct handle *h;
	uint32_t i;

	pthread_mutex_lock(&lock);
	if (free_head == UINT32_MAX) {
		uint32_t n = nslots ? nslots * 2 : 256;
		struct handle *p = realloc(slots, n * sizeof(*p));

		if (!p) {
			pthread_mutex_unlock(&lock);
			return 0;
		}
		slots = p;
		for (i = nslots; i < n; i++)
			slots[i] = (struct handle){
				.next_free = i + 1 < n ? i + 1 : UINT32_MAX};
		free_head = nslots;
		nslots = n;
	}
	i = free_head;
	h = &slots[i];
	free_head = h->next_free;
	h->obj = obj;
	h->destroy = destroy;
	h->gen++;
	h->users = 1; /* the open itself, until RELEASE */
	h->open = true;
	pthread_mutex_unlock(&lock);
	return (uint64_t)h->gen << 32 | (i + 1);
}

void *handle_get(uint64_t fh)
{
	struct handle *h;
	void *obj = NULL;

	pthread_mutex_lock(&lock);
	h = slot_of(fh);
	if (h && h->open) {
		h->users++;
		obj = h->obj;
	}
	pthread_mutex_unlock(&lock);
	return obj;
}

/* lock held; returns what to destroy outside it */
static void drop(struct handle *h, void **obj, void (**destroy)(void *))
{
	if (--h->users)
		return;
	*obj = h->obj;
	*destroy = h->destroy;
	h->obj = NULL;
	h->next_free = free_head;
	free_head = h - slots;
}

static void put(uint64_t fh, bool close)
{
	void (*destroy)(void *) = NULL;
	struct handle *h;
	void *obj = NULL;

	pthread_mutex_lock(&lock);
	h = slot_of(fh);
	if (h && (!close || h->open)) {
		if (close)
			h->open = false;
		drop(h, &obj, &destroy);
	}
	pthread_mutex_unlock(&lock);
	if (obj)
		destroy(obj);
}

void handle_put(uint64_t fh)
{
	put(fh, false);
}

void handle_close(uint64_t fh)
{
	put(fh, true);
}

void reply_open(fuse_req_t req, struct fuse_file_info *fi, int err, void *obj,
		void (*destroy)(void *obj))
{
	if (!err) {
		fi->fh = handle_new(obj, destroy);
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
