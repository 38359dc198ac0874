// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf/holders/fd_scan.c (the fd-table scan) against /proc/self/fdinfo:
 * mklinks holds two perf links, setbpf a perf event with a program
 * attached by ioctl, and this process holds many fds of them, past what
 * one run of the scan's program may write. On kernel 6.2 and later the
 * scan must load; before, it is expected not to, and the test says so.
 * Needs no bpftool, so the kernel matrix's guests run it too.
 *
 * Usage: test_fd_scan (with $MKLINKS set, $SETBPF where built).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>

#include <bpf/bpf.h>

#include "check.h"
#include "child.h"
#include "fd_scan.h"

/* fds of this process that /proc/self/fdinfo says are link @id's */
static int own_fds_of_link(__u32 id, int max_fd)
{
	char path[64], line[256];
	unsigned int got;
	int fd, n = 0;
	FILE *fp;

	for (fd = 0; fd <= max_fd; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
		fp = fopen(path, "re");
		if (!fp)
			continue;
		while (fgets(line, sizeof(line), fp))
			if (sscanf(line, "link_id: %u", &got) == 1 && got == id)
				n++;
		fclose(fp);
	}
	return n;
}

/* Kernel 6.2 or later, where the fd-table scan must load */
static bool kernel_has_rdonly_cast(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	return !uname(&u) && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
	       (major > 6 || (major == 6 && minor >= 2));
}

#define SCAN_FDS 2500
#define SCAN_PERF_FDS 500

/* @fd and @n dups of it in @fds; the caller's limit allows them */
static void dup_fds(int fd, int *fds, int n)
{
	int i;

	fds[0] = fd;
	if (fd < 0)
		bail_out("no fd to dup");
	for (i = 1; i <= n; i++)
		if ((fds[i] = dup(fd)) < 0)
			bail_out("dup");
}

static void close_fds(int *fds, int n)
{
	int i;

	for (i = 0; i <= n; i++)
		close(fds[i]);
}

/* The filtered scan of link @id: one record per table, mklinks' and this
 * process's */
static void check_scan_one(struct fd_scan *s, pid_t ml, __u32 id)
{
	struct link_holder *v = NULL;
	int n = fd_scan_holders(s, id, &v);

	CHECK(n >= 0, "fd_scan_holders %u: %s", id,
	      n < 0 ? strerror(-n) : "ok");
	EXPECT(n == 2 && v[0].link_id == id && v[1].link_id == id &&
		       ((v[0].pid == (__u32)ml &&
			 v[1].pid == (__u32)getpid()) ||
			(v[1].pid == (__u32)ml && v[0].pid == (__u32)getpid())),
	       "link %u alone: %d records, want mklinks and this process", id,
	       n);
	free(v);
}

/*
 * One link's scan opens an fd of the link for itself: that fd is not a
 * holder. Link @id, which this process does not hold, gives mklinks
 * alone; a link id that is gone gives none; and with no fd left to open,
 * the scan says EMFILE (its callers then read every table's holders).
 */
static void check_scan_own_fd(struct fd_scan *s, pid_t ml, __u32 id)
{
	struct rlimit old, low;
	struct link_holder *v = NULL;
	__u32 gone = 0, cur = 0, next;
	int n, fd, dups[64], nd = 0;

	n = fd_scan_holders(s, id, &v);
	EXPECT(n == 1 && v[0].link_id == id && v[0].pid == (__u32)ml,
	       "link %u, held by mklinks alone: %d records (the scan's own fd "
	       "left out)",
	       id, n);
	free(v);
	v = NULL;

	/* an id between two of the kernel's list: ids are handed out in
	 * turn, so it is not made again while the test runs */
	while (!gone && !bpf_link_get_next_id(cur, &next)) {
		if (cur && next > cur + 1)
			gone = cur + 1;
		cur = next;
	}
	if (gone) {
		n = fd_scan_holders(s, gone, &v);
		EXPECT(n == 0, "link id %u, gone: %d records", gone, n);
		free(v);
		v = NULL;
	}

	if (getrlimit(RLIMIT_NOFILE, &old))
		bail_out("getrlimit");
	low = old;
	low.rlim_cur = 64;
	if (setrlimit(RLIMIT_NOFILE, &low))
		bail_out("setrlimit");
	while (nd < 64 && (fd = dup(0)) >= 0)
		dups[nd++] = fd;
	n = fd_scan_holders(s, id, &v);
	EXPECT(n == -EMFILE, "link %u with no fd left: %s", id,
	       n < 0 ? strerror(-n) : "records");
	if (n >= 0)
		free(v);
	while (nd)
		close(dups[--nd]);
	if (setrlimit(RLIMIT_NOFILE, &old))
		bail_out("setrlimit");
}

