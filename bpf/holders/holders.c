// SPDX-License-Identifier: GPL-2.0-only
/* Who holds each link (holders.h), from the task-file iterator. */
#include "holders.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "task_files.h"

int holder_index_build(struct holder_index *idx, struct task_files *tf)
{
	struct link_holder *v = NULL;
	int n;

	memset(idx, 0, sizeof(*idx));
	n = task_files_read_links(tf, &v);
	if (n < 0)
		return n;
	return holder_index_wrap(idx, v, (size_t)n);
}

int holder_index_wrap(struct holder_index *idx, struct link_holder *v, size_t n)
{
	idx->v = v;
	idx->n = n;
	idx->self = getpid();
	idx->places = calloc(1, sizeof(*idx->places));
	if (!idx->places) {
		free(v);
		idx->v = NULL;
		idx->n = 0;
		return -ENOMEM;
	}
	return 0;
}

int holder_index_share(const struct holder_index *idx,
		       struct holder_index *out)
{
	*out = *idx;
	out->places = calloc(1, sizeof(*out->places));
	return out->places ? 0 : -ENOMEM;
}

void holder_index_unshare(struct holder_index *idx)
{
	if (idx->places)
		cgroup_cache_free(idx->places);
	free(idx->places);
	memset(idx, 0, sizeof(*idx));
}

const struct cgroup_place *holder_place(const struct holder_index *idx,
					__u32 pid)
{
	return idx->places ? cgroup_cache_get(idx->places, pid) : NULL;
}

int holder_index_build_link(struct holder_index *idx, struct task_files *tf,
			    __u32 link_id)
{
	struct link_holder *v = NULL;
	int n;

	memset(idx, 0, sizeof(*idx));
	n = task_files_read_link(tf, link_id, &v);
	if (n < 0)
		return n;
	return holder_index_wrap(idx, v, (size_t)n);
}

void holder_index_free(struct holder_index *idx)
{
	free(idx->v);
	if (idx->places)
		cgroup_cache_free(idx->places);
	free(idx->places);
	idx->v = NULL;
	idx->n = 0;
	idx->places = NULL;
}

size_t holder_index_find(const struct holder_index *idx, __u32 link_id,
			 size_t *first)
{
	size_t lo = 0, hi = idx->n, n = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (idx->v[mid].link_id < link_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + n < idx->n && idx->v[lo + n].link_id == link_id)
		n++;
	if (n)
		*first = lo;
	return n;
}
