// SPDX-License-Identifier: GPL-2.0-only
/* Link holders and perf events by a scan of fd tables (fd_scan.h). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fd_scan.h"
#include "fd_tables.skel.h"
#include "iter_records.h"

struct fd_scan {
	struct fd_tables_bpf *skel;
	struct bpf_link *links;	   /* every table's link fds */
	struct bpf_link *perf;	   /* every table's perf events */
	struct bpf_link *filtered; /* one link's, or the rest of a table */
	__u32 own_ids[FD_SCAN_OWN_MAX];
};

/* Must match struct scan_filter of fd_tables.bpf.c */
struct fd_scan_filter {
	__u32 kind; /* enum task_file_kind */
	__u32 link_id;
	__u32 tid;
	__u32 chunk;
	__u32 resumes;
	__u32 fd;   /* the reader's own fd of link_id, or -1 */
	__u64 link; /* 0: the program finds it through fd */
	__u64 file; /* ditto, the fd's file, which the scan leaves out */
};

/* Must match struct resume_key of fd_tables.bpf.c */
struct fd_scan_resume_key {
	__u32 reader;
	__u32 task;
};

/* Attach @prog into @link, its id into @id. Return: 0 or -errno. */
static int attach(struct bpf_program *prog, struct bpf_link **link,
		  __u32 *id)
{
	*id = iter_attach(prog, link);
	return *id ? 0 : (errno ? -errno : -EINVAL);
}

int fd_scan_open(struct fd_scan **out)
{
	struct fd_scan *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	s->skel = fd_tables_bpf__open_and_load();
	err = s->skel ? 0 : (errno ? -errno : -EINVAL);
	if (!err)
		err = attach(s->skel->progs.scan_link_holders, &s->links,
			     &s->own_ids[0]);
	if (!err)
		err = attach(s->skel->progs.scan_filtered, &s->filtered,
			     &s->own_ids[1]);
	if (!err)
		err = attach(s->skel->progs.scan_perf_events, &s->perf,
			     &s->own_ids[2]);
	if (err) {
		fd_scan_close(s);
		return err;
	}
	*out = s;
	return 0;
}

void fd_scan_close(struct fd_scan *s)
{
	if (!s)
		return;
	bpf_link__destroy(s->perf);
	bpf_link__destroy(s->filtered);
	bpf_link__destroy(s->links);
	fd_tables_bpf__destroy(s->skel);
	free(s);
}

int fd_scan_own_link_ids(const struct fd_scan *s, __u32 ids[FD_SCAN_OWN_MAX])
{
	memcpy(ids, s->own_ids, sizeof(s->own_ids));
	return FD_SCAN_OWN_MAX;
}

/* Records of @size bytes, with room for as many again after the last */
struct scan_records {
	char *v;
	size_t n, size;
};

/* Append @add (@n records, freed here) */
static int append(struct scan_records *r, void *add, int n)
{
	char *p;

	if (n < 0)
		return n;
	p = realloc(r->v, 2 * (r->n + (size_t)n) * r->size + 1);
	if (!p) {
		free(add);
		return -ENOMEM;
	}
	if (n)
		memcpy(p + r->n * r->size, add, (size_t)n * r->size);
	free(add);
	r->v = p;
	r->n += (size_t)n;
	return 0;
}

/* The filtered program's records for @f, asked by this thread */
static int read_filtered(struct fd_scan *s, const struct fd_scan_filter *f,
			 struct scan_records *r)
{
	int map = bpf_map__fd(s->skel->maps.scan_filters), n;
	__u32 tid = (__u32)syscall(SYS_gettid);
	void *got = NULL;

	struct fd_scan_filter after;

	if (bpf_map_update_elem(map, &tid, f, BPF_ANY))
		return -errno;
	n = iter_records_read(bpf_link__fd(s->filtered), r->size, &got);
	/* one link's holders: the program found the link through the fd,
	 * or scanned nothing */
	if (n >= 0 && f->link_id &&
	    (bpf_map_lookup_elem(map, &tid, &after) || !after.link)) {
		free(got);
		n = -EOPNOTSUPP;
	}
	bpf_map_delete_elem(map, &tid);
	return append(r, got, n);
}

