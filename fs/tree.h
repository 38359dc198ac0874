/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BPFLINKFS_TREE_H
#define BPFLINKFS_TREE_H

#include <fuse_lowlevel.h>

/**
 * The FUSE low-level operations of the tree (fs/tree.c); each request's
 * userdata is the daemon's struct daemon (daemon.h).
 */
extern const struct fuse_lowlevel_ops tree_ops;

#endif
