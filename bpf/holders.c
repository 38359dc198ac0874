// SPDX-License-Identifier: GPL-2.0-only
/* Who holds each link (holders.h), from the task-file iterator. */
#include "holders.h"

#include <stdlib.h>
#include <unistd.h>

#include "task_files.h"

int holder_index_build(struct holder_index *idx, struct task_files *tf)
{
	struct link_holder *v = NULL;
	int n;

	idx->v = NULL;
	idx->n = 0;
	idx->self = getpid();
	n = task_files_read_links(tf, &v);
	if (n < 0)
		return n;
	idx->v = v;
	idx->n = (size_t)n;
	return 0;
}

int holder_index_build_link(struct holder_index *idx, struct task_files *tf,
			    __u32 link_id)
{
	struct link_holder *v = NULL;
	int n;

	idx->v = NULL;
	idx->n = 0;
	idx->self = getpid();
	n = task_files_read_link(tf, link_id, &v);
	if (n < 0)
		return n;
	idx->v = v;
	idx->n = (size_t)n;
	return 0;
}

void holder_index_free(struct holder_index *idx)
{
	free(idx->v);
	idx->v = NULL;
	idx->n = 0;
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
