// SPDX-License-Identifier: GPL-2.0-only
/* The per-link files (one table drives the tree) and the root tables. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "render.h"
#include "array_size.h"
#include "render_multi.h"
#include "render_holders.h"
#include "render_sight.h"
#include "owned.h"
#include "counter_load.h"
#include "fmt.h"
#include "sbuf.h"
#include "link_ids.h"
#include "fixed_fields.h"
#include "link_list.h"
#include "perf_names.h"
#include "prog_names.h"
#include "tracefs.h"
#include "uprobe_target.h"

#define LF_MAYBE (1u << 7)	 /* known only for some links: ask render */
#define LF_ADDR (1u << 8)	 /* only where known: link info, or non-zero */
#define LF_PER_TARGET (1u << 10) /* a line per target: sized by the count */

static int view_load(struct owned *reg, __u32 id, struct link_view *v,
		     bool verify)
{
	int own = owned_look(reg, id, &v->own), err;

	/* the daemon's own iterator links stay hidden */
	if (own < 0 || link_list_hidden(owned_link_list(reg), id))
		return -ENOENT;
	err = fixed_fields_get(id, &v->f, verify);
	if (err)
		return err;
	v->pins = NULL;
	v->holders = NULL;
	v->stats = NULL;
	v->reg = reg;
	v->owned = own == 1;
	if (v->owned && !link_features()->perf_link_info &&
	    v->f.link_type == LINK_TYPE_PERF_EVENT) {
		__u32 prog_id = v->f.prog_id;

		v->f = v->own.f;
		v->f.prog_id = prog_id;
	}
	/* link info has 32 bits of a uprobe's file offset: ours is whole */
	if (v->owned &&
	    (v->f.kind == PERF_LINK_UPROBE || v->f.kind == PERF_LINK_URETPROBE))
		v->f.offset = v->own.f.offset;
	if (v->f.link_type == LINK_TYPE_PERF_EVENT)
		v->f.view = (unsigned)v->f.kind <= PERF_LINK_EVENT
				    ? (enum link_view_kind)v->f.kind
				    : VIEW_PERF_UNSPEC;
	/* link info does not tell a session link from uprobe_multi (only
	 * its attach type does): ours with latency and no return link are */
	if (v->owned && v->f.view == VIEW_UPROBE_MULTI &&
	    v->own.sight & OPT_LATENCY && !v->own.partner)
		v->f.view = VIEW_UPROBE_SESSION;
	return 0;
}

int link_view_load(struct owned *reg, __u32 id, struct link_view *v)
{
	return view_load(reg, id, v, true);
}

int link_view_load_listed(struct owned *reg, __u32 id, struct link_view *v)
{
	return view_load(reg, id, v, false);
}

static int render_type(const struct link_view *v, char *buf, size_t len)
{
	char other[32];
	const char *name = link_view_name(&v->f, other, sizeof(other));

	return name ? fmt_line(buf, len, name) : -ENODATA;
}

static int render_name(const struct link_view *v, char *buf, size_t len)
{
	int n;

	/* a tracing link whose target BTF is gone has no name */
	if (!v->f.name[0] && v->f.link_type != LINK_TYPE_PERF_EVENT)
		return -ENODATA;
	if (v->f.view != VIEW_EVENT)
		return fmt_line(buf, len, v->f.name);
	n = perf_event_describe(v->f.event_type, v->f.config, buf, len - 1);
	/* the newline by hand: no snprintf() for one byte */
	if (n >= 0 && (size_t)n + 1 < len) {
		buf[n] = '\n';
		buf[n + 1] = '\0';
	}
	return n < 0 ? n : n + 1;
}

static int render_offset(const struct link_view *v, char *buf, size_t len)
{
	return fmt_hex(buf, len, v->f.offset, 1);
}

static int render_addr(const struct link_view *v, char *buf, size_t len)
{
	__u64 addr = v->reader && v->reader->sees_addrs ? v->f.addr : 0;

	return fmt_hex(buf, len, addr, 16);
}

static int render_config(const struct link_view *v, char *buf, size_t len)
{
	return fmt_u64(buf, len, v->f.config, '\n');
}

static int render_event_type(const struct link_view *v, char *buf, size_t len)
{
	return fmt_u64(buf, len, v->f.event_type, '\n');
}

static int render_cookie(const struct link_view *v, char *buf, size_t len)
{
	return fmt_u64(buf, len, v->f.cookie, '\n');
}

