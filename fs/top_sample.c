// SPDX-License-Identifier: GPL-2.0-only
/*
 * `top`'s figures: a sample of every link and its program's statistics,
 * and the block that two samples make. A link's program figures are the
 * program's, shared by every link that runs it; an own link of the
 * built-in program gets the program's time and misses in the share of
 * the program's hits that were its own (each run of the built-in program
 * is one hit of one link, so the share is exact on average).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counter_load.h"
#include "fixed_fields.h"
#include "link_list.h"
#include "owned.h"
#include "render.h"
#include "sbuf.h"
#include "top_sample.h"

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_link(const void *a, const void *b)
{
	const struct link_sample *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_prog(const void *a, const void *b)
{
	const struct prog_sample *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static const struct link_sample *find_link(const struct top_sample *s, __u32 id)
{
	struct link_sample key = {.id = id};

	return s->nlinks ? bsearch(&key, s->links, s->nlinks, sizeof(key),
				   cmp_link)
			 : NULL;
}

static const struct prog_sample *find_prog(const struct top_sample *s, __u32 id)
{
	struct prog_sample key = {.id = id};

	return s->nprogs ? bsearch(&key, s->progs, s->nprogs, sizeof(key),
				   cmp_prog)
			 : NULL;
}

/* What never changes for a link id: read once, when it first shows. */
static int link_learn(struct owned *reg, __u32 id, struct owned_info *own,
		      struct link_sample *ls)
{
	struct link_brief b;
	int err = link_brief_read(id, &b);

	if (err)
		return err;
	ls->prog_id = b.prog_id;
	ls->kprobe =
		b.link_type == LINK_TYPE_KPROBE_MULTI ||
		(b.link_type == LINK_TYPE_PERF_EVENT &&
		 (b.kind == PERF_LINK_KPROBE || b.kind == PERF_LINK_KRETPROBE));
	ls->slot = -1;
	if (!owned_get(reg, id, own) && own->slot > 0 &&
	    counter_runs_prog(owned_counter(reg), b.prog_id)) {
		ls->slot = own->slot;
		ls->nslots = own->nslots ? own->nslots : 1;
	}
	return 0;
}

/* The counters that move: hits of own links, missed of kprobe links. */
static int link_counters(struct owned *reg, struct link_fields *f,
			 struct link_sample *ls)
{
	uint64_t one, *hits = &one;
	unsigned int i;
	int err = 0;

	if (ls->kprobe || ls->slot > 0)
		ls->ns = clock_ns(CLOCK_MONOTONIC);
	if (ls->kprobe && !(err = link_info_read(ls->id, f)))
		ls->missed = f->missed;
	if (err || ls->slot <= 0)
		return err;
	if (ls->nslots > 1 && !(hits = calloc(ls->nslots, sizeof(*hits))))
		return -ENOMEM;
	err = counter_hits_range(owned_counter(reg), ls->slot, ls->nslots,
				 hits);
	for (ls->hits = 0, i = 0; !err && i < ls->nslots; i++)
		ls->hits += hits[i];
	if (hits != &one)
		free(hits);
	return err;
}

/* Every program the links run, read once each. */
static int sample_progs(struct top_sample *s)
{
	size_t i, m, n = 0;

	s->progs = calloc(s->nlinks ? s->nlinks : 1, sizeof(*s->progs));
	if (!s->progs)
		return -ENOMEM;
	/* neighbours often share a program: fewer to sort */
	for (i = 0; i < s->nlinks; i++)
		if (!n || s->progs[n - 1].id != s->links[i].prog_id)
			s->progs[n++].id = s->links[i].prog_id;
	qsort(s->progs, n, sizeof(*s->progs), cmp_prog);
	for (i = 0, m = n, n = 0; i < m; i++) {
		if ((n && s->progs[n - 1].id == s->progs[i].id) ||
		    !s->progs[i].id)
			continue;
		s->progs[n].id = s->progs[i].id;
		s->progs[n].ns = clock_ns(CLOCK_MONOTONIC);
		if (!prog_stats_read(s->progs[n].id, &s->progs[n].st))
			n++;
	}
	s->nprogs = n;
	return 0;
}

int top_sample_take(struct owned *reg, const struct top_sample *prev,
		    struct top_sample *cur)
{
	struct link_fields *f = malloc(sizeof(*f));
	struct owned_info *own = malloc(sizeof(*own));
	const struct link_sample *p;
	__u32 *ids = NULL;
	int n = f && own ? listed_link_ids(reg, &ids) : -ENOMEM, i;

	memset(cur, 0, sizeof(*cur));
	if (n >= 0 && !(cur->links = calloc(n ? n : 1, sizeof(*cur->links))))
		n = -ENOMEM;
	for (i = 0; i < n; i++) {
		struct link_sample *ls = &cur->links[cur->nlinks];

		p = find_link(prev, ids[i]);
		if (p)
			*ls = *p;
		ls->id = ids[i];
		if ((!p && link_learn(reg, ids[i], own, ls)) ||
		    link_counters(reg, f, ls))
			continue; /* gone meanwhile */
		cur->nlinks++;
	}
	if (n >= 0)
		n = sample_progs(cur);
	cur->mono_ns = clock_ns(CLOCK_MONOTONIC);
	cur->boot_ns = clock_ns(CLOCK_BOOTTIME);
	free(ids);
	free(own);
	free(f);
	if (n < 0)
		top_sample_free(cur);
	return n < 0 ? n : 0;
}

