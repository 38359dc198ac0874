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

#include "linkinfo.h"
#include "pin_dir.h"

int pin_dir_normalize(const char *dir, char *out, size_t len, char *msg,
		      size_t mlen)
{
	size_t used = 0, n;
	const char *p = dir, *end;

	if (dir[0] != '/') {
		snprintf(msg, mlen, "pin_dir %s: must be an absolute path",
			 dir);
		return -EINVAL;
	}
	for (; *p; p = end) {
		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		n = end - p;
		if (!n)
			break;
		if ((n == 1 && p[0] == '.') ||
		    (n == 2 && !strncmp(p, "..", 2))) {
			snprintf(msg, mlen,
				 "pin_dir %s: give the path without "
				 "'.' or '..' components",
				 dir);
			return -EINVAL;
		}
		if (used + n + 2 > len) {
			snprintf(msg, mlen, "pin_dir %s: path too long", dir);
			return -ENAMETOOLONG;
		}
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
static int not_dir(const char *dir, const char *at, char *msg, size_t mlen)
{
	const char *kind = pinned_kind(at);
	char what[64] = "not a directory";

	if (kind)
		snprintf(what, sizeof(what), "a pinned BPF %s, not a directory",
			 kind);
	if (strcmp(dir, at))
		snprintf(msg, mlen,
			 "pin_dir %s: %s is %s: choose another pin_dir, or "
			 "remove it if nothing needs it",
			 dir, at, what);
	else
		snprintf(msg, mlen,
			 "pin_dir %s is %s: choose another pin_dir, or remove "
			 "it if nothing needs it",
			 dir, what);
	return -ENOTDIR;
}

static int dot_refused(const char *dir, char *msg, size_t mlen)
{
	snprintf(msg, mlen,
		 "pin_dir %s: bpffs does not allow '.' in names "
		 "(the kernel reserves them): choose a name "
		 "without one",
		 dir);
	return -EINVAL;
}

/*
 * Walk @dir from the root: every existing part a directory, the nearest
 * existing one in bpffs, no part that bpffs refuses. *@exists: all of it.
 */
static int path_check(const char *dir, bool *exists, char *msg, size_t mlen)
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
				return not_dir(dir, path, msg, mlen);
			snprintf(base, sizeof(base), "%s", path);
			dot = false;
		} else if (errno == ENOENT || (errno == EPERM && dot)) {
			*exists = false;
		} else {
			snprintf(msg, mlen, "pin_dir %s: %s: %s", dir, path,
				 strerror(errno));
			return -errno;
		}
	}
	if (!is_bpffs(base)) {
		snprintf(msg, mlen,
			 "pin_dir %s is not in a BPF file system "
			 "(%s is not bpffs): mount -t bpf bpf "
			 "/sys/fs/bpf, and give a path under it",
			 dir, base);
		return -EINVAL;
	}
	return dot ? dot_refused(dir, msg, mlen) : 0;
}

static int mkdir_p(const char *dir)
{
	char path[PATH_MAX], *p;

	snprintf(path, sizeof(path), "%s", dir);
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

int pin_dir_take(const char *dir, char *msg, size_t mlen)
{
	bool exists;
	int err = path_check(dir, &exists, msg, mlen), fd;

	if (!err && !exists && (err = mkdir_p(dir)))
		snprintf(msg, mlen, "pin_dir %s: cannot make it: %s", dir,
			 strerror(-err));
	if (err)
		return err;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(msg, mlen, "pin_dir %s: %s", dir, strerror(-err));
		return err;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = errno == EWOULDBLOCK ? -EBUSY : -errno;
		if (err == -EBUSY)
			snprintf(msg, mlen,
				 "pin_dir %s is in use by another "
				 "bpflinkfs: stop it, or choose "
				 "another pin_dir",
				 dir);
		else
			snprintf(msg, mlen, "pin_dir %s: cannot lock it: %s",
				 dir, strerror(-err));
		close(fd);
		return err;
	}
	return fd;
}
