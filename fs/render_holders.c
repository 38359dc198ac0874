// SPDX-License-Identifier: GPL-2.0-only
/* `holders` of links and bare perf events (render_holders.h). */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <stdlib.h>

#include "render_holders.h"
#include "render.h"
#include "owned.h"

static void put_col(struct sbuf *s, const char *v)
{
	sbuf_put(s, "\t", 1);
	if (v)
		sbuf_put_table_value(s, v, strlen(v));
	else
		sbuf_put(s, "-", 1);
}

int holders_table(const struct holder_index *idx, size_t first, size_t n,
		  bool skip_self, char *buf, size_t len)
{
	struct sbuf s = {0};
	size_t i, total;
	char *text;

	sbuf_put(&s, "PID\tCOMM\tCGROUP\tCONTAINER\n", 26);
	for (i = first; i < first + n; i++) {
		const struct link_holder *h = &idx->v[i];
		const struct cgroup_place *p;

		if (skip_self && h->pid == idx->self)
			continue;
		p = holder_place(idx, h->pid);
		sbuf_put_u64(&s, h->pid);
		sbuf_put(&s, "\t", 1);
		sbuf_put_table_value(&s, h->comm, strnlen(h->comm, 16));
		put_col(&s, p ? p->path : NULL);
		put_col(&s, p ? p->container : NULL);
		sbuf_put(&s, "\n", 1);
	}
	text = sbuf_finish(&s, &total);
	if (!text)
		return -ENOMEM;
	if (len) {
		memcpy(buf, text, total < len ? total + 1 : len - 1);
		buf[total < len ? total : len - 1] = '\0';
	}
	free(text);
	return total > INT_MAX ? -E2BIG : (int)total;
}

static void json_str_or_null(struct sbuf *s, const char *v)
{
	if (v)
		sbuf_put_json_string(s, v, strlen(v));
	else
		sbuf_put(s, "null", 4);
}

void holders_json(struct sbuf *s, const struct holder_index *idx, size_t first,
		  size_t n, bool skip_self)
{
	bool any = false;
	size_t i;

	sbuf_put(s, "[", 1);
	for (i = first; i < first + n; i++) {
		const struct link_holder *h = &idx->v[i];
		const struct cgroup_place *p;

		if (skip_self && h->pid == idx->self)
			continue;
		p = holder_place(idx, h->pid);
		sbuf_put(s, any ? ",{\"pid\":" : "{\"pid\":", any ? 8 : 7);
		any = true;
		sbuf_put_u64(s, h->pid);
		sbuf_put(s, ",\"comm\":", 8);
		sbuf_put_json_string(s, h->comm, strnlen(h->comm, 16));
		sbuf_put(s, ",\"cgroup\":", 10);
		json_str_or_null(s, p ? p->path : NULL);
		sbuf_put(s, ",\"container\":", 13);
		json_str_or_null(s, p ? p->container : NULL);
		sbuf_put(s, "}", 1);
	}
	sbuf_put(s, "]", 1);
}

/*
 * The holders of @v's link in *@idx: the table's index, or @own built now
 * for this link alone. The daemon counts only for links it made (see
 * render_pids()).
 */
static int link_holders(const struct link_view *v, struct holder_index *own,
			const struct holder_index **idx, size_t *first,
			size_t *n)
{
	int err;

	*idx = v->holders;
	if (!*idx) {
		err = holder_index_build_link(own, owned_task_files(v->reg),
					      v->f.id);
		if (err)
			return err;
		*idx = own;
	}
	*first = 0;
	*n = holder_index_find(*idx, v->f.id, first);
	return 0;
}

int render_holders(const struct link_view *v, char *buf, size_t len)
{
	struct holder_index own = {0};
	const struct holder_index *idx;
	size_t first, n;
	int err = link_holders(v, &own, &idx, &first, &n);

	if (!err)
		err = holders_table(idx, first, n, !v->owned, buf, len);
	holder_index_free(&own);
	return err;
}

int link_pids_json(struct sbuf *s, const struct link_view *v, const char *key)
{
	struct holder_index own = {0};
	const struct holder_index *idx;
	size_t first, n;
	int err = link_holders(v, &own, &idx, &first, &n);

	if (!err) {
		sbuf_put(s, key, strlen(key));
		holders_json(s, idx, first, n, !v->owned);
	}
	holder_index_free(&own);
	return err;
}
