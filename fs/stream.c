// SPDX-License-Identifier: GPL-2.0-only
/*
 * The live stream files' common part: per-handle line queues, deferred
 * reads, interrupts, poll and the end of a stream (stream.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "array_size.h"

#define LOST_LINE_MAX 32

struct pending_read {
	fuse_req_t req;
	size_t size;
	struct pending_read *next;
};

void stream_set_init(struct stream_set *set)
{
	pthread_mutex_init(&set->lock, NULL);
	set->all = NULL;
}

void stream_set_destroy(struct stream_set *set)
{
	pthread_mutex_destroy(&set->lock);
}

int stream_init(struct stream *s, struct stream_set *set, size_t cap)
{
	memset(s, 0, sizeof(*s));
	s->q = malloc(cap);
	if (!s->q)
		return -ENOMEM;
	s->set = set;
	s->cap = cap;
	s->reads_tail = &s->reads;
	return 0;
}

void stream_attach(struct stream *s)
{
	s->next_all = s->set->all;
	s->set->all = s;
}

static size_t q_room(const struct stream *s)
{
	return s->cap - s->len;
}

static void q_put(struct stream *s, const char *p, size_t n)
{
	size_t tail = (s->head + s->len) % s->cap;
	size_t first = s->cap - tail < n ? s->cap - tail : n;

	memcpy(s->q + tail, p, first);
	memcpy(s->q, p + first, n - first);
	s->len += n;
}

static void q_get(struct stream *s, char *p, size_t n)
{
	size_t first = s->cap - s->head < n ? s->cap - s->head : n;

	memcpy(p, s->q + s->head, first);
	memcpy(p + first, s->q, n - first);
	s->head = (s->head + n) % s->cap;
	s->len -= n;
}

/* Write the pending `# lost N` line if it fits with @extra more bytes. */
static bool flush_lost(struct stream *s, size_t extra)
{
	char line[LOST_LINE_MAX];
	int n;

	if (!s->lost)
		return true;
	n = snprintf(line, sizeof(line), "# lost %" PRIu64 "\n", s->lost);
	if (q_room(s) < n + extra)
		return false;
	q_put(s, line, n);
	s->lost = 0;
	return true;
}

void stream_push(struct stream *s, const char *lines, size_t n)
{
	if (flush_lost(s, n) && q_room(s) >= n)
		q_put(s, lines, n);
	else
		s->lost++;
}

/*
 * The bytes of a read leave the queue: the offset moves past them, and
 * they are kept until the next read, so that a reader that seeks back over
 * what it read past a line's end (GNU head, bash's read) reads them again.
 */
static void stream_gave(struct stream *s, const char *buf, size_t n)
{
	char *p;

	if (!n) /* end of file: the last bytes are still the last read's */
		return;
	p = realloc(s->back, n);
	if (p) {
		memcpy(p, buf, n);
		s->back = p;
	}
	s->back_len = p ? n : 0;
	s->pos += n;
}

/*
 * A read at @off before the stream's offset: the reader sought back over
 * the last read's bytes, and gets them again (up to @size, into *buf).
 * Return: the length, or -ESPIPE for an offset the stream cannot give
 * (past its offset, or before the last read).
 */
static ssize_t stream_reread(const struct stream *s, off_t off, size_t size,
			     char **buf)
{
	off_t from = s->pos - (off_t)s->back_len;
	size_t n = (size_t)(s->pos - off);

	*buf = NULL;
	if (off < from || off > s->pos)
		return -ESPIPE;
	n = n < size ? n : size;
	if (n && !(*buf = malloc(n)))
		return -ENOMEM;
	if (n)
		memcpy(*buf, s->back + (off - from), n);
	return n;
}

/*
 * Up to @size bytes of whole lines (a part of one when the first line
 * alone is longer), malloc'd into *buf. Return: the length, 0 if none.
 */
static ssize_t stream_take(struct stream *s, size_t size, char **buf)
{
	size_t n, i;

	flush_lost(s, 0);
	n = s->len < size ? s->len : size;
	*buf = NULL;
	if (!n)
		return 0;
	*buf = malloc(n);
	if (!*buf)
		return -ENOMEM;
	q_get(s, *buf, n);
	if (s->len && (*buf)[n - 1] != '\n') {
		/* give back the part of a line that did not fit */
		for (i = n; i > 0 && (*buf)[i - 1] != '\n'; i--)
			;
		if (i > 0) {
			s->head = (s->head + s->cap - (n - i)) % s->cap;
			s->len += n - i;
			n = i;
		}
	}
	stream_gave(s, *buf, n);
	return n;
}

bool stream_readable(const struct stream *s)
{
	return s->len || s->lost || s->ended;
}