/* a counter: read live, never from the cache */
static int render_missed(const struct link_view *v, char *buf, size_t len)
{
	struct link_fields *f = malloc(sizeof(*f));
	int err = f ? link_info_read(v->f.id, f) : -ENOMEM;

	if (!err)
		err = fmt_u64(buf, len, f->missed, '\n');
	free(f);
	return err;
}

static int render_ref_ctr(const struct link_view *v, char *buf, size_t len)
{
	return fmt_hex(buf, len, v->f.ref_ctr_offset, 1);
}

static int render_category(const struct link_view *v, char *buf, size_t len)
{
	char cat[PROBE_NAME_MAX];

	if (v->owned && v->own.category[0])
		return fmt_line(buf, len, v->own.category);
	if (!v->f.name[0] || tracefs_category(v->f.name, cat, sizeof(cat)))
		return -ENODATA;
	return fmt_line(buf, len, cat);
}

static int render_symbol(const struct link_view *v, char *buf, size_t len)
{
	struct stat st;
	int n;

	if (v->f.name[0] != '/')
		return -ENODATA;
	if (v->owned && v->own.ino &&
	    (stat(v->f.name, &st) || st.st_dev != v->own.dev ||
	     st.st_ino != v->own.ino))
		return -ENODATA;
	if (uprobe_symbolize(v->f.name, v->f.offset, buf, len - 1))
		return -ENODATA;
	n = strlen(buf);
	return n + snprintf(buf + n, len - n, "\n");
}

static int render_attach_type(const struct link_view *v, char *buf, size_t len)
{
	const char *name = attach_type_name(v->f.attach_type);
	char num[32];

	if (!(v->f.known & LINK_KNOWN_ATTACH_TYPE))
		return -ENODATA;
	/* bpftool prints the number of a type it cannot name */
	if (!name) {
		snprintf(num, sizeof(num), "%u", v->f.attach_type);
		name = num;
	}
	return fmt_line(buf, len, name);
}

/* A number a non-probe link's info part reports (@bit of LINK_KNOWN_*) */
static int render_known(const struct link_view *v, __u32 bit, __u64 value,
			char *buf, size_t len)
{
	if (!(v->f.known & bit))
		return -ENODATA;
	return fmt_u64(buf, len, value, '\n');
}

static int render_cgroup_id(const struct link_view *v, char *buf, size_t len)
{
	return render_known(v, LINK_KNOWN_CGROUP_ID, v->f.cgroup_id, buf, len);
}

static int render_netns_ino(const struct link_view *v, char *buf, size_t len)
{
	return render_known(v, LINK_KNOWN_NETNS_INO, v->f.netns_ino, buf, len);
}

static int render_ifindex(const struct link_view *v, char *buf, size_t len)
{
	return render_known(v, LINK_KNOWN_IFINDEX, v->f.ifindex, buf, len);
}

static int render_map_id(const struct link_view *v, char *buf, size_t len)
{
	return render_known(v, LINK_KNOWN_MAP_ID, v->f.map_id, buf, len);
}

static int render_prog_id(const struct link_view *v, char *buf, size_t len)
{
	return fmt_u64(buf, len, v->f.prog_id, '\n');
}

static int render_prog_name(const struct link_view *v, char *buf, size_t len)
{
	char name[PROG_NAME_MAX];
	int err;

	/* a table read the kernel's name with the program's statistics */
	if (v->stats)
		err = prog_full_name(v->f.prog_id, v->stats->name, name,
				     sizeof(name));
	else
		err = fixed_fields_prog_name(v->f.id, v->f.prog_id, name,
					     sizeof(name));
	return err ? err : fmt_line(buf, len, name);
}

/* Puts byte @c at @total while it fits in @len. Return: the new total. */
static size_t put_byte(char *buf, size_t len, size_t total, char c)
{
	if (total + 1 < len)
		buf[total] = c;
	return total + 1;
}

/*
 * Appends @head as it is, then @value with a tab, newline or backslash
 * written \t, \n, \\ (as the `links` table writes them: a comm or a pin
 * name may hold any of them, and one line is one entry), then a newline,
 * as far as @len allows (NUL-terminated). Return: the new total.
 */
static size_t put_line(char *buf, size_t len, size_t total, const char *head,
		       const char *value)
{
	const char *p;

	for (p = head; *p; p++)
		total = put_byte(buf, len, total, *p);
	for (p = value; *p; p++) {
		char esc = *p == '\t'	? 't'
			   : *p == '\n' ? 'n'
			   : *p == '\\' ? '\\'
					: 0;

		if (esc)
			total = put_byte(buf, len, total, '\\');
		total = put_byte(buf, len, total, esc ? esc : *p);
	}
	total = put_byte(buf, len, total, '\n');
	if (len)
		buf[total < len ? total : len - 1] = '\0';
	return total;
}

