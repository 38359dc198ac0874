/* SPDX-License-Identifier: GPL-2.0-only */
/* The tree's directories (dirs.c): OPENDIR, READDIR, RELEASEDIR. */
#ifndef BPFLINKFS_DIRS_H
#define BPFLINKFS_DIRS_H

#include <fuse_lowlevel.h>

/** dirs_opendir() - OPENDIR: list the directory @ino now, or ENOTDIR */
void dirs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);

/** dirs_readdir() - READDIR from the listing taken at OPENDIR */
void dirs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		  struct fuse_file_info *fi);

/** dirs_releasedir() - RELEASEDIR */
void dirs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);

#endif
