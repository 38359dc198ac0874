/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where a process runs: its cgroup v2 path (the `0::` line of
 * /proc/PID/cgroup, as seen from the daemon's cgroup namespace) and the
 * container that path names (container.h), kept per pid for one render so
 * that a table of many links held by one process reads its file once.
 */
#ifndef BPFLINKFS_PROC_CGROUP_H
#define BPFLINKFS_PROC_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/**
 * proc_cgroup_v2() - the cgroup v2 path of process @pid
 * @pid: a thread-group id in the daemon's pid namespace
 * @out: malloc'd, NUL-terminated (the caller frees it)
 *
 * The `0::` line is the last of /proc/PID/cgroup (the kernel writes the
 * unified hierarchy last, on a hybrid host too), so a path holding a
 * newline is read whole. A path holding a NUL cannot be made.
 *
 * Return: 0, -ENOENT (the process is gone, or the host mounts no cgroup v2
 * and the file has no `0::` line), -ENOMEM, -errno of open(2)/read(2).
 */
int proc_cgroup_v2(__u32 pid, char **out);

/* One process's place, as cgroup_cache_get() keeps it */
struct cgroup_place {
	__u32 pid;
	bool known;	 /* read (whatever came of it) */
	char *path;	 /* NULL when it could not be read */
	char *container; /* NULL when the path names none */
};

/* The places asked for during one render, by pid (open addressing) */
struct cgroup_cache {
	struct cgroup_place *v;
	size_t cap, n;
};

/**
 * cgroup_cache_get() - @pid's place, read now on its first ask
 * @c: the cache, zeroed at first; free with cgroup_cache_free()
 * Return: the place (valid until the next call, its strings until the
 * cache is freed), or NULL on ENOMEM.
 */
const struct cgroup_place *cgroup_cache_get(struct cgroup_cache *c, __u32 pid);

/** cgroup_cache_free() - free every place, leaving @c empty */
void cgroup_cache_free(struct cgroup_cache *c);

#endif
