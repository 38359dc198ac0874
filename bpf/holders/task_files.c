// SPDX-License-Identifier: GPL-2.0-only
/*
 * Holders of links and perf events: the iter/task_file program of
 * progs/task_files.bpf.c, read whole, or where it cannot load a walk of
 * /proc/PID/fd (readlink tells the kind, fdinfo the link id, and
 * BPF_TASK_FD_QUERY the program of a perf event). Link holders alone, and
 * perf events alone, come from the fd-table scan of fd_scan.c where the
 * kernel runs it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fd_scan.h"
#include "iter_records.h"
#include "proc_pids.h"
#include "task_files.h"
#include "task_files.skel.h"

struct task_files {
	struct task_files_bpf *skel; /* NULL: walk /proc */
	struct bpf_link *iter_link;  /* over task files */
	struct bpf_link *keys_link;  /* over links; NULL where none */
	struct bpf_link *links_link; /* over task files, links only; or NULL */
	struct bpf_link *of_link;    /* links only, one link's; or NULL */
	struct bpf_link *perf_link;  /* over task files, perf events only */
	struct fd_scan *scan; /* in place of the three above, or NULL */
	__u32 own_ids[TASK_FILES_OWN_MAX]; /* their link ids, left out */
	size_t last_n;	   /* records of the last pass: room to start
			      with (read and written atomically) */
	size_t last_links; /* the same for task_files_read_links() */
};

/* A growing array of records of @size bytes (0: struct task_file) */
struct records {
	void *v;
	size_t n, cap; /* in records */
	size_t size;
};

static size_t record_size(const struct records *r)
{
	return r->size ? r->size : sizeof(struct task_file);
}

/* Room for @room more records. Return: 0, or -ENOMEM. */
static int records_reserve(struct records *r, size_t room)
{
	size_t cap = r->cap ? r->cap : 256;
	void *p;

	while (cap - r->n < room)
		cap *= 2;
	if (cap == r->cap)
		return 0;
	p = realloc(r->v, cap * record_size(r));
	if (!p)
		return -ENOMEM;
	r->v = p;
	r->cap = cap;
	return 0;
}

/* Another struct task_file record, zeroed; NULL when out of memory */
static struct task_file *records_add(struct records *r)
{
	struct task_file *p;

	if (records_reserve(r, 1))
		return NULL;
	p = (struct task_file *)r->v + r->n++;
	memset(p, 0, sizeof(*p));
	return p;
}

/* Load the programs, the link iterator's only if @with_keys. */
static int load(struct task_files *tf, bool with_keys)
{
	tf->skel = task_files_bpf__open();
	if (!tf->skel)
		return -1;
	bpf_program__set_autoload(tf->skel->progs.perf_link_keys, with_keys);
	if (!task_files_bpf__load(tf->skel))
		return 0;
	task_files_bpf__destroy(tf->skel);
	tf->skel = NULL;
	return -1;
}

static int read_iterator(struct bpf_link *link, struct records *r);
static int read_link_filtered(struct task_files *tf, __u32 link_id,
			      struct records *r);

/*
 * The filtered program keys its filter by the reader's thread id as the
 * kernel's init pid namespace numbers it; a daemon in another pid
 * namespace has other numbers. So it is used only where it finds the
 * holder of a link the handle itself holds.
 */
static bool of_link_works(struct task_files *tf)
{
	struct records r = {.size = sizeof(struct link_holder)};
	__u32 id = tf->own_ids[2] ? tf->own_ids[2] : tf->own_ids[0];
	bool ok = !read_link_filtered(tf, id, &r) && r.n > 0;

	free(r.v);
	return ok;
}

/*
 * The fd-table scan in place of the links-only and perf-events-only
 * task-file programs, where it loads and finds the handle's own task-file
 * iterator link when asked for it alone (its filter is keyed by thread id
 * as the kernel's init pid namespace numbers it, as of_link_works() says).
 * Tried first: on a host of millions of fds, the task-file programs' own
 * check of one link fails (EAGAIN: a read visits at most a million files
 * without output), which the scan does not share.
 * Return: whether the scan serves.
 */
