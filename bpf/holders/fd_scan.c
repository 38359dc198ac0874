// SPDX-License-Identifier: GPL-2.0-only
/* Link holders by a scan of fd tables (fd_scan.h). */
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
	struct bpf_link *all;	   /* every table */
	struct bpf_link *filtered; /* one link's, or the rest of a table */
	__u32 own_ids[FD_SCAN_OWN_MAX];
};

/* Must match struct scan_filter of fd_tables.bpf.c */
struct fd_scan_filter {
	__u32 link_id;
	__u32 tid;
	__u32 chunk;
};

/* A resume record of the programs: a table with more link fds than one
 * run may write, whose rest starts at chunk @comm[0..3] of task @pid */
static bool is_resume(const struct link_holder *h)
{
	return h->link_id == 0;
}

static __u32 link_id_of(struct bpf_link *link)
{
	struct bpf_link_info info = {0};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_link__fd(link), &info, &len))
		return 0;
	return info.id;
}

int fd_scan_open(struct fd_scan **out)
{
	struct fd_scan *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	s->skel = fd_tables_bpf__open_and_load();
	err = s->skel ? 0 : -errno;
	if (!err) {
		s->all = bpf_program__attach_iter(
			s->skel->progs.scan_link_holders, NULL);
		s->filtered = bpf_program__attach_iter(
			s->skel->progs.scan_link_holders_filtered, NULL);
		if (!s->all || !s->filtered)
			err = errno ? -errno : -EINVAL;
	}
	if (!err) {
		s->own_ids[0] = link_id_of(s->all);
		s->own_ids[1] = link_id_of(s->filtered);
		if (!s->own_ids[0] || !s->own_ids[1])
			err = -EINVAL;
	}
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
	bpf_link__destroy(s->filtered);
	bpf_link__destroy(s->all);
	fd_tables_bpf__destroy(s->skel);
	free(s);
}

int fd_scan_own_link_ids(const struct fd_scan *s, __u32 ids[FD_SCAN_OWN_MAX])
{
	memcpy(ids, s->own_ids, sizeof(s->own_ids));
	return FD_SCAN_OWN_MAX;
}

/* The filtered program's records for @f, asked by this thread */
static int read_filtered(struct fd_scan *s, const struct fd_scan_filter *f,
			 struct link_holder **out)
{
	int map = bpf_map__fd(s->skel->maps.scan_filters), n;
	__u32 tid = (__u32)syscall(SYS_gettid);

	if (bpf_map_update_elem(map, &tid, f, BPF_ANY))
		return -errno;
	n = iter_records_read(bpf_link__fd(s->filtered), sizeof(**out),
			      (void **)out);
	bpf_map_delete_elem(map, &tid);
	return n;
}

/* Append @add (@n records, freed here) to *@v of *@len records, with the
 * room fd_scan_holders() promises */
static int append(struct link_holder **v, size_t *len, struct link_holder *add,
		  size_t n)
{
	struct link_holder *p = realloc(*v, 2 * (*len + n) * sizeof(*p) + 1);

	if (!p) {
		free(add);
		return -ENOMEM;
	}
	if (n)
		memcpy(p + *len, add, n * sizeof(*p));
	free(add);
	*v = p;
	*len += n;
	return 0;
}

/* Read the rest of each table that a resume record in @*v stands for;
 * resumes the rest itself writes are read in turn */
static int read_rests(struct fd_scan *s, struct link_holder **v, size_t *len)
{
	struct fd_scan_filter f = {0};
	struct link_holder *rest;
	size_t i;
	int n, err;

	for (i = 0; i < *len; i++) {
		if (!is_resume(&(*v)[i]))
			continue;
		f.tid = (*v)[i].pid;
		memcpy(&f.chunk, (*v)[i].comm, sizeof(f.chunk));
		n = read_filtered(s, &f, &rest);
		if (n < 0)
			return n;
		err = append(v, len, rest, (size_t)n);
		if (err)
			return err;
	}
	return 0;
}

int fd_scan_holders(struct fd_scan *s, __u32 link_id,
		    struct link_holder **out)
{
	struct fd_scan_filter f = {.link_id = link_id};
	struct link_holder *v = NULL, *got = NULL;
	size_t len = 0, i, kept = 0;
	int n, err;

	n = link_id ? read_filtered(s, &f, &got)
		    : iter_records_read(bpf_link__fd(s->all), sizeof(*got),
					(void **)&got);
	if (n < 0)
		return n;
	err = append(&v, &len, got, (size_t)n);
	if (!err && !link_id)
		err = read_rests(s, &v, &len);
	if (!err && len > INT_MAX)
		err = -EOVERFLOW;
	if (err) {
		free(v);
		return err;
	}
	for (i = 0; i < len; i++)
		if (!is_resume(&v[i]))
			v[kept++] = v[i];
	*out = v;
	return (int)kept;
}
