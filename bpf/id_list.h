/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What one write request on control carries from line to line: the ids of
 * the links it made (removed again if a later line fails) and the memo of
 * its last uprobe path.
 */
#ifndef BPFLINKFS_ID_LIST_H
#define BPFLINKFS_ID_LIST_H

#include <stddef.h>
#include <linux/types.h>

/* A growing array of link ids */
struct id_list {
	__u32 *ids;
	size_t len, cap;
};

/** id_list_reserve() - room for @more ids; 0 or -ENOMEM */
int id_list_reserve(struct id_list *l, size_t more);

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
