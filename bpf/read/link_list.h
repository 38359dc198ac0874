/* SPDX-License-Identifier: GPL-2.0-only */
/* Link enumeration: every link the kernel lists now. */
#ifndef BPFLINKFS_LINKS_H
#define BPFLINKFS_LINKS_H

#include <stdbool.h>
#include <linux/types.h>

#include "link_ids.h"

struct owned;

#define LINKS_HIDDEN_MAX 8

/**
 * links_now() - every BPF link the kernel lists now with its type,
 * ascending by id; from the link iterator, else one BPF_LINK_GET_NEXT_ID
 * per link. The link cache is pruned to them.
 * @out: malloc'd array, the caller frees it
 * Return: the count, or -errno.
 */
int links_now(struct link_id_type **out);

/**
 * listed_link_ids() - ids of every link now (any type), ascending, but
 * none of this mount's links being removed and not the daemon's own
 * iterator link
 * @o: the registry whose removed links are left out
 * @ids: out, malloc'd array (caller frees)
 * Return: the count, or -errno.
 */
int listed_link_ids(struct owned *o, __u32 **ids);

/**
 * links_hide() - leave link @id out of every listing and lookup: the
 * daemon's own iterator links (link ids, task files). At most
 * LINKS_HIDDEN_MAX; 0 is ignored.
 * Return: 0, or -ENOSPC.
 */
int links_hide(__u32 id);

/** links_hidden() - was @id given to links_hide()? */
bool links_hidden(__u32 id);

#endif
