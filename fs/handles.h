/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Open file and directory handles. The kernel may send RELEASE while a
 * READ on the same handle is still being answered by another thread (a
 * reader killed mid-read, say): handles are counted, and freed only when
 * the last request using one is done.
 */
#ifndef BPFLINKFS_HANDLES_H
#define BPFLINKFS_HANDLES_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <fuse_lowlevel.h>

struct handle;

/*
 * A mount's table of open handles, in its daemon state (daemon.h) and
 * reached through each request's userdata (req_handles()), as libfuse's
 * passthrough_ll reaches its own state. Take it before replying: a reply
 * frees the request. Thread-safe.
 */
struct handle_table {
	pthread_mutex_t lock;
	struct handle *slots;
	uint32_t nslots, free_head;
};

/** handle_table_init() - an empty table */
void handle_table_init(struct handle_table *t);

/**
 * handle_table_free() - free the table and the objects of handles still
 * open (their readers get no RELEASE once the session ended); no request
 * uses it any more
 */
void handle_table_free(struct handle_table *t);

/**
 * handle_new() - register @obj in @t; @destroy frees it when the last
 * user goes
 * Return: the value for fuse_file_info.fh, or 0 on ENOMEM (then @obj is
 * not registered and the caller still owns it).
 */
uint64_t handle_new(struct handle_table *t, void *obj,
		    void (*destroy)(void *obj));

/** handle_get() - the object behind @fh, counted; NULL if released */
void *handle_get(struct handle_table *t, uint64_t fh);

/** handle_put() - done with an object from handle_get() */
void handle_put(struct handle_table *t, uint64_t fh);

/**
 * handle_find() - an open handle of one kind whose object @match accepts,
 * taken as handle_get() takes one (give it back with handle_put())
 * @destroy: the kind: only handles made with this destroy function are
 *           asked (the table holds objects of several types)
 * @match: called under the table's lock; must not take it
 * @obj: out, the object
 * Return: the handle's fh, or 0 when no open handle matches. A walk of the
 * whole table: for rare paths only.
 */
uint64_t handle_find(struct handle_table *t, void (*destroy)(void *obj),
		     bool (*match)(const void *obj, const void *arg),
		     const void *arg, void **obj);

/** handle_close() - RELEASE: no new users; freed when the last is done */
void handle_close(struct handle_table *t, uint64_t fh);

/**
 * reply_open() - reply to an OPEN or OPENDIR: @err (-errno) when it
 * failed, else register @obj as its handle (@destroy frees @obj, also when
 * that fails)
 */
void reply_open(fuse_req_t req, struct fuse_file_info *fi, int err, void *obj,
		void (*destroy)(void *obj));

#endif
