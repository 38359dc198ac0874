// SPDX-License-Identifier: GPL-2.0-only
/* A thread stopped by an eventfd (stop_thread.h). */
#include <errno.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "stop_thread.h"

int stop_thread_start(struct stop_thread *st, void *(*fn)(void *), void *arg)
{
	int err;

	st->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (st->stop_fd < 0)
		return -errno;
	err = pthread_create(&st->thread, NULL, fn, arg);
	if (err) {
		close(st->stop_fd);
		st->stop_fd = -1;
		return -err;
	}
	return 0;
}

void stop_thread_stop(struct stop_thread *st)
{
	uint64_t one = 1;

	/* a write of 1 fails only when the counter would pass 2^64 - 2,
	 * which one writer never makes; poll() is a cancellation point */
	if (write(st->stop_fd, &one, sizeof(one)) != sizeof(one))
		pthread_cancel(st->thread);
	pthread_join(st->thread, NULL);
	close(st->stop_fd);
	st->stop_fd = -1;
}