static bool use_scan(struct task_files *tf)
{
	struct link_holder *v = NULL;
	__u32 ids[FD_SCAN_OWN_MAX];
	bool ok;
	int n;

	if (fd_scan_open(&tf->scan))
		return false;
	n = fd_scan_holders(tf->scan, tf->own_ids[0], &v);
	ok = n == 1 && v[0].link_id == tf->own_ids[0];
	free(v);
	if (!ok) {
		fd_scan_close(tf->scan);
		tf->scan = NULL;
		return false;
	}
	fd_scan_own_link_ids(tf->scan, ids);
	tf->own_ids[2] = ids[0];
	tf->own_ids[3] = ids[1];
	tf->own_ids[4] = ids[2];
	return true;
}

static void open_iterator(struct task_files *tf)
{
	/* iter/bpf_link came in 5.19, iter/task_file in 5.8 */
	if (load(tf, true) && load(tf, false))
		return;
	tf->own_ids[0] =
		iter_attach(tf->skel->progs.task_files, &tf->iter_link);
	if (!tf->own_ids[0]) {
		task_files_bpf__destroy(tf->skel);
		tf->skel = NULL;
		return;
	}
	if (bpf_program__autoload(tf->skel->progs.perf_link_keys))
		tf->own_ids[1] = iter_attach(tf->skel->progs.perf_link_keys,
					     &tf->keys_link);
	if (use_scan(tf))
		return;
	tf->own_ids[2] =
		iter_attach(tf->skel->progs.link_holders, &tf->links_link);
	tf->own_ids[3] =
		iter_attach(tf->skel->progs.link_holders_of, &tf->of_link);
	if (tf->own_ids[3] && !of_link_works(tf)) {
		bpf_link__destroy(tf->of_link);
		tf->of_link = NULL;
		tf->own_ids[3] = 0;
	}
	tf->own_ids[4] =
		iter_attach(tf->skel->progs.perf_event_files, &tf->perf_link);
}

int task_files_open(struct task_files **out)
{
	struct task_files *tf = calloc(1, sizeof(*tf));
	libbpf_print_fn_t old;

	if (!tf)
		return -ENOMEM;
	/* a kernel without the iterator is expected: no libbpf noise then */
	old = libbpf_set_print(NULL);
	open_iterator(tf);
	libbpf_set_print(old);
	*out = tf;
	return 0;
}

int task_files_open_walk(struct task_files **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void task_files_close(struct task_files *tf)
{
	if (!tf)
		return;
	fd_scan_close(tf->scan);
	bpf_link__destroy(tf->perf_link);
	bpf_link__destroy(tf->of_link);
	bpf_link__destroy(tf->links_link);
	bpf_link__destroy(tf->keys_link);
	bpf_link__destroy(tf->iter_link);
	task_files_bpf__destroy(tf->skel);
	free(tf);
}

const char *task_files_source(const struct task_files *tf)
{
	return tf->skel ? "iterator" : "proc";
}

/*
 * Read iterator @link whole into @r, records of record_size(@r) bytes.
 * Whole records only: the kernel never splits one across reads.
 */
static int read_iterator(struct bpf_link *link, struct records *r)
{
	size_t size = record_size(r);
	ssize_t got;
	int fd;

	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		return -errno;
	for (;;) {
		if (records_reserve(r, 64)) {
			close(fd);
			return -ENOMEM;
		}
		got = read(fd, (char *)r->v + r->n * size,
			   (r->cap - r->n) * size);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		r->n += (size_t)got / size;
	}
	close(fd);
	return got < 0 ? -errno : 0;
}

/* "link_id:\t%u" of /proc/PID/fdinfo/FD (there since 5.8); 0 when gone */
static __u32 fdinfo_link_id(int pid, int fd)
{
	char path[64], line[256];
	__u32 id = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	fp = fopen(path, "re");
	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "link_id: %u", &id) == 1)
			break;
	fclose(fp);
	return id;
}

/* The program of a perf event fd, 0 when none or not told */
static __u32 perf_fd_prog_id(int pid, int fd)
{
	__u32 len = 0, prog_id = 0, fd_type;
	__u64 offset, addr;

	if (bpf_task_fd_query(pid, fd, 0, NULL, &len, &prog_id, &fd_type,
			      &offset, &addr))
		return 0;
	return prog_id;
}

/* One fd of a process: a record if it is a link or a perf event with a
 * program */
