// SPDX-License-Identifier: GPL-2.0-only
/*
 * The links a listing shows (listed_link_ids(), listed_links_progs() and
 * listed_links_progs_each() of owned.h): every link the kernel has now,
 * less this mount's links being removed and the daemon's own iterator
 * links, with their programs where the link iterator serves.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "link_list.h"
#include "link_progs.h"
#include "owned.h"

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

/* The ids of @v (@n of them, or -errno) less the removed links in @dying
 * (@nd, or -errno) and the hidden ones, into *@out; frees @dying. */
static int keep_listed(struct owned *o, const struct link_id_type *v, int n,
		       __u32 *dying, int nd, __u32 **out)
{
	__u32 *ids = n < 0 ? NULL : malloc((n ? n : 1) * sizeof(*ids));
	int i, kept = 0;

	for (i = 0; ids && i < n; i++)
		if (!in_sorted(dying, nd, v[i].id) &&
		    !link_list_hidden(owned_link_list(o), v[i].id))
			ids[kept++] = v[i].id;
	free(dying);
	if (n < 0)
		return n;
	if (!ids)
		return -ENOMEM;
	*out = ids;
	return kept;
}

int listed_link_ids(struct owned *o, __u32 **out)
{
	struct link_id_type *v = NULL;
	__u32 *dying = NULL;
	/* removed links first: one whose release ends meanwhile stays out */
	int nd = owned_dying_ids(o, &dying), n;

	n = nd < 0 ? nd : link_list_now(owned_link_list(o), &v);
	n = keep_listed(o, v, n, dying, nd, out);
	free(v);
	return n;
}

/* listed_links_progs_each()'s state across the iterator's batches */
struct listed_walk {
	struct owned *o;
	__u32 *dying; /* removed links, sorted */
	int nd;
	struct link_id_type *seen; /* every link the walk met */
	size_t nseen, cap;
	listed_batch_fn fn;
	void *arg;
	int kept;
};

/* A batch of the link iterator: noted as seen, then the listed ones
 * handed on */
static int listed_batch(struct link_prog *v, int n, void *arg)
{
	struct listed_walk *w = arg;
	struct link_id_type *p;
	int i, kept = 0;

	if (w->nseen + (size_t)n > w->cap) {
		w->cap = 2 * (w->nseen + (size_t)n);
		p = realloc(w->seen, w->cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		w->seen = p;
	}
	for (i = 0; i < n; i++) {
		w->seen[w->nseen].id = v[i].link_id;
		w->seen[w->nseen++].type = v[i].type;
		if (!in_sorted(w->dying, w->nd, v[i].link_id) &&
		    !link_list_hidden(owned_link_list(w->o), v[i].link_id))
			v[kept++] = v[i];
	}
	w->kept += kept;
	return kept ? w->fn(v, kept, w->arg) : 0;
}

int listed_links_progs_each(struct owned *o, listed_batch_fn fn, void *arg)
{
	struct listed_walk w = {.o = o, .fn = fn, .arg = arg};
	int n;

	/* beside the link iterator only: BPFLINKFS_NO_LINK_ITER turns both
	 * off, and the tables then ask link by link and program by program */
	if (!owned_link_progs(o) || !link_list_iterating(owned_link_list(o)))
		return -EOPNOTSUPP;
	/* removed links first: one whose release ends meanwhile stays out */
	w.nd = owned_dying_ids(o, &w.dying);
	if (w.nd < 0)
		return w.nd;
	n = link_progs_read_each(owned_link_progs(o), listed_batch, &w);
	if (n >= 0)
		link_list_seen(w.seen, w.nseen);
	free(w.seen);
	free(w.dying);
	return n < 0 ? n : w.kept;
}

int listed_links_progs(struct owned *o, __u32 **out, struct link_prog **progs,
		       int *np)
{
	struct link_id_type *v = NULL;
	__u32 *dying = NULL;
	int nd, n, i;

	*progs = NULL;
	*np = -EOPNOTSUPP;
	/* beside the link iterator only: BPFLINKFS_NO_LINK_ITER turns both
	 * off, and the tables then ask link by link and program by program */
	if (!owned_link_progs(o) || !link_list_iterating(owned_link_list(o)))
		return listed_link_ids(o, out);
	nd = owned_dying_ids(o, &dying);
	if (nd < 0)
		return nd;
	n = link_progs_read(owned_link_progs(o), progs);
	v = n < 0 ? NULL : malloc((n ? n : 1) * sizeof(*v));
	if (!v) {
		free(dying);
		free(*progs);
		*progs = NULL;
		/* no fd for the iterator (EMFILE): the walk needs none */
		return n == -ENOMEM || n >= 0 ? -ENOMEM
					      : listed_link_ids(o, out);
	}
	for (i = 0; i < n; i++) {
		v[i].id = (*progs)[i].link_id;
		v[i].type = (*progs)[i].type;
	}
	link_list_seen(v, n);
	*np = n;
	n = keep_listed(o, v, n, dying, nd, out);
	free(v);
	return n;
}

