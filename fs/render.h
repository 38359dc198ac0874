/* SPDX-License-Identifier: GPL-2.0-only */
/* The table of files per link and their renderers (render.c), and the
 * root tables (tables.c). */
#ifndef BPFLINKFS_RENDER_H
#define BPFLINKFS_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "link_info.h"
#include "owned.h"
#include "holders.h"
#include "host_pins.h"
#include "prog_stats.h"

struct reader {
	bool sees_addrs;
};

/* What a per-link file is rendered from */
struct link_view {
	struct link_fields f;
	struct owned *reg; /* the registry it was loaded from */
	bool owned;
	struct owned_info own;
	const struct reader *reader;
	/* every link's pins, read once for a whole table; NULL (as
	 * link_view_load() leaves it): the file reads them itself */
	const struct pin_index *pins;
	const struct holder_index *holders; /* the same for pids */
	/* its program's run statistics, read once for a whole table; NULL
	 * (as link_view_load() leaves it): the prog_* files read them */
	const struct prog_stats *stats;
};

/**
 * link_view_load() - read a link of any type from the kernel, and what
 * @reg (the daemon's registry, bpf/make/owned.h) knows of it
 * Return: 0, -ENOENT (gone, or being removed).
 */
int link_view_load(struct owned *reg, __u32 id, struct link_view *v);

/** link_view_load_listed() - the same for an id just enumerated */
int link_view_load_listed(struct owned *reg, __u32 id, struct link_view *v);

/*
 * How a file goes into links.json: a string, a number, the pids array
 * ([{"pid": N, "comm": "..."}] with where they run), or not at all
 */
enum json_kind {
	JSON_STRING,
	JSON_NUMBER,
	JSON_NONE,
	JSON_PIDS,
	/* a table with a header line (funcs): an array of objects keyed by
	 * the lower-cased column names; all-digit values as numbers */
	JSON_TABLE,
	/* the file's json_render() writes the value (pinned, latency,
	 * hits_by) */
	JSON_CUSTOM,
};

struct sbuf;

/* The views a file applies to: 1 << enum link_view_kind, or'd */
#define VIEW_BIT(view) (1u << (view))
#define K_UPROBE (VIEW_BIT(VIEW_UPROBE) | VIEW_BIT(VIEW_URETPROBE))
#define K_KPROBE (VIEW_BIT(VIEW_KPROBE) | VIEW_BIT(VIEW_KRETPROBE))
#define K_TP VIEW_BIT(VIEW_TRACEPOINT)
#define K_EVENT VIEW_BIT(VIEW_EVENT)
/* perf links whose kind is known */
#define K_PERF (K_UPROBE | K_KPROBE | K_TP | K_EVENT)
#define K_UPROBE_MULTI                                                         \
	(VIEW_BIT(VIEW_UPROBE_MULTI) | VIEW_BIT(VIEW_URETPROBE_MULTI) |        \
	 VIEW_BIT(VIEW_UPROBE_SESSION))
#define K_KPROBE_MULTI                                                         \
	(VIEW_BIT(VIEW_KPROBE_MULTI) | VIEW_BIT(VIEW_KRETPROBE_MULTI) |        \
	 VIEW_BIT(VIEW_KPROBE_SESSION))
#define K_MULTI (K_UPROBE_MULTI | K_KPROBE_MULTI)
#define K_TRACING VIEW_BIT(VIEW_TRACING)
#define K_RAW_TP VIEW_BIT(VIEW_RAW_TP)
#define K_OTHER VIEW_BIT(VIEW_OTHER)
/* every link, a perf link of unknown kind (before 6.6) included */
#define K_EVERY (VIEW_BIT(VIEW_KIND_COUNT) - 1)

struct link_file {
	const char *name;
	unsigned int kinds; /* VIEW_BIT()s of the views it applies to */
	unsigned int flags; /* LF_* */
	enum json_kind json;
	/* value with its newline into buf; -ENODATA: not known for this link */
	int (*render)(const struct link_view *v, char *buf, size_t len);
	/* JSON_CUSTOM: the value as JSON into @s; -errno: left out */
	int (*json_render)(const struct link_view *v, struct sbuf *s);
};

#define LF_COOKIE (1u << 0) /* only if the kernel reports the cookie */
#define LF_MISSED (1u << 1)
#define LF_REFCTR (1u << 2)
#define LF_OWNED (1u << 3)   /* only on links this mount created */
#define LF_LIVE (1u << 4)    /* a counter: direct_io, size 0 */
#define LF_READER (1u << 5)  /* depends on the reader: direct_io, size 0 */
#define LF_BUILTIN (1u << 6) /* owned and running the built-in program */
#define LF_STREAM (1u << 9)  /* a live stream (events): fs/events.c, 0400 */
/* only on owned links whose line asked for latency, by= (owned_info.sight) */
#define LF_LATENCY (1u << 11)
#define LF_HITS_BY (1u << 12)
#define LF_STACKS (1u << 13)

/* link_files[] has at most this many entries (render.c checks it) */
#define LINK_FILES_MAX 48

extern const struct link_file link_files[];
extern const size_t link_file_count;

/**
 * link_file_applies() - does file @i exist for this link?
 * Return: true when it applies to the kind, the kernel reports it and the
 * value is known.
 */
bool link_file_applies(size_t i, const struct link_view *v);

/**
 * link_file_render() - render file @i of a link
 * Return: length (< @len, NUL-terminated), or -ENODATA / -errno.
 */
int link_file_render(size_t i, const struct link_view *v, char *buf,
		     size_t len);

/**
 * link_target_count() - the COUNT column of `links` (bpflinkfs(8), the links
 * table): 1 for a single-target link (every perf link of known kind, tracing,
 * raw tracepoint), link info's count for a multi link, -1 (`-`) for a link that
 * probes nothing (cgroup, xdp, ..., a perf link of unknown kind)
 */
long link_target_count(const struct link_view *v);

/**
 * link_file_render_alloc() - render file @i of a link into a buffer as
 * large as its value (pids and pinned may be long)
 * @out: out, malloc'd, NUL-terminated; the caller frees it
 * Return: length, or -ENODATA / -errno.
 */
int link_file_render_alloc(size_t i, const struct link_view *v, char **out);

#endif
