// SPDX-License-Identifier: GPL-2.0-only
/* Who holds each link (holders.h), from the task-file iterator. */
#include "holders.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "links.h"
#include "task_files.h"

/* opened once (holders_open), read-only afterwards: task_files_read()
 * makes a new iterator fd per call, so threads share the handle */
static struct task_files *source;
static pthread_mutex_t source_lock = PTHREAD_MUTEX_INITIALIZER;

/* The handle's own iterator links stay out of the tree. */
static int hide_own_links(const struct task_files *tf)
{
	__u32 own[TASK_FILES_OWN_MAX];
	int i, n = task_files_own_link_ids(tf, own), err = 0;

	for (i = 0; !err && i < n; i++)
		err = links_hide(own[i]);
	return err;
}

int holders_open(void)
{
	int err = 0;

	pthread_mutex_lock(&source_lock);
	if (!source) {
		err = task_files_open(&source);
		if (!err)
			err = hide_own_links(source);
	}
	pthread_mutex_unlock(&source_lock);
	return err;
}

void holders_close(void)
{
	pthread_mutex_lock(&source_lock);
	task_files_close(source);
	source = NULL;
	pthread_mutex_unlock(&source_lock);
}

int holder_index_build(struct holder_index *idx)
{
	struct link_holder *v = NULL;
	int n, err = holders_open();

	idx->v = NULL;
	idx->n = 0;
	idx->self = getpid();
	if (err)
		return err;
	n = task_files_read_links(source, &v);
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
