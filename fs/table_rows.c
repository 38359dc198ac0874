// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rows of a whole-table read (table_rows.h). While a reader waits for
 * the first byte of links.json, the daemon's other CPU is idle, so where
 * the daemon may run on two CPUs (its affinity, not the host's count) it
 * takes two threads, the second started on the other CPU (start_beside()).
 *
 * links.json (a table with the holders) is a pipeline: this thread walks
 * the pins and then the links, which the link iterator hands over 256 at a
 * time, while the other walks every task's files for the holders and then
 * renders the batches as they come; once its walk ends, this thread
 * renders beside it. The texts of the batches are joined in id order.
 *
 * links (no holders) reads its ids first, then renders the first half of
 * them here and the second half in the other thread, appended after.
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
	int pins_err;
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
	cpu_set_t all, others;
	int here = sched_getcpu(), err;
	bool placed = false;

	if (pthread_attr_init(&attr))
		return pthread_create(th, NULL, fn, arg);
	if (here >= 0 && !sched_getaffinity(0, sizeof(all), &all)) {
		others = all;
		CPU_CLR(here, &others);
		placed = CPU_COUNT(&others) > 0 &&
			 !pthread_attr_setaffinity_np(&attr, sizeof(others),
						      &others);
	}
	err = pthread_create(th, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	/*
	 * Placed (the kernel chose its CPU as it woke it in clone()): every
	 * CPU again, so that one kept waiting on a busy CPU (a real-time
	 * task there) may be pulled to an idle one, its maker's included.
	 */
	if (!err && placed)
		pthread_setaffinity_np(*th, sizeof(all), &all);
	return err;
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

/* Every task's files, for the holders of each row */
static void holders_walk(struct table_inputs *in)
{
	in->holders_err = holder_index_build(&in->holders, in->tf);
}

/*
 * Step 1, in this thread: the ids (with every link's program where the
 * link iterator loads), and for @t->lists the pins and the holders (the
 * pipeline walks them beside each other where it has a second thread).
 */
static int inputs_read(const struct table_read *t, struct table_inputs *in)
{
	int err = 0;

	in->tf = owned_task_files(t->reg);
	if (t->lists) {
		holders_walk(in);
		err = in->holders_err ? in->holders_err
				      : pin_index_build(&in->pins);
	}
	if (!err && t->lists)
		in->n = listed_links_progs(t->reg, &in->ids, &in->progs,
					   &in->np);
	else if (!err)
		in->n = listed_link_ids(t->reg, &in->ids);
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

/* What one thread renders rows with: its own view, value buffer and
 * cache of the holders' cgroups */
struct renderer {
	struct link_view *v;
	char *buf;
	struct holder_index holders;
};

static int renderer_init(struct renderer *r, const struct table_read *t,
			 const struct table_inputs *in)
{
	memset(r, 0, sizeof(*r));
	r->v = malloc(sizeof(*r->v));
	r->buf = malloc(TABLE_VALUE_MAX);
	if (!r->v || !r->buf)
		return -ENOMEM;
	return t->lists ? holder_index_share(&in->holders, &r->holders) : 0;
}

static void renderer_free(struct renderer *r)
{
	holder_index_unshare(&r->holders);
	free(r->buf);
	free(r->v);
}

/*
 * Link @id's row into @s, after @t->sep when @s has @rows already; @lp:
 * its program as the link walk read it, or NULL. A link gone meanwhile
 * has no row. Return: the rows written, 1 or 0.
 */
static int render_row(struct renderer *r, const struct table_read *t,
		      const struct table_inputs *in, __u32 id,
		      const struct link_prog *lp, struct sbuf *s, int rows)
{
	struct link_view *v = r->v;
	struct prog_stats stats;

	if (link_view_load_listed(t->reg, id, v))
		return 0;
	v->reader = t->reader;
	v->pins = t->lists ? &in->pins : NULL;
	v->holders = t->lists ? &r->holders : NULL;
	/* the three prog_* values from one read of the program */
	if (lp && lp->has_stats && lp->prog_id == v->f.prog_id)
		v->stats = &lp->stats;
	else if (t->lists && !prog_stats_read(v->f.prog_id, &stats))
		v->stats = &stats;
	if (rows)
		sbuf_put(s, t->sep, strlen(t->sep));
	t->row(s, v, t->plan, r->buf);
	return 1;
}

/* Step 2: the rows of @sh, a link read once each; links gone skip. */
static void *share_render(void *arg)
{
	struct row_share *sh = arg;
	const struct table_inputs *in = sh->in;
	struct renderer r;
	int i, at = 0;

	sh->err = renderer_init(&r, sh->t, in);
	for (i = sh->from; !sh->err && i < sh->to; i++)
		sh->rows +=
			render_row(&r, sh->t, in, in->ids[i],
				   prog_of(in->progs, in->np, &at, in->ids[i]),
				   sh->s, sh->rows);
	renderer_free(&r);
	return NULL;
}

/*
 * The pipelined read, for a table with the holders (links.json) where two
 * CPUs may run: the link walk hands over its links a batch at a time
 * (listed_links_progs_each()), and their rows need not wait for the end
 * of the walk. The second thread walks the holders, then renders batches
 * as they come; this one walks the links and the pins, then renders
 * beside it. A rendered batch is appended to the text at once when all
 * before it are; one that is done early keeps its text until they are.
 * Without the pipeline, the second thread sat idle from the end of its
 * holders walk (0.45 ms at 1,000 links) to the end of the link walk (1.1
 * ms). A batch is LINK_PROGS_BATCH (256) links, and the batches and the
 * threads' texts are reused within a read: with a text and a batch struct
 * for every 64 links, each freed at the end, the holes they left among
 * the fixed fields the same read caches on the heap kept the daemon's RSS
 * 25-55 B a link higher after the heap trimmer (bench/rss.sh, 10,000
 * links); 256 links a batch read 1,000 links as fast.
 */
struct row_batch {
	struct row_batch *next;
	int n;
	bool has_progs; /* false: no link iterator, the rows ask */
	__u32 ids[LINK_PROGS_BATCH];
	struct link_prog progs[LINK_PROGS_BATCH];
	bool done;	  /* rendered, waiting for those before it */
	struct sbuf text; /* then its rows */
	int rows;
};

struct pipeline {
	const struct table_read *t;
	struct table_inputs *in;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	/* the batches not yet in @out, in id order, and the first of them
	 * nobody renders yet */
	struct row_batch *join, *last, *todo;
	struct row_batch *spare; /* appended, for the walk to reuse */
	int batches;		 /* handed over so far */
	struct sbuf *out;	 /* the rows so far */
	size_t rows_out;
	bool walked;  /* no batch comes after last */
	bool pins;    /* in->pins built (or failed) */
	bool holders; /* in->holders built (or failed) */
};

/* Wait until @flag is set (under p->lock), then set @set */
static void pipeline_wait(struct pipeline *p, const bool *flag, bool *set)
{
	pthread_mutex_lock(&p->lock);
	if (set) {
		*set = true;
		pthread_cond_broadcast(&p->wake);
	}
	while (flag && !*flag)
		pthread_cond_wait(&p->wake, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

/* A batch of the link walk (listed_batch_fn), or of ids alone (@v NULL) */
static int batch_push(struct pipeline *p, const struct link_prog *v,
		      const __u32 *ids, int n)
{
	struct row_batch *b;
	int i;

	pthread_mutex_lock(&p->lock);
	b = p->spare;
	if (b)
		p->spare = b->next;
	pthread_mutex_unlock(&p->lock);
	if (!b) {
		b = malloc(sizeof(*b));
		if (b)
			b->text = (struct sbuf){0};
	}
	if (!b)
		return -ENOMEM;
	b->next = NULL;
	b->done = false;
	b->text.len = 0; /* a reused batch keeps its text's room */
	b->text.oom = false;
	b->rows = 0;
	b->n = n;
	b->has_progs = v != NULL;
	for (i = 0; i < n; i++)
		b->ids[i] = v ? v[i].link_id : ids[i];
	if (v)
		memcpy(b->progs, v, (size_t)n * sizeof(*v));
	pthread_mutex_lock(&p->lock);
	if (p->last)
		p->last->next = b;
	else
		p->join = b;
	p->last = b;
	if (!p->todo)
		p->todo = b;
	p->batches++;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

static int batch_arrive(struct link_prog *v, int n, void *arg)
{
	return batch_push(arg, v, NULL, n);
}

/* The next batch nobody renders yet; NULL once the walk has ended and
 * every batch is taken */
static struct row_batch *batch_take(struct pipeline *p)
{
	struct row_batch *b;

	pthread_mutex_lock(&p->lock);
	while (!p->todo && !p->walked)
		pthread_cond_wait(&p->wake, &p->lock);
	b = p->todo;
	if (b)
		p->todo = b->next;
	pthread_mutex_unlock(&p->lock);
	return b;
}

/* @rows rows of @text after the rows so far; lock held */
static void rows_append(struct pipeline *p, const struct sbuf *text, int rows)
{
	if (text->oom)
		p->out->oom = true;
	if (!rows)
		return;
	if (p->rows_out)
		sbuf_put(p->out, p->t->sep, strlen(p->t->sep));
	sbuf_put(p->out, text->p, text->len);
	p->rows_out += (size_t)rows;
}

/* Batch p->join, appended: off the queue, for the walk to reuse; lock
 * held */
static void join_next(struct pipeline *p)
{
	struct row_batch *b = p->join;

	p->join = b->next;
	if (!p->join)
		p->last = NULL;
	b->next = p->spare;
	p->spare = b;
}

/*
 * Batch @b rendered into @text (@rows rows): appended now if every batch
 * before it is, with those done after it that wait; else kept, @text
 * swapped with the batch's own (empty) one.
 */
static void batch_land(struct pipeline *p, struct row_batch *b,
		       struct sbuf *text, int rows)
{
	pthread_mutex_lock(&p->lock);
	if (b == p->join) {
		rows_append(p, text, rows);
		join_next(p);
		while (p->join && p->join->done) {
			rows_append(p, &p->join->text, p->join->rows);
			join_next(p);
		}
		text->len = 0;
		text->oom = false;
	} else {
		struct sbuf room = b->text;

		b->text = *text;
		b->rows = rows;
		b->done = true;
		*text = room;
	}
	pthread_mutex_unlock(&p->lock);
}

/* Render batches until none is left. Return: 0, or -ENOMEM (then the
 * other thread renders them all) */
static int batches_render(struct pipeline *p)
{
	struct sbuf text = {0};
	struct row_batch *b;
	struct renderer r;
	int i, rows, err = renderer_init(&r, p->t, p->in);

	if (err) {
		renderer_free(&r);
		return err;
	}
	while ((b = batch_take(p))) {
		for (i = 0, rows = 0; i < b->n; i++)
			rows += render_row(&r, p->t, p->in, b->ids[i],
					   b->has_progs ? &b->progs[i] : NULL,
					   &text, rows);
		batch_land(p, b, &text, rows);
	}
	free(text.p);
	renderer_free(&r);
	return 0;
}

static void *pipeline_helper(void *arg)
{
	struct pipeline *p = arg;

	holders_walk(p->in);
	pipeline_wait(p, &p->pins, &p->holders);
	if (!p->in->holders_err && !p->in->pins_err)
		batches_render(p); /* on -ENOMEM the maker renders them all */
	return NULL;
}

/* The ids without the link iterator, handed over in batches as well */
static int ids_push(struct pipeline *p)
{
	__u32 *ids = NULL;
	int n = listed_link_ids(p->t->reg, &ids), i, err = 0;

	for (i = 0; !err && i < n; i += LINK_PROGS_BATCH)
		err = batch_push(p, NULL, ids + i,
				 n - i < LINK_PROGS_BATCH ? n - i
							  : LINK_PROGS_BATCH);
	free(ids);
	return n < 0 ? n : err;
}

/* Free every batch: all are appended, but after an error */
static void batches_free(struct pipeline *p)
{
	struct row_batch *b;

	while (p->join)
		join_next(p);
	while ((b = p->spare)) {
		p->spare = b->next;
		free(b->text.p);
		free(b);
	}
}

/* The walk of the links, handed over: the link iterator's batches, or
 * where it serves not (none, or no fd for it before any batch), the ids */
static int links_push(struct pipeline *p)
{
	int n = listed_links_progs_each(p->t->reg, batch_arrive, p);

	if (n < 0 && n != -ENOMEM && !p->batches)
		n = ids_push(p);
	return n < 0 ? n : 0;
}

/* Return: 0 or -errno as table_read(); -EAGAIN and *@ran false when no
 * second thread could be had, and nothing was read */
static int pipelined_read(const struct table_read *t, struct sbuf *s, bool *ran)
{
	struct table_inputs in = {.tf = owned_task_files(t->reg)};
	struct pipeline p = {.t = t, .in = &in, .out = s};
	pthread_t th;
	int err;

	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.wake, NULL);
	*ran = !start_beside(&th, pipeline_helper, &p);
	if (!*ran) {
		err = -EAGAIN;
		goto out;
	}
	in.pins_err = pin_index_build(&in.pins);
	pipeline_wait(&p, NULL, &p.pins);
	err = in.pins_err ? in.pins_err : links_push(&p);
	pipeline_wait(&p, &p.holders, &p.walked);
	if (!err)
		err = in.holders_err;
	/* the maker's rows never fail quietly: no row is left out */
	if (!err)
		err = batches_render(&p);
	pthread_join(th, NULL);
	batches_free(&p);
out:
	pthread_cond_destroy(&p.wake);
	pthread_mutex_destroy(&p.lock);
	inputs_free(&in);
	return err;
}

int table_read(const struct table_read *t, struct sbuf *s)
{
	/* room for the whole text at once: a JSON row is ~300 bytes */
	size_t row_bytes = t->lists ? 320 : 96;
	struct table_inputs in = {0};
	struct sbuf second = {0};
	struct row_share a = {.t = t, .in = &in, .s = s};
	struct row_share b = {.t = t, .in = &in, .s = &second};
	bool split = may_run_on_two_cpus(), threaded = false, ran = false;
	pthread_t th;
	int err;

	if (split && t->lists) {
		err = pipelined_read(t, s, &ran);
		if (ran)
			return err;
	}
	err = inputs_read(t, &in);

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
			pthread_join(th, NULL);
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
