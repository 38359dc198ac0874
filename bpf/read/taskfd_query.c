// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pre-6.6 fallback for perf-event link details: the kernel tells a
 * link's program but not its probe, while BPF_TASK_FD_QUERY tells the probe
 * of a perf event fd. A libbpf-made link keeps its perf event fd open in the
 * process that made it, so the pair is found through /proc.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "array_size.h"
#include "proc_pids.h"
#include "taskfd_query.h"

/* BPF_FD_TYPE_*, <linux/bpf.h> since 4.18 */
static const enum perf_link_kind fd_type_kind[] = {
	[BPF_FD_TYPE_TRACEPOINT] = PERF_LINK_TRACEPOINT,
	[BPF_FD_TYPE_KPROBE] = PERF_LINK_KPROBE,
	[BPF_FD_TYPE_KRETPROBE] = PERF_LINK_KRETPROBE,
	[BPF_FD_TYPE_UPROBE] = PERF_LINK_UPROBE,
	[BPF_FD_TYPE_URETPROBE] = PERF_LINK_URETPROBE,
};

struct answer {
	__u32 fd_type;
	__u64 offset;
	__u64 addr;
	char name[PATH_MAX];
};

struct scan {
	__u32 link_id;
	__u32 prog_id;
	struct answer cur;   /* scratch for one query */
	struct answer found; /* the first kept answer */
	int nfound;
	bool conflict;
};

/* The fds of one process that matter here */
struct proc_fds {
	bool has_link;	 /* holds scan.link_id */
	bool other_link; /* holds another link running scan.prog_id */
	int *perf;	 /* perf event fd numbers */
	size_t nperf;
	size_t cap;
};

/*
 * link_fdinfo() - link_id and prog_id from /proc/PID/fdinfo/FD of a bpf_link
 * fd (lines "link_id:\t%u", "prog_id:\t%u", both there since 5.8).
 * Return: 0, or -ENOENT (gone, or the lines are missing).
 */
static int link_fdinfo(int pid, int fd, __u32 *link_id, __u32 *prog_id)
{
	char path[64], line[256];
	bool have_link = false, have_prog = false;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	fp = fopen(path, "re");
	if (!fp)
		return -ENOENT;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "link_id: %u", link_id) == 1)
			have_link = true;
		else if (sscanf(line, "prog_id: %u", prog_id) == 1)
			have_prog = true;
	}
	fclose(fp);
	return have_link && have_prog ? 0 : -ENOENT;
}

static int add_perf_fd(struct proc_fds *p, int fd)
{
	int *n;

	if (p->nperf == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		n = realloc(p->perf, p->cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		p->perf = n;
	}
	p->perf[p->nperf++] = fd;
	return 0;
}

/* Sort one fd of a process into @p by what its /proc link names. */
static int classify_fd(const struct scan *s, int pid, int fd,
		       struct proc_fds *p)
{
	char path[64], target[64];
	__u32 link_id, prog_id;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = '\0';
	if (!strcmp(target, "anon_inode:[perf_event]"))
		return add_perf_fd(p, fd);
	if (strcmp(target, "anon_inode:bpf_link") ||
	    link_fdinfo(pid, fd, &link_id, &prog_id))
		return 0;
	if (link_id == s->link_id)
		p->has_link = true;
	else if (prog_id == s->prog_id)
		p->other_link = true;
	return 0;
}

struct fd_walk {
	const struct scan *s;
	struct proc_fds *p;
};

static int classify_one(void *ctx, int pid, int fd)
{
	struct fd_walk *w = ctx;

	return classify_fd(w->s, pid, fd, w->p);
}

static int list_fds(const struct scan *s, int pid, struct proc_fds *p)
{
	struct fd_walk w = {s, p};

	return proc_fds_each(pid, classify_one, &w);
}

static bool same_answer(const struct answer *a, const struct answer *b)
{
	return a->fd_type == b->fd_type && a->offset == b->offset &&
	       a->addr == b->addr && !strcmp(a->name, b->name);
}

/* Ask the kernel about one perf event fd; keep the answer if it is ours. */
static void query_perf_fd(struct scan *s, int pid, int fd)
{
	struct answer *a = &s->cur;
	__u32 len = sizeof(a->name), prog_id = 0;
	int err;

	a->name[0] = '\0';
	err = bpf_task_fd_query(pid, fd, 0, a->name, &len, &prog_id,
				&a->fd_type, &a->offset, &a->addr);
	if (err || prog_id != s->prog_id)
		return;
	/* the kernel does not NUL-terminate a name that fills the buffer */
	if (len >= sizeof(a->name))
		return;
	a->name[len] = '\0';
	if (!s->nfound++)
		s->found = *a;
	else if (!same_answer(&s->found, a))
		s->conflict = true;
}

static int scan_process(struct scan *s, int pid)
{
	struct proc_fds p = {0};
	size_t i;
	int err;

	err = list_fds(s, pid, &p);
	if (!err && p.has_link && !p.other_link) {
		for (i = 0; i < p.nperf && !s->conflict; i++)
			query_perf_fd(s, pid, p.perf[i]);
	}
	free(p.perf);
	return err;
}

/* One process; 1 stops the walk: an answer was found twice. */
static int scan_pid(void *s, int pid)
{
	int err = scan_process(s, pid);

	return err ? err : ((struct scan *)s)->conflict;
}

int link_info_from_task_fd(__u32 link_id, __u32 prog_id, struct link_fields *f)
{
	struct scan *s;
	struct answer *a;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->link_id = link_id;
	s->prog_id = prog_id;
	err = proc_pids_each(scan_pid, s);
	if (err > 0)
		err = 0;
	a = &s->found;
	if (!err && (!s->nfound || s->conflict ||
		     a->fd_type >= ARRAY_SIZE(fd_type_kind) ||
		     !fd_type_kind[a->fd_type]))
		err = -ENOENT;
	if (!err && a->offset > UINT32_MAX)
		err = -EOVERFLOW;
	if (!err) {
		f->kind = fd_type_kind[a->fd_type];
		f->view = (enum link_view_kind)f->kind;
		f->offset = (__u32)a->offset;
		f->addr = a->addr;
		memcpy(f->name, a->name, sizeof(f->name));
	}
	free(s);
	return err;
}
