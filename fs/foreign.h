/* SPDX-License-Identifier: GPL-2.0-only */
/* rmdir of a link directory: an own link removed, a foreign one detached
 * with -o detach (foreign.c). */
#ifndef BPFLINKFS_FOREIGN_H
#define BPFLINKFS_FOREIGN_H

#include <linux/types.h>
#include <fuse_lowlevel.h>

/**
 * link_rmdir() - rmdir MOUNTPOINT/@id for the process behind @req
 *
 * A link this mount created is removed (owned_remove()), by root with the
 * capabilities to make links (writer_may_attach()). Any other link is
 * detached (link_detach_id()) when the mount has -o detach and the
 * requester is root with CAP_SYS_ADMIN; every such attempt, done or
 * refused, goes to the daemon's log with the requester's uid, pid and
 * comm. A link type the kernel cannot detach gives EOPNOTSUPP and an
 * error_log entry naming its holders and pins.
 *
 * Return: 0, -EACCES (not root), -EPERM (no capability; a foreign link
 * without -o detach), -ENOENT, -EOPNOTSUPP, -errno of bpf(2).
 */
int link_rmdir(fuse_req_t req, __u32 id);

#endif
