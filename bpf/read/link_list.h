/* SPDX-License-Identifier: GPL-2.0-only */
/* Link enumeration: every link the kernel lists now. */
#ifndef BPFLINKFS_LINK_LIST_H
#define BPFLINKFS_LINK_LIST_H

#include <stdbool.h>
#include <linux/types.h>

#include "link_ids.h"

#define LINK_LIST_HIDDEN_MAX 8

/*
 * What a listing of the daemon leaves out of the kernel's link list (the
 * daemon's own iterator links), and the link iterator it reads the list
 * with. Made at start, filled before the first listing and read-only
 * afterwards, so threads share it; the registry (owned.h) holds it.
 */
struct link_list;

/**
 * link_list_open() - a handle that hides nothing and lists link by link
 * Return: 0, or -ENOMEM.
 */
int link_list_open(struct link_list **out);

/**
 * link_list_use_iterator() - list with the link iterator (link_ids.h) from now
 * on; before the first listing. Its own link is hidden.
 * Return: 0, or -errno of link_ids_open() (then listings go on link by
 * link).
 */
int link_list_use_iterator(struct link_list *l);

/** link_list_close() - unload the iterator and free @l; NULL is ignored */
void link_list_close(struct link_list *l);

/**
 * link_list_now() - every BPF link the kernel lists now with its type,
 * ascending by id; from the link iterator, else one BPF_LINK_GET_NEXT_ID
 * per link. The link cache is pruned to them.
 * @out: malloc'd array, the caller frees it
 * Return: the count, or -errno.
 */
int link_list_now(const struct link_list *l, struct link_id_type **out);

/**
 * link_list_seen() - a list of every link read elsewhere (the link-program
 * iterator, link_progs.h) stands for link_list_now()'s: the link cache is
 * pruned to @v, @n entries ascending by id
 */
void link_list_seen(const struct link_id_type *v, size_t n);

/**
 * link_list_hide() - leave link @id out of every listing and lookup: the
 * daemon's own iterator links (task files). At most LINK_LIST_HIDDEN_MAX; 0
 * is ignored. Before the first listing.
 * Return: 0, or -ENOSPC.
 */
int link_list_hide(struct link_list *l, __u32 id);

/**
 * link_list_iterating() - does @l list links with the link iterator (one read
 * for every id), rather than one BPF_LINK_GET_NEXT_ID per link
 */
bool link_list_iterating(const struct link_list *l);

/**
 * link_list_hidden() - was @id given to link_list_hide(), or is it the link
 * iterator's own link?
 */
bool link_list_hidden(const struct link_list *l, __u32 id);

#endif
