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

/*
 * Render file @i of @v without its newline into @buf, or, when longer
 * than @len, into *@big (the caller frees it); NULL if it does not apply.
 * An empty value (pids, pinned) counts only where it is a list.
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
	if (r < 0 || (r == 0 && link_files[i].json != JSON_LINES &&
		      link_files[i].json != JSON_PIDS))
		return NULL;
	*n = r;
	if (*n && p[*n - 1] == '\n')
		(*n)--;
	return p;
}

static size_t file_index(const char *name)
{
	size_t i;

	for (i = 0; i < link_file_count; i++)
		if (strcmp(link_files[i].name, name) == 0)
			return i;
	return SIZE_MAX;
}

static void table_row(struct sbuf *s, const struct link_view *v, char *buf,
		      size_t len)
{
	static const char *const cols[] = {"type",   "name",   "offset", "addr",
					   "config", "cookie", "prog_id"};
	size_t c, n;
	long count = link_target_count(v);

	sbuf_put_u64(s, v->f.id);
	for (c = 0; c < ARRAY_SIZE(cols); c++) {
		char *big = NULL;
		const char *p =
			value_of(file_index(cols[c]), v, buf, len, &n, &big);

		sbuf_put(s, "\t", 1);
		if (p)
			sbuf_put_table_value(s, p, n);
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

/*
 * A value of a `pids` or `pinned` line, where the renderer wrote a tab,
 * newline or backslash as \t, \n, \\: as a JSON string of the bytes
 * themselves (a comm or pin name may hold any of them).
 */
static void put_json_unescaped(struct sbuf *s, const char *v, size_t n)
{
	char raw[2 * PATH_MAX];
	size_t i, k = 0;

	if (n > sizeof(raw)) {
		sbuf_put_json_string(s, v, n);
		return;
	}
	for (i = 0; i < n; i++) {
		char c = v[i];

		if (c == '\\' && i + 1 < n && strchr("tn\\", v[i + 1])) {
			i++;
			c = v[i] == 't' ? '\t' : v[i] == 'n' ? '\n' : '\\';
		}
		raw[k++] = c;
	}
	sbuf_put_json_string(s, raw, k);
}

/*
 * Lines as a JSON array: `PATH` lines as strings (pinned), or
 * `PID<TAB>COMM` lines as [{"pid": N, "comm": "..."}] as bpftool -j
 * writes them (pids, @pids true).
 */
