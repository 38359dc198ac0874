// SPDX-License-Identifier: GPL-2.0-only
/*
 * The event ring reader: one thread waits on the ring (libbpf ring_buffer
 * on an epoll set of ours, beside an eventfd that stops it) and hands each
 * record to its caller; the switch and drop counters are the program's maps.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "counter_load.h"
#include "event_ring.h"

struct events_reader {
	struct counter_events maps;
	struct ring_buffer *rb;
	const struct events_ops *ops;
	void *ctx;
	int epfd;
	int stop_fd; /* eventfd: written once to stop the thread */
	pthread_t thread;
	bool running;
};

static int on_ring_record(void *ctx, void *data, size_t size)
{
	struct events_reader *er = ctx;

	if (size >= sizeof(struct events_record))
		er->ops->record(er->ctx, data);
	return 0;
}

static void *reader_main(void *arg)
{
	struct events_reader *er = arg;
	struct epoll_event ev[2];
	bool stop = false;
	int i, n;

	pthread_setname_np(pthread_self(), "bpflinkfs-ring");
	while (!stop) {
		n = epoll_wait(er->epfd, ev, 2, EVENTS_TICK_MS);
		for (i = 0; i < n; i++)
			if (ev[i].data.fd == er->stop_fd)
				stop = true;
		/* also on a timeout: what a missed wake-up left is taken now */
		if (!stop)
			ring_buffer__consume(er->rb);
		if (!stop)
			er->ops->batch_end(er->ctx);
	}
	return NULL;
}

static void reader_free(struct events_reader *er)
{
	ring_buffer__free(er->rb);
	if (er->epfd >= 0)
		close(er->epfd);
	if (er->stop_fd >= 0)
		close(er->stop_fd);
	free(er);
}

static int epoll_add(int epfd, int fd)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int events_reader_start(struct events_reader **out, struct counter *c,
			const struct events_ops *ops, void *ctx)
{
	struct events_reader *er = calloc(1, sizeof(*er));
	int err;

	if (!er)
		return -ENOMEM;
	er->ops = ops;
	er->ctx = ctx;
	er->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	er->epfd = epoll_create1(EPOLL_CLOEXEC);
	err = er->stop_fd < 0 || er->epfd < 0 ? -errno : 0;
	if (!err)
		err = counter_events_maps(c, &er->maps);
	if (!err) {
		er->rb = ring_buffer__new(er->maps.ring_fd, on_ring_record, er,
					  NULL);
		err = er->rb ? 0 : (errno ? -errno : -ENOMEM);
	}
	if (!err)
		err = epoll_add(er->epfd, ring_buffer__epoll_fd(er->rb));
	if (!err)
		err = epoll_add(er->epfd, er->stop_fd);
	if (!err)
		err = -pthread_create(&er->thread, NULL, reader_main, er);
	if (err) {
		reader_free(er);
		return err;
	}
	er->running = true;
	*out = er;
	return 0;
}

void events_reader_stop(struct events_reader *er)
{
	uint64_t one = 1;
	uint32_t slot, zero = 0;

	if (!er)
		return;
	if (er->running && write(er->stop_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(er->thread, NULL);
	/* links outlive the daemon only in a pin_dir: leave them counting */
	if (*er->maps.active)
		for (slot = 0; slot < er->maps.slots; slot++)
			bpf_map_update_elem(er->maps.on_fd, &slot, &zero,
					    BPF_ANY);
	__atomic_store_n(er->maps.active, 0, __ATOMIC_RELAXED);
	reader_free(er);
}

int events_switch(struct events_reader *er, uint32_t slot, uint32_t flags)
{
	uint32_t old = 0;

	if (bpf_map_lookup_elem(er->maps.on_fd, &slot, &old))
		return -errno;
	if (bpf_map_update_elem(er->maps.on_fd, &slot, &flags, BPF_ANY))
		return -errno;
	if (!old && flags)
		__atomic_add_fetch(er->maps.active, 1, __ATOMIC_SEQ_CST);
	else if (old && !flags)
		__atomic_sub_fetch(er->maps.active, 1, __ATOMIC_SEQ_CST);
	return 0;
}

int events_lost(struct events_reader *er, uint32_t slot, uint64_t *lost)
{
	uint64_t *vals = calloc(er->maps.ncpus, sizeof(*vals)), sum = 0;
	int i, err;

	if (!vals)
		return -ENOMEM;
	err = bpf_map_lookup_elem(er->maps.lost_fd, &slot, vals) ? -errno : 0;
	for (i = 0; !err && i < er->maps.ncpus; i++)
		sum += vals[i];
	free(vals);
	if (!err)
		*lost = sum;
	return err;
}

/* @s, at most @max bytes, with tab, newline and backslash escaped */
static size_t put_escaped(char *out, const char *s, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < max && s[i]; i++) {
		char c = s[i] == '\t' ? 't' : s[i] == '\n' ? 'n' : s[i];

		if (c != s[i] || c == '\\')
			out[n++] = '\\';
		out[n++] = c;
	}
	return n;
}

int events_line(const struct events_record *r, const char *target, bool retval,
		char *buf, size_t len)
{
	size_t tlen = target ? strlen(target) : 0;
	int n;

	/* the fixed columns need < 100 bytes, COMM and TARGET twice theirs */
	if (len < 100 + 2 * sizeof(r->comm) + 2 * tlen + 2)
		return -ENOSPC;
	n = snprintf(buf, len, "%" PRIu64 ".%09" PRIu64 "\t%u\t%u\t%u\t",
		     (uint64_t)(r->ns / 1000000000),
		     (uint64_t)(r->ns % 1000000000), r->cpu,
		     (uint32_t)(r->pid_tgid >> 32), (uint32_t)r->pid_tgid);
	n += put_escaped(buf + n, r->comm, sizeof(r->comm));
	if (target) {
		buf[n++] = '\t';
		n += put_escaped(buf + n, target, tlen);
	}
	if (retval && r->flags & EVENTS_REC_RETVAL)
		n += snprintf(buf + n, len - n, "\t0x%" PRIx64,
			      (uint64_t)r->retval);
	else if (retval) /* a fexit of a function returning void */
		n += snprintf(buf + n, len - n, "\t-");
	buf[n++] = '\n';
	buf[n] = 0;
	return n;
}
