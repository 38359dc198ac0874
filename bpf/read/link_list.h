/* SPDX-License-Identifier: GPL-2.0-only */
/* Link enumeration: every link the kernel lists now. */
#ifndef BPFLINKFS_LINKS_H
#define BPFLINKFS_LINKS_H

#include <stdbool.h>
#include <linux/types.h>

#include "link_ids.h"

#define LINKS_HIDDEN_MAX 8

/*
 * What a listing of the daemon leaves out of the kernel's link list (the
 * daemon's own iterator links), and the link iterator it reads the list
 * with. Made at start, filled before the first listing and read-only
 * afterwards, so threads share it; the registry (owned.h) holds it.
 */
struct links;

/**
 * links_open() - a handle that hides nothing and lists link by link
 * Return: 0, or -ENOMEM.
 */
int links_open(struct links **out);

/**
 * links_use_iterator() - list with the link iterator (link_ids.h) from now
 * on; before the first listing. Its own link is hidden.
 * Return: 0, or -errno of link_ids_open() (then listings go on link by
 * link).
 */
int links_use_iterator(struct links *l);

/** links_close() - unload the iterator and free @l; NULL is ignored */
void links_close(struct links *l);

/**
 * links_now() - every BPF link the kernel lists now with its type,
 * ascending by id; from the link iterator, else one BPF_LINK_GET_NEXT_ID
 * per link. The link cache is pruned to them.
 * @out: malloc'd array, the caller frees it
 * Return: the count, or -errno.
 */
int links_now(const struct links *l, struct link_id_type **out);

/**
 * links_hide() - leave link @id out of every listing and lookup: the
 * daemon's own iterator links (task files). At most LINKS_HIDDEN_MAX; 0
 * is ignored. Before the first listing.
 * Return: 0, or -ENOSPC.
 */
int links_hide(struct links *l, __u32 id);

/**
 * links_hidden() - was @id given to links_hide(), or is it the link
 * iterator's own link?
 */
bool links_hidden(const struct links *l, __u32 id);

#endif
