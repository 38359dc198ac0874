// SPDX-License-Identifier: GPL-2.0-only
/*
 * stacks: the stacks that hit a stacks= link, in the folded format that
 * flame-graph tools read (`frame;frame;frame COUNT`, outermost first,
 * busiest first), from its own maps (bpf/builtin/sight_stacks.c). User
 * frames as the `symbol` file names an offset; kernel frames from
 * /proc/kallsyms for a reader who may see kernel addresses, else
 * `[unknown]` (the address rule of `addr`).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"
#include "render_sight.h"
#include "sbuf.h"
#include "sight.h"

/* One folded line being made: its text and hits */
struct folded {
	char *text;
	__u64 hits;
};

struct stacks_read {
	struct sight_stacks *s;
	struct sight_umaps *umaps;
	struct ksyms *ks; /* NULL: kernel frames are [unknown] */
	__u64 ips[SIGHT_STACK_DEPTH];
	struct bpf_stack_build_id frames[SIGHT_STACK_DEPTH];
};

/* a frame's name, `links`-escaped, and ';' inside it as ':' */
static void put_frame(struct sbuf *b, const char *name, bool first)
{
	const char *p;

	if (!first)
		sbuf_put(b, ";", 1);
	for (p = name; *p; p++) {
		if (*p == '\t' || *p == '\n' || *p == '\\') {
			sbuf_put(b, "\\", 1);
			sbuf_put(b,
				 *p == '\t'   ? "t"
				 : *p == '\n' ? "n"
					      : "\\",
				 1);
		} else {
			sbuf_put(b, *p == ';' ? ":" : p, 1);
		}
	}
}

/* The frames of stack @id, outermost first; false when it has none */
static bool put_stack(struct stacks_read *r, struct sbuf *b, __s32 id,
		      __u32 tgid, bool user, bool first)
{
	char name[PATH_MAX + 32];
	int n, i;

	n = user ? sight_stack_frames(r->s, id, r->frames)
		 : sight_stack_ips(r->s, id, r->ips);
	for (i = n - 1; i >= 0; i--, first = false) {
		if (user)
			sight_user_frame(r->umaps, tgid, &r->frames[i], name,
					 sizeof(name));
		else if (!r->ks ||
			 ksyms_name(r->ks, r->ips[i], name, sizeof(name)))
			snprintf(name, sizeof(name), "[unknown]");
		put_frame(b, name, first);
	}
	return n > 0;
}

static char *fold(struct stacks_read *r, const struct sight_stack_row *row)
{
	struct sbuf b = {0};
	size_t n;
	bool any;

	any = put_stack(r, &b, row->key.ustack, row->key.tgid, true, true);
	any |= put_stack(r, &b, row->key.kstack, 0, false, !any);
	if (!any)
		put_frame(&b, "[unknown]", true);
	return sbuf_finish(&b, &n);
}

static int by_text(const void *x, const void *y)
{
	return strcmp(((const struct folded *)x)->text,
		      ((const struct folded *)y)->text);
}

static int by_hits(const void *x, const void *y)
{
	const struct folded *a = x, *b = y;

	if (a->hits != b->hits)
		return a->hits < b->hits ? 1 : -1;
	return strcmp(a->text, b->text);
}

/* Lines of the same text (other processes, other ids) summed, busiest first */
static size_t merge(struct folded *f, size_t n)
{
	size_t i, k = 0;

	qsort(f, n, sizeof(*f), by_text);
	for (i = 0; i < n; i++) {
		if (k && !strcmp(f[k - 1].text, f[i].text)) {
			f[k - 1].hits += f[i].hits;
			free(f[i].text);
			continue;
		}
		f[k++] = f[i];
	}
	qsort(f, k, sizeof(*f), by_hits);
	return k;
}

static int stacks_text(struct stacks_read *r, struct sbuf *out)
{
	struct sight_stack_row *rows = NULL;
	struct folded *f;
	size_t n = 0, i, k = 0;
	__u64 dropped = 0;
	int err = sight_stacks_rows(r->s, &rows, &n, &dropped);

	f = err ? NULL : calloc(n ? n : 1, sizeof(*f));
	if (!err && !f)
		err = -ENOMEM;
	for (i = 0; !err && i < n; i++) {
		f[k].text = fold(r, &rows[i]);
		f[k].hits = rows[i].hits;
		k += f[k].text != NULL;
	}
	if (!err)
		k = merge(f, k);
	for (i = 0; !err && i < k; i++)
		sbuf_printf(out, "%s %" PRIu64 "\n", f[i].text,
			    (uint64_t)f[i].hits);
	if (!err && dropped)
		sbuf_printf(out, "# dropped %" PRIu64 "\n", (uint64_t)dropped);
	for (i = 0; f && i < k; i++)
		free(f[i].text);
	free(f);
	free(rows);
	return err;
}

int render_stacks(const struct link_view *v, char *buf, size_t len)
{
	struct stacks_read *r = calloc(1, sizeof(*r));
	struct sbuf out = {0};
	size_t n = 0;
	char *text;
	int err = r ? sight_stacks_open(v->f.prog_id, &r->s) : -ENOMEM;

	if (!err && !(r->umaps = sight_umaps_new()))
		err = -ENOMEM;
	/* a uprobe link's file: its frames are named after it has exited */
	if (!err && v->f.name[0] == '/')
		sight_umaps_add_file(r->umaps, v->f.name);
	if (!err && v->reader && v->reader->sees_addrs)
		r->ks = ksyms_load();
	if (!err)
		err = stacks_text(r, &out);
	text = err ? NULL : sbuf_finish(&out, &n);
	if (!err && !text)
		err = -ENOMEM;
	if (!err && len)
		snprintf(buf, len, "%s", text);
	if (err)
		free(out.p);
	free(text);
	if (r) {
		ksyms_free(r->ks);
		sight_umaps_free(r->umaps);
		sight_stacks_close(r->s);
	}
	free(r);
	return err ? err : n > INT_MAX ? -E2BIG : (int)n;
}
