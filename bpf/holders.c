// SPDX-License-Identifier: GPL-2.0-only
/* Who holds each link (holders.h). */
#include "holders.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct holders_walk {
	struct holder_index *idx;
	size_t cap;
};

static int holder_add(struct holders_walk *w, __u32 link_id, __u32 pid,
		      const char *comm)
{
	struct link_holder *h;

	if (w->idx->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;

		h = realloc(w->idx->v, cap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		w->idx->v = h;
		w->cap = cap;
	}
	h = &w->idx->v[w->idx->n++];
	h->link_id = link_id;
	h->pid = pid;
	snprintf(h->comm, sizeof(h->comm), "%s", comm);
	return 0;
}

/* The link_id: line of /proc/PID/fdinfo/FD; 0 when there is none. */
static __u32 fdinfo_link_id(int fdinfo_dir, const char *fd)
{
	char buf[512], *p;
	int f = openat(fdinfo_dir, fd, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (f < 0)
		return 0;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "\nlink_id:");
	return p ? (__u32)strtoul(p + 9, NULL, 10) : 0;
}

static void comm_read(int proc_dir, char *comm, size_t len)
{
	int f = openat(proc_dir, "comm", O_RDONLY | O_CLOEXEC);
	ssize_t n = f < 0 ? -1 : read(f, comm, len - 1);

	if (f >= 0)
		close(f);
	comm[n > 0 ? n : 0] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

/* Every link fd of process @pid (its fd table: threads share it). */
static int process_walk(struct holders_walk *w, int proc, const char *pid)
{
	char target[64], comm[HOLDER_COMM_LEN] = "";
	int pdir = openat(proc, pid, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fddir, infodir, err = 0;
	struct dirent *e;
	DIR *d;
	ssize_t n;
	__u32 id;

	if (pdir < 0)
		return 0;
	fddir = openat(pdir, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	infodir = openat(pdir, "fdinfo", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fddir >= 0 && infodir >= 0 ? fdopendir(fddir) : NULL;
	while (d && !err && (e = readdir(d))) {
		n = readlinkat(fddir, e->d_name, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		/* "bpf_link" when made, "bpf-link" when opened by id or
		 * from a pin (the kernel names the two anon inodes so) */
		if (strcmp(target, "anon_inode:bpf_link") &&
		    strcmp(target, "anon_inode:bpf-link"))
			continue;
		id = fdinfo_link_id(infodir, e->d_name);
		if (!id)
			continue;
		if (!comm[0])
			comm_read(pdir, comm, sizeof(comm));
		err = holder_add(w, id, (__u32)strtoul(pid, NULL, 10), comm);
	}
	if (d)
		closedir(d);
	else if (fddir >= 0)
		close(fddir);
	if (infodir >= 0)
		close(infodir);
	close(pdir);
	return err;
}

static int cmp_holder(const void *a, const void *b)
{
	const struct link_holder *x = a, *y = b;

	if (x->link_id != y->link_id)
		return x->link_id < y->link_id ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Sorted, then one entry per (link, pid): a process may hold several fds */
static void sort_unique(struct holder_index *idx)
{
	size_t i, kept = 0;

	qsort(idx->v, idx->n, sizeof(*idx->v), cmp_holder);
	for (i = 0; i < idx->n; i++)
		if (!kept || cmp_holder(&idx->v[kept - 1], &idx->v[i]))
			idx->v[kept++] = idx->v[i];
	idx->n = kept;
}

int holder_index_build(struct holder_index *idx)
{
	struct holders_walk w = {.idx = idx};
	int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;
	struct dirent *e;
	DIR *d;

	idx->v = NULL;
	idx->n = 0;
	if (proc < 0)
		return -errno;
	d = opendir("/proc");
	if (!d) {
		err = -errno;
		close(proc);
		return err;
	}
	while (!err && (e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]))
			err = process_walk(&w, proc, e->d_name);
	closedir(d);
	close(proc);
	if (err) {
		holder_index_free(idx);
		return err;
	}
	sort_unique(idx);
	return 0;
}

void holder_index_free(struct holder_index *idx)
{
	free(idx->v);
	idx->v = NULL;
	idx->n = 0;
}

size_t holder_index_find(const struct holder_index *idx, __u32 link_id,
			 size_t *first)
{
	size_t lo = 0, hi = idx->n, n = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (idx->v[mid].link_id < link_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + n < idx->n && idx->v[lo + n].link_id == link_id)
		n++;
	if (n)
		*first = lo;
	return n;
}
