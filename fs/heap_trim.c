// SPDX-License-Identifier: GPL-2.0-only
/*
 * A thread that gives the heap's free pages back to the kernel a few
 * seconds after reads freed them. The daemon keeps freed table buffers in
 * its heap (fs/main.c: on this kind of VM a links.json of 10,000 links
 * spent half its time faulting in fresh pages), which left its RSS at the
 * largest table ever read: 582 B a link after one links.json of 10,000.
 * A trim every few seconds keeps the reuse within a burst of reads and
 * gives the pages back after it.
 */
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "heap_trim.h"

struct heap_trim {
	unsigned int period_ms;
	size_t min_free;
	int stop_fd; /* eventfd: written once to stop the thread */
	pthread_t thread;
};

static void *trim_main(void *arg)
{
	struct heap_trim *t = arg;
	struct pollfd pfd = {.fd = t->stop_fd, .events = POLLIN};
	struct mallinfo2 mi;

	while (poll(&pfd, 1, (int)t->period_ms) == 0) {
		mi = mallinfo2();
		if (mi.fordblks >= t->min_free)
			malloc_trim(0);
	}
	return NULL;
}

int heap_trim_start(struct heap_trim **out, unsigned int period_ms,
		    size_t min_free)
{
	struct heap_trim *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return -ENOMEM;
	t->period_ms = period_ms;
	t->min_free = min_free;
	t->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (t->stop_fd < 0) {
		err = -errno;
		free(t);
		return err;
	}
	err = pthread_create(&t->thread, NULL, trim_main, t);
	if (err) {
		close(t->stop_fd);
		free(t);
		return -err;
	}
	*out = t;
	return 0;
}

void heap_trim_stop(struct heap_trim *t)
{
	uint64_t one = 1;

	if (!t)
		return;
	if (write(t->stop_fd, &one, sizeof(one)) != sizeof(one))
		pthread_cancel(t->thread); /* poll() is a cancellation point */
	pthread_join(t->thread, NULL);
	close(t->stop_fd);
	free(t);
}