static int walk_fd(int pid, int fd, const char *comm, struct records *r)
{
	char path[64], target[32];
	struct task_file *p;
	__u32 kind, id;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = '\0';
	/* "bpf-link": an fd got from a pin or by id (bpf_link_new_fd()) */
	if (!strcmp(target, "anon_inode:bpf_link") ||
	    !strcmp(target, "anon_inode:bpf-link")) {
		kind = TASK_FILE_LINK;
		id = fdinfo_link_id(pid, fd);
	} else if (!strcmp(target, "anon_inode:[perf_event]")) {
		kind = TASK_FILE_PERF_EVENT;
		id = perf_fd_prog_id(pid, fd);
	} else {
		return 0;
	}
	if (!id)
		return 0;
	p = records_add(r);
	if (!p)
		return -ENOMEM;
	p->pid = (__u32)pid;
	p->fd = (__u32)fd;
	p->kind = kind;
	p->id = id;
	memcpy(p->comm, comm, sizeof(p->comm));
	return 0;
}

/* comm of the thread-group leader, as the iterator reports it */
static void read_comm(int pid, char comm[16])
{
	char path[64];
	ssize_t n = -1;
	int fd;

	memset(comm, 0, 16);
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, comm, 15);
		close(fd);
	}
	if (n > 0 && comm[n - 1] == '\n')
		comm[n - 1] = '\0';
}

/* One process's fds; its comm read once, at its first fd */
struct proc_walk {
	struct records *r;
	char comm[16];
	bool have_comm;
};

static int walk_one_fd(void *ctx, int pid, int fd)
{
	struct proc_walk *w = ctx;

	/* DT_LNK for every fd: the readlink decides */
	if (!w->have_comm) {
		read_comm(pid, w->comm);
		w->have_comm = true;
	}
	return walk_fd(pid, fd, w->comm, w->r);
}

static int walk_process(int pid, struct records *r)
{
	struct proc_walk w = {.r = r};

	return proc_fds_each(pid, walk_one_fd, &w);
}

static int walk_pid(void *r, int pid)
{
	return walk_process(pid, r);
}

static int by_pid_fd(const void *a, const void *b)
{
	const struct task_file *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->fd != y->fd)
		return x->fd < y->fd ? -1 : 1;
	return 0;
}

/*
 * Sort, and keep one record per (pid, fd): a thread with a fd table of its
 * own (unshare(CLONE_FILES)) is visited by the iterator besides its leader.
 */
static bool is_own(const __u32 own[TASK_FILES_OWN_MAX], __u32 id)
{
	int i;

	for (i = 0; i < TASK_FILES_OWN_MAX; i++)
		if (own[i] && own[i] == id)
			return true;
	return false;
}

static size_t sort_unique(struct task_file *v, size_t n,
			  const __u32 own[TASK_FILES_OWN_MAX])
{
	size_t i, kept = 0;

	/*
	 * the iterator walks tasks by pid and each fd table by fd, so its
	 * records come sorted but for a thread with a table of its own:
	 * sort only then (qsort of sorted records was ~5% of a links.json)
	 */
	for (i = 1; i < n && by_pid_fd(&v[i - 1], &v[i]) <= 0; i++)
		;
	if (i < n) /* qsort() wants a non-NULL base */
		qsort(v, n, sizeof(*v), by_pid_fd);
	for (i = 0; i < n; i++) {
		if (v[i].kind == TASK_FILE_LINK && is_own(own, v[i].id))
			continue;
		if (kept && !by_pid_fd(&v[kept - 1], &v[i]))
			continue;
		v[kept++] = v[i];
	}
	return kept;
}

/*
 * Read @link (task_file records; NULL: walk /proc) whole, by pid and fd,
 * the handle's own links left out. @raw: out, the records read before
 * that (the room to start with next time). Return: the count, or -errno.
 */
static int read_records(struct task_files *tf, struct bpf_link *link,
			size_t room, struct task_file **out, size_t *raw)
{
	struct records r = {0};
	int err;

	if (records_reserve(&r, room))
		return -ENOMEM;
	err = link ? read_iterator(link, &r) : proc_pids_each(walk_pid, &r);
	if (!err && r.n > INT_MAX)
		err = -EOVERFLOW;
	if (err) {
		free(r.v);
		return err;
	}
	*raw = r.n;
	*out = r.v;
	return (int)sort_unique(r.v, r.n, tf->own_ids);
}

