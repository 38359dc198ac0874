// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf/holders/task_files.c against what /proc and bpftool say. Two helper
 * processes hold known files: mklinks (perf links, each with its perf event fd
 * kept open, as libbpf does) and setbpf (perf events with a program attached by
 * ioctl, no link). Both sources of task_files (the iterator and the /proc walk)
 * must list them with the pid, fd, id and comm that /proc/PID/fdinfo
 * (link_id:), /proc/PID/comm and `bpftool -j perf show` give; the iterator must
 * give a perf link and its perf event fd the same key, and leave its own iter
 * link out. Other processes' files come and go: only the helpers' are checked
 * exactly.
 *
 * Usage: test_task_files (with $MKLINKS, $SETBPF and $TARGET set).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "check.h"
#include "child.h"
#include "task_files.h"

/* A known file of a helper: what it printed */
struct known {
	__u32 fd;      /* setbpf: its fd; mklinks: 0, found via fdinfo */
	__u32 id;      /* link id (mklinks) or program id (setbpf) */
	__u32 prog_id; /* mklinks: the link's program */
};

/* Lines until "ready": mklinks (ID ... PROG_ID) or setbpf (FD PROG_ID) */
static int read_lines(struct test_child *c, struct known *k, int max, int mklinks)
{
	char line[4096];
	int n = 0;

	while (fgets(line, sizeof(line), c->out)) {
		if (!strcmp(line, "ready\n"))
			return n;
		if (n == max)
			return -EIO;
		memset(&k[n], 0, sizeof(k[n]));
		if (mklinks ? sscanf(line, "%u\t%*s\t%*s\t%*s\t%*s\t%u",
				     &k[n].id, &k[n].prog_id) != 2
			    : sscanf(line, "%u\t%u", &k[n].fd, &k[n].id) != 2)
			return -EIO;
		n++;
	}
	return -EIO;
}

static const struct task_file *find(const struct task_file *v, int n, __u32 pid,
				    __u32 fd)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i].pid == pid && v[i].fd == fd)
			return &v[i];
	return NULL;
}

static void read_comm(pid_t pid, char *comm)
{
	char path[64];
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	comm[0] = '\0';
	fp = fopen(path, "re");
	if (fp && fgets(comm, 16, fp))
		comm[strcspn(comm, "\n")] = '\0';
	if (fp)
		fclose(fp);
}

/* The fd of @pid whose fdinfo says "link_id:\t@id"; -1 when none */
static int fd_of_link(pid_t pid, __u32 id)
{
	char path[64], line[256];
	unsigned int got;
	int fd, found = -1;
	FILE *fp;

	for (fd = 0; fd < 256 && found < 0; fd++) {
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid,
			 fd);
		fp = fopen(path, "re");
		if (!fp)
			continue;
		while (fgets(line, sizeof(line), fp))
			if (sscanf(line, "link_id: %u", &got) == 1 && got == id)
				found = fd;
		fclose(fp);
	}
	return found;
}

/* Records sorted by (pid, fd), one per fd */
static void check_sorted(const struct task_file *v, int n, const char *src)
{
	int i;

	for (i = 1; i < n; i++)
		EXPECT(v[i - 1].pid < v[i].pid || (v[i - 1].pid == v[i].pid &&
						   v[i - 1].fd < v[i].fd),
		       "%s: not sorted or not unique at %d", src, i);
	group_end("%s: sorted by (pid, fd), one record per fd", src);
}

/* Every link record of any process against its /proc/PID/fdinfo */
static void check_fdinfo(const struct task_file *v, int n, const char *src)
{
	int i, seen = 0;

	for (i = 0; i < n; i++) {
		char path[64], line[256];
		unsigned int id;
		FILE *fp;

		if (v[i].kind != TASK_FILE_LINK)
			continue;
		snprintf(path, sizeof(path), "/proc/%u/fdinfo/%u", v[i].pid,
			 v[i].fd);
		fp = fopen(path, "re");
		if (!fp)
			continue; /* closed since */
		while (fgets(line, sizeof(line), fp))
			if (sscanf(line, "link_id: %u", &id) == 1) {
				seen++;
				EXPECT(id == v[i].id,
				       "%s: %u/%u: link %u, fdinfo %u", src,
				       v[i].pid, v[i].fd, v[i].id, id);
			}
		fclose(fp);
	}
	EXPECT(seen > 0, "%s: no link record to check", src);
	group_end("%s: link ids as /proc/PID/fdinfo says (%d)", src, seen);
}

