/* SPDX-License-Identifier: GPL-2.0-only */
/* The unmount watcher of the events streams (mount_watch.c). */
#ifndef BPFLINKFS_MOUNT_WATCH_H
#define BPFLINKFS_MOUNT_WATCH_H

struct mount_watch;

/**
 * mount_watch_start() - call @gone(@ctx) once, from a thread of its own,
 * when the bpflinkfs mount at @mountpoint leaves /proc/self/mountinfo
 * (umount, umount -l)
 * @out: out, the watcher
 * @mountpoint: where the daemon mounted; the newest fuse.bpflinkfs mount
 *              there is the one watched (by its mount id)
 *
 * Return: 0, or -ENOENT (no bpflinkfs mount there), -errno of realpath(),
 * -ENOMEM, or -errno of stop_thread_start() (no eventfd, no thread).
 */
int mount_watch_start(struct mount_watch **out, const char *mountpoint,
		      void (*gone)(void *ctx), void *ctx);

/**
 * mount_watch_stop() - stop the thread (waiting for a @gone call under
 * way) and free @w; NULL is a no-op
 */
void mount_watch_stop(struct mount_watch *w);

#endif