static void put_json_lines(struct sbuf *s, const char *v, size_t n, bool pids)
{
	const char *end = v + n, *nl, *tab;
	bool first = true;

	sbuf_put(s, "[", 1);
	for (; v < end; v = nl + 1) {
		nl = memchr(v, '\n', end - v);
		nl = nl ? nl : end;
		tab = pids ? memchr(v, '\t', nl - v) : NULL;
		if (pids && !tab)
			continue;
		sbuf_put(s, ",", first ? 0 : 1);
		first = false;
		if (!pids) {
			put_json_unescaped(s, v, nl - v);
			continue;
		}
		sbuf_put(s, "{\"pid\":", 7);
		put_json_cell(s, v, tab - v);
		sbuf_put(s, ",\"comm\":", 8);
		put_json_unescaped(s, tab + 1, nl - tab - 1);
		sbuf_put(s, "}", 1);
	}
	sbuf_put(s, "]", 1);
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

/* "name":VALUE of a JSON_CUSTOM file, when it applies and reads */
static void json_custom(struct sbuf *s, size_t i, const struct link_view *v)
{
	struct sbuf val = {0};
	size_t n;
	char *p;

	if (!link_file_applies(i, v) ||
	    link_files[i].json_render(v, &val) < 0) {
		free(val.p);
		return;
	}
	p = sbuf_finish(&val, &n);
	if (!p)
		return;
	sbuf_put(s, ",\"", 2);
	sbuf_put(s, link_files[i].name, strlen(link_files[i].name));
	sbuf_put(s, "\":", 2);
	sbuf_put(s, p, n);
	free(p);
}

static void json_object(struct sbuf *s, const struct link_view *v, char *buf,
			size_t len)
{
	size_t i, n;

	sbuf_put(s, "{\"id\":", 6);
	sbuf_put_u64(s, v->f.id);
	for (i = 0; i < link_file_count; i++) {
		char *big = NULL;
		const char *p;

		if (link_files[i].json == JSON_PIDS) {
			/* its holders with where they run; left out, as
			 * any value, when they cannot be read */
			link_pids_json(s, v, ",\"pids\":");
			continue;
		}
		if (link_files[i].json == JSON_CUSTOM) {
			json_custom(s, i, v);
			continue;
		}
		p = link_files[i].json == JSON_NONE
			    ? NULL
			    : value_of(i, v, buf, len, &n, &big);

		if (!p)
			continue;
		sbuf_put(s, ",\"", 2);
		sbuf_put(s, link_files[i].name, strlen(link_files[i].name));
		sbuf_put(s, "\":", 2);
		if (link_files[i].json == JSON_NUMBER)
			sbuf_put(s, p, n);
		else if (link_files[i].json == JSON_LINES ||
			 link_files[i].json == JSON_PIDS)
			put_json_lines(s, p, n,
				       link_files[i].json == JSON_PIDS);
		else if (link_files[i].json == JSON_TABLE)
			put_json_table(s, p, n);
		else
			sbuf_put_json_string(s, p, n);
		free(big);
	}
	sbuf_put(s, "}", 1);
}

typedef void (*row_fn)(struct sbuf *s, const struct link_view *v, char *buf,
		       size_t len);

/*
 * Every link, read once, handed to @row; links gone meanwhile skip.
 * @lists: read every link's pins (and holders) once for the table
 */
static int for_each_link(struct owned *reg, struct sbuf *s,
			 const struct reader *r, row_fn row, const char *sep,
			 bool lists)
{
	size_t buflen = 2 * PATH_MAX;
	struct link_view *v = malloc(sizeof(*v));
	char *buf = malloc(buflen);
	struct pin_index pins = {0};
	struct holder_index holders = {0};
	__u32 *ids = NULL;
	struct link_prog *progs = NULL;
	const struct link_prog *lp;
	struct prog_stats stats;
	int n, i, np = 0, rows = 0;

	n = v && buf ? 0 : -ENOMEM;
	if (!n && lists)
		n = pin_index_build(&pins);
	if (!n && lists)
		n = holder_index_build(&holders, owned_task_files(reg));
	/* the ids with every program's statistics, from one walk of the
	 * links where the iterators load; else each program on its own */
	if (!n && lists)
		n = listed_links_progs(reg, &ids, &progs, &np);
	else if (!n)
		n = listed_link_ids(reg, &ids);
	for (i = 0; i < n; i++) {
		if (link_view_load_listed(reg, ids[i], v))
			continue;
		v->reader = r;
		v->pins = lists ? &pins : NULL;
		v->holders = lists ? &holders : NULL;
		/* the three prog_* values from one read of the program */
		lp = np > 0 ? link_prog_find(progs, np, ids[i]) : NULL;
		if (lp && lp->has_stats && lp->prog_id == v->f.prog_id)
			v->stats = &lp->stats;
		else if (lists && !prog_stats_read(v->f.prog_id, &stats))
			v->stats = &stats;
		if (rows++)
			sbuf_put(s, sep, strlen(sep));
		row(s, v, buf, buflen);
	}
	pin_index_free(&pins);
	holder_index_free(&holders);
	free(progs);
	free(ids);
	free(buf);
	free(v);
	return n < 0 ? n : 0;
}

char *render_links_table(struct owned *reg, const struct reader *r, size_t *len)
{
	struct sbuf s = {0};
	int err;

	sbuf_printf(
		&s,
		"ID\tTYPE\tNAME\tOFFSET\tADDR\tCONFIG\tCOOKIE\tPROG_ID\tCOUNT\n");
	err = for_each_link(reg, &s, r, table_row, "", false);
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
	err = for_each_link(reg, &s, r, json_object, ",\n", true);
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
