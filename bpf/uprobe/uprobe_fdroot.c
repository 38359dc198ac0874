// SPDX-License-Identifier: GPL-2.0-only
/*
 * A uprobe made on the very file the daemon read (uprobe_fdroot.h).
 *
 * Once per process, a thread makes a mount namespace of its own (private,
 * so nothing propagates to the host), detaches every mount it copied (so
 * that it pins no file system of the host, the daemon's own FUSE mount
 * least of all), and puts in it a tmpfs (the base) with a procfs under it.
 * The namespace lives on through a descriptor of it.
 *
 * Each call then runs in a thread that joins that namespace, mounts a
 * fresh tmpfs in the base, clones the procfs into it under a name that is
 * not the path's first component, builds the path's directories and, as
 * its last component, a symlink to that procfs's self/fd/N, takes that
 * tmpfs as its root and calls the function. The kernel's path walk reaches
 * the descriptor's file through the magic link; nothing outside the tmpfs
 * (renames, symlinks, other mounts) takes part in it. The tmpfs is
 * detached afterwards; the probe keeps its reference to the file itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mountinfo.h"
#include "uprobe_fdroot.h"

/*
 * The namespace, its base tmpfs and its procfs: made once and kept for the
 * life of the process, a kernel object rather than daemon state (every
 * mount of the daemon shares it).
 */
struct fdroot {
	int ns;	  /* the mount namespace */
	int base; /* root of the tmpfs whose directories the calls mount on */
	int proc; /* root of the procfs in it */
	bool ok;
};

static pthread_once_t root_once = PTHREAD_ONCE_INIT;
static struct fdroot root = {-1, -1, -1, false};
static atomic_ulong call_seq;

/* A new tmpfs, detached: its root's descriptor, or -errno. */
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

/* Detach every mount on the root mount of this (new) namespace. */
static void detach_copies(void)
{
	FILE *f = fopen("/proc/thread-self/mountinfo", "re");
	char *line = NULL, **mps = NULL, mp[PATH_MAX];
	size_t cap = 0, n = 0, i;
	unsigned int id, parent;
	struct statx st;

	if (!f || statx(AT_FDCWD, "/", 0, STATX_MNT_ID, &st)) {
		if (f)
			fclose(f);
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		char **more;

		if (sscanf(line, "%u %u %*s %*s %4095s", &id, &parent, mp) !=
			    3 ||
		    parent != st.stx_mnt_id || id == st.stx_mnt_id)
			continue;
		more = realloc(mps, (n + 1) * sizeof(*mps));
		if (!more)
			break;
		mps = more;
		mountinfo_unescape(mp);
		mps[n] = strdup(mp);
		if (mps[n])
			n++;
	}
	fclose(f);
	free(line);
	for (i = 0; i < n; i++) {
		umount2(mps[i], MNT_DETACH);
		free(mps[i]);
	}
	free(mps);
}

static void *setup_main(void *arg)
{
	struct fdroot *r = arg;
	int proc = -1;

	if (unshare(CLONE_FS | CLONE_NEWNS))
		return NULL;
	r->ns = open("/proc/thread-self/ns/mnt", O_RDONLY | O_CLOEXEC);
	/* private first: a detach must not reach the host's mounts */
	if (r->ns < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return NULL;
	detach_copies();
	r->base = fs_new("tmpfs");
	if (r->base < 0 ||
	    move_mount(r->base, "", AT_FDCWD, "/", MOVE_MOUNT_F_EMPTY_PATH))
		return NULL;
	proc = fs_new("proc");
	if (proc < 0 || mkdirat(r->base, "proc", 0500) ||
	    move_mount(proc, "", r->base, "proc", MOVE_MOUNT_F_EMPTY_PATH)) {
		if (proc >= 0)
			close(proc);
		return NULL;
	}
	r->proc = proc;
	r->ok = true;
	return NULL;
}

static void root_setup(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, setup_main, &root) == 0)
		pthread_join(t, NULL);
}

struct fd_call {
	int fd;
	const char *path;
	uprobe_fd_fn fn;
	void *arg;
	int ret;
	bool ran;
};

/* In @dir, the directories of @path and its last component as a symlink
 * to @target. */
static int build_path(int dir, const char *path, const char *target)
{
	char comp[NAME_MAX + 1];
	const char *c = path;
	int d = dup(dir), nd, err = d < 0 ? -errno : 0;

	while (!err) {
		size_t len;

		c += strspn(c, "/");
		len = strcspn(c, "/");
		if (!len || len > NAME_MAX) {
			err = -EINVAL;
			break;
		}
		memcpy(comp, c, len);
		comp[len] = '\0';
		c += len;
		if (!c[strspn(c, "/")]) {
			err = symlinkat(target, d, comp) ? -errno : 0;
			break;
		}
		if (mkdirat(d, comp, 0500) && errno != EEXIST) {
			err = -errno;
			break;
		}
		nd = openat(d, comp,
			    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		err = nd < 0 ? -errno : 0;
		close(d);
		d = nd;
	}
	if (d >= 0)
		close(d);
	return err;
}

/*
 * The tmpfs of one call, mounted on @name in the base and made the
 * thread's root: its descriptor, or -1. *@in: it is the working directory.
 */
static int call_tree(const struct fd_call *c, const char *name, bool *in)
{
	const char *first = c->path + strspn(c->path, "/");
	const char *pname = strncmp(first, "p/", 2) ? "p" : "q";
	char target[64];
	int m = fs_new("tmpfs"), pt = -1, ok;

	if (m < 0)
		return -1;
	ok = !mkdirat(root.base, name, 0700) &&
	     !move_mount(m, "", root.base, name, MOVE_MOUNT_F_EMPTY_PATH) &&
	     !fchdir(m);
	*in = ok;
	if (ok) {
		pt = open_tree(root.proc, "",
			       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
				       AT_EMPTY_PATH);
		ok = pt >= 0 && !mkdirat(m, pname, 0500) &&
		     !move_mount(pt, "", m, pname, MOVE_MOUNT_F_EMPTY_PATH);
	}
	snprintf(target, sizeof(target), "/%s/self/fd/%d", pname, c->fd);
	ok = ok && !build_path(m, c->path, target) && !chroot(".");
	if (pt >= 0)
		close(pt);
	if (!ok) {
		close(m);
		return -1;
	}
	return m;
}

static void *call_main(void *arg)
{
	struct fd_call *c = arg;
	char name[32];
	bool in = false;
	int m;

	if (unshare(CLONE_FS) || setns(root.ns, CLONE_NEWNS))
		return NULL;
	snprintf(name, sizeof(name), "c%lu", atomic_fetch_add(&call_seq, 1));
	m = call_tree(c, name, &in);
	if (m >= 0) {
		c->ret = c->fn(c->arg, c->path);
		c->ran = true;
		close(m);
	}
	if (in)
		umount2(".", MNT_DETACH);
	unlinkat(root.base, name, AT_REMOVEDIR);
	return NULL;
}

int uprobe_fd_call(int fd, const char *path, uprobe_fd_fn fn, void *arg)
{
	struct fd_call c = {fd, path, fn, arg, 0, false};
	char fdpath[32];
	pthread_t t;

	pthread_once(&root_once, root_setup);
	if (root.ok && path[0] == '/' && strlen(path) < PATH_MAX &&
	    pthread_create(&t, NULL, call_main, &c) == 0) {
		pthread_join(t, NULL);
		if (c.ran)
			return c.ret;
	}
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	return fn(arg, fdpath);
}
