// SPDX-License-Identifier: GPL-2.0-only
/* links, links.json and features: the whole view in one read. */
#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array_size.h"
#include "tracing_probe.h"
#include "perf_event_link.h"
#include "tracefs.h"
#include "kernel_offers.h"
#include "access.h"
#include "owned.h"
#include "tables.h"
#include "fmt.h"
#include "link_progs.h"
#include "prog_stats.h"
#include "sbuf.h"
#include "render_holders.h"
#include "table_rows.h"

/*
 * Render file @i of @v without its newline into @buf, or, when longer
 * than @len, into *@big (the caller frees it); NULL if it does not apply
 * or is empty.
 */
static const char *value_of(size_t i, const struct link_view *v, char *buf,
			    size_t len, size_t *n, char **big)
{
	const char *p = buf;
	int r = link_file_render(i, v, buf, len);

	if (r == -ENAMETOOLONG) {
		r = link_file_render_alloc(i, v, big);
		p = *big;
	}
	if (r <= 0)
		return NULL;
	*n = r;
	if (*n && p[*n - 1] == '\n')
		(*n)--;
	return p;
}

/*
 * What a row of one read visits, worked out once per read rather than per
 * link: for each view, the files of link_files[] whose kinds include it
 * and that go into links.json, with their keys as written (`,"name":`);
 * and the indices of the `links` columns. A view shows a third of the
 * files, and the per-link cost of a table is what its rows do.
 */
struct row_plan {
	unsigned char n[VIEW_KIND_COUNT];
	unsigned char files[VIEW_KIND_COUNT][LINK_FILES_MAX];
	char key[LINK_FILES_MAX][40];
	unsigned char key_len[LINK_FILES_MAX];
	size_t cols[7];
};

static const char *const table_cols[] = {"type",   "name",   "offset", "addr",
					 "config", "cookie", "prog_id"};

static size_t file_index(const char *name)
{
	size_t i;

	for (i = 0; i < link_file_count; i++)
		if (strcmp(link_files[i].name, name) == 0)
			return i;
	return SIZE_MAX;
}

static void row_plan_init(struct row_plan *p)
{
	unsigned int view;
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(table_cols); i++)
		p->cols[i] = file_index(table_cols[i]);
	for (i = 0; i < link_file_count; i++) {
		n = snprintf(p->key[i], sizeof(p->key[i]), ",\"%s\":",
			     link_files[i].name);
		p->key_len[i] = n > 0 && (size_t)n < sizeof(p->key[i]) ? n : 0;
	}
	for (view = 0; view < VIEW_KIND_COUNT; view++) {
		p->n[view] = 0;
		for (i = 0; i < link_file_count; i++)
			if (link_files[i].kinds & VIEW_BIT(view) &&
			    link_files[i].json != JSON_NONE)
				p->files[view][p->n[view]++] = i;
	}
}

static void table_row(struct sbuf *s, const struct link_view *v,
		      const void *arg, char *buf)
{
	const struct row_plan *plan = arg;
	size_t col, n;
	long count = link_target_count(v);

	sbuf_put_u64(s, v->f.id);
	for (col = 0; col < ARRAY_SIZE(table_cols); col++) {
		char *big = NULL;
		const char *val = value_of(plan->cols[col], v, buf,
					   TABLE_VALUE_MAX, &n, &big);

		sbuf_put(s, "\t", 1);
		if (val)
			sbuf_put_table_value(s, val, n);
		else
			sbuf_put(s, "-", 1);
		free(big);
	}
	sbuf_put(s, "\t", 1);
	if (count < 0)
		sbuf_put(s, "-", 1);
	else
		sbuf_put_u64(s, count);
	sbuf_put(s, "\n", 1);
}

