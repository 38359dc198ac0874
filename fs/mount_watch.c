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
#include "stop_thread.h"

struct mount_watch {
	void (*gone)(void *ctx);
	void *ctx;
	int mount_id;
	struct stop_thread st;
};

/* Is mount @id in /proc/self/mountinfo? Its first field is the mount id. */
static bool mount_present(int fd, int id)
{
	char buf[8192], *line, *save;
	bool found = false;
	ssize_t n;
	size_t keep = 0;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return true;
	while (!found &&
	       (n = read(fd, buf + keep, sizeof(buf) - 1 - keep)) > 0) {
		char *last;

		buf[keep + n] = 0;
		last = strrchr(buf, '\n');
		if (!last)
			break;
		*last = 0;
		for (line = strtok_r(buf, "\n", &save); line && !found;
		     line = strtok_r(NULL, "\n", &save))
			found = atoi(line) == id;
		keep = strlen(last + 1 < buf + keep + n ? last + 1 : "");
		memmove(buf, last + 1, keep);
	}
	return n < 0 || found;
}

static bool is_octal(char c)
{
	return c >= '0' && c <= '7';
}

/* The octal escapes of mountinfo (\040 for a blank ...) decoded in place. */
static void unescape_octal(char *s)
{
	char *d = s;

	for (; *s; s++, d++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    is_octal(s[2]) && is_octal(s[3])) {
			*d = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				    (s[3] - '0'));
			s += 3;
		} else {
			*d = *s;
		}
	}
	*d = 0;
}

/* The id of the newest bpflinkfs mount on @real, or -ENOENT. */
static int mount_id_of(const char *real)
{
	char line[4096 + PATH_MAX], point[PATH_MAX], *dash;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int id = -ENOENT, mid;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		dash = strstr(line, " - ");
		if (sscanf(line, "%d %*s %*s %*s %4095s", &mid, point) != 2 ||
		    !dash || strncmp(dash + 3, "fuse.bpflinkfs ", 15))
			continue;
		unescape_octal(point);
		if (strcmp(point, real) == 0)
			id = mid;
	}
	fclose(f);
	return id;
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
