/* SPDX-License-Identifier: GPL-2.0-only */
/* The tree's directories (dirs.c): listings, and the refused changes. */
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

/*
 * MKDIR, MKNOD, UNLINK, CREATE, RENAME, SYMLINK, LINK: EPERM, since links
 * are made through control and removed with rmdir or -ID
 */
void dirs_mkdir(fuse_req_t req, fuse_ino_t p, const char *n, mode_t m);
void dirs_mknod(fuse_req_t req, fuse_ino_t p, const char *n, mode_t m,
		dev_t rdev);
void dirs_unlink(fuse_req_t req, fuse_ino_t p, const char *n);
void dirs_create(fuse_req_t req, fuse_ino_t p, const char *n, mode_t m,
		 struct fuse_file_info *fi);
void dirs_rename(fuse_req_t req, fuse_ino_t p, const char *n, fuse_ino_t np,
		 const char *nn, unsigned int flags);
void dirs_symlink(fuse_req_t req, const char *target, fuse_ino_t p,
		  const char *n);
void dirs_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t np, const char *nn);

#endif