/* One cell of a JSON_TABLE row: all digits as a number, else a string. */
static void put_json_cell(struct sbuf *s, const char *v, size_t n)
{
	size_t i;

	for (i = 0; i < n && v[i] >= '0' && v[i] <= '9'; i++)
		;
	if (n && i == n && (n == 1 || v[0] != '0'))
		sbuf_put(s, v, n);
	else
		sbuf_put_json_string(s, v, n);
}

/* A header line and rows, tab-separated, as an array of objects keyed by
 * the lower-cased header names (funcs). */
static void put_json_table(struct sbuf *s, const char *v, size_t n)
{
	const char *end = v + n, *head = v, *hend = memchr(v, '\n', n);
	const char *nl, *c, *h, *te, *he;
	bool first = true;
	char key[64];
	size_t k;

	sbuf_put(s, "[", 1);
	for (v = hend ? hend + 1 : end; v < end; v = nl + 1) {
		nl = memchr(v, '\n', end - v);
		nl = nl ? nl : end;
		sbuf_put(s, first ? "{" : ",{", first ? 1 : 2);
		first = false;
		for (c = v, h = head; c <= nl && h < hend;
		     c = te + 1, h = he + 1) {
			te = memchr(c, '\t', nl - c);
			te = te ? te : nl;
			he = memchr(h, '\t', hend - h);
			he = he ? he : hend;
			for (k = 0; k < sizeof(key) - 1 && h + k < he; k++)
				key[k] = tolower((unsigned char)h[k]);
			if (h != head)
				sbuf_put(s, ",", 1);
			sbuf_put_json_string(s, key, k);
			sbuf_put(s, ":", 1);
			put_json_cell(s, c, te - c);
		}
		sbuf_put(s, "}", 1);
	}
	sbuf_put(s, "]", 1);
}

/*
 * `,"name":` of file @i: the key's whole slot is copied, a size the
 * compiler moves in a few registers, and the text end kept
 */
static void put_key(struct sbuf *s, const struct row_plan *plan, size_t i)
{
	if (s->len + sizeof(plan->key[i]) >= s->cap)
		sbuf_reserve(s, sizeof(plan->key[i]));
	if (s->oom)
		return;
	memcpy(s->p + s->len, plan->key[i], sizeof(plan->key[i]));
	s->len += plan->key_len[i];
}

/* "name":VALUE of a JSON_CUSTOM file, when it applies and reads */
static void json_custom(struct sbuf *s, size_t i, const struct link_view *v,
			const struct row_plan *plan)
{
	size_t mark = s->len;

	if (!link_file_applies(i, v))
		return;
	put_key(s, plan, i);
	/* a value that cannot be read is left out, key and all */
	if (link_files[i].json_render(v, s) < 0 && !s->oom)
		s->len = mark;
}

/* "name":VALUE of file @i, as its json kind says, when it applies */
static void json_member(struct sbuf *s, size_t i, const struct link_view *v,
			const struct row_plan *plan, char *buf)
{
	enum json_kind kind = link_files[i].json;
	char *big = NULL;
	const char *p;
	size_t n;

	p = value_of(i, v, buf, TABLE_VALUE_MAX, &n, &big);
	if (!p)
		return;
	put_key(s, plan, i);
	if (kind == JSON_NUMBER)
		sbuf_put(s, p, n);
	else if (kind == JSON_TABLE)
		put_json_table(s, p, n);
	else
		sbuf_put_json_string(s, p, n);
	free(big);
}

static void json_object(struct sbuf *s, const struct link_view *v,
			const void *arg, char *buf)
{
	const struct row_plan *plan = arg;
	unsigned int view = v->f.view < VIEW_KIND_COUNT ? v->f.view : 0;
	size_t k, i;

	sbuf_put(s, "{\"id\":", 6);
	sbuf_put_u64(s, v->f.id);
	for (k = 0; k < plan->n[view]; k++) {
		i = plan->files[view][k];
		if (link_files[i].json == JSON_PIDS)
			/* its holders with where they run; left out, as
			 * any value, when they cannot be read */
			link_pids_json(s, v, plan->key[i]);
		else if (link_files[i].json == JSON_CUSTOM)
			json_custom(s, i, v, plan);
		else
			json_member(s, i, v, plan, buf);
	}
	sbuf_put(s, "}", 1);
}

