// SPDX-License-Identifier: GPL-2.0-only
/*
 * The files of multi links (bpflinkfs(8), THE TREE): count, funcs (one line
 * per target, of any length), pid, and hits summed over the targets.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "counter_load.h"
#include "fmt.h"
#include "ksyms.h"
#include "multi_targets.h"
#include "owned.h"
#include "render.h"
#include "render_multi.h"
#include "uprobe_target.h"

int render_count(const struct link_view *v, char *buf, size_t len)
{
	return fmt_u64(buf, len, v->f.count, '\n');
}

int render_pid(const struct link_view *v, char *buf, size_t len)
{
	if (!v->f.pid)
		return -ENODATA;
	return fmt_u64(buf, len, v->f.pid, '\n');
}

/* The built-in program counts a target in the slot its cookie names. */
static bool counts_by_cookie(const struct link_view *v)
{
	return v->owned && v->own.slot > 0 && owned_counter(v->reg);
}

int render_multi_hits(const struct link_view *v, uint64_t *sum)
{
	unsigned int i, n = v->own.nslots ? v->own.nslots : 1;
	uint64_t *hits = calloc(n, sizeof(*hits));
	int err = hits ? counter_hits_range(owned_counter(v->reg), v->own.slot,
					    n, hits)
		       : -ENOMEM;

	*sum = 0;
	for (i = 0; !err && i < n; i++)
		*sum += hits[i];
	free(hits);
	return err;
}

/* SYMBOL as the `symbol` file writes it, or "-" (file replaced, none) */
static void target_symbol(const struct link_view *v, const char *path,
			  bool same_file, uint64_t off, char *sym, size_t len)
{
	if (!same_file || path[0] != '/' ||
	    uprobe_symbolize(path, off, sym, len))
		snprintf(sym, len, "-");
}

static bool probed_file_is_there(const struct link_view *v, const char *path)
{
	struct stat st;

	if (!v->owned || !v->own.ino)
		return true;
	return !stat(path, &st) && st.st_dev == v->own.dev &&
	       st.st_ino == v->own.ino;
}

/*
 * The funcs text, written straight into the caller's buffer while it fits
 * and counted on beyond (snprintf's contract, without a stream to grow
 * and copy: a 10,000-target link's text is ~400 kB).
 */
struct lines {
	char *buf;
	size_t len, n;
};

static void put(struct lines *o, const char *s, size_t k)
{
	if (o->n < o->len)
		memcpy(o->buf + o->n, s, k < o->len - o->n ? k : o->len - o->n);
	o->n += k;
}

static void put_str(struct lines *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_u64(struct lines *o, uint64_t v)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	put(o, p, tmp + sizeof(tmp) - p);
}

/* "0x" and @v in hex, at least @width digits */
static void put_hex(struct lines *o, uint64_t v, int width)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	do
		*--p = "0123456789abcdef"[v & 15];
	while ((v >>= 4) || tmp + sizeof(tmp) - p < width);
	*--p = 'x';
	*--p = '0';
	put(o, p, tmp + sizeof(tmp) - p);
}

/* HITS of the slot @cookie names, from @hits (slot own.slot on), or "-" */
static void put_hits(struct lines *o, const struct link_view *v,
		     uint64_t cookie, const uint64_t *hits)
{
	if (!counts_by_cookie(v))
		return;
	if (!hits || cookie < (uint64_t)v->own.slot ||
	    cookie - v->own.slot >= v->own.nslots) {
		put_str(o, "\t-");
	} else {
		put(o, "\t", 1);
		put_u64(o, hits[cookie - v->own.slot]);
	}
}

/* The owned link's slot counts, one batch for all; NULL when none. */
static uint64_t *read_hits(const struct link_view *v)
{
	uint64_t *hits;

	if (!counts_by_cookie(v) || !v->own.nslots)
		return NULL;
	hits = calloc(v->own.nslots, sizeof(*hits));
	if (hits && counter_hits_range(owned_counter(v->reg), v->own.slot,
				       v->own.nslots, hits)) {
		free(hits);
		hits = NULL;
	}
	return hits;
}

/*
 * SYMBOLs of all targets with one stat and cache look-up, pointing into
 * *@text (the caller frees both); NULL entries where none.
 */
static char **target_symbols(const struct link_view *v,
			     const struct multi_link_targets *mi, char **text)
{
	uint64_t *offs = calloc(mi->count ? mi->count : 1, sizeof(*offs));
	char **names = calloc(mi->count ? mi->count : 1, sizeof(*names));
	__u32 i;

	*text = NULL;
	if (offs && names && mi->path[0] == '/' &&
	    probed_file_is_there(v, mi->path)) {
		for (i = 0; i < mi->count; i++)
			offs[i] = mi->t[i].where;
		uprobe_symbolize_many(mi->path, offs, mi->count, names, text);
	}
	free(offs);
	return names;
}

