// SPDX-License-Identifier: GPL-2.0-only
/*
 * The unmount watcher of the events streams: a thread that waits on
 * /proc/self/mountinfo (POLLPRI when the mount table changes) and calls
 * back once this mount is gone, lazy unmounts included, when the FUSE
 * session may still be waiting for the last user of the mount.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mount_watch.h"
#include "mountinfo.h"
#include "stop_thread.h"

struct mount_watch {
	void (*gone)(void *ctx);
	void *ctx;
	int mount_id;
	struct stop_thread st;
};

/* mountinfo_each()'s callback: 1 when @m is mount *@arg */
static int is_mount_id(const struct mountinfo_entry *m, void *arg)
{
	return m->id == *(int *)arg;
}

/* Is mount @id in mountinfo @fd? Yes too when mountinfo cannot be read. */
static bool mount_present(int fd, int id)
{
	return mountinfo_each(fd, is_mount_id, &id) != 0;
}

/* mount_id_of()'s search: the mount point, and the last id found there */
struct id_search {
	const char *real;
	int id;
};

static int note_ours(const struct mountinfo_entry *m, void *arg)
{
	struct id_search *s = arg;

	if (!strcmp(m->fstype, "fuse.bpflinkfs") &&
	    !strcmp(m->mount_point, s->real))
		s->id = m->id;
	return 0;
}

/* The id of the newest bpflinkfs mount on @real, or -ENOENT. */
static int mount_id_of(const char *real)
{
	struct id_search s = {real, -ENOENT};
	int err = mountinfo_each(-1, note_ours, &s);

	return err ? err : s.id;
}

static void *watch_main(void *arg)
{
	struct mount_watch *w = arg;
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	struct pollfd pfd[2] = {{.fd = fd, .events = POLLPRI},
				{.fd = w->st.stop_fd, .events = POLLIN}};

	pthread_setname_np(pthread_self(), "bpflinkfs-umnt");
	while (fd >= 0 && poll(pfd, 2, -1) >= 0 && !pfd[1].revents) {
		if (pfd[0].revents & (POLLPRI | POLLERR) &&
		    !mount_present(fd, w->mount_id)) {
			w->gone(w->ctx);
			break;
		}
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

int mount_watch_start(struct mount_watch **out, const char *mountpoint,
		      void (*gone)(void *ctx), void *ctx)
{
	struct mount_watch *w;
	char real[PATH_MAX];
	int id, err;

	if (!realpath(mountpoint, real))
		return -errno;
	id = mount_id_of(real);
	if (id < 0)
		return id;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->gone = gone;
	w->ctx = ctx;
	w->mount_id = id;
	err = stop_thread_start(&w->st, watch_main, w);
	if (err) {
		free(w);
		return err;
	}
	*out = w;
	return 0;
}

void mount_watch_stop(struct mount_watch *w)
{
	if (!w)
		return;
	stop_thread_stop(&w->st);
	free(w);
}