static const struct task_file *need(const struct task_file *v, int n, pid_t pid,
				    int fd, __u32 kind, __u32 id,
				    const char *src)
{
	const struct task_file *r = find(v, n, (__u32)pid, (__u32)fd);
	char comm[16];

	read_comm(pid, comm);
	if (!EXPECT(r, "%s: %d/%d missing", src, (int)pid, fd))
		return NULL;
	EXPECT(r->kind == kind && r->id == id,
	       "%s: %d/%d: kind %u id %u, want %u %u", src, (int)pid, fd,
	       r->kind, r->id, kind, id);
	EXPECT(!strncmp(r->comm, comm, 16),
	       "%s: %d/%d: comm '%.16s', want '%s'", src, (int)pid, fd, r->comm,
	       comm);
	return r;
}

/* Every perf event with a program that bpftool reports for @pid */
static void check_bpftool(const struct task_file *v, int n, pid_t pid,
			  const char *src)
{
	unsigned int p, fd, prog;
	char line[4096];
	int seen = 0;
	FILE *fp = popen("bpftool perf show 2>/dev/null", "r");

	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "pid %u fd %u: prog_id %u", &p, &fd, &prog) !=
			    3 ||
		    p != (unsigned int)pid)
			continue;
		seen++;
		need(v, n, pid, (int)fd, TASK_FILE_PERF_EVENT, prog, src);
	}
	pclose(fp);
	EXPECT(seen > 0, "bpftool perf show lists nothing of %d", (int)pid);
	group_end("%s: every perf event bpftool lists for %d (%d)", src,
		  (int)pid, seen);
}

/* mklinks: its links, and its perf event fds with the links' keys */
static void check_links(const struct task_file *v, int n, pid_t pid,
			const struct known *k, int nk, int iter,
			const char *src)
{
	const struct task_file *l, *p;
	char path[64], target[64];
	int i, fd, perf = 0;
	ssize_t len;

	for (i = 0; i < nk; i++) {
		fd = fd_of_link(pid, k[i].id);
		if (!EXPECT(fd >= 0, "link %u not in /proc/%d/fdinfo", k[i].id,
			    (int)pid))
			continue;
		l = need(v, n, pid, fd, TASK_FILE_LINK, k[i].id, src);
		if (l && iter)
			EXPECT(l->key, "%s: perf link %u without key", src,
			       l->id);
	}
	group_end("%s: mklinks' links with their ids", src);
	for (fd = 0; fd < 256; fd++) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
		len = readlink(path, target, sizeof(target) - 1);
		if (len < 0 || (target[len] = '\0',
				strcmp(target, "anon_inode:[perf_event]")))
			continue;
		perf++;
		p = find(v, n, (__u32)pid, (__u32)fd);
		if (!iter && !p)
			continue; /* the walk misses software events */
		if (!EXPECT(p, "%s: perf event %d/%d missing", src, (int)pid,
			    fd))
			continue;
		for (i = 0; i < nk && k[i].prog_id != p->id; i++)
			;
		if (!EXPECT(i < nk, "%s: %d/%d: program %u is no link's", src,
			    (int)pid, fd, p->id) ||
		    !iter)
			continue;
		l = find(v, n, (__u32)pid, (__u32)fd_of_link(pid, k[i].id));
		EXPECT(l && p->key && l->key == p->key,
		       "%s: %d/%d: key differs from link %u's", src, (int)pid,
		       fd, k[i].id);
	}
	EXPECT(perf == nk, "mklinks holds %d perf event fds, made %d links",
	       perf, nk);
	group_end("%s: the perf event fds links hold%s", src,
		  iter ? ", with the links' keys" : "");
}

