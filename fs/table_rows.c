// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rows of a whole-table read (table_rows.h). While a reader waits for
 * the first byte of links.json, the daemon's other CPU is idle, and the
 * work splits cleanly in two, so where the daemon may run on two CPUs
 * (its affinity, not the host's count) it takes two threads:
 *
 *  1. the two walks of the kernel that every row needs: every task's
 *     files for the holders, in a second thread, and every link with its
 *     program for the ids and run statistics, with the pins, in this one;
 *  2. the rows: the first half of the ids here, the second half in the
 *     other thread into a text of its own, appended after the first.
 *
 * Rows share only what stays read-only while they render (the plan, the
 * pins, the holders, the programs); each thread has its own value buffer,
 * link view and cache of the holders' cgroups. With one CPU, or a thread
 * that cannot be had, the same steps run one after the other here.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "table_rows.h"
#include "owned.h"
#include "link_progs.h"
#include "prog_stats.h"
#include "holders.h"
#include "host_pins.h"

/* Fewer rows than this are not worth a thread's start (~30 us). */
#define SPLIT_MIN_ROWS 256

/* What every row reads, built before them. */
struct table_inputs {
	struct task_files *tf; /* the holders walk's iterator */
	struct pin_index pins;
	struct holder_index holders;
	int holders_err;
	__u32 *ids;
	int n; /* ids, or -errno */
	struct link_prog *progs;
	int np; /* progs, or -errno: the rows read each program */
};

/* A run of rows, [from, to) of the ids, into a text of its own. */
struct row_share {
	const struct table_read *t;
	const struct table_inputs *in;
	int from, to;
	struct sbuf *s;
	int rows;
	int err;
};

int start_beside(pthread_t *th, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int here = sched_getcpu(), err;

	if (pthread_attr_init(&attr))
		return pthread_create(th, NULL, fn, arg);
	if (here >= 0 && !sched_getaffinity(0, sizeof(set), &set)) {
		CPU_CLR(here, &set);
		if (CPU_COUNT(&set) > 0)
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	err = pthread_create(th, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return err;
}

void join_beside(pthread_t th)
{
	cpu_set_t set;

	/* a thread still waiting for a busy CPU may now come to this one,
	 * which its maker leaves idle while it waits */
	if (!sched_getaffinity(0, sizeof(set), &set))
		pthread_setaffinity_np(th, sizeof(set), &set);
	pthread_join(th, NULL);
}

bool may_run_on_two_cpus(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) == 0 &&
	       CPU_COUNT(&set) > 1;
}

/*
 * Link @id's entry in @progs (sorted by link id, as the iterator walks
 * them): rows come in id order too, so @at moves forward only and the
 * search is a step, not a bisection per row.
 */
static const struct link_prog *prog_of(const struct link_prog *progs, int np,
				       int *at, __u32 id)
{
	while (*at < np && progs[*at].link_id < id)
		(*at)++;
	if (*at < np && progs[*at].link_id == id)
		return &progs[*at];
	return np > 0 ? link_prog_find(progs, np, id) : NULL;
}

static void *holders_walk(void *arg)
{
	struct table_inputs *in = arg;

	in->holders_err = holder_index_build(&in->holders, in->tf);
	return NULL;
}

/*
 * Step 1: the ids (with every link's program where the link iterator
 * loads), and for @t->lists the pins and the holders, the holders walk in
 * a second thread when @split.
 */
static int inputs_read(const struct table_read *t, struct table_inputs *in,
		       bool split)
{
	bool threaded = false;
	pthread_t th;
	int err = 0;

	in->tf = owned_task_files(t->reg);
	if (t->lists) {
		threaded = split && start_beside(&th, holders_walk, in) == 0;
		if (!threaded)
			holders_walk(in);
		err = pin_index_build(&in->pins);
	}
	if (!err && t->lists)
		in->n = listed_links_progs(t->reg, &in->ids, &in->progs,
					   &in->np);
	else if (!err)
		in->n = listed_link_ids(t->reg, &in->ids);
	if (threaded)
		join_beside(th);
	if (!err)
		err = in->holders_err;
	if (!err && in->n < 0)
		err = in->n;
	return err;
}

static void inputs_free(struct table_inputs *in)
{
	pin_index_free(&in->pins);
	holder_index_free(&in->holders);
	free(in->progs);
	free(in->ids);
}

/* Step 2: the rows of @sh, a link read once each; links gone skip. */
static void *share_render(void *arg)
{
	struct row_share *sh = arg;
	const struct table_read *t = sh->t;
	const struct table_inputs *in = sh->in;
	struct link_view *v = malloc(sizeof(*v));
	char *buf = malloc(TABLE_VALUE_MAX);
	struct holder_index holders = {0};
	const struct link_prog *lp;
	struct prog_stats stats;
	int i, at = 0;

	sh->err = v && buf ? 0 : -ENOMEM;
	if (!sh->err && t->lists)
		sh->err = holder_index_share(&in->holders, &holders);
	for (i = sh->from; !sh->err && i < sh->to; i++) {
		if (link_view_load_listed(t->reg, in->ids[i], v))
			continue;
		v->reader = t->reader;
		v->pins = t->lists ? &in->pins : NULL;
		v->holders = t->lists ? &holders : NULL;
		/* the three prog_* values from one read of the program */
		lp = prog_of(in->progs, in->np, &at, in->ids[i]);
		if (lp && lp->has_stats && lp->prog_id == v->f.prog_id)
			v->stats = &lp->stats;
		else if (t->lists && !prog_stats_read(v->f.prog_id, &stats))
			v->stats = &stats;
		if (sh->rows++)
			sbuf_put(sh->s, t->sep, strlen(t->sep));
		t->row(sh->s, v, t->plan, buf);
	}
	holder_index_unshare(&holders);
	free(buf);
	free(v);
	return NULL;
}

int table_read(const struct table_read *t, struct sbuf *s)
{
	/* room for the whole text at once: a JSON row is ~300 bytes */
	size_t row_bytes = t->lists ? 320 : 96;
	struct table_inputs in = {0};
	struct sbuf second = {0};
	struct row_share a = {.t = t, .in = &in, .s = s};
	struct row_share b = {.t = t, .in = &in, .s = &second};
	bool split = may_run_on_two_cpus(), threaded = false;
	pthread_t th;
	int err = inputs_read(t, &in, split);

	if (!err) {
		a.to = split && in.n >= SPLIT_MIN_ROWS ? in.n / 2 : in.n;
		b.from = a.to;
		b.to = in.n;
		sbuf_reserve(s, (size_t)in.n * row_bytes);
		sbuf_reserve(&second, (size_t)(b.to - b.from) * row_bytes);
		if (b.from < b.to)
			threaded = start_beside(&th, share_render, &b) == 0;
		share_render(&a);
		if (threaded)
			join_beside(th);
		else if (b.from < b.to)
			share_render(&b);
		err = a.err ? a.err : b.err;
	}
	if (!err && a.rows && b.rows)
		sbuf_put(s, t->sep, strlen(t->sep));
	if (!err && second.len)
		sbuf_put(s, second.p, second.len);
	if (second.oom)
		s->oom = true;
	free(second.p);
	inputs_free(&in);
	return err;
}
