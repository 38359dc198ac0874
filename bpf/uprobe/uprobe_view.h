/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A PATH in the writer's view of the file system (/proc/PID/root, cwd).
 */
#ifndef BPFLINKFS_UPROBE_VIEW_H
#define BPFLINKFS_UPROBE_VIEW_H

#include <sys/types.h>

#include "uprobe_target.h"

/**
 * uprobe_view_resolve() - find @text (absolute or relative) as @pid sees it
 * @text: the path
 * @pid: as for uprobe_resolve_path()
 * @written: the PATH as written, for messages
 * @out: out, the daemon's path to the file (see uprobe_resolve_path())
 * @mode: out, the file's type and mode
 * @terr: out, a message on failure (may be NULL)
 *
 * Return: 0, or -errno (-EINVAL: inside the daemon's mount, or what an
 * unseen writer cannot name).
 */
int uprobe_view_resolve(const char *text, pid_t pid, const char *written,
			char *out, mode_t *mode, struct uprobe_err *terr);

/**
 * uprobe_view_outside_mount() - refuse a path (of the daemon's own view:
 * absolute, or relative to its working directory) that leads into the
 * daemon's own mount, told by the device of each directory on the way
 * before anything inside is looked up
 * @text: the path
 * @terr: out, the message when it does (may be NULL)
 *
 * Return: 0 (it does not, or the path cannot be followed: the caller's own
 * look-up reports that), -EINVAL (it does), -ENOMEM.
 */
int uprobe_view_outside_mount(const char *text, struct uprobe_err *terr);

#endif