/* setbpf: its perf event fds, with keys no link holds */
static void check_bare(const struct task_file *v, int n, pid_t pid,
		       const struct known *k, int nk, int iter, const char *src)
{
	const struct task_file *p;
	int i, j;

	for (i = 0; i < nk; i++) {
		p = find(v, n, (__u32)pid, k[i].fd);
		if (!iter && !p)
			continue; /* software: BPF_TASK_FD_QUERY does not tell
				   */
		p = need(v, n, pid, (int)k[i].fd, TASK_FILE_PERF_EVENT, k[i].id,
			 src);
		if (!p || !iter)
			continue;
		EXPECT(p->key, "%s: %d/%u: no key", src, (int)pid, k[i].fd);
		for (j = 0; j < n; j++)
			EXPECT(v[j].kind != TASK_FILE_LINK ||
				       v[j].key != p->key,
			       "%s: %d/%u: link %u holds it", src, (int)pid,
			       k[i].fd, v[j].id);
	}
	/*
	 * The second SPEC is software:cpu-clock: type 1 (PERF_TYPE_SOFTWARE),
	 * config 0, or on newer kernels, which forward it to a PMU of its
	 * own and rewrite perf_event_attr.type, a dynamic type (>=
	 * PERF_TYPE_MAX, 6) that sysfs may not list.
	 */
	p = find(v, n, (__u32)pid, k[1].fd);
	if (iter && p)
		EXPECT((p->event_type == 1 || p->event_type >= 6) &&
			       p->config == 0,
		       "%s: software event: type %u config %llu", src,
		       p->event_type, (unsigned long long)p->config);
	group_end("%s: setbpf's bare perf events%s", src,
		  iter ? ", held by no link" : "");
}

/* The link iterator's keys: those of mklinks' perf links among them */
static void check_link_keys(struct task_files *tf, const struct task_file *v,
			    int n, pid_t ml)
{
	__u64 *keys = NULL;
	__u32 own[TASK_FILES_OWN_MAX];
	int nk = task_files_perf_link_keys(tf, &keys), i, j, seen = 0;

	if (nk == -EOPNOTSUPP) {
		skip("no link iterator (iter/bpf_link) here");
		return;
	}
	if (!CHECK(nk >= 0, "task_files_perf_link_keys: %s",
		   nk < 0 ? strerror(-nk) : "ok"))
		return;
	for (i = 0; i < n; i++) {
		if (v[i].pid != (__u32)ml || v[i].kind != TASK_FILE_LINK)
			continue;
		seen++;
		for (j = 0; j < nk && keys[j] != v[i].key; j++)
			;
		EXPECT(j < nk, "link %u's key not among the link iterator's",
		       v[i].id);
	}
	for (j = 1; j < nk; j++)
		EXPECT(keys[j - 1] <= keys[j], "keys not ascending at %d", j);
	EXPECT(seen == 2, "mklinks' links seen: %d", seen);
	group_end("perf link keys: every link's perf event (%d)", nk);
	free(keys);
	CHECK(task_files_own_link_ids(tf, own) == TASK_FILES_OWN_MAX,
	      "five own iter links (task_file, bpf_link, links only, one "
	      "link's, perf events only)");
}

/*
 * task_files_read_perf_events(): the PERF_EVENT records of @v (a full read
 * just before), the same fields, and nothing else; -EOPNOTSUPP from the
 * /proc walk. The processes of the test hold their fds throughout.
 */
static void check_perf_events(struct task_files *tf, const struct task_file *v,
			      int n, pid_t ml, pid_t sb, int iter,
			      const char *src)
{
	struct task_file *p = NULL;
	const struct task_file *f;
	int np = task_files_read_perf_events(tf, &p), i, want = 0;

	if (!iter) {
		CHECK(np == -EOPNOTSUPP, "%s: perf events alone: %d, want "
		      "EOPNOTSUPP", src, np);
		return;
	}
	if (!CHECK(np >= 0, "%s: perf events alone: %s", src,
		   np < 0 ? strerror(-np) : "ok"))
		return;
	for (i = 0; i < np; i++) {
		EXPECT(p[i].kind == TASK_FILE_PERF_EVENT,
		       "%s: %u/%u: kind %u", src, p[i].pid, p[i].fd,
		       p[i].kind);
		f = find(v, n, p[i].pid, p[i].fd);
		EXPECT(!f || (f->kind == p[i].kind && f->id == p[i].id &&
			      f->key == p[i].key && f->config == p[i].config),
		       "%s: %u/%u differs from the full read", src, p[i].pid,
		       p[i].fd);
	}
	/* the test's own processes keep theirs: every one is there */
	for (i = 0; i < n; i++) {
		if (v[i].kind != TASK_FILE_PERF_EVENT ||
		    (v[i].pid != (__u32)ml && v[i].pid != (__u32)sb))
			continue;
		want++;
		EXPECT(find(p, np, v[i].pid, v[i].fd),
		       "%s: %u/%u missing alone", src, v[i].pid, v[i].fd);
	}
	EXPECT(want > 0, "%s: the helpers hold no perf event", src);
	group_end("%s: perf events alone: %d records, the helpers' %d among "
		  "them", src, np, want);
	free(p);
}