/* Every link in rows of @row, with the plan of this read */
static int table_rows(struct owned *reg, struct sbuf *s,
		      const struct reader *r, row_fn row, const char *sep,
		      bool lists)
{
	struct row_plan *plan = malloc(sizeof(*plan));
	struct table_read t = {
		.reg = reg,
		.reader = r,
		.row = row,
		.plan = plan,
		.sep = sep,
		.lists = lists,
	};
	int err = -ENOMEM;

	if (plan) {
		row_plan_init(plan);
		err = table_read(&t, s);
	}
	free(plan);
	return err;
}

char *render_links_table(struct owned *reg, const struct reader *r, size_t *len)
{
	struct sbuf s = {0};
	int err;

	sbuf_printf(
		&s,
		"ID\tTYPE\tNAME\tOFFSET\tADDR\tCONFIG\tCOOKIE\tPROG_ID\tCOUNT\n");
	err = table_rows(reg, &s, r, table_row, "", false);
	if (err) {
		free(s.p);
		errno = -err;
		return NULL;
	}
	return sbuf_finish(&s, len);
}

char *render_links_json(struct owned *reg, const struct reader *r, size_t *len)
{
	struct sbuf s = {0};
	int err;

	sbuf_put(&s, "[", 1);
	err = table_rows(reg, &s, r, json_object, ",\n", true);
	sbuf_put(&s, "]\n", 2);
	if (err) {
		free(s.p);
		errno = -err;
		return NULL;
	}
	return sbuf_finish(&s, len);
}

/* 1 or 0: what this kernel and host let a mount create and show */
static void features_can_create(struct sbuf *s)
{
	const struct kernel_offers *can = kernel_offers();
	const struct link_features *lf = link_features();

	sbuf_printf(s, "kprobe_multi %d\n",
		    can->kprobe_multi && lf->multi_link_info);
	sbuf_printf(s, "uprobe_multi %d\n",
		    can->uprobe_multi && lf->multi_link_info);
	sbuf_printf(s, "multi_link_info %d\n", lf->multi_link_info);
	sbuf_printf(s, "fentry %d\n", can->fentry);
	sbuf_printf(s, "rawtracepoint %d\n", can->raw_tp);
	sbuf_printf(s, "usdt %d\n",
		    can->usdt && pmu_present("uprobe") && lf->perf_link_info);
}

char *render_features(struct stats_switch *sw, size_t *len)
{
	const char *tracefs = tracefs_root();
	struct sbuf s = {0};
	int kptr = -1;

	sysctl_read_int("/proc/sys/kernel/kptr_restrict", &kptr);
	sbuf_printf(&s, "perf_link_info %d\n", link_features()->perf_link_info);
	sbuf_printf(&s, "cookie %d\n", link_features()->cookie);
	sbuf_printf(&s, "missed %d\n", link_features()->missed);
	sbuf_printf(&s, "ref_ctr_offset %d\n", link_features()->ref_ctr_offset);
	sbuf_printf(&s, "kprobe %d\n", pmu_present("kprobe"));
	sbuf_printf(&s, "uprobe %d\n", pmu_present("uprobe"));
	sbuf_printf(&s, "tracepoint %d\n", tracefs != NULL);
	sbuf_printf(&s, "tracefs_path %s\n", tracefs ? tracefs : "-");
	sbuf_printf(&s, "kptr_restrict %d\n", kptr);
	sbuf_printf(&s, "info_source %s\n",
		    link_features()->perf_link_info ? "link_info"
						    : "task_fd_query");
	features_can_create(&s);
	sbuf_printf(&s, "bpf_stats %d\n", stats_collecting(sw));
	return sbuf_finish(&s, len);
}