#define TABLE_THREADS 3

static pthread_barrier_t tables_ready, tables_done;

/* A thread with a copy of the process's fd table, until told to end */
static void *own_table(void *arg)
{
	int *err = arg;

	*err = unshare(CLONE_FILES) ? errno : 0;
	pthread_barrier_wait(&tables_ready);
	pthread_barrier_wait(&tables_done);
	return NULL;
}

/*
 * TABLE_THREADS threads with fd tables of their own, each a copy of this
 * process's @want fds of link @id: every table is resumed, all in the same
 * runs, and each gives each of its fds once.
 */
static void check_scan_tables(struct fd_scan *s, __u32 id, int want)
{
	pthread_t th[TABLE_THREADS];
	int err[TABLE_THREADS], i, n, mine = 0;
	struct link_holder *v = NULL;

	pthread_barrier_init(&tables_ready, NULL, TABLE_THREADS + 1);
	pthread_barrier_init(&tables_done, NULL, TABLE_THREADS + 1);
	for (i = 0; i < TABLE_THREADS; i++)
		if (pthread_create(&th[i], NULL, own_table, &err[i]))
			bail_out("pthread_create");
	pthread_barrier_wait(&tables_ready);
	for (i = 0; i < TABLE_THREADS; i++)
		if (err[i])
			bail_out("unshare(CLONE_FILES): %s", strerror(err[i]));
	n = fd_scan_holders(s, 0, &v);
	CHECK(n >= 0, "fd_scan_holders, %d tables: %s", TABLE_THREADS + 1,
	      n < 0 ? strerror(-n) : "ok");
	for (i = 0; i < n; i++)
		mine += v[i].link_id == id && v[i].pid == (__u32)getpid();
	EXPECT(mine == want * (TABLE_THREADS + 1),
	       "link %u in %d tables of %d fds: %d records", id,
	       TABLE_THREADS + 1, want, mine);
	free(v);
	pthread_barrier_wait(&tables_done);
	for (i = 0; i < TABLE_THREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&tables_ready);
	pthread_barrier_destroy(&tables_done);
}

/*
 * The fd-table scan with tables of more fds than one program run may
 * write: this process holds mklinks' first link SCAN_FDS + 1 times (each
 * run writes ~1,000 link records), then setbpf's first perf event
 * SCAN_PERF_FDS + 1 times (~380 perf event records a run). Every table
 * holds one record per fd, so this process's records of each are as many
 * as fdinfo's fds of it (each fd once across the resumed runs); the
 * filtered scan gives one record per table (this process and mklinks),
 * also for mklinks' second link held at an fd past all those; and
 * threads with copies of the table are each read whole. Then the
 * filtered scan's own fd, a gone link and the fd limit.
 */
