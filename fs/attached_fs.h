/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * attached/: the perf events with a BPF program and no link (bpflinkfs(8),
 * Probes attached without a link), as FUSE sees them (attached_fs.c);
 * bpf/read/bare_perf_events.c finds and describes them.
 *
 * Inode space: bit 63 set, then the holder's pid in bits 40..62, its fd
 * in bits 8..39 and the file index in bits 0..7 (bit 7: the reader class,
 * as for links). Link inodes are (u32 id << 8 | idx) and never reach bit
 * 40; pids are below 2^22 (PID_MAX_LIMIT) and fds below 2^31. pid 0 holds
 * no fd: (0, 0, 0) is attached/ itself, (0, 0, 1..2) its two tables.
 */
#ifndef BPFLINKFS_ATTACHED_FS_H
#define BPFLINKFS_ATTACHED_FS_H

#include <stdbool.h>
#include <sys/stat.h>
#include <fuse_lowlevel.h>

struct bare_perf_set;

#define ATTACHED_DIR_NAME "attached"
#define ATTACHED_INO_BIT (1ULL << 63)
#define ATTACHED_DIR_INO ((fuse_ino_t)ATTACHED_INO_BIT)

/** attached_is_ino() - is @ino in the attached/ space? */
static inline bool attached_is_ino(fuse_ino_t ino)
{
	return (ino & ATTACHED_INO_BIT) != 0;
}

/** attached_reader_dependent() - addr and the tables: two reader classes */
bool attached_reader_dependent(fuse_ino_t ino);

/**
 * attached_lookup() - the inode of @name in directory @parent (attached/ or
 * one of its entries), without the reader-class bit
 * Return: 0, -ENOENT, -ENOTDIR (@parent is a file).
 */
int attached_lookup(fuse_ino_t parent, const char *name, fuse_ino_t *ino);

/**
 * attached_attr() - mode, size and link count of @ino now
 * @sees_addrs: the reader class of the inode
 * @keep: out, a file's value as rendered for its size (malloc'd, the
 * caller frees it), or NULL for a directory
 * Return: 0, -ENOENT (gone: the fd is closed or a link holds it), -errno.
 */
int attached_attr(struct bare_perf_set *s, fuse_ino_t ino, bool sees_addrs,
		  mode_t *mode, off_t *size, nlink_t *nlink, char **keep);

typedef int (*attached_add_fn)(void *ctx, const char *name, fuse_ino_t ino,
			       mode_t mode);

/**
 * attached_list() - the entries of directory @ino now, through @add
 * Return: 0, -ENOENT, -ENOTDIR, or what @add returned.
 */
int attached_list(struct bare_perf_set *s, fuse_ino_t ino, attached_add_fn add,
		  void *ctx);

/**
 * attached_render() - the content of file @ino now, malloc'd into *buf
 * Return: 0, -ENOENT (gone), -EISDIR, -ENOMEM, -errno.
 */
int attached_render(struct bare_perf_set *s, fuse_ino_t ino, bool sees_addrs,
		    char **buf, size_t *len);

#endif
