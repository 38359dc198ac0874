/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every BPF link id of the host in one read: a BPF iterator over the
 * kernel's links (iter/bpf_link, kernel 5.19+), so that a listing costs a
 * few read(2) calls instead of one BPF_LINK_GET_NEXT_ID per link.
 */
#ifndef BPFLINKFS_LINK_IDS_H
#define BPFLINKFS_LINK_IDS_H

#include <stddef.h>
#include <linux/types.h>

struct link_id_type {
	__u32 id;
	__u32 type; /* BPF_LINK_TYPE_* */
};

/**
 * link_ids_open() - load the iterator program and attach it
 *
 * The attachment is a BPF link of type iter that the daemon holds; it is
 * left out of what link_ids_read() returns.
 *
 * Return: 0, or -errno (the kernel has no link iterator, or BTF lacks it);
 * then link_ids_read() answers -EOPNOTSUPP and callers enumerate with
 * BPF_LINK_GET_NEXT_ID.
 */
int link_ids_open(void);

/** link_ids_own() - the id of the daemon's iterator link, 0 when none */
__u32 link_ids_own(void);

/** link_ids_close() - detach and unload; link_ids_read() then fails */
void link_ids_close(void);

/**
 * link_ids_read() - every live link now, in ascending id order
 * @out: malloc'd array, the caller frees it
 * Return: the count, or -EOPNOTSUPP (no iterator), -ENOMEM, -errno of
 * read(2).
 */
int link_ids_read(struct link_id_type **out);

#endif