static void check_scan_resume(pid_t ml, __u32 id, __u32 id2, pid_t sb,
			      int sb_fd)
{
	struct rlimit rl = {SCAN_FDS + 256, SCAN_FDS + 256};
	int fds[SCAN_FDS + 1], i, n, mine = 0, want, err, pidfd, late;
	struct link_holder *v = NULL;
	struct task_file *p = NULL;
	struct fd_scan *s;

	err = fd_scan_open(&s);
	if (err && !kernel_has_rdonly_cast())
		skip_all("no fd-table scan before kernel 6.2 (%s): the "
			 "task-file programs serve",
			 strerror(-err));
	if (!CHECK(!err, "fd_scan_open: %s", strerror(-err)))
		return;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		bail_out("setrlimit");
	dup_fds(bpf_link_get_fd_by_id(id), fds, SCAN_FDS);
	want = own_fds_of_link(id, SCAN_FDS + 256);
	n = fd_scan_holders(s, 0, &v);
	CHECK(n >= 0, "fd_scan_holders: %s", n < 0 ? strerror(-n) : "ok");
	for (i = 0; i < n; i++)
		mine += v[i].link_id == id && v[i].pid == (__u32)getpid();
	EXPECT(want == SCAN_FDS + 1 && mine == want,
	       "link %u: %d records of this process, fdinfo says %d fds", id,
	       mine, want);
	free(v);
	v = NULL;
	check_scan_one(s, ml, id);
	/* past the first link's fds, where one run's records would end */
	late = bpf_link_get_fd_by_id(id2);
	check_scan_one(s, ml, id2);
	close(late);
	check_scan_tables(s, id, want);
	close_fds(fds, SCAN_FDS);
	check_scan_own_fd(s, ml, id);

	pidfd = (int)syscall(SYS_pidfd_open, sb, 0);
	dup_fds(pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, sb_fd, 0),
		fds, SCAN_PERF_FDS);
	close(pidfd);
	n = fd_scan_perf_events(s, &p);
	CHECK(n >= 0, "fd_scan_perf_events: %s", n < 0 ? strerror(-n) : "ok");
	for (i = 0, mine = 0; i < n; i++)
		mine += p[i].pid == (__u32)getpid() &&
			p[i].kind == TASK_FILE_PERF_EVENT;
	EXPECT(mine == SCAN_PERF_FDS + 1,
	       "setbpf's perf event: %d records of this process, want %d",
	       mine, SCAN_PERF_FDS + 1);
	free(p);
	close_fds(fds, SCAN_PERF_FDS);
	fd_scan_close(s);
	group_end("fd-table scan: %d fds of one link and %d of one perf event "
		  "in one table, each once",
		  SCAN_FDS + 1, SCAN_PERF_FDS + 1);
}

/* The first number of each line of @c until "ready": @max at most */
static int read_firsts(struct test_child *c, __u32 *v, int max)
{
	char line[4096];
	int n = 0;

	while (fgets(line, sizeof(line), c->out)) {
		if (!strcmp(line, "ready\n"))
			return n;
		if (n == max || sscanf(line, "%u", &v[n]) != 1)
			return -EIO;
		n++;
	}
	return -EIO;
}

int main(void)
{
	const char *mklinks = getenv("MKLINKS"), *setbpf = getenv("SETBPF");
	struct test_child ml, sb;
	__u32 links[4], events[4];
	int nl, nb;

	if (geteuid() != 0)
		skip_all("needs root (BPF)");
	if (!mklinks || !setbpf || access(setbpf, X_OK))
		skip_all("MKLINKS and SETBPF not set, or no setbpf");
	char *mlargv[] = {(char *)mklinks, "software:cpu-clock:-1:0",
			  "software:cpu-clock:-1:1", NULL};
	char *sbargv[] = {(char *)setbpf, "software:cpu-clock", NULL};
	if (child_start(&ml, mlargv) || child_start(&sb, sbargv))
		bail_out("cannot start the helpers");
	nl = read_firsts(&ml, links, 4);
	nb = read_firsts(&sb, events, 4);
	if (nl != 2 || nb != 1)
		skip_all("helpers could not attach (%d links, %d events)", nl,
			 nb);
	check_scan_resume(ml.pid, links[0], links[1], sb.pid, (int)events[0]);
	child_stop(&ml);
	child_stop(&sb);
	return done_testing();
}
