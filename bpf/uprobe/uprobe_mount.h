/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's own FUSE mount, which no uprobe PATH may lead into.
 */
#ifndef BPFLINKFS_UPROBE_MOUNT_H
#define BPFLINKFS_UPROBE_MOUNT_H

#include <sys/types.h>

/**
 * uprobe_own_mount_dev() - the daemon's own FUSE mount (see
 * uprobe_exclude_dir())
 * @dev: out, its device, from /proc/self/mountinfo: found without touching
 *       the mount, and looked up again until found there
 * @dir: out, its directory (PATH_MAX bytes), or NULL
 * Return: 0, or -ENOENT when no directory is excluded.
 */
int uprobe_own_mount_dev(dev_t *dev, char *dir);

#endif
