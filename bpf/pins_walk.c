// SPDX-License-Identifier: GPL-2.0-only
/* Link pins in every mounted bpffs (pins_walk.h). */
#include "mountinfo.h"
#include "pins_walk.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "linkinfo.h"

#define WALK_DEPTH_MAX 64 /* directories below a mount point */

/*
 * What a pinned file is, by its inode: a pin's inode holds its object for
 * as long as it exists, so the same inode is the same link (or the same
 * map or program: id 0). The ctime, set when the pin was made, tells a
 * reused inode number apart. Learning it costs an open, a type check and
 * an info call per pin; a walk then needs one stat per pin.
 */
struct pin_seen {
	dev_t dev;
	ino_t ino;
	struct timespec ctime;
	time_t confirmed; /* CLOCK_MONOTONIC seconds of its last stat */
	__u32 id;	  /* the link's id; 0: not a link */
};

/*
 * Within this many seconds of a stat that confirmed an entry, the inode
 * number that readdir gives is enough: bpffs numbers inodes with
 * get_next_ino(), a 32-bit counter shared by pipes, sockets and other
 * pseudo files, so a number comes back only after 2^32 allocations
 * (minutes at the least); the same number within the window is the same
 * inode, so the same pin. The stat per pin was a sixth of a links.json
 * of 1,000 links with 100 pins.
 */
#define SEEN_TRUST_SECS 10

/*
 * The pins the last walk saw: a pure memo private to this file, of facts
 * that never change for an inode (the walk itself is done anew each time)
 */
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pin_seen *seen_last;
static size_t seen_last_n;

struct walk {
	struct pin_index *idx;
	size_t cap;
	struct pin_seen *seen; /* what this walk saw, for the next */
	size_t nseen, capseen;
	int err; /* -ENOMEM stops the walk */
};

