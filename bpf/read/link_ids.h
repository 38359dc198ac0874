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

/* The loaded iterator: a handle made by link_ids_open(). */
struct link_ids;

/**
 * link_ids_open() - load the iterator program and attach it
 * @out: out, the handle; NULL on failure
 *
 * The attachment is a BPF link of type iter that the daemon holds; it is
 * left out of what link_ids_read() returns.
 *
 * Return: 0, or -errno (the kernel has no link iterator, or BTF lacks it);
 * then callers enumerate with BPF_LINK_GET_NEXT_ID.
 */
int link_ids_open(struct link_ids **out);

/** link_ids_own() - the id of @it's own iterator link, 0 when @it is NULL */
__u32 link_ids_own(const struct link_ids *it);

/** link_ids_close() - detach, unload and free @it; NULL is ignored */
void link_ids_close(struct link_ids *it);

/**
 * link_ids_read() - every live link now, in ascending id order
 * @it: the iterator, or NULL (then -EOPNOTSUPP)
 * @out: malloc'd array, the caller frees it
 * Return: the count, or -EOPNOTSUPP (no iterator), -ENOMEM, -errno of
 * read(2).
 */
int link_ids_read(const struct link_ids *it, struct link_id_type **out);

#endif
