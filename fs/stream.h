/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every live stream file (`<ID>/events`, `top`) shares: a bounded
 * queue of whole lines per open handle with in-place `# lost N` lines,
 * reads that wait as deferred FUSE requests (no worker thread waits) and
 * end with EINTR when the reader is interrupted or killed, EAGAIN for
 * O_NONBLOCK, poll notifications, and an end (end of file) at shutdown.
 *
 * A stream set's lock guards its streams; its owner takes the same lock
 * around its own state (the lists its streams are on) and fills streams
 * under it. FUSE replies and notifications collected in an outbox are
 * sent after the lock is released.
 */
#ifndef BPFLINKFS_STREAM_H
#define BPFLINKFS_STREAM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <fuse_lowlevel.h>

struct pending_read;

struct stream_set {
	pthread_mutex_t lock;
	struct stream *all; /* every open stream, for interrupts */
};

struct stream {
	struct stream_set *set;
	struct stream *next_all;
	char *q; /* circular byte queue of whole lines */
	size_t cap, head, len;
	uint64_t lost; /* units dropped and not yet written as # lost */
	struct pending_read *reads, **reads_tail;
	struct fuse_pollhandle *ph;
	off_t pos;	 /* the bytes given out so far: the reader's offset */
	char *back;	 /* the last read's bytes, which end at pos */
	size_t back_len; /* a seek back over them gives them again */
	bool ended;
};

/* Replies to send once the lock is released. */
struct outbox {
	struct {
		fuse_req_t req;
		char *buf; /* NULL with n 0: end of file; n < 0: error */
		ssize_t n;
	} r[64];
	size_t nr;
	struct fuse_pollhandle *ph[64];
	size_t nph;
};

/** stream_set_init() / stream_set_destroy(): the lock */
void stream_set_init(struct stream_set *set);
void stream_set_destroy(struct stream_set *set);

/**
 * stream_init() - a stream of @set with a queue of @cap bytes; not yet in
 * the set (stream_attach() puts it there, under the lock)
 * Return: 0 or -ENOMEM.
 */
int stream_init(struct stream *s, struct stream_set *set, size_t cap);

/** stream_attach() - into its set; with the set's lock held */
void stream_attach(struct stream *s);

/**
 * stream_push() - with the lock held: @n bytes of whole lines queued in
 * place, or, when they do not fit, one more counted as lost (written as
 * `# lost N` before what comes next)
 */
void stream_push(struct stream *s, const char *lines, size_t n);

/** stream_readable() - with the lock held: a read would not wait */
bool stream_readable(const struct stream *s);

/**
 * stream_serve() - with the lock held: answer the pending reads that can
 * be answered now, and notify the poll handle, into @out
 */
void stream_serve(struct stream *s, struct outbox *out);

/** outbox_full() - @out has no room for another stream's replies */
bool outbox_full(const struct outbox *out);

/** outbox_send() - send what @out holds (without the lock), empty it */
void outbox_send(struct outbox *out);

/** stream_end() - with the lock held: reads return end of file from now */
void stream_end(struct stream *s);

/**
 * stream_detach() - with the lock held, at RELEASE: out of the set, ended,
 * its pending reads answered end of file and its poll handle woken (into
 * @out, which needs room for one stream)
 */
void stream_detach(struct stream *s, struct outbox *out);

/** stream_free_queue() - after stream_detach() and outbox_send() */
void stream_free_queue(struct stream *s);

/**
 * stream_read() - answer a READ at @off: queued whole lines up to @size, or
 * wait for them (answered later by stream_serve(), or with EINTR when the
 * kernel interrupts the request); EAGAIN when @nonblock and nothing is
 * queued; end of file once the stream ended. An @off before the stream's
 * offset is a reader that sought back over what it read past a line's end
 * (GNU head, bash's read): it gets the last read's bytes again; an offset
 * the stream cannot give is ESPIPE. Takes the lock.
 */
void stream_read(struct stream *s, fuse_req_t req, size_t size, off_t off,
		 bool nonblock);

/** stream_poll() - answer a POLL; keeps @ph to notify later. Takes the lock. */
void stream_poll(struct stream *s, fuse_req_t req, struct fuse_pollhandle *ph);

#endif