int task_files_read(struct task_files *tf, struct task_file **out)
{
	size_t raw;
	/*
	 * room for the last pass's records and some: growing from 256 by
	 * doubling was ~5% of a links.json of 3,000 links (realloc, mremap)
	 */
	int n = read_records(tf, tf->skel ? tf->iter_link : NULL,
			     __atomic_load_n(&tf->last_n, __ATOMIC_RELAXED) +
				     256,
			     out, &raw);

	if (n >= 0)
		__atomic_store_n(&tf->last_n, raw, __ATOMIC_RELAXED);
	return n;
}

int task_files_read_perf_events(struct task_files *tf, struct task_file **out)
{
	struct task_file *v;
	size_t raw;
	int n;

	if (!tf->skel || !tf->keys_link || (!tf->perf_link && !tf->scan))
		return -EOPNOTSUPP;
	if (!tf->scan)
		return read_records(tf, tf->perf_link, 64, out, &raw);
	n = fd_scan_perf_events(tf->scan, &v);
	/* a scan that failed but for memory: the caller reads task_files */
	if (n < 0)
		return n == -ENOMEM ? n : -EOPNOTSUPP;
	*out = v;
	return (int)sort_unique(v, (size_t)n, tf->own_ids);
}

/* task_files_read()'s link records, where links_link did not load */
static int links_from_records(struct task_files *tf, struct records *h)
{
	struct task_file *v = NULL;
	struct link_holder *p;
	int n = task_files_read(tf, &v), i;

	if (n < 0)
		return n;
	if (records_reserve(h, (size_t)n + 1)) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (v[i].kind != TASK_FILE_LINK)
			continue;
		p = (struct link_holder *)h->v + h->n++;
		p->link_id = v[i].id;
		p->pid = v[i].pid;
		memcpy(p->comm, v[i].comm, sizeof(p->comm) - 1);
		p->comm[sizeof(p->comm) - 1] = '\0';
	}
	free(v);
	return 0;
}

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)

/*
 * Stable sort of @v by link id, 11 bits a pass (a qsort of the tens of
 * thousands of records of a links.json was ~8% of it): the records of one
 * link keep the iterator's (pid, fd) order. @tmp has room for @n.
 */
static void sort_by_link_id(struct link_holder *v, struct link_holder *tmp,
			    size_t n)
{
	struct link_holder *src = v, *dst = tmp, *t;
	size_t count[RADIX_SIZE], i, sum, c;
	unsigned int shift;

	/* one link's holders: nothing to sort (each pass clears 16 KiB) */
	for (i = 1; i < n && v[i].link_id == v[0].link_id; i++)
		;
	if (i >= n)
		return;

	for (shift = 0; n && shift < 32; shift += RADIX_BITS) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(src[i].link_id >> shift) & (RADIX_SIZE - 1)]++;
		if (count[(src[0].link_id >> shift) & (RADIX_SIZE - 1)] == n)
			continue; /* one digit for all: nothing moves */
		for (i = 0, sum = 0; i < RADIX_SIZE; i++) {
			c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i].link_id >> shift) &
				  (RADIX_SIZE - 1)]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

static int by_link_pid(const void *a, const void *b)
{
	const struct link_holder *x = a, *y = b;

	if (x->link_id != y->link_id)
		return x->link_id < y->link_id ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * Sorted by (link, pid), each pair once, own links left out. A thread with
 * an fd table of its own comes after other processes' records (the
 * iterator walks by thread id): only then is a qsort needed.
 */
static size_t holders_sort_unique(struct link_holder *v,
				  struct link_holder *tmp, size_t n,
				  const __u32 own[TASK_FILES_OWN_MAX])
{
	size_t i, kept = 0;

	sort_by_link_id(v, tmp, n);
	for (i = 1; i < n && by_link_pid(&v[i - 1], &v[i]) <= 0; i++)
		;
	if (i < n)
		qsort(v, n, sizeof(*v), by_link_pid);
	for (i = 0; i < n; i++) {
		if (is_own(own, v[i].link_id))
			continue;
		if (kept && !by_link_pid(&v[kept - 1], &v[i]))
			continue;
		v[kept++] = v[i];
	}
	return kept;
}

/*
 * By the fd-table scan: every holder (@link_id 0) or one link's, sorted.
 * Return: the count, or -errno (the caller falls back but on -ENOMEM).
 */
static int holders_by_scan(struct task_files *tf, __u32 link_id,
			   struct link_holder **out)
{
	struct link_holder *v;
	int n = fd_scan_holders(tf->scan, link_id, &v);

