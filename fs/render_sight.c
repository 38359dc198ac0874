// SPDX-License-Identifier: GPL-2.0-only
/*
 * hits_by and latency: what a link's per-link program (bpf/builtin/sight_*.c)
 * saw, printed as bpftrace prints a count map and a hist().
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "render_multi.h"
#include "render_sight.h"
#include "sbuf.h"
#include "sight.h"

/* An output that counts what it would need past its end. */
struct out {
	char *buf;
	size_t len, total;
};

static void put_c(struct out *o, char c)
{
	if (o->total + 1 < o->len)
		o->buf[o->total] = c;
	o->total++;
}

__attribute__((format(printf, 2, 3))) static void put_f(struct out *o,
							const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n, i;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	for (i = 0; i < n && i < (int)sizeof(tmp) - 1; i++)
		put_c(o, tmp[i]);
}

/* @n bytes of @s, a tab, newline or backslash escaped as `links` does */
static void put_esc(struct out *o, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && s[i]; i++) {
		char c = s[i];
		char esc = c == '\t'   ? 't'
			   : c == '\n' ? 'n'
			   : c == '\\' ? '\\'
				       : 0;

		if (esc)
			put_c(o, '\\');
		put_c(o, esc ? esc : c);
	}
}

static int out_end(struct out *o)
{
	if (o->len)
		o->buf[o->total < o->len ? o->total : o->len - 1] = '\0';
	return o->total > INT_MAX ? -E2BIG : (int)o->total;
}

/* The link's line parsed again: its by= and whether it was a pattern. */
static int view_probe(const struct link_view *v, struct probe_spec *p)
{
	struct parsed_cmd *cmd = malloc(sizeof(*cmd));
	struct bl_error perr;
	int err = cmd ? 0 : -ENOMEM;

	if (!err && (parse_line(v->own.spec, strlen(v->own.spec), cmd, &perr) ||
		     cmd->kind != CMD_PROBE))
		err = -ENODATA;
	if (!err)
		*p = cmd->probe;
	free(cmd);
	return err;
}

static void by_line(struct out *o, enum hits_by by,
		    const struct sight_by_row *r)
{
	char path[PATH_MAX];

	if (by == BY_PID) {
		put_f(o, "%" PRIu64 "\t", (uint64_t)r->key.id);
		put_esc(o, r->key.comm, sizeof(r->key.comm));
	} else if (by == BY_COMM) {
		put_esc(o, r->key.comm, sizeof(r->key.comm));
	} else if (!sight_cgroup_path(r->key.id, path, sizeof(path))) {
		put_esc(o, path, sizeof(path));
	} else {
		/* gone since: its id, as bpftrace prints cgroup */
		put_f(o, "cgroup:%" PRIu64, (uint64_t)r->key.id);
	}
	put_f(o, "\t%" PRIu64 "\n", (uint64_t)r->hits);
}

/* A link's by= rows, its by= and the hits no row holds (evicted keys) */
struct by_read {
	struct sight_by_row *rows;
	size_t n;
	enum hits_by by;
	uint64_t other;
};

static int by_read(const struct link_view *v, struct by_read *r)
{
	struct probe_spec *p = malloc(sizeof(*p));
	uint64_t hits = 0, sum = 0;
	int err = p ? view_probe(v, p) : -ENOMEM;
	size_t i;

	memset(r, 0, sizeof(*r));
	/* the map first: hits then counts every hit the map has */
	if (!err)
		err = sight_by_read(v->f.prog_id, &r->rows, &r->n);
	if (!err)
		err = render_multi_hits(v, &hits);
	if (!err) {
		r->by = p->by;
		for (i = 0; i < r->n; i++)
			sum += r->rows[i].hits;
		r->other = hits > sum ? hits - sum : 0;
	}
	free(p);
	if (err) {
		free(r->rows);
		r->rows = NULL;
	}
	return err;
}

