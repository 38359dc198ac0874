// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "proc_pids.h"

int proc_pids_each(int (*fn)(void *ctx, int pid), void *ctx)
{
	struct dirent *de;
	char *end;
	long pid;
	DIR *d = opendir("/proc");
	int ret = 0;

	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		pid = strtol(de->d_name, &end, 10);
		if (*end || end == de->d_name || pid <= 0 || pid > INT_MAX)
			continue;
		ret = fn(ctx, (int)pid);
	}
	closedir(d);
	return ret;
}

int proc_fds_each(int pid, int (*fn)(void *ctx, int pid, int fd), void *ctx)
{
	char path[64];
	struct dirent *de;
	char *end;
	long fd;
	DIR *d;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	if (!d)
		return 0; /* gone, or not ours to look at */
	while (!ret && (de = readdir(d))) {
		fd = strtol(de->d_name, &end, 10);
		if (*end || end == de->d_name || fd < 0 || fd > INT_MAX)
			continue;
		ret = fn(ctx, pid, (int)fd);
	}
	closedir(d);
	return ret;
}