/*
 * task_files_read_links(): sorted by (link, pid), each pair once; mklinks
 * holds each of its links with the comm /proc gives; every pair of a live
 * process is a link fd of it per fdinfo; the caller's own links left out.
 */
static void check_read_links(struct task_files *tf, pid_t ml,
			     const struct known *lk, int nl, const char *src)
{
	struct link_holder *v = NULL;
	int n = task_files_read_links(tf, &v), i, j, found;
	char comm[16];

	if (!CHECK(n >= 0, "%s: read_links: %s", src,
		   n < 0 ? strerror(-n) : "ok"))
		return;
	for (i = 1; i < n; i++)
		EXPECT(v[i - 1].link_id < v[i].link_id ||
			       (v[i - 1].link_id == v[i].link_id &&
				v[i - 1].pid < v[i].pid),
		       "%s: links: not sorted or not unique at %d", src, i);
	read_comm(ml, comm);
	for (j = 0; j < nl; j++) {
		for (i = 0, found = 0; i < n; i++)
			if (v[i].link_id == lk[j].id && v[i].pid == (__u32)ml)
				found = EXPECT(!strcmp(v[i].comm, comm),
					       "%s: link %u: comm '%s', want '%s'",
					       src, lk[j].id, v[i].comm, comm);
		EXPECT(found, "%s: link %u of mklinks %d missing", src,
		       lk[j].id, (int)ml);
	}
	for (i = 0; i < n; i++) {
		EXPECT(v[i].pid != (__u32)getpid(), "%s: own link %u listed",
		       src, v[i].link_id);
		if (v[i].pid == (__u32)ml)
			EXPECT(fd_of_link(ml, v[i].link_id) >= 0,
			       "%s: link %u: no fd of mklinks says so", src,
			       v[i].link_id);
	}
	group_end("%s: holders of each link as fdinfo and comm say (%d)", src,
		  n);
	free(v);
}

/*
 * task_files_read_link(): one link's pairs, the same as those of
 * task_files_read_links() (read just before; mklinks' links do not change
 * holders meanwhile); none for an id no link has.
 */
static void check_read_link(struct task_files *tf, pid_t ml,
			    const struct known *lk, int nl, const char *src)
{
	struct link_holder *v = NULL;
	int j, n;

	for (j = 0; j < nl; j++) {
		n = task_files_read_link(tf, lk[j].id, &v);
		if (!CHECK(n >= 0, "%s: read_link %u: %s", src, lk[j].id,
			   n < 0 ? strerror(-n) : "ok"))
			return;
		EXPECT(n == 1 && v[0].link_id == lk[j].id &&
			       v[0].pid == (__u32)ml,
		       "%s: link %u: %d holders (want mklinks %d alone)", src,
		       lk[j].id, n, (int)ml);
		free(v);
		v = NULL;
	}
	n = task_files_read_link(tf, UINT32_MAX, &v);
	EXPECT(n == 0, "%s: link %u: %d holders, want none", src, UINT32_MAX,
	       n);
	free(v);
	group_end("%s: holders of one link (%d links)", src, nl);
}

/*
 * Files anyone can name as the kernel names a link's or a perf event's
 * anonymous inode, held open by this process: never a link or a perf
 * event, nor (the kind being kept per file_operations) a pipe after them.
 */
static int decoys[5];

static void decoys_open(void)
{
	static const char *const names[] = {"bpf_link", "bpf-link",
					    "[perf_event]"};
	char dir[] = "/tmp/task_files.XXXXXX", path[64];
	int pipefd[2] = {-1, -1};
	size_t i;

	if (!mkdtemp(dir))
		bail_out("mkdtemp");
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (i == 1 && mkfifo(path, 0600))
			bail_out("mkfifo");
		decoys[i] = open(path, O_RDWR | O_CREAT, 0600);
		if (decoys[i] < 0)
			bail_out("open %s", path);
		unlink(path);
	}
	rmdir(dir);
	if (pipe(pipefd))
		bail_out("pipe");
	decoys[3] = pipefd[0];
	decoys[4] = pipefd[1];
}