int render_hits_by(const struct link_view *v, char *buf, size_t len)
{
	struct out o = {buf, len, 0};
	struct by_read r;
	int err = by_read(v, &r);
	size_t i;

	if (err)
		return err;
	for (i = 0; i < r.n; i++)
		by_line(&o, r.by, &r.rows[i]);
	if (r.other)
		put_f(&o, "# other %" PRIu64 "\n", r.other);
	free(r.rows);
	return out_end(&o);
}

static void json_key(struct sbuf *s, bool first, const char *key)
{
	sbuf_printf(s, "%s\"%s\":", first ? "" : ",", key);
}

int json_hits_by(const struct link_view *v, struct sbuf *s)
{
	char path[PATH_MAX];
	struct by_read r;
	int err = by_read(v, &r);
	size_t i;

	if (err)
		return err;
	sbuf_put(s, "[", 1);
	for (i = 0; i < r.n; i++) {
		const struct sight_by_key *k = &r.rows[i].key;

		sbuf_put(s, i ? ",{" : "{", i ? 2 : 1);
		if (r.by == BY_PID) {
			json_key(s, true, "pid");
			sbuf_put_u64(s, k->id);
		}
		if (r.by == BY_PID || r.by == BY_COMM) {
			json_key(s, r.by == BY_COMM, "comm");
			sbuf_put_json_string(s, k->comm,
					     strnlen(k->comm, sizeof(k->comm)));
		} else {
			json_key(s, true, "cgroup");
			if (sight_cgroup_path(k->id, path, sizeof(path)))
				snprintf(path, sizeof(path), "cgroup:%" PRIu64,
					 (uint64_t)k->id);
			sbuf_put_json_string(s, path, strlen(path));
		}
		json_key(s, false, "hits");
		sbuf_put_u64(s, r.rows[i].hits);
		sbuf_put(s, "}", 1);
	}
	if (r.other)
		sbuf_printf(s, "%s{\"other\":%" PRIu64 "}", r.n ? "," : "",
			    r.other);
	sbuf_put(s, "]", 1);
	free(r.rows);
	return 0;
}

/* bpftrace's label of a power of two: 1024 as 1K, 1048576 as 1M ... */
static void put_pow2(struct out *o, unsigned int exp)
{
	static const char suffix[] = " KMGTPE";
	unsigned int k = exp / 10;

	put_f(o, "%" PRIu64, (uint64_t)1 << (exp - 10 * k));
	if (k)
		put_c(o, suffix[k]);
}

/* "[0]", "[1]", "[2, 4)", "[512, 1K)", padded to 16 as bpftrace does */
static void put_bucket_label(struct out *o, unsigned int i)
{
	size_t start = o->total;

	if (i < 2) {
		put_f(o, "[%u]", i);
	} else {
		put_c(o, '[');
		put_pow2(o, i - 1);
		put_f(o, ", ");
		if (i == 64)
			put_f(o, "...");
		else
			put_pow2(o, i);
		put_c(o, ')');
	}
	while (o->total - start < 16)
		put_c(o, ' ');
}

/* One target's histogram: the buckets from the first to the last hit. */
static void put_hist(struct out *o, const __u64 *b)
{
	unsigned int lo = 0, hi = SIGHT_LAT_BUCKETS, i, j;
	__u64 max = 0;

	while (lo < hi && !b[lo])
		lo++;
	while (hi > lo && !b[hi - 1])
		hi--;
	for (i = lo; i < hi; i++)
		max = b[i] > max ? b[i] : max;
	for (i = lo; i < hi; i++) {
		unsigned int bar = max ? (unsigned int)(b[i] * 52 / max) : 0;

		put_bucket_label(o, i);
		put_f(o, "%8" PRIu64 " |", (uint64_t)b[i]);
		for (j = 0; j < 52; j++)
			put_c(o, j < bar ? '@' : ' ');
		put_f(o, "|\n");
	}
}

static bool any_calls(const __u64 *b)
{
	unsigned int i;

	for (i = 0; i < SIGHT_LAT_BUCKETS; i++)
		if (b[i])
			return true;
	return false;
}

