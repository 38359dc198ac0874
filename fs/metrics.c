// SPDX-License-Identifier: GPL-2.0-only
/*
 * metrics.prom (bpflinkfs(8), metrics.prom): the tree in the Prometheus text
 * exposition format 0.0.4, for node-exporter's textfile collector. One walk
 * over the links fills one buffer per family; a family with no sample is left
 * out (HELP and TYPE included), so a family is absent exactly when it has
 * nothing to say (run count and time while the kernel's run statistics
 * are off).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "bare_perf_events.h"
#include "metrics.h"
#include "perf_names.h"
#include "prog_names.h"
#include "prog_stats.h"
#include "link_progs.h"
#include "render_multi.h"
#include "sbuf.h"
#include "table_rows.h"
#include "sight.h"

enum family_id {
	FAM_LINK_INFO,
	FAM_LINK_HITS,
	FAM_TARGET_HITS,
	FAM_LATENCY,
	FAM_MISSED,
	FAM_LINKS,
	FAM_RUN_COUNT,
	FAM_RUN_TIME,
	FAM_RECURSION,
	FAM_LINK_RUN_TIME,
	FAM_ATTACHED_INFO,
	FAM_COUNT,
};

static const struct {
	const char *name, *type, *help;
} families[FAM_COUNT] = {
	[FAM_LINK_INFO] =
		{"bpflinkfs_link_info", "gauge",
		 "Every BPF link: its type, name and program. Always 1."},
	[FAM_LINK_HITS] =
		{"bpflinkfs_link_hits_total", "counter",
		 "Hits counted by the built-in program of a link this "
		 "mount created (its hits file)."},
	[FAM_TARGET_HITS] = {"bpflinkfs_link_target_hits_total", "counter",
			     "Hits per target of a multi link this mount "
			     "created (the HITS column of its funcs file)."},
	[FAM_LATENCY] = {"bpflinkfs_link_latency_seconds", "histogram",
			 "Call times of a link this mount created with "
			 "latency (its latency file), per target, in buckets "
			 "at the powers of two of nanoseconds."},
	[FAM_MISSED] = {"bpflinkfs_link_missed_total", "counter",
			"Runs of the link's program the kernel missed (its "
			"missed file)."},
	[FAM_LINKS] = {"bpflinkfs_links", "gauge", "BPF links per type."},
	[FAM_RUN_COUNT] =
		{"bpflinkfs_prog_run_count_total", "counter",
		 "Runs of a program attached by a link, counted while the "
		 "kernel's run statistics are on (bpf_prog_info "
		 "run_cnt)."},
	[FAM_RUN_TIME] = {"bpflinkfs_prog_run_time_seconds_total", "counter",
			  "Time spent in a program attached by a link, counted "
			  "while the kernel's run statistics are on "
			  "(bpf_prog_info run_time_ns)."},
	[FAM_RECURSION] = {"bpflinkfs_prog_recursion_misses_total", "counter",
			   "Runs of a program attached by a link that the "
			   "kernel skipped because it was already running on "
			   "that CPU (bpf_prog_info recursion_misses)."},
	[FAM_LINK_RUN_TIME] = {"bpflinkfs_link_run_time_seconds_total",
			       "counter",
			       "Time of the built-in program spent for a link "
			       "this mount created: the program's run time in "
			       "the share of its hits that are the link's."},
	[FAM_ATTACHED_INFO] = {"bpflinkfs_attached_info", "gauge",
			       "Every program attached to a perf event without "
			       "a link (attached/). Always 1."},
};

/* The link files a sample is made of, looked up once per render */
enum {
	MF_TYPE,
	MF_NAME,
	MF_PROG_ID,
	MF_PROG_NAME,
	MF_SPEC,
	MF_HITS,
	MF_MISSED,
	MF_FUNCS,
	MF_FILES
};
static const char *const file_names[MF_FILES] = {
	[MF_TYPE] = "type",	  [MF_NAME] = "name",
	[MF_PROG_ID] = "prog_id", [MF_PROG_NAME] = "prog_name",
	[MF_SPEC] = "spec",	  [MF_HITS] = "hits",
	[MF_MISSED] = "missed",	  [MF_FUNCS] = "funcs",
};

struct type_count {
	char name[64];
	uint64_t links;
};

