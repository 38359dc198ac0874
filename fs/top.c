// SPDX-License-Identifier: GPL-2.0-only
/*
 * The `top` stream: a thread that, while readers are open, samples every
 * link once per interval (top_sample.c) and queues the block to every
 * reader's stream (stream.c, as `events` does). The set's lock guards the
 * hub; sampling runs without it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "access.h"
#include "mount_watch.h"
#include "prog_stats.h"
#include "stream.h"
#include "top.h"
#include "top_sample.h"

/* a block is ~80 bytes a link that ran; a reader further behind loses
 * whole blocks (`# lost N`: N blocks) */
#define TOP_QUEUE_BYTES (4u << 20)

struct top_stream {
	struct stream base;
	struct top_hub *hub;
};

struct top_hub {
	struct stream_set set; /* its lock guards the fields below */
	pthread_cond_t wake;   /* a reader came, the last went, or stop */
	pthread_t thread;
	bool thread_started;
	bool stopping, ended;
	int readers;
	struct owned *reg;
	struct stats_switch *sw;
	uint64_t interval_ns;
	struct mount_watch *watch;
};

static struct timespec mono_after(uint64_t ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ns += (uint64_t)ts.tv_nsec;
	ts.tv_sec += ns / 1000000000;
	ts.tv_nsec = ns % 1000000000;
	return ts;
}

/* Queue @block to every open stream and answer who waits for it. */
static void hub_publish(struct top_hub *hub, const char *block, size_t n)
{
	struct outbox out = {.nr = 0};
	struct stream *s;
	bool more;

	pthread_mutex_lock(&hub->set.lock);
	for (s = hub->set.all; s; s = s->next_all)
		if (!s->ended)
			stream_push(s, block, n);
	pthread_mutex_unlock(&hub->set.lock);
	do {
		pthread_mutex_lock(&hub->set.lock);
		for (s = hub->set.all; s && !outbox_full(&out); s = s->next_all)
			stream_serve(s, &out);
		more = outbox_full(&out);
		pthread_mutex_unlock(&hub->set.lock);
		outbox_send(&out);
	} while (more);
}

/*
 * Wait, with the lock held, until readers are open and the deadline has
 * passed. Return: false to stop; *fresh when sampling starts again (no
 * reader in between: the last sample is too old to compare with), then
 * at once.
 */
static bool hub_wait(struct top_hub *hub, const struct timespec *deadline,
		     bool *fresh)
{
	bool due = false;

	*fresh = false;
	while (!hub->stopping) {
		if (!hub->readers) {
			*fresh = true;
			pthread_cond_wait(&hub->wake, &hub->set.lock);
			continue;
		}
		if (*fresh || due)
			return true;
		due = pthread_cond_timedwait(&hub->wake, &hub->set.lock,
					     deadline) == ETIMEDOUT;
	}
	return false;
}

static void *top_thread(void *arg)
{
	struct top_hub *hub = arg;
	struct top_sample prev = {0}, cur;
	struct timespec deadline = mono_after(0);
	bool fresh;
	size_t n;
	char *block;

	pthread_mutex_lock(&hub->set.lock);
	while (hub_wait(hub, &deadline, &fresh)) {
		pthread_mutex_unlock(&hub->set.lock);
		deadline = mono_after(hub->interval_ns);
		if (fresh)
			top_sample_free(&prev);
		block = NULL;
		if (!top_sample_take(hub->reg, &prev, &cur)) {
			if (prev.mono_ns)
				block = top_block(hub->reg, &prev, &cur, &n);
			top_sample_free(&prev);
			prev = cur;
		}
		if (block)
			hub_publish(hub, block, n);
		free(block);
		pthread_mutex_lock(&hub->set.lock);
	}
	pthread_mutex_unlock(&hub->set.lock);
	top_sample_free(&prev);
	return NULL;
}

int top_hub_start(struct top_hub **out, struct owned *reg,
		  struct stats_switch *sw, unsigned int interval_ms)
{
	struct top_hub *hub = calloc(1, sizeof(*hub));
	pthread_condattr_t ca;
	int err;

