// SPDX-License-Identifier: GPL-2.0-only
/*
 * Link enumeration: every link the kernel lists now (link_list.h), less
 * the daemon's own iterator links.
 *
 * Calls go one way: the registry (make/owned.c) calls in here, never the
 * reverse. Enumeration is about the kernel's link list alone; leaving a
 * mount's removed links out of a listing is the registry's business
 * (listed_link_ids() in make/owned.c), so this file knows nothing of it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "fixed_fields.h"
#include "link_list.h"

/*
 * The ids of the daemon's own iterator links, and the link iterator:
 * filled at start (link_list_hide(), link_list_use_iterator()) before any
 * listing, read-only afterwards, by every listing.
 */
struct link_list {
	struct link_ids *iter; /* NULL: one BPF_LINK_GET_NEXT_ID per link */
	__u32 hidden[LINK_LIST_HIDDEN_MAX];
	unsigned int nhidden;
};

int link_list_open(struct link_list **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

bool link_list_iterating(const struct link_list *l)
{
	return l->iter != NULL;
}

int link_list_use_iterator(struct link_list *l)
{
	return l->iter ? 0 : link_ids_open(&l->iter);
}

void link_list_close(struct link_list *l)
{
	if (!l)
		return;
	link_ids_close(l->iter);
	free(l);
}

int link_list_hide(struct link_list *l, __u32 id)
{
	if (!id)
		return 0;
	if (l->nhidden >= LINK_LIST_HIDDEN_MAX)
		return -ENOSPC;
	l->hidden[l->nhidden++] = id;
	return 0;
}

bool link_list_hidden(const struct link_list *l, __u32 id)
{
	unsigned int i;

	if (id && id == link_ids_own(l->iter))
		return true;
	for (i = 0; i < l->nhidden; i++)
		if (l->hidden[i] == id)
			return true;
	return false;
}

/* Every link the kernel lists now, walked one BPF_LINK_GET_NEXT_ID at a
 * time; types from the cache. */
static int walk_links(const struct link_list *l, struct link_id_type **out)
{
	struct link_id_type *v = NULL;
	size_t n = 0, cap = 0;
	__u32 id = 0;
	int err;

	while ((err = link_next_id(id, &id)) == 0) {
		if (link_list_hidden(l, id))
			continue;
		if (n == cap) {
			void *p = realloc(v, (cap = cap ? cap * 2 : 256) *
						     sizeof(*v));

			if (!p) {
				free(v);
				return -ENOMEM;
			}
			v = p;
		}
		v[n++].id = id;
	}
	if (err != -ENOENT) {
		free(v);
		return err;
	}
	*out = v;
	return fixed_fields_types(v, n);
}

int link_list_now(const struct link_list *l, struct link_id_type **out)
{
	int n = link_ids_read(l->iter, out);

	/* no iterator, or no fd for one (EMFILE): the walk needs none */
	if (n < 0)
		n = walk_links(l, out);
	if (n >= 0)
		fixed_fields_prune(*out, n);
	return n;
}

void link_list_seen(const struct link_id_type *v, size_t n)
{
	fixed_fields_prune(v, n);
}