struct metrics {
	struct sbuf fam[FAM_COUNT];
	size_t file[MF_FILES]; /* index into link_files[], or SIZE_MAX */
	struct type_count *types;
	size_t ntypes;
	__u32 *progs; /* prog ids attached by links, unsorted, repeated */
	size_t nprogs;
	struct own_hits {
		__u32 id, prog_id;
		uint64_t hits;
	} * own; /* own links of the built-in program, and their hits */
	size_t nown;
	/* every link's program and statistics, read with the link ids
	 * (listed_links_progs()), then sorted by program id; nlp < 0: none */
	struct link_prog *lp;
	int nlp;
	char *buf; /* a rendered file value */
	size_t buflen;
};

/*
 * A label value as the format wants it: backslash, double quote and
 * newline escaped; a byte that is not part of valid UTF-8 (which the
 * format requires) as the text \xHH, its backslash escaped like any other.
 */
static void put_label_value(struct sbuf *s, const char *v, size_t n)
{
	const unsigned char *p = (const unsigned char *)v;
	size_t i = 0, run, l;

	while (i < n) {
		for (run = i; i < n && p[i] >= 0x20 && p[i] < 0x7f &&
			      p[i] != '"' && p[i] != '\\';
		     i++)
			;
		sbuf_put(s, v + run, i - run);
		if (i == n)
			break;
		if (p[i] == '"' || p[i] == '\\' || p[i] == '\n') {
			sbuf_put(s,
				 p[i] == '"'	? "\\\""
				 : p[i] == '\\' ? "\\\\"
						: "\\n",
				 2);
			i++;
		} else if (!(l = utf8_len(p + i, n - i))) {
			sbuf_printf(s, "\\\\x%02x", p[i]);
			i++;
		} else {
			sbuf_put(s, v + i, l);
			i += l;
		}
	}
}

/* `name="value"` with the separator before it (none for the first) */
static void put_label(struct sbuf *s, bool first, const char *name,
		      const char *v, size_t n)
{
	sbuf_put(s, first ? "{" : ",", 1);
	sbuf_put(s, name, strlen(name));
	sbuf_put(s, "=\"", 2);
	put_label_value(s, v, n);
	sbuf_put(s, "\"", 1);
}

static void put_label_u64(struct sbuf *s, bool first, const char *name,
			  uint64_t v)
{
	char num[24];

	put_label(s, first, name, num, fmt_u64(num, sizeof(num), v, 0));
}

/* a new sample of family @f: its metric name, then put_label(.., true, ..) */
static struct sbuf *sample(struct metrics *m, enum family_id f)
{
	sbuf_put(&m->fam[f], families[f].name, strlen(families[f].name));
	return &m->fam[f];
}

/* a sample's value and end of line; no timestamp (the scrape's time) */
static void put_value(struct sbuf *s, uint64_t v)
{
	sbuf_put(s, "} ", 2);
	sbuf_put_u64(s, v);
	sbuf_put(s, "\n", 1);
}

/*
 * The value of link file @f without its newline into m->buf; an empty
 * string when it does not apply to the link. Return: its length, or -1
 * when it does not apply.
 */
static int file_value(struct metrics *m, const struct link_view *v, int f)
{
	int n = m->file[f] == SIZE_MAX
			? -ENODATA
			: link_file_render(m->file[f], v, m->buf, m->buflen);

	if (n <= 0) {
		m->buf[0] = '\0';
		return -1;
	}
	if (m->buf[n - 1] == '\n')
		m->buf[--n] = '\0';
	return n;
}

