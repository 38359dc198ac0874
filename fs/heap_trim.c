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
#include <stdlib.h>

#include "heap_trim.h"
#include "stop_thread.h"

struct heap_trim {
	unsigned int period_ms;
	size_t min_free;
	struct stop_thread st;
};

static void *trim_main(void *arg)
{
	struct heap_trim *t = arg;
	struct pollfd pfd = {.fd = t->st.stop_fd, .events = POLLIN};
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
	err = stop_thread_start(&t->st, trim_main, t);
	if (err) {
		free(t);
		return err;
	}
	*out = t;
	return 0;
}

void heap_trim_stop(struct heap_trim *t)
{
	if (!t)
		return;
	stop_thread_stop(&t->st);
	free(t);
}
