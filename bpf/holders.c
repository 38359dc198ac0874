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
	__u32 own[2];
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

static int cmp_holder(const void *a, const void *b)
{
	const struct link_holder *x = a, *y = b;

	if (x->link_id != y->link_id)
		return x->link_id < y->link_id ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Sorted, then one entry per (link, pid): a process may hold several fds */
static void sort_unique(struct holder_index *idx)
{
	size_t i, kept = 0;

	if (idx->n) /* qsort() wants a non-NULL base */
		qsort(idx->v, idx->n, sizeof(*idx->v), cmp_holder);
	for (i = 0; i < idx->n; i++)
		if (!kept || cmp_holder(&idx->v[kept - 1], &idx->v[i]))
			idx->v[kept++] = idx->v[i];
	idx->n = kept;
}

int holder_index_build(struct holder_index *idx)
{
	struct task_file *files = NULL;
	int n, i, err = holders_open();

	idx->v = NULL;
	idx->n = 0;
	idx->self = getpid();
	if (err)
		return err;
	n = task_files_read(source, &files);
	if (n < 0)
		return n;
	idx->v = malloc((n ? n : 1) * sizeof(*idx->v));
	if (!idx->v) {
		free(files);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct link_holder *h = &idx->v[idx->n];

		if (files[i].kind != TASK_FILE_LINK)
			continue;
		h->link_id = files[i].id;
		h->pid = files[i].pid;
		/* NUL-ended within 15 bytes, as TASK_COMM_LEN allows (a
		 * snprintf per record was ~4% of a links.json) */
		memcpy(h->comm, files[i].comm, sizeof(h->comm) - 1);
		h->comm[sizeof(h->comm) - 1] = '\0';
		idx->n++;
	}
	free(files);
	sort_unique(idx);
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