static int count_type(struct metrics *m, const char *type)
{
	struct type_count *t;
	size_t i;

	for (i = 0; i < m->ntypes; i++)
		if (strcmp(m->types[i].name, type) == 0) {
			m->types[i].links++;
			return 0;
		}
	t = realloc(m->types, (m->ntypes + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	m->types = t;
	snprintf(t[m->ntypes].name, sizeof(t->name), "%s", type);
	t[m->ntypes++].links = 1;
	return 0;
}

static int note_prog(struct metrics *m, __u32 prog_id)
{
	__u32 *p;

	if (!prog_id)
		return 0;
	p = realloc(m->progs, (m->nprogs + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	m->progs = p;
	p[m->nprogs++] = prog_id;
	return 0;
}

/* An own link of the built-in program: its share of the run time. */
static void note_own(struct metrics *m, const struct link_view *v,
		     uint64_t hits)
{
	struct own_hits *p = realloc(m->own, (m->nown + 1) * sizeof(*p));

	if (!p)
		return;
	m->own = p;
	p[m->nown++] = (struct own_hits){v->f.id, v->f.prog_id, hits};
}

static void target_sample(void *ctx, __u32 id, const char *target, size_t len,
			  uint64_t hits)
{
	struct sbuf *s = sample(ctx, FAM_TARGET_HITS);

	put_label_u64(s, true, "id", id);
	put_label(s, false, "target", target, len);
	put_value(s, hits);
}

/* Field @col (from 0) of the tab-separated line [@p, @end), or false */
static bool field_of(const char *p, const char *end, int col, const char **f,
		     size_t *n)
{
	const char *tab;

	for (; col > 0; col--) {
		tab = memchr(p, '\t', end - p);
		if (!tab)
			return false;
		p = tab + 1;
	}
	tab = memchr(p, '\t', end - p);
	*f = p;
	*n = (tab ? tab : end) - p;
	return true;
}

/* The column of the header line [@p, @end) named @name, or -1 */
static int column_of(const char *p, const char *end, const char *name)
{
	const char *f;
	size_t n;
	int col;

	for (col = 0; field_of(p, end, col, &f, &n); col++)
		if (n == strlen(name) && !memcmp(f, name, n))
			return col;
	return -1;
}

/*
 * link_target_hits() - the hits of each target of an own multi link with
 * the built-in program, handed to @emit: read from its funcs file
 * (bpflinkfs(8), THE TREE), whose header names the target column (SYMBOL or
 * FUNC) and HITS. A link without funcs, or without the HITS column, has none.
 * @funcs: the funcs file's text, NUL-ended
 */
static void link_target_hits(__u32 id, const char *funcs,
			     void (*emit)(void *ctx, __u32 id,
					  const char *target, size_t len,
					  uint64_t hits),
			     void *ctx)
{
	const char *p = funcs, *end = strchr(p, '\n'), *t, *h;
	int tcol, hcol;
	size_t tn, hn;

	if (!end)
		return;
	tcol = column_of(p, end, "SYMBOL");
	if (tcol < 0)
		tcol = column_of(p, end, "FUNC");
	hcol = column_of(p, end, "HITS");
	if (tcol < 0 || hcol < 0)
		return;
	for (p = end + 1; (end = strchr(p, '\n')); p = end + 1)
		if (field_of(p, end, tcol, &t, &tn) &&
		    field_of(p, end, hcol, &h, &hn) && hn && h[0] >= '0' &&
		    h[0] <= '9')
			emit(ctx, id, t, tn, strtoull(h, NULL, 10));
}

/*
 * File @file of @v whole, in a buffer that grows until it fits (funcs
 * has a line per target). Return: malloc'd text, or NULL (does not
 * apply, or -errno).
 */
static char *render_whole(size_t file, const struct link_view *v)
{
	size_t len = 64 * 1024;
	char *buf = NULL, *p;
	int n;

	while (len <= (64u << 20) && (p = realloc(buf, len))) {
		buf = p;
		n = link_file_render(file, v, buf, len);
		if (n >= 0 && (size_t)n < len)
			return buf;
		if (n != -ENAMETOOLONG && n < 0)
			break;
		len *= 4;
	}
	free(buf);
	return NULL;
}

/* per-target hits of an own multi link: the HITS column of its funcs */
static void target_counters(struct metrics *m, const struct link_view *v)
{
	char *funcs;

	if (m->file[MF_FUNCS] == SIZE_MAX ||
	    !link_file_applies(m->file[MF_FUNCS], v))
		return;
	funcs = render_whole(m->file[MF_FUNCS], v);
	if (funcs)
		link_target_hits(v->f.id, funcs, target_sample, m);
	free(funcs);
}

/* The buckets metrics.prom shows: le = 2^0 .. 2^LAT_LE_MAX ns, then +Inf */
#define LAT_LE_MAX 40

/* A latency sample of @suffix with the link's id and target labels */
static struct sbuf *lat_sample(struct metrics *m, const char *suffix, __u32 id,
			       const char *target)
{
	struct sbuf *s = sample(m, FAM_LATENCY);

	sbuf_put(s, suffix, strlen(suffix));
	put_label_u64(s, true, "id", id);
	put_label(s, false, "target", target, strlen(target));
	return s;
}

/*
 * One target's histogram: bucket i of sight_abi.h holds calls of
 * [2^(i-1), 2^i) ns, so le = 2^i ns counts buckets 0 .. i (le written as
 * 2^i and e-09: exact, and the same text every scrape).
 */
static void lat_target(struct metrics *m, __u32 id, const char *target,
		       const __u64 *b)
{
	uint64_t cum = 0, all = 0;
	struct sbuf *s;
	unsigned int i;

	for (i = 0; i < SIGHT_LAT_BUCKETS; i++)
		all += b[i];
	for (i = 0; i <= LAT_LE_MAX; i++) {
		cum += b[i];
		s = lat_sample(m, "_bucket", id, target);
		sbuf_printf(s, ",le=\"%llue-09\"", 1ull << i);
		put_value(s, cum);
	}
	s = lat_sample(m, "_bucket", id, target);
	sbuf_printf(s, ",le=\"+Inf\"");
	put_value(s, all);
	s = lat_sample(m, "_sum", id, target);
	sbuf_printf(s, "} %llu.%09llu\n",
		    (unsigned long long)(b[SIGHT_LAT_SUM] / 1000000000),
		    (unsigned long long)(b[SIGHT_LAT_SUM] % 1000000000));
	put_value(lat_sample(m, "_count", id, target), all);
}

/* latency: a histogram per target, named as funcs names it */
static void latency_samples(struct metrics *m, const struct link_view *v)
{
	unsigned int n = v->own.nslots ? v->own.nslots : 1, t;
	__u64 *lat = calloc((size_t)n * SIGHT_LAT_STRIDE, sizeof(*lat));
	char **names = NULL;
	int got = -1;

	if (lat && !sight_lat_read(v->f.prog_id, v->own.partner, n, lat))
		got = multi_target_names(v, &names);
	for (t = 0; (int)t < got && t < n; t++)
		lat_target(m, v->f.id, names[t],
			   lat + (size_t)t * SIGHT_LAT_STRIDE);
	for (t = 0; (int)t < got; t++)
		free(names[t]);
	free(names);
	free(lat);
}

/* hits, per-target hits and missed: the counters, read live */
static void link_counters(struct metrics *m, const struct link_view *v)
{
	uint64_t value;
	int n;

	if (file_value(m, v, MF_HITS) > 0) {
		value = strtoull(m->buf, NULL, 10);
		note_own(m, v, value);
		n = file_value(m, v, MF_SPEC);
		put_label_u64(sample(m, FAM_LINK_HITS), true, "id", v->f.id);
		put_label(&m->fam[FAM_LINK_HITS], false, "spec", m->buf,
			  n > 0 ? n : 0);
		put_value(&m->fam[FAM_LINK_HITS], value);
		target_counters(m, v);
		if (v->owned && v->own.sight & OPT_LATENCY)
			latency_samples(m, v);
	}
	if (file_value(m, v, MF_MISSED) > 0) {
		put_label_u64(sample(m, FAM_MISSED), true, "id", v->f.id);
		put_value(&m->fam[FAM_MISSED], strtoull(m->buf, NULL, 10));
	}
}

static int link_samples(struct metrics *m, const struct link_view *v)
{
	struct sbuf *s = sample(m, FAM_LINK_INFO);
	int n, err;

	put_label_u64(s, true, "id", v->f.id);
	n = file_value(m, v, MF_TYPE);
	put_label(s, false, "type", m->buf, n > 0 ? n : 0);
	err = count_type(m, m->buf);
	n = file_value(m, v, MF_NAME);
	put_label(s, false, "name", m->buf, n > 0 ? n : 0);
	put_label_u64(s, false, "prog_id", v->f.prog_id);
	n = file_value(m, v, MF_PROG_NAME);
	put_label(s, false, "prog_name", m->buf, n > 0 ? n : 0);
	put_value(s, 1);
	if (!err)
		err = note_prog(m, v->f.prog_id);
	if (!err)
		link_counters(m, v);
	return err;
}

/* Every link the tree shows, read once; links gone meanwhile skip. */
static int links_samples(struct metrics *m, struct owned *reg,
			 const __u32 *ids, int n)
{
	struct link_view *v = malloc(sizeof(*v));
	struct reader r = {false};
	int i, err = v ? 0 : -ENOMEM;

	for (i = 0; !err && i < n; i++) {
		if (link_view_load_listed(reg, ids[i], v))
			continue;
		v->reader = &r;
		err = link_samples(m, v);
	}
	free(v);
	return err;
}

static void types_samples(struct metrics *m)
{
	size_t i;

	for (i = 0; i < m->ntypes; i++) {
		put_label(sample(m, FAM_LINKS), true, "type", m->types[i].name,
			  strlen(m->types[i].name));
		put_value(&m->fam[FAM_LINKS], m->types[i].links);
	}
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

static void prog_labels(struct sbuf *s, __u32 id, const char *name)
{
	put_label_u64(s, true, "prog_id", id);
	put_label(s, false, "prog_name", name, strlen(name));
}

static void put_seconds(struct sbuf *s, uint64_t ns)
{
	sbuf_printf(s, "} %llu.%09llu\n", (unsigned long long)(ns / 1000000000),
		    (unsigned long long)(ns % 1000000000));
}

/* Each own link on program @prog_id: the share of @ns its hits make. */
static void own_run_time(struct metrics *m, __u32 prog_id, uint64_t ns)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < m->nown; i++)
		if (m->own[i].prog_id == prog_id)
			sum += (double)m->own[i].hits;
	for (i = 0; i < m->nown; i++) {
		if (m->own[i].prog_id != prog_id)
			continue;
		put_label_u64(sample(m, FAM_LINK_RUN_TIME), true, "id",
			      m->own[i].id);
		put_seconds(&m->fam[FAM_LINK_RUN_TIME],
			    sum ? (uint64_t)((double)ns * m->own[i].hits / sum)
				: 0);
	}
}

static int cmp_link_prog(const void *a, const void *b)
{
	__u32 x = ((const struct link_prog *)a)->prog_id;
	__u32 y = ((const struct link_prog *)b)->prog_id;

	return x < y ? -1 : x > y;
}

/*
 * Program @prog_id's statistics: from @lp (every link's program, read
 * once for the whole exposition, sorted by program id), else asked now.
 */
static int prog_stat_of(__u32 prog_id, const struct link_prog *lp, int n,
			struct prog_stats *st)
{
	struct link_prog key = {.prog_id = prog_id};
	const struct link_prog *p =
		n > 0 ? bsearch(&key, lp, n, sizeof(*lp), cmp_link_prog) : NULL;

	if (!p || !p->has_stats)
		return prog_stats_read(prog_id, st);
	*st = p->stats;
	return 0;
}

/*
 * Each program once: recursion misses (always counted), run count and
 * time while the kernel counts them, and own links' share of the time.
 */
static void prog_samples(struct metrics *m, struct stats_switch *sw)
{
	char name[PROG_NAME_MAX];
	struct link_prog *lp = m->lp;
	struct prog_stats st;
	bool on = stats_collecting(sw);
	int nlp = m->nlp;
	size_t i;

	if (nlp > 0)
		qsort(lp, nlp, sizeof(*lp), cmp_link_prog);
	if (m->nprogs) /* qsort() wants a non-NULL base */
		qsort(m->progs, m->nprogs, sizeof(*m->progs), cmp_u32);
	for (i = 0; i < m->nprogs; i++) {
		if ((i && m->progs[i] == m->progs[i - 1]) ||
		    prog_stat_of(m->progs[i], lp, nlp, &st))
			continue;
		prog_full_name(m->progs[i], st.name, name, sizeof(name));
		prog_labels(sample(m, FAM_RECURSION), m->progs[i], name);
		put_value(&m->fam[FAM_RECURSION], st.recursion_misses);
		own_run_time(m, m->progs[i], st.run_time_ns);
		if (!on)
			continue;
		prog_labels(sample(m, FAM_RUN_COUNT), m->progs[i], name);
		put_value(&m->fam[FAM_RUN_COUNT], st.run_cnt);
		prog_labels(sample(m, FAM_RUN_TIME), m->progs[i], name);
		put_seconds(&m->fam[FAM_RUN_TIME], st.run_time_ns);
	}
}

/*
 * attached_samples() - bpflinkfs_attached_info{pid,fd,type,name,prog_id,
 * prog_name} 1 for each entry of attached/ (bpflinkfs(8), Probes attached
 * without a link), named as its files are (attached_fs.c) Return: 0, or -errno
 * (a daemon without attached/ has none to add).
 */
static int attached_samples(struct metrics *m, struct bare_perf_event *p,
			    int n)
{
	char name[PROG_NAME_MAX];
	int i;

	for (i = 0; i < n; i++) {
		const char *type = perf_link_kind_name(p[i].f.kind);
		struct sbuf *s = sample(m, FAM_ATTACHED_INFO);
		int len = 0;

		put_label_u64(s, true, "pid", p[i].pid);
		put_label_u64(s, false, "fd", p[i].fd);
		put_label(s, false, "type", type ? type : "",
			  type ? strlen(type) : 0);
		if (p[i].f.kind == PERF_LINK_EVENT)
			len = perf_event_describe(p[i].f.event_type,
						  p[i].f.config, m->buf,
						  m->buflen);
		put_label(s, false, "name",
			  p[i].f.kind == PERF_LINK_EVENT ? m->buf : p[i].f.name,
			  p[i].f.kind == PERF_LINK_EVENT
				  ? (size_t)(len > 0 ? len : 0)
				  : strlen(p[i].f.name));
		put_label_u64(s, false, "prog_id", p[i].f.prog_id);
		prog_full_name(p[i].f.prog_id, p[i].prog_name, name,
			       sizeof(name));
		put_label(s, false, "prog_name", name, strlen(name));
		put_value(s, 1);
	}
	return n < 0 ? n : 0;
}

/*
 * attached/'s walk of every task's files, in a second thread where two
 * CPUs may run it beside the rows, given the keys of the perf events that
 * links hold from the walk of the links just made: it walks the links
 * again only when it finds a perf event none of them held
 * (bare_perf_read_all_keyed()), not on every read beside the first walk,
 * where the two contended for the kernel's lock of the link list.
 */
struct attached_walk {
	struct bare_perf_set *as;
	__u64 *keys; /* sorted; NULL: the walk reads them */
	size_t nkeys;
	struct bare_perf_event *p;
	int n;
	pthread_t th;
	bool threaded;
};

static void *attached_walk(void *arg)
{
	struct attached_walk *w = arg;

	w->n = w->as ? bare_perf_read_all_keyed(w->as, w->keys, w->nkeys,
						&w->p)
		     : 0;
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* Start the walk, with the keys of the perf links among @lp (@nlp < 0:
 * none read) */
static void attached_start(struct attached_walk *w, const struct link_prog *lp,
			   int nlp)
{
	int i;

	w->keys = nlp >= 0 ? malloc((nlp ? nlp : 1) * sizeof(*w->keys)) : NULL;
	for (i = 0; w->keys && i < nlp; i++)
		if (lp[i].perf_key)
			w->keys[w->nkeys++] = lp[i].perf_key;
	if (w->nkeys)
		qsort(w->keys, w->nkeys, sizeof(*w->keys), cmp_u64);
	w->threaded = may_run_on_two_cpus() &&
		      start_beside(&w->th, attached_walk, w) == 0;
}

static void attached_end(struct attached_walk *w)
{
	if (w->threaded)
		pthread_join(w->th, NULL);
	else
		attached_walk(w);
	free(w->keys);
	w->keys = NULL;
}

/* HELP, TYPE and the samples of each family that has any */
static char *metrics_text(struct metrics *m, size_t *len)
{
	struct sbuf out = {0};
	size_t f;

	for (f = 0; f < FAM_COUNT; f++) {
		if (m->fam[f].oom)
			out.oom = true;
		if (!m->fam[f].len)
			continue;
		sbuf_printf(&out, "# HELP %s %s\n# TYPE %s %s\n",
			    families[f].name, families[f].help,
			    families[f].name, families[f].type);
		sbuf_put(&out, m->fam[f].p, m->fam[f].len);
	}
	return sbuf_finish(&out, len);
}

static void metrics_free(struct metrics *m)
{
	size_t f;

	for (f = 0; f < FAM_COUNT; f++)
		free(m->fam[f].p);
	free(m->types);
	free(m->progs);
	free(m->own);
	free(m->lp);
	free(m->buf);
}

char *render_metrics(struct owned *reg, struct bare_perf_set *attached,
		     struct stats_switch *sw, size_t *len)
{
	struct metrics m = {.buflen = 2 * PATH_MAX, .nlp = -EOPNOTSUPP};
	struct attached_walk w = {.as = attached};
	char *text = NULL;
	__u32 *ids = NULL;
	size_t f, i;
	int err;

	for (f = 0; f < MF_FILES; f++) {
		m.file[f] = SIZE_MAX;
		for (i = 0; i < link_file_count; i++)
			if (strcmp(link_files[i].name, file_names[f]) == 0)
				m.file[f] = i;
	}
	m.buf = malloc(m.buflen);
	err = m.buf ? listed_links_progs(reg, &ids, &m.lp, &m.nlp) : -ENOMEM;
	attached_start(&w, m.lp, m.nlp);
	if (err >= 0)
		err = links_samples(&m, reg, ids, err);
	attached_end(&w);
	free(ids);
	if (!err) {
		types_samples(&m);
		prog_samples(&m, sw);
		err = attached_samples(&m, w.p, w.n);
	}
	free(w.p);
	if (!err)
		text = metrics_text(&m, len);
	metrics_free(&m);
	if (err)
		errno = -err;
	return text;
}