/*
 * A resume record: a table with more records than one program run may
 * write, whose rest starts at a chunk; its first three words are 0, the
 * task id and the chunk (fd_tables.bpf.c, RUN_BYTES_MAX).
 */
static bool is_resume(const struct scan_records *r, size_t i,
		      struct fd_scan_filter *f)
{
	__u32 w[3];

	memcpy(w, r->v + i * r->size, sizeof(w));
	f->tid = w[1];
	f->chunk = w[2];
	return w[0] == 0;
}

/*
 * The rests of the tables whose resume records are [@from, @to) of @r, in
 * one run of the filtered program where scan_resumes takes them all (a
 * table it has no room for is read in a run of its own).
 */
static int resume_batch(struct fd_scan *s, const struct fd_scan_filter *asked,
			struct scan_records *r, size_t from, size_t to)
{
	int map = bpf_map__fd(s->skel->maps.scan_resumes), err = 0;
	struct fd_scan_resume_key key = {.reader = (__u32)syscall(SYS_gettid)};
	struct fd_scan_filter one = *asked, all = *asked;
	size_t i, keyed = 0;

	all.resumes = 1;
	for (i = from; !err && i < to; i++) {
		if (!is_resume(r, i, &one))
			continue;
		key.task = one.tid;
		if (!bpf_map_update_elem(map, &key, &one.chunk, BPF_NOEXIST))
			keyed++;
		else
			err = read_filtered(s, &one, r);
	}
	if (!err && keyed)
		err = read_filtered(s, &all, r);
	for (i = from; keyed && i < to; i++)
		if (is_resume(r, i, &one)) {
			key.task = one.tid;
			bpf_map_delete_elem(map, &key);
		}
	return err;
}

/* Read the rest of each table a resume record stands for (those the rests
 * write in turn too), then drop the resume records */
static int read_rests(struct fd_scan *s, const struct fd_scan_filter *asked,
		      struct scan_records *r)
{
	struct fd_scan_filter f;
	size_t from = 0, to, i, kept = 0;
	int err = 0;

	while (!err && from < r->n) {
		to = r->n;
		err = resume_batch(s, asked, r, from, to);
		from = to;
	}
	if (err)
		return err;
	for (i = 0; i < r->n; i++)
		if (!is_resume(r, i, &f))
			memmove(r->v + kept++ * r->size, r->v + i * r->size,
				r->size);
	r->n = kept;
	return r->n > INT_MAX ? -EOVERFLOW : 0;
}

/* Every table's records by @all, or @f's; resumed tables read whole */
static int scan_read(struct fd_scan *s, struct bpf_link *all,
		     const struct fd_scan_filter *f, size_t size, void **out)
{
	struct scan_records r = {.size = size};
	void *got = NULL;
	int err, n;

	if (all) {
		n = iter_records_read(bpf_link__fd(all), size, &got);
		err = append(&r, got, n);
	} else {
		err = read_filtered(s, f, &r);
	}
	if (!err)
		err = read_rests(s, f, &r);
	if (err) {
		free(r.v);
		return err;
	}
	*out = r.v;
	return (int)r.n;
}

int fd_scan_holders(struct fd_scan *s, __u32 link_id,
		    struct link_holder **out)
{
	struct fd_scan_filter f = {.kind = TASK_FILE_LINK,
				   .link_id = link_id,
				   .fd = (__u32)-1};
	int fd = -1, n;

	/* one link's: an fd of the scan's own, through which the program
	 * finds the link's address to compare each file with */
	if (link_id) {
		fd = bpf_link_get_fd_by_id(link_id);
		if (fd < 0 && errno == ENOENT) { /* gone: no holder */
			*out = calloc(1, sizeof(**out));
			return *out ? 0 : -ENOMEM;
		}
		if (fd < 0)
			return -errno;
		f.fd = (__u32)fd;
	}
	n = scan_read(s, link_id ? NULL : s->links, &f, sizeof(**out),
		      (void **)out);
	if (fd >= 0)
		close(fd);
	return n;
}

int fd_scan_perf_events(struct fd_scan *s, struct task_file **out)
{
	struct fd_scan_filter f = {.kind = TASK_FILE_PERF_EVENT,
				   .fd = (__u32)-1};

	return scan_read(s, s->perf, &f, sizeof(**out), (void **)out);
}