/*
 * Its pins in mounted bpffs: the table's walk where a table reads, else
 * one read now into @own (freed by the caller). Return: 0, or -errno.
 */
static int link_pins(const struct link_view *v, struct pin_index *own,
		     const struct pin_index **idx, size_t *first, size_t *n)
{
	int err;

	*idx = v->pins;
	if (!*idx) {
		err = pin_index_build_link(own, v->f.id);
		if (err)
			return err;
		*idx = own;
	}
	*first = 0;
	*n = pin_index_find(*idx, v->f.id, first);
	return 0;
}

/* Its paths in mounted bpffs, a line each. */
static int render_pinned(const struct link_view *v, char *buf, size_t len)
{
	struct pin_index own = {0};
	const struct pin_index *idx;
	size_t first, n, i, total = 0;
	int err = link_pins(v, &own, &idx, &first, &n);

	if (err)
		return err;
	buf[0] = '\0';
	for (i = 0; i < n; i++)
		total = put_line(buf, len, total, "", idx->v[first + i].path);
	pin_index_free(&own);
	return total > INT_MAX ? -E2BIG : (int)total;
}

/* pinned in links.json: the paths themselves as JSON strings */
static int json_pinned(const struct link_view *v, struct sbuf *s)
{
	struct pin_index own = {0};
	const struct pin_index *idx;
	size_t first, n, i;
	int err = link_pins(v, &own, &idx, &first, &n);

	if (err)
		return err;
	sbuf_put(s, "[", 1);
	for (i = 0; i < n; i++) {
		const char *path = idx->v[first + i].path;

		sbuf_put(s, ",", i ? 1 : 0);
		sbuf_put_json_string(s, path, strlen(path));
	}
	sbuf_put(s, "]", 1);
	pin_index_free(&own);
	return 0;
}

/*
 * The processes holding an fd of it, read now (or once for the table; a
 * file of one link asks the kernel for that link's alone).
 * The daemon shows only for links it made: it opens any other link for a
 * moment to read it, which is no holding.
 */
static int render_pids(const struct link_view *v, char *buf, size_t len)
{
	struct holder_index own = {0};
	const struct holder_index *idx = v->holders;
	size_t first = 0, n, i, total = 0;
	char head[16];
	int err;

	if (!idx) {
		err = holder_index_build_link(&own, owned_task_files(v->reg),
					      v->f.id);
		if (err)
			return err;
		idx = &own;
	}
	buf[0] = '\0';
	n = holder_index_find(idx, v->f.id, &first);
	for (i = 0; i < n; i++) {
		const struct link_holder *h = &idx->v[first + i];

		if (h->pid == idx->self && !v->owned)
			continue;
		fmt_u64(head, sizeof(head), h->pid, '\t');
		total = put_line(buf, len, total, head, h->comm);
	}
	holder_index_free(&own);
	return total > INT_MAX ? -E2BIG : (int)total;
}

static int render_spec(const struct link_view *v, char *buf, size_t len)
{
	return fmt_line(buf, len, v->own.spec);
}

static int render_hits(const struct link_view *v, char *buf, size_t len)
{
	uint64_t hits;
	int err = render_multi_hits(v, &hits);

	return err ? err : fmt_u64(buf, len, hits, '\n');
}

/*
 * Its program's run statistics (bpf_prog_info), read now or once for the
 * table; shared by every link that runs the program.
 */
static int prog_stat(const struct link_view *v, struct prog_stats *out)
{
	if (v->stats) {
		*out = *v->stats;
		return 0;
	}
	return prog_stats_read(v->f.prog_id, out);
}

static int render_run_cnt(const struct link_view *v, char *buf, size_t len)
{
	struct prog_stats ps;
	int err = prog_stat(v, &ps);

	return err ? err : fmt_u64(buf, len, ps.run_cnt, '\n');
}

static int render_run_time(const struct link_view *v, char *buf, size_t len)
{
	struct prog_stats ps;
	int err = prog_stat(v, &ps);

	return err ? err : fmt_u64(buf, len, ps.run_time_ns, '\n');
}

static int render_recursion(const struct link_view *v, char *buf, size_t len)
{
	struct prog_stats ps;
	int err = prog_stat(v, &ps);

	return err ? err : fmt_u64(buf, len, ps.recursion_misses, '\n');
}