static int cmp_seen(const void *a, const void *b)
{
	const struct pin_seen *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static time_t now_secs(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec;
}

/*
 * The last walk's entry for @st's inode if it is the same pin: by ctime,
 * or, with @st holding only st_dev and st_ino (readdir's d_ino), by a stat
 * less than SEEN_TRUST_SECS ago. Return: whether found; *@out its entry.
 */
static bool seen_find(const struct stat *st, bool by_ino, struct pin_seen *out)
{
	struct pin_seen key = {.dev = st->st_dev, .ino = st->st_ino};
	const struct pin_seen *s;
	bool found = false;

	pthread_mutex_lock(&seen_lock);
	s = seen_last_n ? bsearch(&key, seen_last, seen_last_n, sizeof(key),
				  cmp_seen)
			: NULL;
	if (s && by_ino)
		found = now_secs() - s->confirmed < SEEN_TRUST_SECS;
	else if (s)
		found = s->ctime.tv_sec == st->st_ctim.tv_sec &&
			s->ctime.tv_nsec == st->st_ctim.tv_nsec;
	if (found)
		*out = *s;
	pthread_mutex_unlock(&seen_lock);
	return found;
}

static void seen_add(struct walk *w, const struct pin_seen *seen)
{
	struct pin_seen *p;

	if (w->nseen == w->capseen) {
		size_t cap = w->capseen ? 2 * w->capseen : 64;

		p = realloc(w->seen, cap * sizeof(*p));
		if (!p)
			return; /* only the next walk is slower */
		w->seen = p;
		w->capseen = cap;
	}
	w->seen[w->nseen++] = *seen;
}

/* What this walk saw becomes what the next one looks up. */
static void seen_keep(struct walk *w)
{
	if (w->nseen)
		qsort(w->seen, w->nseen, sizeof(*w->seen), cmp_seen);
	pthread_mutex_lock(&seen_lock);
	free(seen_last);
	seen_last = w->seen;
	seen_last_n = w->nseen;
	pthread_mutex_unlock(&seen_lock);
	w->seen = NULL;
}

static void pin_add(struct walk *w, __u32 id, const char *path)
{
	struct link_pin *p;

	if (w->idx->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;

		p = realloc(w->idx->v, cap * sizeof(*p));
		if (!p) {
			w->err = -ENOMEM;
			return;
		}
		w->idx->v = p;
		w->cap = cap;
	}
	p = &w->idx->v[w->idx->n];
	p->path = strdup(path);
	if (!p->path) {
		w->err = -ENOMEM;
		return;
	}
	p->id = id;
	w->idx->n++;
}

/*
 * A pinned file (@name in directory @dfd, on device @dev, inode @ino as
 * readdir says): a link? Then its id.
 */
static void file_check(struct walk *w, int dfd, const char *name,
		       const char *path, dev_t dev, ino_t ino)
{
	struct stat st = {.st_dev = dev, .st_ino = ino};
	struct pin_seen seen;
	int fd;

	if (!seen_find(&st, true, &seen)) {
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
			return;
		if (!seen_find(&st, false, &seen)) {
			seen = (struct pin_seen){st.st_dev, st.st_ino,
						 st.st_ctim};
			fd = bpf_obj_get(path);
			if (fd < 0)
				return;
			if (!bpf_fd_is("bpf-link", fd) ||
			    link_id_read_fd(fd, &seen.id))
				seen.id = 0;
			close(fd);
		}
		seen.confirmed = now_secs();
	}
	seen_add(w, &seen);
	if (seen.id)
		pin_add(w, seen.id, path);
}

static void dir_walk(struct walk *w, char *path, size_t len, int depth)
{
	DIR *dir = opendir(path);
	struct dirent *e;
	struct stat st;

	if (!dir)
		return;
	if (fstat(dirfd(dir), &st)) {
		closedir(dir);
		return;
	}
	while (!w->err && (e = readdir(dir))) {
		size_t n = strlen(e->d_name);

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (len + 1 + n >= PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, e->d_name, n + 1);
		/* bpffs fills d_type; a subdirectory is walked, never a
		 * symlink (bpffs has them) */
		if (e->d_type == DT_DIR && depth < WALK_DEPTH_MAX)
			dir_walk(w, path, len + 1 + n, depth + 1);
		else if (e->d_type == DT_REG)
			file_check(w, dirfd(dir), e->d_name, path, st.st_dev,
				   e->d_ino);
		path[len] = '\0';
	}
	closedir(dir);
}

/* The mount point of a mountinfo line if its fstype is "bpf", else NULL */
static char *bpffs_mount_point(char *line)
{
	char *sep = strstr(line, " - "), *save = NULL, *f, *mnt = NULL;
	int i;

	if (!sep || strncmp(sep + 3, "bpf ", 4))
		return NULL;
	*sep = '\0';
	/* ID PARENT MAJ:MIN ROOT MOUNT_POINT ... */
	for (i = 0, f = strtok_r(line, " ", &save); f && i < 4;
	     i++, f = strtok_r(NULL, " ", &save))
		;
	if (f) {
		mountinfo_unescape(f);
		mnt = f;
	}
	return mnt;
}

static int cmp_pin(const void *a, const void *b)
{
	const struct link_pin *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return strcmp(x->path, y->path);
}

int pin_index_build(struct pin_index *idx)
{
	struct walk w = {.idx = idx};
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *path = malloc(PATH_MAX), *mnt;
	size_t cap = 0;

	idx->v = NULL;
	idx->n = 0;
	if (!f || !path) {
		int err = f ? -ENOMEM : -errno;

		if (f)
			fclose(f);
		free(path);
		return err;
	}
	while (!w.err && getline(&line, &cap, f) > 0) {
		mnt = bpffs_mount_point(line);
		if (!mnt || strlen(mnt) >= PATH_MAX)
			continue;
		strcpy(path, mnt);
		/* "/" as a mount point: children are "/x", not "//x" */
		dir_walk(&w, path, strcmp(path, "/") ? strlen(path) : 0, 0);
	}
	free(line);
	free(path);
	fclose(f);
	if (w.err) {
		free(w.seen);
		pin_index_free(idx);
		return w.err;
	}
	seen_keep(&w);
	if (idx->n) /* qsort() wants a non-NULL base */
		qsort(idx->v, idx->n, sizeof(*idx->v), cmp_pin);
	return 0;
}

void pin_index_free(struct pin_index *idx)
{
	size_t i;

	for (i = 0; i < idx->n; i++)
		free(idx->v[i].path);
	free(idx->v);
	idx->v = NULL;
	idx->n = 0;
}

size_t pin_index_find(const struct pin_index *idx, __u32 id, size_t *first)
{
	size_t lo = 0, hi = idx->n, n = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (idx->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + n < idx->n && idx->v[lo + n].id == id)
		n++;
	if (n)
		*first = lo;
	return n;
}
