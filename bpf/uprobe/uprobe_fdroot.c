// SPDX-License-Identifier: GPL-2.0-only
/*
 * A uprobe made on the very file the daemon read (uprobe_fdroot.h).
 *
 * One thread, started at first use, does every such call. It makes a
 * mount namespace of its own (private, so that nothing it does reaches the
 * host), detaches every mount it copied (so that it pins no file system of
 * the host, the daemon's own FUSE mount least of all), and takes as its
 * root a fresh tmpfs holding only a procfs. For each call it builds the
 * path's directories in that tmpfs and, as the path's last component, a
 * symlink to the procfs's self/fd/N, runs the function, and removes what
 * it built. The kernel's path walk then reaches the descriptor's file
 * through the magic link; nothing outside the tmpfs (renames, symlinks,
 * other mounts) takes part in it, and the string it records is the path.
 *
 * One thread for every caller: the calls are short (the kernel serializes
 * uprobe creation anyway), and a tree of directories shared by concurrent
 * calls on the same path could not be.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mountinfo.h"
#include "uprobe_fdroot.h"

/* The procfs in the worker's root; a path starting there is not built. */
#define PROC_DIR ".bpflinkfs-proc"

struct fd_call {
	int fd;
	const char *path;
	uprobe_fd_fn fn;
	void *arg;
	int ret;
	bool ran;
};

/*
 * The worker and its one request slot: a kernel-side resource of the
 * process (a mount namespace and a thread), not daemon state, so it is
 * shared by every mount in the process and lives as long as it.
 */
static struct {
	pthread_once_t once;
	pthread_mutex_t one;  /* held by the caller for a whole call */
	pthread_mutex_t lock; /* the slot */
	pthread_cond_t cond;
	struct fd_call *req; /* set by the caller, cleared by the worker */
	bool ready;	     /* the worker stands in its root */
	bool failed;	     /* it could not: calls take the fallback */
} wk = {.once = PTHREAD_ONCE_INIT,
	.one = PTHREAD_MUTEX_INITIALIZER,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER};