	if (!hub)
		return -ENOMEM;
	stream_set_init(&hub->set);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&hub->wake, &ca);
	pthread_condattr_destroy(&ca);
	hub->reg = reg;
	hub->sw = sw;
	hub->interval_ns = (uint64_t)interval_ms * 1000000;
	err = -pthread_create(&hub->thread, NULL, top_thread, hub);
	if (err) {
		pthread_cond_destroy(&hub->wake);
		stream_set_destroy(&hub->set);
		free(hub);
		return err;
	}
	hub->thread_started = true;
	*out = hub;
	return 0;
}

/* Every stream ends: blocked reads return what is queued, or EOF. */
static void hub_end_streams(struct top_hub *hub)
{
	struct outbox out = {.nr = 0};
	struct stream *s;
	bool more;

	do {
		pthread_mutex_lock(&hub->set.lock);
		hub->ended = true;
		for (s = hub->set.all; s && !outbox_full(&out); s = s->next_all)
			if (!s->ended || s->ph || s->reads) {
				stream_end(s);
				stream_serve(s, &out);
			}
		more = outbox_full(&out);
		pthread_mutex_unlock(&hub->set.lock);
		outbox_send(&out);
	} while (more);
}

static void on_unmount(void *ctx)
{
	hub_end_streams(ctx);
}

int top_hub_watch_mount(struct top_hub *hub, const char *mountpoint)
{
	return mount_watch_start(&hub->watch, mountpoint, on_unmount, hub);
}

void top_hub_stop(struct top_hub *hub)
{
	if (!hub)
		return;
	mount_watch_stop(hub->watch);
	hub->watch = NULL;
	pthread_mutex_lock(&hub->set.lock);
	hub->stopping = true;
	pthread_cond_broadcast(&hub->wake);
	pthread_mutex_unlock(&hub->set.lock);
	if (hub->thread_started)
		pthread_join(hub->thread, NULL);
	hub->thread_started = false;
	hub_end_streams(hub);
}

void top_hub_free(struct top_hub *hub)
{
	if (!hub)
		return;
	top_hub_stop(hub);
	pthread_cond_destroy(&hub->wake);
	stream_set_destroy(&hub->set);
	free(hub);
}

int top_file_open(fuse_req_t req, struct fuse_file_info *fi,
		  struct top_hub *hub, struct top_stream **out)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);

	int err;

	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EACCES;
	err = watcher_access(ctx->uid, ctx->pid);
	if (err)
		return err;
	if (!hub)
		return -EOPNOTSUPP;
	/*
	 * Seekable, though reads ignore the offset: GNU head seeks back
	 * over what it read past its last line, and fails where it cannot.
	 */
	return top_stream_open(hub, out);
}

int top_stream_open(struct top_hub *hub, struct top_stream **out)
{
	struct top_stream *s = calloc(1, sizeof(*s));
	int err =
		s ? stream_init(&s->base, &hub->set, TOP_QUEUE_BYTES) : -ENOMEM;

	if (!err) {
		pthread_mutex_lock(&hub->set.lock);
		err = hub->ended ? -ENOENT : 0;
		/* the first reader turns statistics on */
		if (!err && !hub->readers)
			err = stats_switch_hold(hub->sw);
		if (!err) {
			hub->readers++;
			s->hub = hub;
			stream_attach(&s->base);
			pthread_cond_broadcast(&hub->wake);
		}
		pthread_mutex_unlock(&hub->set.lock);
	}
	if (err) {
		if (s)
			stream_free_queue(&s->base);
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

void top_stream_read(struct top_stream *s, fuse_req_t req, size_t size,
		     off_t off, bool nonblock)
{
	stream_read(&s->base, req, size, off, nonblock);
}

void top_stream_poll(struct top_stream *s, fuse_req_t req,
		     struct fuse_pollhandle *ph)
{
	stream_poll(&s->base, req, ph);
}

void top_stream_close(struct top_stream *s)
{
	struct top_hub *hub;
	struct outbox out = {.nr = 0};

	if (!s)
		return;
	hub = s->hub;
	pthread_mutex_lock(&hub->set.lock);
	stream_detach(&s->base, &out);
	/* the last reader turns statistics off */
	if (--hub->readers == 0) {
		stats_switch_drop(hub->sw);
		pthread_cond_broadcast(&hub->wake);
	}
	pthread_mutex_unlock(&hub->set.lock);
	outbox_send(&out);
	stream_free_queue(&s->base);
	free(s);
}
