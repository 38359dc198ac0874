/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The inode scheme of the tree. Inode numbers are computed, never stored:
 * (link id << 8) | (1 + index into link_files[]) for a link's files,
 * (link id << 8) for its directory, and id 0 for the root and its files.
 * A file whose content depends on the reader (addr, the tables) has two
 * inodes, bit 7 set for readers who see kernel addresses: the page cache,
 * which splice and sendfile read from, is per inode, so one class of
 * reader never reads what was rendered for the other.
 * attached/ has an inode space of its own, bit 63 set (attached_fs.h):
 * link inodes never reach bit 40, so the two cannot collide.
 */
#ifndef BPFLINKFS_INO_H
#define BPFLINKFS_INO_H

#include <fuse_lowlevel.h>
#include <linux/types.h>

#define INO(id, idx) ((fuse_ino_t)(id) << 8 | (idx))
#define INO_ID(ino) ((__u32)((ino) >> 8))
#define INO_IDX(ino) ((unsigned int)((ino)&0x7f))
#define INO_SEES 0x80u
#define INO_SEES_ADDRS(ino) (((ino)&INO_SEES) != 0)
#define ROOT_FILE_BASE 2
/*
 * The root's files keep their inode while mounted, so the kernel may keep
 * their dentries (control's excepted, see below). Attributes always have
 * a timeout of 0: sizes and the root's link count follow the content
 * (bpflinkfs(8), THE TREE), and so do the dentries of reader-dependent files.
 */
#define ROOT_TIMEOUT 86400.0
/* A link's files keep their dentries too (tree.c, op_lookup) */
#define LINK_FILE_TIMEOUT 86400.0
/*
 * control is the exception: each LOOKUP of it answers a new node id,
 * INO(generation, CONTROL_NODE), so that each open has an inode of its
 * own. The kernel serialises the writes to one inode (its i_rwsem), and a
 * write request may take long (a large ELF file to resolve): writers on
 * other handles must not wait for it. Its attributes, st_ino included,
 * are control's; its dentry has a timeout of 0, so every path walk looks
 * it up again. (CONTROL_NODE is an index no link file has.)
 */
#define CONTROL_NODE 0x7fu
#define INO_CONTROL INO(0, ROOT_FILE_BASE + RF_CONTROL)

enum root_file_id {
	RF_CONTROL,
	RF_ERROR_LOG,
	RF_FEATURES,
	RF_LINKS,
	RF_JSON,
	RF_METRICS,
	RF_TOP,
	RF_COUNT,
};

#endif
