// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf/uprobe/uprobe_fdroot.c: the function gets a path string equal to
 * the one given, and that string leads to the file open on the descriptor
 * even after another file was renamed over the path (the kernel's own
 * path walk, as perf_event_open(2) makes it, is what stat(2) and open(2)
 * do here). A path the private root cannot hold gets /proc/self/fd/N, the
 * same file. Concurrent callers each reach their own file, and the
 * caller's mount namespace gains no mount.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "uprobe_fdroot.h"

struct seen {
	char kpath[PATH_MAX];
	struct stat st;
	char text[16];
	int err;
};

/* What the kernel would find at @kpath: its inode and its first bytes. */
static int look(void *arg, const char *kpath)
{
	struct seen *s = arg;
	ssize_t n;
	int fd;

	snprintf(s->kpath, sizeof(s->kpath), "%s", kpath);
	s->err = stat(kpath, &s->st) ? -errno : 0;
	fd = open(kpath, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, s->text, sizeof(s->text) - 1) : -1;
	s->text[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	return 42;
}

static int put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ssize_t n = fd >= 0 ? write(fd, text, strlen(text)) : -1;

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int mount_count(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n++;
	if (f)
		fclose(f);
	return n;
}

static char dir[] = "/tmp/bpflinkfs-fdroot.XXXXXX";

/* The swap: A open, B renamed over its path; the call reaches A. */
static void swapped(void)
{
	char a[PATH_MAX], b[PATH_MAX], x[PATH_MAX];
	struct seen s = {0};
	struct stat sa, sx;
	int fd, ret;

	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	snprintf(x, sizeof(x), "%s/sub dir/x", dir);
	CHECK(!put(a, "AAAA") && !put(b, "BBBB"), "fixtures written");
	snprintf(x, sizeof(x), "%s/sub dir", dir);
	mkdir(x, 0755);
	snprintf(x, sizeof(x), "%s/sub dir/x", dir);
	CHECK(!link(a, x), "A linked at x");
	fd = open(x, O_PATH | O_CLOEXEC);
	CHECK(fd >= 0 && !fstat(fd, &sa), "x held open");
	CHECK(!rename(b, x) && !stat(x, &sx) && sx.st_ino != sa.st_ino,
	      "B renamed over x");
	ret = uprobe_fd_call(fd, x, look, &s);
	CHECK(ret == 42, "the function's value comes back (%d)", ret);
	CHECK(!strcmp(s.kpath, x), "the path given is the path recorded: %s",
	      s.kpath);
	CHECK(!s.err && s.st.st_ino == sa.st_ino && s.st.st_dev == sa.st_dev,
	      "it leads to the held file A (inode %lu), not B (%lu): %lu",
	      (unsigned long)sa.st_ino, (unsigned long)sx.st_ino,
	      (unsigned long)s.st.st_ino);
	CHECK(!strcmp(s.text, "AAAA"), "A's bytes read through it: '%s'",
	      s.text);
	/* a path the private root keeps for itself: the /proc/self/fd path */
	memset(&s, 0, sizeof(s));
	uprobe_fd_call(fd, "/.bpflinkfs-proc/x", look, &s);
	CHECK(!strncmp(s.kpath, "/proc/self/fd/", 14) &&
		      s.st.st_ino == sa.st_ino,
	      "a path it cannot build: %s, the same file", s.kpath);
	close(fd);
}

struct racer {
	int id;
	int bad;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	char p[PATH_MAX], t[16];
	struct seen s;
	struct stat st;
	int i, fd;

	for (i = 0; i < 200; i++) {
		snprintf(p, sizeof(p), "%s/r%d-%d", dir, r->id, i % 3);
		snprintf(t, sizeof(t), "%d-%d", r->id, i);
		if (put(p, t)) {
			r->bad++;
			continue;
		}
		fd = open(p, O_PATH | O_CLOEXEC);
		memset(&s, 0, sizeof(s));
		if (fd < 0 || fstat(fd, &st) ||
		    uprobe_fd_call(fd, p, look, &s) != 42 ||
		    strcmp(s.kpath, p) || s.st.st_ino != st.st_ino ||
		    strcmp(s.text, t))
			r->bad++;
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

int main(void)
{
	struct racer r[4];
	pthread_t t[4];
	int before, i, bad = 0;
	pid_t pid;

	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root (mount namespaces)\n");
		return 0;
	}
	if (!mkdtemp(dir)) {
		printf("1..0 # SKIP mkdtemp: %s\n", strerror(errno));
		return 0;
	}
	before = mount_count();
	swapped();
	for (i = 0; i < 4; i++) {
		r[i] = (struct racer){i, 0};
		pthread_create(&t[i], NULL, race, &r[i]);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		bad += r[i].bad;
	}
	CHECK(!bad, "4 threads x 200 calls: each reached its own file (%d not)",
	      bad);
	CHECK(mount_count() == before, "no mount left in this namespace");
	pid = fork();
	if (pid == 0) {
		execlp("rm", "rm", "-rf", dir, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return done_testing();
}
