// SPDX-License-Identifier: GPL-2.0-only
/* links, links.json and features: the whole view in one read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach.h"
#include "access.h"
#include "owned.h"
#include "tables.h"
#include "fmt.h"
#include "links.h"
#include "prog_stats.h"
#include "sbuf.h"

/* A tab, newline or backslash inside a table value: \t, \n, \\ */
static void put_table_value(struct sbuf *s, const char *v, size_t n)
{
	size_t i, run = 0;

	for (i = 0; i < n; i++) {
		const char *esc = v[i] == '\t'	 ? "\\t"
				  : v[i] == '\n' ? "\\n"
				  : v[i] == '\\' ? "\\\\"
						 : NULL;

		if (!esc)
			continue;
		sbuf_put(s, v + run, i - run);
		sbuf_put(s, esc, 2);
		run = i + 1;
	}
	sbuf_put(s, v + run, n - run);
}

/* Plain printable ASCII needs no escape: the common case, copied in runs */
static bool json_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

static void put_json_string(struct sbuf *s, const char *v, size_t n)
{
	const unsigned char *p = (const unsigned char *)v;
	size_t i = 0, run, l;

	sbuf_put(s, "\"", 1);
	while (i < n) {
		for (run = i; i < n && json_plain(p[i]); i++)
			;
		sbuf_put(s, v + run, i - run);
		if (i == n)
			break;
		if (p[i] == '"' || p[i] == '\\') {
			sbuf_printf(s, "\\%c", p[i]);
			i++;
		} else if (p[i] < 0x20 || p[i] == 0x7f ||
			   !(l = utf8_len(p + i, n - i))) {
			sbuf_printf(s, "\\u%04x", p[i]);
			i++;
		} else {
			sbuf_put(s, v + i, l);
			i += l;
		}
	}
	sbuf_put(s, "\"", 1);
}

/* Render file @i of @v without its newline; false if it does not apply. */
static bool value_of(size_t i, const struct link_view *v, char *buf, size_t len,
		     size_t *n)
{
	int r = link_file_render(i, v, buf, len);

	if (r <= 0)
		return false;
	*n = r;
	if (*n && buf[*n - 1] == '\n')
		(*n)--;
	return true;
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

	sbuf_put_u64(s, v->f.id);
	for (c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
		sbuf_put(s, "\t", 1);
		if (value_of(file_index(cols[c]), v, buf, len, &n))
			put_table_value(s, buf, n);
		else
			sbuf_put(s, "-", 1);
	}
	sbuf_put(s, "\n", 1);
}

static void json_object(struct sbuf *s, const struct link_view *v, char *buf,
			size_t len)
{
	size_t i, n;

	sbuf_put(s, "{\"id\":", 6);
	sbuf_put_u64(s, v->f.id);
	for (i = 0; i < link_file_count; i++) {
		if (link_files[i].json == JSON_NONE ||
		    !value_of(i, v, buf, len, &n))
			continue;
		sbuf_put(s, ",\"", 2);
		sbuf_put(s, link_files[i].name, strlen(link_files[i].name));
		sbuf_put(s, "\":", 2);
		if (link_files[i].json == JSON_NUMBER)
			sbuf_put(s, buf, n);
		else
			put_json_string(s, buf, n);
	}
	sbuf_put(s, "}", 1);
}

typedef void (*row_fn)(struct sbuf *s, const struct link_view *v, char *buf,
		       size_t len);

/* Every perf link, read once, handed to @row; links gone meanwhile skip. */
static int for_each_link(struct sbuf *s, const struct reader *r, row_fn row,
			 const char *sep)
{
	size_t buflen = 2 * PATH_MAX;
	struct link_view *v = malloc(sizeof(*v));
	char *buf = malloc(buflen);
	__u32 *ids = NULL;
	int n, i, rows = 0;

	n = v && buf ? perf_link_ids(&ids) : -ENOMEM;
	for (i = 0; i < n; i++) {
		if (link_view_load_listed(ids[i], v))
			continue;
		v->reader = r;
		if (rows++)
			sbuf_put(s, sep, strlen(sep));
		row(s, v, buf, buflen);
	}
	free(ids);
	free(buf);
	free(v);
	return n < 0 ? n : 0;
}

char *render_links_table(const struct reader *r, size_t *len)
{
	struct sbuf s = {0};
	int err;

	sbuf_printf(&s,
		    "ID\tTYPE\tNAME\tOFFSET\tADDR\tCONFIG\tCOOKIE\tPROG_ID\n");
	err = for_each_link(&s, r, table_row, "");
	if (err) {
		free(s.p);
		errno = -err;
		return NULL;
	}
	return sbuf_finish(&s, len);
}

char *render_links_json(const struct reader *r, size_t *len)
{
	struct sbuf s = {0};
	int err;

	sbuf_put(&s, "[", 1);
	err = for_each_link(&s, r, json_object, ",\n");
	sbuf_put(&s, "]\n", 2);
	if (err) {
		free(s.p);
		errno = -err;
		return NULL;
	}
	return sbuf_finish(&s, len);
}

static int other_links(void)
{
	struct link_id_type *v = NULL;
	int n = links_now(&v), i, other = 0;

	for (i = 0; i < n; i++)
		other += v[i].type != LINK_TYPE_PERF_EVENT;
	free(v);
	return other;
}

char *render_features(size_t *len)
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
	sbuf_printf(&s, "other_links %d\n", other_links());
	sbuf_printf(&s, "bpf_stats %d\n", bpf_stats_enabled() == 1);
	return sbuf_finish(&s, len);
}
