/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What one write request on control carries from line to line: the ids of
 * the links it made (removed again if a later line fails), the ids of the
 * links it removes (removed only once every line has succeeded) and the
 * memo of its last uprobe path.
 */
#ifndef BPFLINKFS_REQUEST_IDS_H
#define BPFLINKFS_REQUEST_IDS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* A growing array of link ids */
struct request_ids {
	__u32 *ids;
	size_t len, cap;
};

/** request_ids_reserve() - room for @more ids; 0 or -ENOMEM */
int request_ids_reserve(struct request_ids *l, size_t more);

/* A set of link ids (never 0), found in constant time */
struct id_set {
	__u32 *slots;	 /* open addressing: 0 is a free slot */
	size_t cap, len; /* cap 0 or a power of two */
};

/** id_set_add() - add @id (not 0); 1 when added, 0 when already in, -ENOMEM */
int id_set_add(struct id_set *s, __u32 id);

/** id_set_has() - @id is in the set */
bool id_set_has(const struct id_set *s, __u32 id);

/**
 * id_set_sorted() - the ids of the set, ascending
 * Return: the count and a malloc'd array in *ids, or -ENOMEM.
 */
int id_set_sorted(const struct id_set *s, __u32 **ids);

/** id_set_clear() - empty the set and free its memory */
void id_set_clear(struct id_set *s);

/*
 * The last absolute or bare-name uprobe PATH of one write request and the
 * canonical path it resolved to: a thousand lines naming one binary walk
 * its path once. Kept for one request only, never across requests.
 */
struct path_memo {
	char *path, *canon;
};

/** path_memo_clear() - forget the memo and free its strings */
void path_memo_clear(struct path_memo *m);

#endif