/* @[TARGET]: and its histogram per target hit, a blank line between */
static int put_targets(struct out *o, const struct link_view *v,
		       const __u64 *lat, unsigned int n)
{
	char **names = NULL;
	int got = multi_target_names(v, &names);
	unsigned int i;
	bool first = true;

	if (got < 0)
		return got;
	for (i = 0; i < n; i++) {
		const __u64 *b = lat + (size_t)i * SIGHT_LAT_STRIDE;

		if (!any_calls(b))
			continue;
		if (!first)
			put_c(o, '\n');
		first = false;
		put_f(o, "@[");
		put_esc(o, (int)i < got ? names[i] : "-", PATH_MAX);
		put_f(o, "]:\n");
		put_hist(o, b);
	}
	for (i = 0; (int)i < got; i++)
		free(names[i]);
	free(names);
	return 0;
}

/*
 * A link's latency counts (SIGHT_LAT_STRIDE per target), and whether it
 * shows them per target (its line was a pattern, or it has several)
 */
static int lat_read(const struct link_view *v, __u64 **lat, unsigned int *n,
		    bool *per_target)
{
	struct probe_spec *p = malloc(sizeof(*p));
	int err;

	*n = v->own.nslots ? v->own.nslots : 1;
	*lat = calloc((size_t)*n * SIGHT_LAT_STRIDE, sizeof(**lat));
	err = p && *lat ? view_probe(v, p) : -ENOMEM;
	if (!err)
		err = sight_lat_read(v->f.prog_id, v->own.partner, *n, *lat);
	if (!err)
		*per_target = p->wildcard || *n > 1;
	free(p);
	if (err) {
		free(*lat);
		*lat = NULL;
	}
	return err;
}

int render_latency(const struct link_view *v, char *buf, size_t len)
{
	struct out o = {buf, len, 0};
	bool per_target = false;
	unsigned int n;
	__u64 *lat;
	int err = lat_read(v, &lat, &n, &per_target);

	if (!err && per_target)
		err = put_targets(&o, v, lat, n);
	else if (!err)
		put_hist(&o, lat);
	free(lat);
	return err ? err : out_end(&o);
}

/*
 * "low", "high" (bucket @i's [low, high) in ns, in decimal: 2^64 does not
 * fit a u64) and "count", and the object's end; @first: no key before
 */
static void json_bucket(struct sbuf *s, bool first, unsigned int i, __u64 count)
{
	json_key(s, first, "low");
	sbuf_put_u64(s, i < 2 ? i : (uint64_t)1 << (i - 1));
	json_key(s, false, "high");
	if (i == 64)
		sbuf_printf(s, "18446744073709551616");
	else
		sbuf_put_u64(s, (uint64_t)1 << i);
	json_key(s, false, "count");
	sbuf_put_u64(s, count);
	sbuf_put(s, "}", 1);
}

int json_latency(const struct link_view *v, struct sbuf *s)
{
	char **names = NULL;
	bool per_target = false, first = true;
	unsigned int n, t, i;
	int got = 0;
	__u64 *lat;
	int err = lat_read(v, &lat, &n, &per_target);

	if (err)
		return err;
	if (per_target)
		got = multi_target_names(v, &names);
	sbuf_put(s, "[", 1);
	for (t = 0; t < n; t++)
		for (i = 0; i < SIGHT_LAT_BUCKETS; i++) {
			__u64 c = lat[(size_t)t * SIGHT_LAT_STRIDE + i];

			if (!c)
				continue;
			sbuf_put(s, first ? "{" : ",{", first ? 1 : 2);
			first = false;
			if (per_target) {
				const char *nm = (int)t < got ? names[t] : "-";

				json_key(s, true, "target");
				sbuf_put_json_string(s, nm, strlen(nm));
			}
			json_bucket(s, !per_target, i, c);
		}
	sbuf_put(s, "]", 1);
	for (t = 0; (int)t < got; t++)
		free(names[t]);
	free(names);
	free(lat);
	return 0;
}
