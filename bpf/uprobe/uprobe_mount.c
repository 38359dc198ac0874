// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's own mount, which no uprobe PATH may lead into: where it is
 * (uprobe_exclude_dir()) and its device, from /proc/self/mountinfo.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mountinfo.h"
#include "uprobe_mount.h"
#include "uprobe_target.h"

/* ---- the daemon's own mount ---- */

/* The daemon's mountpoint, set once at start (uprobe_exclude_dir()):
 * process-wide because a process serves one mount (fs/main.c mounts
 * once), and resolution needs it deep inside path walks that carry no
 * daemon handle */
static pthread_mutex_t mnt_lock = PTHREAD_MUTEX_INITIALIZER;
static char excluded_dir[PATH_MAX];
static dev_t excluded_dev;
static bool excluded_known;

void uprobe_exclude_dir(const char *dir)
{
	pthread_mutex_lock(&mnt_lock);
	snprintf(excluded_dir, sizeof(excluded_dir), "%s", dir ? dir : "");
	excluded_known = false;
	pthread_mutex_unlock(&mnt_lock);
}

/* mountinfo_each()'s callback: note a FUSE mount on excluded_dir */
static int note_excluded(const struct mountinfo_entry *m, void *arg)
{
	if (!strncmp(m->fstype, "fuse", 4) &&
	    !strcmp(m->mount_point, excluded_dir)) {
		excluded_dev = makedev(m->major, m->minor);
		excluded_known = true;
	}
	return 0;
}

/*
 * The device of the FUSE mount on excluded_dir, from /proc/self/mountinfo
 * (the topmost one, listed last): found without touching the mount. Lock
 * held.
 */
static void find_excluded_dev(void)
{
	struct statx st;

	mountinfo_each(-1, note_excluded, NULL);
	/* not listed (yet?): what is mounted there, without a sync */
	if (!excluded_known &&
	    !statx(AT_FDCWD, excluded_dir, AT_STATX_DONT_SYNC, STATX_TYPE, &st))
		excluded_dev = makedev(st.stx_dev_major, st.stx_dev_minor);
}

int uprobe_own_mount_dev(dev_t *dev, char *dir)
{
	int err = -ENOENT;

	pthread_mutex_lock(&mnt_lock);
	if (!excluded_known && excluded_dir[0])
		find_excluded_dev();
	if (excluded_dir[0]) {
		*dev = excluded_dev;
		if (dir)
			strcpy(dir, excluded_dir);
		err = 0;
	}
	pthread_mutex_unlock(&mnt_lock);
	return err;
}
