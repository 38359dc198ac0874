// SPDX-License-Identifier: GPL-2.0-only
/*
 * -o pin_dir=DIR: check the path, make it, lock it. Every refusal names the
 * real cause (bpffs refuses a '.' in names, a pinned object where a
 * directory should be, no bpffs at all, another daemon) and happens before
 * anything is made.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "error.h"
#include "link_info.h"
#include "pin_dir.h"

int pin_dir_normalize(const char *dir, char *out, size_t len,
		      struct bl_error *e)
{
	size_t used = 0, n;
	const char *p = dir, *end;

	if (dir[0] != '/')
		return bl_fail(e, -EINVAL,
			       "pin_dir %s: must be an absolute path",
			       BL_PATH(dir));
	for (; *p; p = end) {
		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		n = end - p;
		if (!n)
			break;
		if ((n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)))
			return bl_fail(e, -EINVAL,
				       "pin_dir %s: give the path without "
				       "'.' or '..' components",
				       BL_PATH(dir));
		if (used + n + 2 > len)
			return bl_fail(e, -ENAMETOOLONG,
				       "pin_dir: path too long (more than %zu "
				       "bytes): %s",
				       len - 1, BL_PATH(dir));
		out[used++] = '/';
		memcpy(out + used, p, n);
		used += n;
	}
	if (!used)
		out[used++] = '/';
	out[used] = '\0';
	return 0;
}

static bool is_bpffs(const char *path)
{
	struct statfs sfs;

	return statfs(path, &sfs) == 0 && sfs.f_type == BPF_FS_MAGIC;
}

/* What is pinned at @path: "link", "map", "program", "object"; or NULL. */
static const char *pinned_kind(const char *path)
{
	static const char *const kinds[][2] = {{"bpf-link", "link"},
					       {"bpf-map", "map"},
					       {"bpf-prog", "program"}};
	const char *kind = NULL;
	int fd = bpf_obj_get(path);
	size_t i;

	for (i = 0; fd >= 0 && !kind && i < 3; i++)
		if (bpf_fd_is(kinds[i][0], fd))
			kind = kinds[i][1];
	if (fd >= 0)
		close(fd);
	return fd >= 0 && !kind ? "object" : kind;
}

/* @at (the pin_dir or one of its parents) is not a directory. */
static int not_dir(const char *dir, const char *at, struct bl_error *e)
{
	const char *kind = pinned_kind(at);
	char what[64] = "not a directory";

	if (kind)
		snprintf(what, sizeof(what), "a pinned BPF %s, not a directory",
			 kind);
	if (strcmp(dir, at))
		return bl_fail(e, -ENOTDIR,
			       "pin_dir %s: %s is %s: choose another pin_dir, "
			       "or remove it if nothing needs it",
			       BL_PATH(dir), BL_PATH(at), what);
	return bl_fail(e, -ENOTDIR,
		       "pin_dir %s is %s: choose another pin_dir, or remove "
		       "it if nothing needs it",
		       BL_PATH(dir), what);
}

static int dot_refused(const char *dir, struct bl_error *e)
{
	return bl_fail(e, -EINVAL,
		       "pin_dir %s: bpffs does not allow '.' in names "
		       "(the kernel reserves them): choose a name "
		       "without one",
		       BL_PATH(dir));
}

/*
 * May only root change what @at (the pin_dir, @last, or one of its
 * parents) holds? Whoever can write the pin_dir can unpin root's links;
 * whoever can write a parent can put a directory of their own in its
 * place, unless the parent is sticky (then only root may rename or remove
 * root's entries, as in /sys/fs/bpf, often 1777). A symbolic link on the
 * way must be root's too: its owner could point it elsewhere. As sshd's
 * StrictModes, the owner must be root.
 */
static int trust_check(const char *dir, const char *at, const struct stat *st,
		       bool last, struct bl_error *e)
{
	bool loose = (st->st_mode & (S_IWGRP | S_IWOTH)) &&
		     (last || !(st->st_mode & S_ISVTX));
	const char *what = last ? "" : "its parent ";
	const char *harm = last ? "unpin root's links"
				: "put a pin_dir of their own in its place";

	if (st->st_uid != 0)
		return bl_fail(e, -EPERM,
			       "pin_dir %s: %s%s is owned by uid %u, not root: "
			       "its owner could %s; chown root %s, or choose "
			       "another pin_dir",
			       BL_PATH(dir), what, BL_PATH(at),
			       (unsigned int)st->st_uid, harm, BL_PATH(at));
	if (S_ISDIR(st->st_mode) && loose)
		return bl_fail(e, -EPERM,
			       "pin_dir %s: %s%s can be written by group or "
			       "others (mode %04o%s): they could %s; chmod "
			       "go-w%s %s, or choose another pin_dir",
			       BL_PATH(dir), what, BL_PATH(at),
			       (unsigned int)(st->st_mode & 07777),
			       last ? "" : ", not sticky", harm,
			       last ? "" : " (or +t)", BL_PATH(at));
	return 0;
}

/* trust_check() of a path part, and of the symbolic link it may be */
static int part_trusted(const char *dir, const char *at, const struct stat *st,
			bool last, struct bl_error *e)
{
	struct stat lst;

	if (lstat(at, &lst) == 0 && S_ISLNK(lst.st_mode) && lst.st_uid != 0)
		return bl_fail(e, -EPERM,
			       "pin_dir %s: %s is a symbolic link owned by uid "
			       "%u, not root: its owner could point it "
			       "elsewhere; give the path without it",
			       BL_PATH(dir), BL_PATH(at),
			       (unsigned int)lst.st_uid);
	return trust_check(dir, at, st, last, e);
}

