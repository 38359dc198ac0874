// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading a link's by= and latency maps. The daemon keeps no fd of them:
 * they are found through the link's program (its map ids, by map name),
 * so a link adopted from a pin_dir is read the same way, and a removed
 * link's maps are simply gone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "sight.h"

#define SIGHT_MAX_MAPS 16

int sight_map_of_prog(__u32 prog_id, const char *name)
{
	__u32 ids[SIGHT_MAX_MAPS], len, i;
	struct bpf_prog_info pi;
	int pfd = bpf_prog_get_fd_by_id(prog_id), fd = -ENOENT;

	if (pfd < 0)
		return -ENOENT;
	memset(&pi, 0, sizeof(pi));
	pi.nr_map_ids = SIGHT_MAX_MAPS;
	pi.map_ids = (__u64)(unsigned long)ids;
	len = sizeof(pi);
	if (bpf_obj_get_info_by_fd(pfd, &pi, &len))
		pi.nr_map_ids = 0;
	close(pfd);
	for (i = 0; i < pi.nr_map_ids && i < SIGHT_MAX_MAPS && fd < 0; i++) {
		struct bpf_map_info mi;
		int mfd = bpf_map_get_fd_by_id(ids[i]);

		if (mfd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		if (!bpf_obj_get_info_by_fd(mfd, &mi, &len) &&
		    !strncmp(mi.name, name, sizeof(mi.name)))
			fd = mfd;
		else
			close(mfd);
	}
	return fd;
}

static int by_busiest(const void *x, const void *y)
{
	const struct sight_by_row *a = x, *b = y;

	if (a->hits != b->hits)
		return a->hits < b->hits ? 1 : -1;
	return memcmp(&a->key, &b->key, sizeof(a->key));
}

static int by_key(const void *x, const void *y)
{
	const struct sight_by_row *a = x, *b = y;

	return memcmp(&a->key, &b->key, sizeof(a->key));
}

/*
 * A walk restarts from the first key when its key is evicted meanwhile:
 * a key seen twice is kept once. Return: the rows left.
 */
static size_t by_unique(struct sight_by_row *r, size_t n)
{
	size_t i, k = 0;

	qsort(r, n, sizeof(*r), by_key);
	for (i = 0; i < n; i++)
		if (!k || by_key(&r[k - 1], &r[i]))
			r[k++] = r[i];
	return k;
}

/* Every entry of the hash @fd into @rows (room for @cap). */
static size_t by_collect(int fd, struct sight_by_row *rows, size_t cap)
{
	struct sight_by_key k, next;
	size_t n = 0;
	void *prev = NULL;

	while (n < cap && !bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		rows[n].key = k;
		/* a key evicted meanwhile is simply not there */
		if (!bpf_map_lookup_elem(fd, &k, &rows[n].hits))
			n++;
	}
	return n;
}

int sight_by_read(__u32 prog_id, struct sight_by_row **rows, size_t *n)
{
	int fd = sight_map_of_prog(prog_id, "sight_by");
	struct sight_by_row *r;

	if (fd < 0)
		return fd;
	r = calloc(SIGHT_BY_KEYS, sizeof(*r));
	if (!r) {
		close(fd);
		return -ENOMEM;
	}
	*n = by_collect(fd, r, SIGHT_BY_KEYS);
	close(fd);
	*n = by_unique(r, *n);
	qsort(r, *n, sizeof(*r), by_busiest);
	*rows = r;
	return 0;
}

/* The program of link @link_id, or 0 */
static __u32 prog_of_link(__u32 link_id)
{
	struct bpf_link_info li;
	__u32 len = sizeof(li);
	int fd = bpf_link_get_fd_by_id(link_id);

	if (fd < 0)
		return 0;
	memset(&li, 0, sizeof(li));
	if (bpf_obj_get_info_by_fd(fd, &li, &len))
		li.prog_id = 0;
	close(fd);
	return li.prog_id;
}

int sight_lat_read(__u32 prog_id, __u32 partner, uint32_t ntargets, __u64 *out)
{
	int fd = sight_map_of_prog(prog_id, "sight_lat"), err = 0;
	__u32 i, n = ntargets * SIGHT_LAT_STRIDE;

	/* an entry link's program keeps no times: its return link's does */
	if (fd == -ENOENT && partner && (prog_id = prog_of_link(partner)))
		fd = sight_map_of_prog(prog_id, "sight_lat");
	if (fd < 0)
		return fd;
	for (i = 0; i < n && !err; i++)
		if (bpf_map_lookup_elem(fd, &i, &out[i]))
			err = -errno;
	close(fd);
	return err;
}

/* Depth-first under @dir (@path, @plen bytes so far) for inode @id. */
static int cgroup_find(int dir, __u64 id, char *path, size_t plen, size_t len,
		       int depth)
{
	DIR *d = fdopendir(dir);
	struct dirent *de;
	int ret = -ENOENT;

	if (!d) {
		close(dir);
		return -ENOENT;
	}
	while (ret && (de = readdir(d))) {
		int sub;
		int w;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		w = snprintf(path + plen, len - plen, "/%s", de->d_name);
		if (w < 0 || (size_t)w >= len - plen)
			continue;
		if (de->d_ino == id)
			ret = 0;
		else if (depth < 64 && (sub = openat(dirfd(d), de->d_name,
						     O_RDONLY | O_DIRECTORY |
							     O_CLOEXEC)) >= 0)
			ret = cgroup_find(sub, id, path, plen + w, len,
					  depth + 1);
	}
	closedir(d);
	if (ret)
		path[plen] = '\0';
	return ret;
}

int sight_cgroup_path(__u64 id, char *buf, size_t len)
{
	struct stat st;
	int dir;

	if (len < 2)
		return -ENOENT;
	dir = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -ENOENT;
	if (!fstat(dir, &st) && st.st_ino == id) {
		close(dir);
		snprintf(buf, len, "/");
		return 0;
	}
	buf[0] = '\0';
	return cgroup_find(dir, id, buf, 0, len, 0);
}
