// SPDX-License-Identifier: GPL-2.0-only
/* The per-link files (one table drives the tree) and the root tables. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "render.h"
#include "owned.h"
#include "counter.h"
#include "fmt.h"
#include "link_ids.h"
#include "linkcache.h"
#include "links.h"
#include "perf_names.h"
#include "tracefs.h"
#include "uprobe_target.h"

#define K_UPROBE (1u << PERF_LINK_UPROBE | 1u << PERF_LINK_URETPROBE)
#define K_KPROBE (1u << PERF_LINK_KPROBE | 1u << PERF_LINK_KRETPROBE)
#define K_TP (1u << PERF_LINK_TRACEPOINT)
#define K_EVENT (1u << PERF_LINK_EVENT)
#define K_ALL (K_UPROBE | K_KPROBE | K_TP | K_EVENT)
/* a perf link whose kind this kernel does not report (before 6.6) */
#define K_ANY (K_ALL | 1u << PERF_LINK_UNSPEC)
#define LF_MAYBE (1u << 7) /* known only for some links: ask render */
#define LF_ADDR (1u << 8)  /* only where known: link info, or non-zero */

static int view_load(__u32 id, struct link_view *v, bool verify)
{
	int err;

	if (owned_is_dying(id))
		return -ENOENT;
	err = linkcache_get(id, &v->f, verify);
	if (err)
		return err;
	if (v->f.link_type != LINK_TYPE_PERF_EVENT)
		return -ENOENT;
	v->owned = owned_get(id, &v->own) == 0;
	if (v->owned && !link_features()->perf_link_info) {
		__u32 prog_id = v->f.prog_id;

		v->f = v->own.f;
		v->f.prog_id = prog_id;
	}
	/* link info has 32 bits of a uprobe's file offset: ours is whole */
	if (v->owned &&
	    (v->f.kind == PERF_LINK_UPROBE || v->f.kind == PERF_LINK_URETPROBE))
		v->f.offset = v->own.f.offset;
	return 0;
}

int link_view_load(__u32 id, struct link_view *v)
{
	return view_load(id, v, true);
}

int link_view_load_listed(__u32 id, struct link_view *v)
{
	return view_load(id, v, false);
}

static int render_type(const struct link_view *v, char *buf, size_t len)
{
	const char *name = perf_link_kind_name(v->f.kind);

	return name ? fmt_line(buf, len, name) : -ENODATA;
}

static int render_name(const struct link_view *v, char *buf, size_t len)
{
	int n;

	if (v->f.kind != PERF_LINK_EVENT)
		return fmt_line(buf, len, v->f.name);
	n = perf_event_describe(v->f.event_type, v->f.config, buf, len - 1);
	return n + snprintf(buf + n, len - n, "\n");
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

static int render_prog_id(const struct link_view *v, char *buf, size_t len)
{
	return fmt_u64(buf, len, v->f.prog_id, '\n');
}

static int render_prog_name(const struct link_view *v, char *buf, size_t len)
{
	char name[64];
	int err =
		linkcache_prog_name(v->f.id, v->f.prog_id, name, sizeof(name));

	return err ? err : fmt_line(buf, len, name);
}

static int render_spec(const struct link_view *v, char *buf, size_t len)
{
	return fmt_line(buf, len, v->own.spec);
}

static int render_hits(const struct link_view *v, char *buf, size_t len)
{
	uint64_t hits;
	int err = counter_hits(owned_counter(), v->own.slot, &hits);

	return err ? err : fmt_u64(buf, len, hits, '\n');
}

/* only while the link runs this daemon's program (not one adopted) */
static int render_events(const struct link_view *v, char *buf, size_t len)
{
	if (!counter_runs_prog(owned_counter(), v->f.prog_id))
		return -ENODATA;
	buf[0] = 0;
	return 0;
}

const struct link_file link_files[] = {
	{"type", K_ALL, 0, JSON_STRING, render_type},
	{"name", K_ALL, 0, JSON_STRING, render_name},
	{"offset", K_UPROBE | K_KPROBE, 0, JSON_STRING, render_offset},
	{"addr", K_KPROBE, LF_READER | LF_ADDR, JSON_STRING, render_addr},
	{"config", K_EVENT, 0, JSON_NUMBER, render_config},
	{"event_type", K_EVENT, 0, JSON_NUMBER, render_event_type},
	{"cookie", K_ALL, LF_COOKIE, JSON_NUMBER, render_cookie},
	{"missed", K_KPROBE, LF_MISSED | LF_LIVE, JSON_NUMBER, render_missed},
	{"ref_ctr_offset", K_UPROBE, LF_REFCTR, JSON_STRING, render_ref_ctr},
	{"category", K_TP, LF_MAYBE, JSON_STRING, render_category},
	{"symbol", K_UPROBE, LF_MAYBE, JSON_NONE, render_symbol},
	{"prog_id", K_ANY, 0, JSON_NUMBER, render_prog_id},
	{"prog_name", K_ANY, 0, JSON_STRING, render_prog_name},
	{"spec", K_ANY, LF_OWNED, JSON_STRING, render_spec},
	{"hits", K_ANY, LF_BUILTIN | LF_LIVE, JSON_NUMBER, render_hits},
	{"events", K_ANY, LF_BUILTIN | LF_STREAM | LF_MAYBE, JSON_NONE,
	 render_events},
};
const size_t link_file_count = sizeof(link_files) / sizeof(link_files[0]);

bool link_file_applies(size_t i, const struct link_view *v)
{
	const struct link_file *lf = &link_files[i];
	char buf[PATH_MAX + 64];

	if (i >= link_file_count || !(lf->kinds & 1u << v->f.kind))
		return false;
	if ((lf->flags & LF_COOKIE && !link_features()->cookie) ||
	    (lf->flags & LF_MISSED && !link_features()->missed) ||
	    (lf->flags & LF_REFCTR && !link_features()->ref_ctr_offset))
		return false;
	if (lf->flags & (LF_OWNED | LF_BUILTIN) && !v->owned)
		return false;
	if (lf->flags & LF_BUILTIN && v->own.slot <= 0)
		return false;
	if (lf->flags & LF_ADDR && !link_features()->perf_link_info &&
	    !v->f.addr)
		return false;
	if (lf->flags & LF_MAYBE)
		return lf->render(v, buf, sizeof(buf)) >= 0;
	return true;
}

int link_file_render(size_t i, const struct link_view *v, char *buf, size_t len)
{
	int n;

	if (!link_file_applies(i, v))
		return -ENODATA;
	n = link_files[i].render(v, buf, len);
	if (n >= (int)len)
		return -ENAMETOOLONG;
	return n;
}