/* A new detached mount of @type: its root's descriptor, or -errno. */
static int fs_new(const char *type)
{
	int fs = fsopen(type, FSOPEN_CLOEXEC), m = -1;

	if (fs < 0)
		return -errno;
	if (!strcmp(type, "tmpfs"))
		fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0700", 0);
	if (!fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		m = fsmount(fs, FSMOUNT_CLOEXEC,
			    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
				    MOUNT_ATTR_NOEXEC);
	m = m < 0 ? -errno : m;
	close(fs);
	return m;
}

/* detach_copies()'s list: the root mount's id, its children's points */
struct copies {
	__u64 root;
	char **mps;
	size_t n;
};

/* mountinfo_each()'s callback: note a mount on the root mount */
static int note_copy(const struct mountinfo_entry *m, void *arg)
{
	struct copies *c = arg;
	char **more;

	if ((__u64)m->parent != c->root || (__u64)m->id == c->root)
		return 0;
	more = realloc(c->mps, (c->n + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	c->mps = more;
	c->mps[c->n] = strdup(m->mount_point);
	if (c->mps[c->n])
		c->n++;
	return 0;
}

/* Detach every mount on the root mount of this (new) namespace. */
static void detach_copies(void)
{
	/* this thread's namespace: /proc/self is the process's first thread */
	int fd = open("/proc/thread-self/mountinfo", O_RDONLY | O_CLOEXEC);
	struct copies c = {0};
	struct statx st;
	size_t i;

	if (fd < 0)
		return;
	if (!statx(AT_FDCWD, "/", 0, STATX_MNT_ID, &st)) {
		c.root = st.stx_mnt_id;
		mountinfo_each(fd, note_copy, &c);
	}
	close(fd);
	for (i = 0; i < c.n; i++) {
		umount2(c.mps[i], MNT_DETACH);
		free(c.mps[i]);
	}
	free(c.mps);
}

/* The worker's namespace and root: 0, or -1. */
static int worker_root(void)
{
	int m, proc, ok;

	if (unshare(CLONE_FS | CLONE_NEWNS))
		return -1;
	/* private first: a detach must not reach the host's mounts */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -1;
	detach_copies();
	m = fs_new("tmpfs");
	if (m < 0)
		return -1;
	proc = fs_new("proc");
	ok = proc >= 0 &&
	     !move_mount(m, "", AT_FDCWD, "/", MOVE_MOUNT_F_EMPTY_PATH) &&
	     !mkdirat(m, PROC_DIR, 0500) &&
	     !move_mount(proc, "", m, PROC_DIR, MOVE_MOUNT_F_EMPTY_PATH) &&
	     !fchdir(m) && !chroot(".");
	if (proc >= 0)
		close(proc);
	close(m);
	return ok ? 0 : -1;
}

/* The directories of @path to its last component, which is returned;
 * the deepest directory's descriptor in *@dir. NULL on failure. */
static const char *build_dirs(const char *path, int *dir)
{
	char comp[NAME_MAX + 1];
	const char *c = path;
	int d = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), nd;

	while (d >= 0) {
		size_t len;

		c += strspn(c, "/");
		len = strcspn(c, "/");
		if (!len || len > NAME_MAX)
			break;
		if (!c[len + strspn(c + len, "/")]) {
			*dir = d;
			return c;
		}
		memcpy(comp, c, len);
		comp[len] = '\0';
		c += len;
		if (mkdirat(d, comp, 0500) && errno != EEXIST)
			break;
		nd = openat(d, comp,
			    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(d);
		d = nd;
	}
	if (d >= 0)
		close(d);
	return NULL;
}

/* Remove the directories of @path that build_dirs() made, deepest first. */
static void remove_dirs(const char *path)
{
	char p[PATH_MAX], *slash;

	snprintf(p, sizeof(p), "%s", path);
	while ((slash = strrchr(p, '/')) && slash != p) {
		*slash = '\0';
		if (rmdir(p))
			break;
	}
}

/* One call, in the worker's root. */
static void worker_call(struct fd_call *c)
{
	const char *first = c->path + strspn(c->path, "/"), *leaf;
	size_t n = strlen(PROC_DIR);
	char target[64];
	int dir = -1;

	if (!strncmp(first, PROC_DIR, n) && (!first[n] || first[n] == '/'))
		return; /* would be the procfs itself */
	snprintf(target, sizeof(target), "/" PROC_DIR "/self/fd/%d", c->fd);
	leaf = build_dirs(c->path, &dir);
	if (leaf && !symlinkat(target, dir, leaf)) {
		c->ret = c->fn(c->arg, c->path);
		c->ran = true;
		unlinkat(dir, leaf, 0);
	}
	if (dir >= 0)
		close(dir);
	remove_dirs(c->path);
}

static void *worker_main(void *arg)
{
	struct fd_call *c;
	int err = worker_root();

	(void)arg;
	pthread_mutex_lock(&wk.lock);
	wk.ready = !err;
	wk.failed = !!err;
	pthread_cond_broadcast(&wk.cond);
	while (!err) {
		while (!wk.req)
			pthread_cond_wait(&wk.cond, &wk.lock);
		c = wk.req;
		pthread_mutex_unlock(&wk.lock);
		worker_call(c);
		pthread_mutex_lock(&wk.lock);
		wk.req = NULL;
		pthread_cond_broadcast(&wk.cond);
	}
	pthread_mutex_unlock(&wk.lock);
	return NULL;
}

static void worker_start(void)
{
	pthread_attr_t a;
	pthread_t t;
	int err = pthread_attr_init(&a);

	if (!err) {
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		err = pthread_create(&t, &a, worker_main, NULL);
		pthread_attr_destroy(&a);
	}
	pthread_mutex_lock(&wk.lock);
	wk.failed |= !!err;
	while (!wk.ready && !wk.failed)
		pthread_cond_wait(&wk.cond, &wk.lock);
	pthread_mutex_unlock(&wk.lock);
}

/* Run @c in the worker: whether it ran. */
static bool worker_run(struct fd_call *c)
{
	pthread_once(&wk.once, worker_start);
	if (!wk.ready || c->path[0] != '/' || strlen(c->path) >= PATH_MAX)
		return false;
	pthread_mutex_lock(&wk.one);
	pthread_mutex_lock(&wk.lock);
	wk.req = c;
	pthread_cond_broadcast(&wk.cond);
	while (wk.req)
		pthread_cond_wait(&wk.cond, &wk.lock);
	pthread_mutex_unlock(&wk.lock);
	pthread_mutex_unlock(&wk.one);
	return c->ran;
}

int uprobe_fd_call(int fd, const char *path, uprobe_fd_fn fn, void *arg)
{
	struct fd_call c = {fd, path, fn, arg, 0, false};
	char fdpath[32];

	if (worker_run(&c))
		return c.ret;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	return fn(arg, fdpath);
}