/* only while the link runs this daemon's program (not one adopted) */
static int render_events(const struct link_view *v, char *buf, size_t len)
{
	if (!counter_runs_prog(owned_counter(v->reg), v->f.prog_id))
		return -ENODATA;
	buf[0] = 0;
	return 0;
}

const struct link_file link_files[] = {
	{"type", K_EVERY & ~VIEW_BIT(VIEW_PERF_UNSPEC), 0, JSON_STRING,
	 render_type, NULL},
	{"name", K_PERF | K_UPROBE_MULTI | K_TRACING | K_RAW_TP, LF_MAYBE,
	 JSON_STRING, render_name, NULL},
	{"offset", K_UPROBE | K_KPROBE, 0, JSON_STRING, render_offset, NULL},
	{"addr", K_KPROBE, LF_READER | LF_ADDR, JSON_STRING, render_addr, NULL},
	{"config", K_EVENT, 0, JSON_NUMBER, render_config, NULL},
	{"event_type", K_EVENT, 0, JSON_NUMBER, render_event_type, NULL},
	{"cookie", K_PERF | K_TRACING | K_RAW_TP, LF_COOKIE, JSON_NUMBER,
	 render_cookie, NULL},
	{"missed", K_KPROBE | K_KPROBE_MULTI, LF_MISSED | LF_LIVE, JSON_NUMBER,
	 render_missed, NULL},
	{"ref_ctr_offset", K_UPROBE, LF_REFCTR, JSON_STRING, render_ref_ctr,
	 NULL},
	{"category", K_TP, LF_MAYBE, JSON_STRING, render_category, NULL},
	{"symbol", K_UPROBE, LF_MAYBE, JSON_NONE, render_symbol, NULL},
	{"attach_type", K_TRACING | K_OTHER, LF_MAYBE, JSON_STRING,
	 render_attach_type, NULL},
	/* what a non-probe link's info part reports, named as bpftool -j */
	{"cgroup_id", K_OTHER, LF_MAYBE, JSON_NUMBER, render_cgroup_id, NULL},
	{"netns_ino", K_OTHER, LF_MAYBE, JSON_NUMBER, render_netns_ino, NULL},
	{"ifindex", K_OTHER, LF_MAYBE, JSON_NUMBER, render_ifindex, NULL},
	{"map_id", K_OTHER, LF_MAYBE, JSON_NUMBER, render_map_id, NULL},
	{"prog_id", K_EVERY, 0, JSON_NUMBER, render_prog_id, NULL},
	{"prog_name", K_EVERY, 0, JSON_STRING, render_prog_name, NULL},
	{"count", K_MULTI, 0, JSON_NUMBER, render_count, NULL},
	{"funcs", K_MULTI, LF_LIVE | LF_READER | LF_PER_TARGET, JSON_TABLE,
	 render_funcs, NULL},
	{"pid", K_UPROBE_MULTI, LF_MAYBE, JSON_NUMBER, render_pid, NULL},
	{"pids", K_EVERY, LF_LIVE, JSON_PIDS, render_pids, NULL},
	{"pinned", K_EVERY, LF_LIVE, JSON_CUSTOM, render_pinned, json_pinned},
	{"holders", K_EVERY, LF_LIVE, JSON_NONE, render_holders, NULL},
	{"spec", K_EVERY, LF_OWNED, JSON_STRING, render_spec, NULL},
	{"hits", K_EVERY, LF_BUILTIN | LF_LIVE, JSON_NUMBER, render_hits, NULL},
	{"events", K_EVERY, LF_BUILTIN | LF_STREAM | LF_MAYBE, JSON_NONE,
	 render_events, NULL},
	{"prog_run_cnt", K_EVERY, LF_LIVE, JSON_NUMBER, render_run_cnt, NULL},
	{"prog_run_time_ns", K_EVERY, LF_LIVE, JSON_NUMBER, render_run_time,
	 NULL},
	{"prog_recursion_misses", K_EVERY, LF_LIVE, JSON_NUMBER,
	 render_recursion, NULL},
	{"latency", K_EVERY, LF_BUILTIN | LF_LIVE | LF_LATENCY, JSON_CUSTOM,
	 render_latency, json_latency},
	{"hits_by", K_EVERY, LF_BUILTIN | LF_LIVE | LF_HITS_BY, JSON_CUSTOM,
	 render_hits_by, json_hits_by},
	{"stacks", K_EVERY, LF_BUILTIN | LF_LIVE | LF_READER | LF_STACKS,
	 JSON_NONE, render_stacks, NULL},
};
const size_t link_file_count = ARRAY_SIZE(link_files);
_Static_assert(ARRAY_SIZE(link_files) <= LINK_FILES_MAX,
	       "LINK_FILES_MAX is what the tables' row plan holds");

