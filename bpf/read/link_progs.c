// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "iter_records.h"
#include "link_progs.h"
#include "link_progs.skel.h"
#include "link_info.h"

#define MAX_CPUS 1024 /* as the program's loop bound */
#define REC_STATS 1   /* the record's run statistics were read */

/* the iterator's record (progs/link_progs.bpf.c) */
struct link_prog_rec {
	__u32 link_id;
	__u32 prog_id;
	__u32 type;
	__u32 flags; /* REC_STATS */
	__u64 run_cnt;
	__u64 run_time_ns;
	__u64 recursion_misses;
	char name[16];
	__u64 perf_key;
};

struct link_progs {
	struct link_progs_bpf *skel;
	struct bpf_link *iter;
	__u32 own_id, own_prog_id;
};

/* Record @r as a link_prog into @v */
static void prog_of_rec(const struct link_prog_rec *r, struct link_prog *v)
{
	v->link_id = r->link_id;
	v->prog_id = r->prog_id;
	v->type = r->type;
	v->perf_key = r->perf_key;
	v->has_stats = r->flags & REC_STATS;
	v->stats.run_cnt = r->run_cnt;
	v->stats.run_time_ns = r->run_time_ns;
	v->stats.recursion_misses = r->recursion_misses;
	memcpy(v->stats.name, r->name, sizeof(r->name));
	v->stats.name[sizeof(v->stats.name) - 1] = '\0';
}

/* What a read(2) of the iterator gives and its records become */
struct progs_batch {
	struct link_prog_rec r[LINK_PROGS_BATCH];
	struct link_prog v[LINK_PROGS_BATCH];
};

int link_progs_read_each(struct link_progs *lp, link_progs_batch_fn fn,
			 void *arg)
{
	struct progs_batch *b = malloc(sizeof(*b));
	int fd = -1, n, i, kept, total = 0, err = 0;
	ssize_t got;

	if (!lp || !b) {
		free(b);
		return lp ? -ENOMEM : -EOPNOTSUPP;
	}
	fd = bpf_iter_create(bpf_link__fd(lp->iter));
	err = fd < 0 ? -errno : 0;
	/* the program writes whole records, so a read of a multiple of
	 * their size ends on one (kernel/bpf/bpf_iter.c, bpf_seq_read()) */
	while (!err && (got = read(fd, b->r, sizeof(b->r))) != 0) {
		if (got < 0) {
			err = errno == EINTR ? 0 : -errno;
			continue;
		}
		n = (int)((size_t)got / sizeof(b->r[0]));
		for (i = 0, kept = 0; i < n; i++)
			if (b->r[i].link_id != lp->own_id)
				prog_of_rec(&b->r[i], &b->v[kept++]);
		total += kept;
		err = kept ? fn(b->v, kept, arg) : 0;
	}
	if (fd >= 0)
		close(fd);
	free(b);
	return err ? err : total;
}

/* link_progs_read()'s batch: appended to the array so far */
struct progs_all {
	struct link_prog *v;
	size_t n, cap;
};

static int progs_append(struct link_prog *v, int n, void *arg)
{
	struct progs_all *a = arg;
	struct link_prog *p;

	if (a->n + (size_t)n > a->cap) {
		a->cap = 2 * (a->n + (size_t)n);
		p = realloc(a->v, a->cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		a->v = p;
	}
	memcpy(a->v + a->n, v, (size_t)n * sizeof(*v));
	a->n += (size_t)n;
	return 0;
}

int link_progs_read(struct link_progs *lp, struct link_prog **out)
{
	struct progs_all a = {0};
	int n = link_progs_read_each(lp, progs_append, &a);

	if (n >= 0 && !a.v)
		a.v = malloc(sizeof(*a.v));
	if (n >= 0 && !a.v)
		n = -ENOMEM;
	if (n < 0) {
		free(a.v);
		return n;
	}
	*out = a.v;
	return n;
}

const struct link_prog *link_prog_find(const struct link_prog *v, size_t n,
				       __u32 link_id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].link_id == link_id)
			return &v[mid];
		if (v[mid].link_id < link_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * Does the iterator read its own link's program as the kernel's info call
 * does? Its id and name must match; its run count, read first, may not
 * exceed the info's (the count only grows).
 */
static int self_check(struct link_progs *lp)
{
	struct bpf_link_info info = {0};
	struct bpf_prog_info pinfo = {0};
	__u32 len = sizeof(info);
	struct link_prog_rec *r = NULL;
	int n, i, err = -EPROTO;

	if (bpf_obj_get_info_by_fd(bpf_link__fd(lp->iter), &info, &len))
		return -errno;
	lp->own_id = info.id;
	lp->own_prog_id = info.prog_id;
	n = iter_records_read(bpf_link__fd(lp->iter), sizeof(*r), (void **)&r);
	if (n < 0)
		return n;
	len = sizeof(pinfo);
	if (bpf_obj_get_info_by_fd(bpf_program__fd(lp->skel->progs.link_progs),
				   &pinfo, &len))
		err = -errno;
	for (i = 0; i < n && err == -EPROTO; i++)
		if (r[i].link_id == lp->own_id &&
		    r[i].type == BPF_LINK_TYPE_ITER &&
		    (r[i].flags & REC_STATS) &&
		    r[i].prog_id == lp->own_prog_id &&
		    r[i].prog_id == pinfo.id &&
		    !strncmp(r[i].name, pinfo.name, sizeof(r[i].name)) &&
		    r[i].run_cnt <= pinfo.run_cnt &&
		    r[i].recursion_misses <= pinfo.recursion_misses)
			err = 0;
	free(r);
	return err;
}

int link_progs_open(struct link_progs **out)
{
	struct link_progs *lp = calloc(1, sizeof(*lp));
	int ncpus = libbpf_num_possible_cpus(), err;

	*out = NULL;
	if (!lp)
		return -ENOMEM;
	if (ncpus <= 0 || ncpus > MAX_CPUS) {
		free(lp);
		return ncpus <= 0 ? ncpus : -EOPNOTSUPP;
	}
	lp->skel = link_progs_bpf__open();
	err = lp->skel ? 0 : (errno ? -errno : -ENOMEM);
	if (!err) {
		lp->skel->rodata->ncpus = ncpus;
		err = link_progs_bpf__load(lp->skel);
	}
	if (!err) {
		lp->iter = bpf_program__attach_iter(lp->skel->progs.link_progs,
						    NULL);
		err = lp->iter ? 0 : (errno ? -errno : -EINVAL);
	}
	if (!err)
		err = self_check(lp);
	if (err) {
		link_progs_close(lp);
		return err < 0 ? err : -EINVAL;
	}
	*out = lp;
	return 0;
}

__u32 link_progs_own(const struct link_progs *lp)
{
	return lp ? lp->own_id : 0;
}

void link_progs_close(struct link_progs *lp)
{
	if (!lp)
		return;
	bpf_link__destroy(lp->iter);
	link_progs_bpf__destroy(lp->skel);
	free(lp);
}