/*
 * The same walk once DIR is open as @fd: DIR itself by its fd (what is
 * locked is what was checked), its parents by path, top down (a parent
 * found safe can only be changed by root).
 */
static int trust_walk(const char *dir, int fd, struct bl_error *e)
{
	char path[PATH_MAX];
	const char *end = dir;
	struct stat st;
	int err = 0;

	while (!err && *end) {
		end = strchrnul(end + 1, '/');
		snprintf(path, sizeof(path), "%.*s", (int)(end - dir), dir);
		if (*end && stat(path, &st))
			err = -errno;
		else if (!*end && fstat(fd, &st))
			err = -errno;
		if (err)
			bl_fail(e, err, "pin_dir %s: %s: %s", BL_PATH(dir),
				BL_PATH(path), strerror(-err));
		else
			err = part_trusted(dir, path, &st, !*end, e);
	}
	return err;
}

/*
 * Walk @dir from the root: every existing part a directory that only root
 * may change, the nearest existing one in bpffs, no part that bpffs
 * refuses. *@exists: all of it.
 */
static int path_check(const char *dir, bool *exists, struct bl_error *e)
{
	char path[PATH_MAX], base[PATH_MAX] = "/";
	const char *end = dir, *comp;
	struct stat st;
	bool dot = false;

	*exists = true;
	while (*end) {
		comp = end + 1;
		end = strchrnul(comp, '/');
		snprintf(path, sizeof(path), "%.*s", (int)(end - dir), dir);
		if (memchr(comp, '.', end - comp))
			dot = true;
		if (!*exists)
			continue;
		if (stat(path, &st) == 0) {
			if (!S_ISDIR(st.st_mode))
				return not_dir(dir, path, e);
			if (part_trusted(dir, path, &st, !*end, e))
				return -EPERM;
			snprintf(base, sizeof(base), "%s", path);
			dot = false;
		} else if (errno == ENOENT || (errno == EPERM && dot)) {
			*exists = false;
		} else {
			int err = -errno;

			return bl_fail(e, err, "pin_dir %s: %s: %s",
				       BL_PATH(dir), BL_PATH(path),
				       strerror(-err));
		}
	}
	if (!is_bpffs(base))
		return bl_fail(e, -EINVAL,
			       "pin_dir %s is not in a BPF file system "
			       "(%s is not bpffs): mount -t bpf bpf "
			       "/sys/fs/bpf, and give a path under it",
			       BL_PATH(dir), BL_PATH(base));
	return dot ? dot_refused(dir, e) : 0;
}

/*
 * Make what is missing of @dir; *@kept: the length of the part that was
 * there (all of it when nothing was made), for pin_dir_unmake().
 */
static int mkdir_p(const char *dir, size_t *kept)
{
	size_t len = strlen(dir), at = 0, parent;
	char path[PATH_MAX];

	*kept = len;
	while (at < len) {
		parent = at;
		at += 1 + strcspn(dir + at + 1, "/");
		snprintf(path, sizeof(path), "%.*s", (int)at, dir);
		if (mkdir(path, 0700) == 0) {
			if (*kept == len)
				*kept = parent;
		} else if (errno != EEXIST) {
			return -errno;
		}
	}
	return 0;
}

void pin_dir_unmake(const char *dir, size_t kept)
{
	char path[PATH_MAX], *slash;

	snprintf(path, sizeof(path), "%s", dir);
	while (strlen(path) > kept && rmdir(path) == 0 &&
	       (slash = strrchr(path, '/')) && slash != path)
		*slash = '\0';
}

/* Lock @fd for this daemon: -EBUSY when another one has it. */
static int lock_take(const char *dir, int fd, struct bl_error *e)
{
	int err;

	if (!flock(fd, LOCK_EX | LOCK_NB))
		return 0;
	err = errno == EWOULDBLOCK ? -EBUSY : -errno;
	if (err == -EBUSY)
		return bl_fail(
			e, err,
			"pin_dir %s is in use by another bpflinkfs: stop "
			"it, or choose another pin_dir",
			BL_PATH(dir));
	return bl_fail(e, err, "pin_dir %s: cannot lock it: %s", BL_PATH(dir),
		       strerror(-err));
}

int pin_dir_take(const char *dir, size_t *kept, struct bl_error *e)
{
	bool exists;
	int err = path_check(dir, &exists, e), fd = -1;

	*kept = strlen(dir);
	if (!err && !exists && (err = mkdir_p(dir, kept)))
		bl_fail(e, err, "pin_dir %s: cannot make it: %s", BL_PATH(dir),
			strerror(-err));
	if (!err) {
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		err = fd < 0 ? -errno : 0;
		if (err)
			bl_fail(e, err, "pin_dir %s: %s", BL_PATH(dir),
				strerror(-err));
	}
	/* again on what was opened: a part made meanwhile by someone else */
	if (!err)
		err = trust_walk(dir, fd, e);
	if (!err)
		err = lock_take(dir, fd, e);
	if (!err)
		return fd;
	if (fd >= 0)
		close(fd);
	pin_dir_unmake(dir, *kept);
	*kept = strlen(dir);
	return err;
}