static void uprobe_lines(struct lines *o, const struct link_view *v,
			 const struct multi_link_targets *mi)
{
	uint64_t *hits = read_hits(v);
	char *text;
	char **syms = target_symbols(v, mi, &text);
	__u32 i;

	put_str(o, counts_by_cookie(v)
			   ? "OFFSET\tSYMBOL\tREF_CTR_OFFSET\tCOOKIE\tHITS\n"
			   : "OFFSET\tSYMBOL\tREF_CTR_OFFSET\tCOOKIE\n");
	for (i = 0; i < mi->count; i++) {
		put_hex(o, mi->t[i].where, 1);
		put(o, "\t", 1);
		put_str(o, syms && syms[i] ? syms[i] : "-");
		put(o, "\t", 1);
		put_hex(o, mi->t[i].ref_ctr_offset, 1);
		put(o, "\t", 1);
		put_u64(o, mi->t[i].cookie);
		put_hits(o, v, mi->t[i].cookie, hits);
		put(o, "\n", 1);
	}
	free(text);
	free(syms);
	free(hits);
}

/* FUNC from the address the daemon sees; ADDR per the reader's rule. */
static void kprobe_lines(struct lines *o, const struct link_view *v,
			 const struct multi_link_targets *mi)
{
	struct ksyms *ks = ksyms_load();
	bool sees = v->reader && v->reader->sees_addrs;
	uint64_t *hits = read_hits(v);
	char func[768];
	__u32 i;

	put_str(o, counts_by_cookie(v) ? "FUNC\tADDR\tCOOKIE\tHITS\n"
				       : "FUNC\tADDR\tCOOKIE\n");
	for (i = 0; i < mi->count; i++) {
		if (!ks || ksyms_name(ks, mi->t[i].where, func, sizeof(func)))
			snprintf(func, sizeof(func), "-");
		put_str(o, func);
		put(o, "\t", 1);
		put_hex(o, sees ? mi->t[i].where : 0, 16);
		if (mi->has_cookies) {
			put(o, "\t", 1);
			put_u64(o, mi->t[i].cookie);
			put_hits(o, v, mi->t[i].cookie, hits);
		} else {
			put_str(o, "\t-");
			if (counts_by_cookie(v))
				put_str(o, "\t-");
		}
		put(o, "\n", 1);
	}
	ksyms_free(ks);
	free(hits);
}

/*
 * Written into @buf as far as it fits; the whole length is returned, and
 * when it is >= @len the caller asks again with room
 * (link_file_render_alloc()).
 */
int render_funcs(const struct link_view *v, char *buf, size_t len)
{
	struct lines o = {.buf = buf, .len = len};
	struct multi_link_targets mi;
	int err = multi_targets_read(v->f.id, &mi);

	if (err)
		return err == -EINVAL ? -ENODATA : err;
	if (mi.link_type == LINK_TYPE_UPROBE_MULTI)
		uprobe_lines(&o, v, &mi);
	else
		kprobe_lines(&o, v, &mi);
	multi_targets_free(&mi);
	if (len)
		buf[o.n < len ? o.n : len - 1] = '\0';
	return o.n > INT_MAX ? -EFBIG : (int)o.n;
}

/* The name of target @i, "-" when unknown; @ks for kprobe_multi. */
static char *target_name(const struct link_view *v, const struct multi_link_targets *mi,
			 bool same, struct ksyms *ks, __u32 i)
{
	char name[PROBE_GLOB_NAME_MAX + 32];

	if (mi->link_type == LINK_TYPE_UPROBE_MULTI)
		target_symbol(v, mi->path, same, mi->t[i].where, name,
			      sizeof(name));
	else if (!ks || ksyms_name(ks, mi->t[i].where, name, sizeof(name)))
		snprintf(name, sizeof(name), "-");
	return strdup(name);
}

int multi_target_names(const struct link_view *v, char ***names)
{
	struct multi_link_targets *mi = calloc(1, sizeof(*mi));
	unsigned int n = v->own.nslots;
	char **out = calloc(n ? n : 1, sizeof(*out));
	struct ksyms *ks = NULL;
	int err = mi && out ? multi_targets_read(v->f.id, mi) : -ENOMEM;
	bool same = false;
	__u32 i;

	if (!err && mi->link_type == LINK_TYPE_KPROBE_MULTI)
		ks = ksyms_load();
	if (!err && mi->link_type == LINK_TYPE_UPROBE_MULTI)
		same = probed_file_is_there(v, mi->path);
	for (i = 0; !err && mi->has_cookies && i < mi->count; i++) {
		uint64_t at = mi->t[i].cookie - v->own.slot;

		if (mi->t[i].cookie >= (uint64_t)v->own.slot && at < n &&
		    !out[at])
			out[at] = target_name(v, mi, same, ks, i);
	}
	for (i = 0; !err && i < n; i++)
		if (!out[i] && !(out[i] = strdup("-")))
			err = -ENOMEM;
	ksyms_free(ks);
	if (mi)
		multi_targets_free(mi);
	free(mi);
	if (err) {
		for (i = 0; out && i < n; i++)
			free(out[i]);
		free(out);
		return err;
	}
	*names = out;
	return n;
}