void top_sample_free(struct top_sample *s)
{
	free(s->links);
	free(s->progs);
	memset(s, 0, sizeof(*s));
}

/* A link's figures per second of the interval */
struct top_row {
	__u32 id, prog_id;
	double runs, ns, missed; /* runs, ns of run time, misses: per second */
	double ns_per_run;
};

static int cmp_row(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->runs != y->runs)
		return x->runs > y->runs ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* seconds between two readings (each item has its own: a sample of many
 * links takes a while) */
static double secs(uint64_t a, uint64_t b)
{
	return b > a ? (double)(b - a) / 1e9 : 0;
}

/* The hits in the interval of the own links of each built-in program. */
static double *own_hits(const struct top_sample *a, const struct top_sample *b)
{
	double *sum = calloc(b->nprogs ? b->nprogs : 1, sizeof(*sum));
	const struct prog_sample *ps;
	const struct link_sample *p;
	size_t i;

	for (i = 0; sum && i < b->nlinks; i++) {
		const struct link_sample *l = &b->links[i];

		if (l->slot <= 0 || !(p = find_link(a, l->id)) ||
		    !(ps = find_prog(b, l->prog_id)))
			continue;
		sum[ps - b->progs] += (double)(l->hits - p->hits);
	}
	return sum;
}

/*
 * The row of link @l; false when it did not run in the interval. A
 * program's figures are per second of its own two readings, an own
 * link's hits per second of theirs.
 */
static bool link_row(const struct top_sample *a, const struct top_sample *b,
		     const struct link_sample *l, const double *hsum,
		     struct top_row *r)
{
	const struct link_sample *p = find_link(a, l->id);
	const struct prog_sample *pb = find_prog(b, l->prog_id);
	const struct prog_sample *pa = find_prog(a, l->prog_id);
	double dt = pa && pb ? secs(pa->ns, pb->ns) : 0, share = 1, runs;

	if (!p || !dt)
		return false; /* new since the last sample: next time */
	r->id = l->id;
	r->prog_id = l->prog_id;
	runs = (double)(pb->st.run_cnt - pa->st.run_cnt);
	r->ns_per_run =
		runs ? (pb->st.run_time_ns - pa->st.run_time_ns) / runs : 0;
	r->runs = runs / dt;
	if (l->slot > 0) {
		runs = (double)(l->hits - p->hits);
		share = hsum[pb - b->progs] ? runs / hsum[pb - b->progs] : 0;
		r->runs = secs(p->ns, l->ns) ? runs / secs(p->ns, l->ns) : 0;
	}
	r->ns = share * (double)(pb->st.run_time_ns - pa->st.run_time_ns) / dt;
	r->missed =
		share *
		(double)(pb->st.recursion_misses - pa->st.recursion_misses) /
		dt;
	if (l->kprobe && secs(p->ns, l->ns))
		r->missed +=
			(double)(l->missed - p->missed) / secs(p->ns, l->ns);
	return r->runs > 0 || r->missed > 0;
}

/* file @name of link @id into @s as a `links` value, or "-" */
static void put_file(struct sbuf *s, struct link_view *v, const char *name)
{
	char buf[2 * 4096];
	size_t i;
	int n = -ENOENT;

	for (i = 0; i < link_file_count; i++)
		if (!strcmp(link_files[i].name, name)) {
			n = link_file_applies(i, v)
				    ? link_file_render(i, v, buf, sizeof(buf))
				    : -ENOENT;
			break;
		}
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n > 0)
		sbuf_put_table_value(s, buf, n);
	else
		sbuf_put(s, "-", 1);
}

static void put_row(struct sbuf *s, struct owned *reg, struct link_view *v,
		    const struct top_row *r)
{
	struct reader rd = {false};

	if (link_view_load_listed(reg, r->id, v))
		return; /* gone since the sample */
	v->reader = &rd;
	sbuf_put_u64(s, r->id);
	sbuf_put(s, "\t", 1);
	put_file(s, v, "type");
	sbuf_put(s, "\t", 1);
	put_file(s, v, "name");
	sbuf_printf(s, "\t%u\t%.1f\t%.0f\t%.2f\t%.1f\n", r->prog_id, r->runs,
		    r->ns_per_run, r->ns / 1e7, r->missed);
}

char *top_block(struct owned *reg, const struct top_sample *a,
		const struct top_sample *b, size_t *len)
{
	double *hsum = own_hits(a, b);
	struct top_row *rows = calloc(b->nlinks ? b->nlinks : 1, sizeof(*rows));
	struct link_view *v = malloc(sizeof(*v));
	struct sbuf s = {0};
	size_t i, n = 0;

	if (!hsum || !rows || !v) {
		free(hsum);
		free(rows);
		free(v);
		return NULL;
	}
	for (i = 0; i < b->nlinks; i++)
		n += link_row(a, b, &b->links[i], hsum, &rows[n]);
	qsort(rows, n, sizeof(*rows), cmp_row);
	sbuf_printf(&s, "# %llu.%06llu\n",
		    (unsigned long long)(b->boot_ns / 1000000000),
		    (unsigned long long)(b->boot_ns % 1000000000 / 1000));
	sbuf_printf(&s, "ID\tTYPE\tNAME\tPROG_ID\tRUNS/S\tNS/RUN\tCPU%%\t"
			"MISSED/S\n");
	for (i = 0; i < n; i++)
		put_row(&s, reg, v, &rows[i]);
	free(hsum);
	free(rows);
	free(v);
	return sbuf_finish(&s, len);
}