	if (n < 0)
		return n;
	*out = v;
	return (int)holders_sort_unique(v, v + n, (size_t)n, tf->own_ids);
}

int task_files_read_links(struct task_files *tf, struct link_holder **out)
{
	struct records r = {.size = sizeof(struct link_holder)};
	size_t last = __atomic_load_n(&tf->last_links, __ATOMIC_RELAXED);
	int err;

	if (tf->scan) {
		err = holders_by_scan(tf, 0, out);
		if (err >= 0 || err == -ENOMEM)
			return err;
	}

	/* room for the last pass's records twice: the sort's second half */
	err = records_reserve(&r, 2 * last + 256);
	if (!err)
		err = tf->links_link ? read_iterator(tf->links_link, &r)
				     : links_from_records(tf, &r);
	if (!err && r.n > INT_MAX)
		err = -EOVERFLOW;
	if (!err)
		err = records_reserve(&r, r.n);
	if (err) {
		free(r.v);
		return err;
	}
	__atomic_store_n(&tf->last_links, r.n, __ATOMIC_RELAXED);
	r.n = holders_sort_unique(r.v, (struct link_holder *)r.v + r.n, r.n,
				  tf->own_ids);
	*out = r.v;
	return (int)r.n;
}

/* The records of link @link_id's holders, by the filtered program */
static int read_link_filtered(struct task_files *tf, __u32 link_id,
			      struct records *r)
{
	int map = bpf_map__fd(tf->skel->maps.holder_filter), err;
	__u32 tid = (__u32)syscall(SYS_gettid);

	if (bpf_map_update_elem(map, &tid, &link_id, BPF_ANY))
		return -errno;
	err = read_iterator(tf->of_link, r);
	bpf_map_delete_elem(map, &tid);
	return err;
}

/* The filtered read's records @r, sorted and each pair once, into @out */
static int holders_of_one(struct task_files *tf, struct records *r,
			  struct link_holder **out)
{
	int err = r->n > INT_MAX ? -EOVERFLOW : records_reserve(r, r->n);

	if (err) {
		free(r->v);
		return err;
	}
	r->n = holders_sort_unique(r->v, (struct link_holder *)r->v + r->n,
				   r->n, tf->own_ids);
	*out = r->v;
	return (int)r->n;
}

int task_files_read_link(struct task_files *tf, __u32 link_id,
			 struct link_holder **out)
{
	struct records r = {.size = sizeof(struct link_holder)};
	struct link_holder *all = NULL;
	int n, i, kept = 0, err;

	if (tf->scan && !is_own(tf->own_ids, link_id)) {
		n = holders_by_scan(tf, link_id, out);
		if (n >= 0 || n == -ENOMEM)
			return n;
	}
	if (tf->of_link && !is_own(tf->own_ids, link_id)) {
		err = records_reserve(&r, 64);
		if (!err)
			err = read_link_filtered(tf, link_id, &r);
		if (!err)
			return holders_of_one(tf, &r, out);
		free(r.v);
		if (err == -ENOMEM)
			return err;
	}
	/* no filter (or its map full): every pair, then this link's */
	n = task_files_read_links(tf, &all);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++)
		if (all[i].link_id == link_id)
			all[kept++] = all[i];
	*out = all;
	return kept;
}

static int cmp_key(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

int task_files_perf_link_keys(struct task_files *tf, __u64 **keys)
{
	struct records r = {.size = 2 * sizeof(__u64)};
	__u64 *pairs;
	size_t i;
	int err;

	if (!tf->keys_link)
		return -EOPNOTSUPP;
	/* (link id, key) pairs, read into the records' storage */
	err = read_iterator(tf->keys_link, &r);
	if (err || r.n > INT_MAX) {
		free(r.v);
		return err ? err : -EOVERFLOW;
	}
	pairs = (__u64 *)r.v;
	for (i = 0; i < r.n; i++)
		pairs[i] = pairs[2 * i + 1];
	if (r.n) /* qsort() wants a non-NULL base */
		qsort(pairs, r.n, sizeof(*pairs), cmp_key);
	*keys = pairs;
	return (int)r.n;
}

int task_files_own_link_ids(const struct task_files *tf,
			    __u32 ids[TASK_FILES_OWN_MAX])
{
	int i, n = 0;

	for (i = 0; i < TASK_FILES_OWN_MAX; i++)
		if (tf->own_ids[i])
			ids[n++] = tf->own_ids[i];
	return n;
}