static void check_decoys(const struct task_file *v, int n, const char *src)
{
	size_t i;

	for (i = 0; i < 5; i++)
		EXPECT(!find(v, n, (__u32)getpid(), decoys[i]),
		       "%s: fd %d (named as a link's or perf event's, or a "
		       "pipe) listed", src, decoys[i]);
	group_end("%s: files named bpf_link, bpf-link, [perf_event] and a "
		  "pipe are neither", src);
}

static void check_all(struct task_files *tf, pid_t ml, const struct known *lk,
		      int nl, pid_t sb, const struct known *bk, int nb)
{
	const char *src = task_files_source(tf);
	int iter = !strcmp(src, "iterator"), n, i;
	struct task_file *v = NULL;

	n = task_files_read(tf, &v);
	if (!CHECK(n >= 0, "%s: read: %s", src, n < 0 ? strerror(-n) : "ok"))
		return;
	diag("%s: %d records", src, n);
	check_sorted(v, n, src);
	check_decoys(v, n, src);
	check_fdinfo(v, n, src);
	check_links(v, n, ml, lk, nl, iter, src);
	check_bare(v, n, sb, bk, nb, iter, src);
	check_bpftool(v, n, sb, src);
	check_bpftool(v, n, ml, src);
	for (i = 0; i < n; i++)
		EXPECT(v[i].pid != (__u32)getpid() ||
			       v[i].kind != TASK_FILE_LINK,
		       "%s: own link %u listed", src, v[i].id);
	group_end("%s: its own iter links left out", src);
	if (iter)
		check_link_keys(tf, v, n, ml);
	check_perf_events(tf, v, n, ml, sb, iter, src);
	check_read_links(tf, ml, lk, nl, src);
	check_read_link(tf, ml, lk, nl, src);
	free(v);
}

int main(void)
{
	const char *mklinks = getenv("MKLINKS"), *setbpf = getenv("SETBPF");
	const char *target = getenv("TARGET");
	struct known lk[8], bk[8];
	struct test_child ml, sb;
	struct task_files *tf, *walk;
	char uprobe[4200];
	int nl, nb;

	if (geteuid() != 0)
		skip_all("needs root (BPF)");
	if (!mklinks || !setbpf || !target)
		skip_all("MKLINKS, SETBPF and TARGET not set");
	if (system("bpftool version >/dev/null 2>&1"))
		skip_all("no bpftool to compare with");
	snprintf(uprobe, sizeof(uprobe), "uprobe:%s:0x1000", target);
	char *mlargv[] = {(char *)mklinks, "--keep-perf-fd",
			  "tracepoint:syscalls:sys_enter_getpid:0",
			  "software:cpu-clock:-1:0", NULL};
	char *sbargv[] = {(char *)setbpf,
			  "tracepoint:syscalls:sys_enter_getppid",
			  "software:cpu-clock", uprobe, NULL};
	if (child_start(&ml, mlargv) || child_start(&sb, sbargv))
		bail_out("cannot start the helpers");
	nl = read_lines(&ml, lk, 8, 1);
	nb = read_lines(&sb, bk, 8, 0);
	if (nl != 2 || nb != 3)
		skip_all("helpers could not attach (%d links, %d events)", nl,
			 nb);
	decoys_open();
	if (!CHECK(task_files_open(&tf) == 0, "task_files_open") ||
	    !CHECK(task_files_open_walk(&walk) == 0, "task_files_open_walk"))
		return done_testing();
	if (strcmp(task_files_source(tf), "iterator"))
		diag("no task_file iterator here: only the /proc walk is tested");
	else
		check_all(tf, ml.pid, lk, nl, sb.pid, bk, nb);
	task_files_close(tf); /* its iter link would be in the walk */
	check_all(walk, ml.pid, lk, nl, sb.pid, bk, nb);
	task_files_close(walk);
	child_stop(&ml);
	child_stop(&sb);
	return done_testing();
}
