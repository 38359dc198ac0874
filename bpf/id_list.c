// SPDX-License-Identifier: GPL-2.0-only
/* The ids one write request made, and its uprobe path memo (id_list.h). */
#include <errno.h>
#include <stdlib.h>

#include "id_list.h"

int id_list_reserve(struct id_list *l, size_t more)
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

void path_memo_clear(struct path_memo *m)
{
	free(m->path);
	free(m->canon);
	m->path = m->canon = NULL;
}