long link_target_count(const struct link_view *v)
{
	unsigned int bit = VIEW_BIT(v->f.view);

	if (bit & K_MULTI)
		return v->f.count;
	if (bit & (K_PERF | K_TRACING | K_RAW_TP))
		return 1;
	return -1;
}

/* Does the kernel report this link's cookie? (perf: 6.9+; tracing and
 * raw_tp: when their info part has one) */
static bool cookie_reported(const struct link_view *v)
{
	if (v->f.link_type == LINK_TYPE_PERF_EVENT)
		return link_features()->cookie;
	return v->f.known & LINK_KNOWN_COOKIE;
}

/*
 * Whether file @i applies to @v as far as the link's type, the kernel's
 * fields and ownership tell; an LF_MAYBE file's render tells the rest.
 */
static bool applies_by_kind(size_t i, const struct link_view *v)
{
	const struct link_file *lf = &link_files[i];

	if (i >= link_file_count || !(lf->kinds & VIEW_BIT(v->f.view)))
		return false;
	if (lf->flags & LF_COOKIE && !cookie_reported(v))
		return false;
	if ((lf->flags & LF_MISSED && !link_features()->missed) ||
	    (lf->flags & LF_REFCTR && !link_features()->ref_ctr_offset))
		return false;
	if (lf->flags & (LF_OWNED | LF_BUILTIN) && !v->owned)
		return false;
	if (lf->flags & LF_BUILTIN && v->own.slot <= 0)
		return false;
	if ((lf->flags & LF_LATENCY && !(v->own.sight & OPT_LATENCY)) ||
	    (lf->flags & LF_HITS_BY && !(v->own.sight & OPT_BY)) ||
	    (lf->flags & LF_STACKS && !(v->own.sight & OPT_STACKS)))
		return false;
	if (lf->flags & LF_ADDR && !link_features()->perf_link_info &&
	    !v->f.addr)
		return false;
	return true;
}

bool link_file_applies(size_t i, const struct link_view *v)
{
	char buf[PATH_MAX + 64];

	if (!applies_by_kind(i, v))
		return false;
	if (link_files[i].flags & LF_MAYBE)
		return link_files[i].render(v, buf, sizeof(buf)) >= 0;
	return true;
}

/*
 * File @i's render, -ENODATA where it does not apply: an LF_MAYBE file is
 * rendered once, its failure meaning "not known here" (rendering it first
 * to ask link_file_applies() doubled the work of every table row).
 */
static int render_applying(size_t i, const struct link_view *v, char *buf,
			   size_t len)
{
	int n;

	if (!applies_by_kind(i, v))
		return -ENODATA;
	n = link_files[i].render(v, buf, len);
	if (n < 0 && link_files[i].flags & LF_MAYBE)
		return -ENODATA;
	return n;
}

int link_file_render(size_t i, const struct link_view *v, char *buf, size_t len)
{
	int n = render_applying(i, v, buf, len);

	if (n >= (int)len)
		return -ENAMETOOLONG;
	return n;
}

int link_file_render_alloc(size_t i, const struct link_view *v, char **out)
{
	size_t len = 2 * PATH_MAX;
	char *buf = NULL, *p;
	int n = -ENOMEM, tries;

	if (!applies_by_kind(i, v))
		return -ENODATA;
	/* a line per target: room for them at once, not a render to learn it */
	if (link_files[i].flags & LF_PER_TARGET && v->f.count * 64 > len)
		len = (size_t)v->f.count * 64;
	/*
	 * a list may grow between two renders (counters gain digits on a busy
	 * link): room for a quarter more than asked, and a few tries
	 */
	for (tries = 0; tries < 8; tries++) {
		p = realloc(buf, len);
		if (!p) {
			n = -ENOMEM;
			break;
		}
		buf = p;
		n = render_applying(i, v, buf, len);
		if (n < 0 || (size_t)n < len)
			break;
		len = (size_t)n + (size_t)n / 4 + 64;
		n = -EAGAIN;
	}
	if (n < 0) {
		free(buf);
		return n;
	}
	*out = buf;
	return n;
}
