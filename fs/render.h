/* SPDX-License-Identifier: GPL-2.0-only */
/* The table of files per link and their renderers (render.c), and the
 * root tables (tables.c). */
#ifndef BPFLINKFS_RENDER_H
#define BPFLINKFS_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "linkinfo.h"
#include "owned.h"

struct reader {
	bool sees_addrs;
};

/* What a per-link file is rendered from */
struct link_view {
	struct link_fields f;
	bool owned;
	struct owned_info own;
	const struct reader *reader;
};

/**
 * link_view_load() - read a perf-event link from the kernel
 * Return: 0, -ENOENT (gone, being removed, or not a perf-event link).
 */
int link_view_load(__u32 id, struct link_view *v);

/** link_view_load_listed() - the same for an id just enumerated */
int link_view_load_listed(__u32 id, struct link_view *v);

enum json_kind { JSON_STRING, JSON_NUMBER, JSON_NONE };

struct link_file {
	const char *name;
	unsigned int kinds; /* 1 << enum perf_link_kind it applies to */
	unsigned int flags; /* LF_* */
	enum json_kind json;
	/* value with its newline into buf; -ENODATA: not known for this link */
	int (*render)(const struct link_view *v, char *buf, size_t len);
};

#define LF_COOKIE (1u << 0) /* only if the kernel reports cookies */
#define LF_MISSED (1u << 1)
#define LF_REFCTR (1u << 2)
#define LF_OWNED (1u << 3)   /* only on links this mount created */
#define LF_LIVE (1u << 4)    /* a counter: direct_io, size 0 */
#define LF_READER (1u << 5)  /* depends on the reader: direct_io, size 0 */
#define LF_BUILTIN (1u << 6) /* owned and running the built-in program */
#define LF_STREAM (1u << 9)  /* a live stream (events): fs/events.c, 0400 */

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

#endif
