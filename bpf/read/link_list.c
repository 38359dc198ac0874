// SPDX-License-Identifier: GPL-2.0-only
/* Link enumeration: every link the kernel lists now (link_list.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "fixed_fields.h"
#include "link_list.h"
#include "owned.h"

/* ids of the daemon's own iterator links: set at start (links_hide(), by
 * the files that load them), read-only afterwards, by every listing; not
 * the registry's state (owned.h) */
static __u32 hidden[LINKS_HIDDEN_MAX];
static unsigned int nhidden;

int links_hide(__u32 id)
{
	unsigned int i = __atomic_load_n(&nhidden, __ATOMIC_ACQUIRE);

	if (!id)
		return 0;
	do {
		if (i >= LINKS_HIDDEN_MAX)
			return -ENOSPC;
	} while (!__atomic_compare_exchange_n(&nhidden, &i, i + 1, false,
					      __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	__atomic_store_n(&hidden[i], id, __ATOMIC_RELEASE);
	return 0;
}

bool links_hidden(__u32 id)
{
	unsigned int i, n = __atomic_load_n(&nhidden, __ATOMIC_ACQUIRE);

	if (id && id == link_ids_own())
		return true;
	for (i = 0; i < n && i < LINKS_HIDDEN_MAX; i++)
		if (__atomic_load_n(&hidden[i], __ATOMIC_ACQUIRE) == id)
			return true;
	return false;
}

/* Every link the kernel lists now, walked one BPF_LINK_GET_NEXT_ID at a
 * time; types from the cache. */
static int walk_links(struct link_id_type **out)
{
	struct link_id_type *v = NULL;
	size_t n = 0, cap = 0;
	__u32 id = 0;
	int err;

	while ((err = link_next_id(id, &id)) == 0) {
		if (links_hidden(id))
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
	return linkcache_types(v, n);
}

int links_now(struct link_id_type **out)
{
	int n = link_ids_read(out);

	/* no iterator, or no fd for one (EMFILE): the walk needs none */
	if (n < 0)
		n = walk_links(out);
	if (n >= 0)
		linkcache_prune(*out, n);
	return n;
}

static bool in_sorted(const __u32 *ids, int n, __u32 id)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo] == id;
}

int listed_link_ids(struct owned *o, __u32 **out)
{
	struct link_id_type *v = NULL;
	__u32 *ids, *dying = NULL;
	/* removed links first: one whose release ends meanwhile stays out */
	int nd = owned_dying_ids(o, &dying), n, i, kept = 0;

	n = nd < 0 ? nd : links_now(&v);
	ids = n < 0 ? NULL : malloc((n ? n : 1) * sizeof(*ids));
	for (i = 0; ids && i < n; i++)
		if (!in_sorted(dying, nd, v[i].id) && !links_hidden(v[i].id))
			ids[kept++] = v[i].id;
	free(dying);
	free(v);
	if (n < 0)
		return n;
	if (!ids)
		return -ENOMEM;
	*out = ids;
	return kept;
}