void stream_serve(struct stream *s, struct outbox *out)
{
	struct pending_read *pr;

	while ((pr = s->reads) && stream_readable(s) &&
	       out->nr < ARRAY_SIZE(out->r)) {
		s->reads = pr->next;
		if (!s->reads)
			s->reads_tail = &s->reads;
		out->r[out->nr].req = pr->req;
		out->r[out->nr].n =
			stream_take(s, pr->size, &out->r[out->nr].buf);
		out->nr++;
		free(pr);
	}
	if (s->ph && stream_readable(s) && out->nph < ARRAY_SIZE(out->ph)) {
		out->ph[out->nph++] = s->ph;
		s->ph = NULL;
	}
}

bool outbox_full(const struct outbox *out)
{
	return out->nr == ARRAY_SIZE(out->r) || out->nph == ARRAY_SIZE(out->ph);
}

void outbox_send(struct outbox *out)
{
	size_t i;

	for (i = 0; i < out->nr; i++) {
		if (out->r[i].n < 0)
			fuse_reply_err(out->r[i].req, (int)-out->r[i].n);
		else
			fuse_reply_buf(out->r[i].req, out->r[i].buf,
				       out->r[i].n);
		free(out->r[i].buf);
	}
	for (i = 0; i < out->nph; i++) {
		fuse_lowlevel_notify_poll(out->ph[i]);
		fuse_pollhandle_destroy(out->ph[i]);
	}
	out->nr = out->nph = 0;
}

void stream_end(struct stream *s)
{
	s->ended = true;
}

void stream_detach(struct stream *s, struct outbox *out)
{
	struct stream **p;
	struct pending_read *pr;

	for (p = &s->set->all; *p && *p != s; p = &(*p)->next_all)
		;
	if (*p)
		*p = s->next_all;
	stream_end(s);
	/* the kernel answers no read after RELEASE: none should be left */
	while ((pr = s->reads)) {
		s->reads = pr->next;
		if (out->nr < ARRAY_SIZE(out->r))
			out->r[out->nr++] =
				(typeof(out->r[0])){pr->req, NULL, 0};
		free(pr);
	}
	s->reads_tail = &s->reads;
	if (s->ph && out->nph < ARRAY_SIZE(out->ph))
		out->ph[out->nph++] = s->ph;
	s->ph = NULL;
}

void stream_free_queue(struct stream *s)
{
	free(s->q);
	s->q = NULL;
	free(s->back);
	s->back = NULL;
}

/* Interrupted while waiting (a signal, a killed reader): answer EINTR. */
static void on_interrupt(fuse_req_t req, void *data)
{
	struct stream_set *set = data;
	struct pending_read **p, *pr = NULL;
	struct stream *s;

	pthread_mutex_lock(&set->lock);
	for (s = set->all; s && !pr; s = s->next_all)
		for (p = &s->reads; *p; p = &(*p)->next)
			if ((*p)->req == req) {
				pr = *p;
				*p = pr->next;
				if (!pr->next)
					s->reads_tail = p;
				break;
			}
	pthread_mutex_unlock(&set->lock);
	if (pr) {
		free(pr);
		fuse_reply_err(req, EINTR);
	}
}

void stream_read(struct stream *s, fuse_req_t req, size_t size, off_t off,
		 bool nonblock)
{
	struct pending_read *pr = malloc(sizeof(*pr));
	char *buf = NULL;
	ssize_t n = -EAGAIN;

	/* before the lock: an interrupt already pending runs it at once */
	fuse_req_interrupt_func(req, on_interrupt, s->set);
	pthread_mutex_lock(&s->set->lock);
	if (off != s->pos)
		n = stream_reread(s, off, size, &buf);
	else if (!s->reads && stream_readable(s))
		n = stream_take(s, size, &buf);
	else if (!nonblock) {
		if (fuse_req_interrupted(req)) {
			n = -EINTR;
		} else if (pr) {
			pr->req = req;
			pr->size = size;
			pr->next = NULL;
			*s->reads_tail = pr;
			s->reads_tail = &pr->next;
			pr = NULL;
			n = 1; /* answered later */
			req = NULL;
		} else {
			n = -ENOMEM;
		}
	}
	pthread_mutex_unlock(&s->set->lock);
	free(pr);
	if (!req)
		return;
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_buf(req, buf, n);
	free(buf);
}

void stream_poll(struct stream *s, fuse_req_t req, struct fuse_pollhandle *ph)
{
	struct fuse_pollhandle *old = NULL;
	unsigned int revents = 0;

	pthread_mutex_lock(&s->set->lock);
	if (ph) {
		old = s->ph;
		s->ph = ph;
	}
	if (s->len || s->lost)
		revents |= POLLIN | POLLRDNORM;
	if (s->ended)
		revents |= POLLIN | POLLRDNORM | POLLHUP;
	pthread_mutex_unlock(&s->set->lock);
	if (old)
		fuse_pollhandle_destroy(old);
	fuse_reply_poll(req, revents);
}
