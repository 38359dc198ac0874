// SPDX-License-Identifier: GPL-2.0-only
/* The ids one write request made and removes, and its uprobe path memo
 * (request_ids.h). */
#include <errno.h>
#include <stdlib.h>

#include "request_ids.h"

int request_ids_reserve(struct request_ids *l, size_t more)
{
	size_t cap;
	void *p;

	if (l->len + more <= l->cap)
		return 0;
	cap = (l->cap ? l->cap * 2 : 16) + more;
	p = realloc(l->ids, cap * sizeof(*l->ids));
	if (!p)
		return -ENOMEM;
	l->ids = p;
	l->cap = cap;
	return 0;
}

/* Fibonacci hashing: ids made in a row spread over the table */
static size_t id_slot(const struct id_set *s, __u32 id)
{
	return (size_t)(id * 2654435761u) & (s->cap - 1);
}

static void id_set_put(struct id_set *s, __u32 id)
{
	size_t i = id_slot(s, id);

	while (s->slots[i] && s->slots[i] != id)
		i = (i + 1) & (s->cap - 1);
	if (!s->slots[i]) {
		s->slots[i] = id;
		s->len++;
	}
}

/* Twice the room, so that the table stays at most half full. */
static int id_set_grow(struct id_set *s)
{
	struct id_set bigger = {.cap = s->cap ? s->cap * 2 : 64};
	size_t i;

	bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -ENOMEM;
	for (i = 0; i < s->cap; i++)
		if (s->slots[i])
			id_set_put(&bigger, s->slots[i]);
	free(s->slots);
	*s = bigger;
	return 0;
}

int id_set_add(struct id_set *s, __u32 id)
{
	size_t len;

	if (id_set_has(s, id))
		return 0;
	if ((s->len + 1) * 2 > s->cap && id_set_grow(s))
		return -ENOMEM;
	len = s->len;
	id_set_put(s, id);
	return s->len > len;
}

bool id_set_has(const struct id_set *s, __u32 id)
{
	size_t i;

	if (!s->cap)
		return false;
	for (i = id_slot(s, id); s->slots[i]; i = (i + 1) & (s->cap - 1))
		if (s->slots[i] == id)
			return true;
	return false;
}

static int cmp_id(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

int id_set_sorted(const struct id_set *s, __u32 **out)
{
	__u32 *ids = malloc((s->len ? s->len : 1) * sizeof(*ids));
	size_t i, n = 0;

	if (!ids)
		return -ENOMEM;
	for (i = 0; i < s->cap; i++)
		if (s->slots[i])
			ids[n++] = s->slots[i];
	qsort(ids, n, sizeof(*ids), cmp_id);
	*out = ids;
	return n;
}

void id_set_clear(struct id_set *s)
{
	free(s->slots);
	*s = (struct id_set){0};
}

void path_memo_clear(struct path_memo *m)
{
	free(m->path);
	free(m->canon);
	m->path = m->canon = NULL;
}
