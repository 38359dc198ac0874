// SPDX-License-Identifier: GPL-2.0-only
/* Link pins in every mounted bpffs (host_pins.h). */
#include "mountinfo.h"
#include "host_pins.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <pthread.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "link_info.h"

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

/* A directory a walk read, as it was when read */
struct dir_stamp {
	char *path;
	dev_t dev;
	ino_t ino;
	struct timespec mtime, ctime;
};

struct walk {
	struct pin_index *idx;
	size_t cap;
	struct dir_stamp *dirs; /* every directory read */
	size_t ndirs, capdirs;
	struct timespec start; /* CLOCK_REALTIME before the first readdir */
	bool racy; /* a directory changed too near start to trust its mtime */
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
			seen = (struct pin_seen){.dev = st.st_dev,
						 .ino = st.st_ino,
						 .ctime = st.st_ctim};
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

/*
 * A directory's mtime and ctime come from the coarse clock (a tick of a
 * few ms, and a fine-grained floor on 6.13+): a change within a tick of
 * the read may leave them as they were. A stamp this much older than the
 * walk's start cannot be repeated by a later change.
 */
#define STAMP_SETTLED_NS 50000000L

static bool stamp_settled(const struct timespec *t, const struct timespec *now)
{
	long long d = (long long)(now->tv_sec - t->tv_sec) * 1000000000LL +
		      (now->tv_nsec - t->tv_nsec);

	return d > STAMP_SETTLED_NS;
}

static void dir_add(struct walk *w, const char *path, const struct stat *st)
{
	struct dir_stamp *p;

	if (w->ndirs == w->capdirs) {
		size_t cap = w->capdirs ? 2 * w->capdirs : 16;

		p = realloc(w->dirs, cap * sizeof(*p));
		if (!p) {
			w->err = -ENOMEM;
			return;
		}
		w->dirs = p;
		w->capdirs = cap;
	}
	p = &w->dirs[w->ndirs];
	*p = (struct dir_stamp){NULL, st->st_dev, st->st_ino, st->st_mtim,
				st->st_ctim};
	p->path = strdup(path);
	if (!p->path) {
		w->err = -ENOMEM;
		return;
	}
	w->ndirs++;
	if (!stamp_settled(&st->st_mtim, &w->start) ||
	    !stamp_settled(&st->st_ctim, &w->start))
		w->racy = true;
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
	dir_add(w, path, &st);
	if (w->err) {
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

static int cmp_pin(const void *a, const void *b)
{
	const struct link_pin *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return strcmp(x->path, y->path);
}

/*
 * The last walk, kept to answer until something changes: the bpffs mounts
 * (poll(2) of /proc/self/mountinfo reports any mount or unmount since the
 * fd was opened or last polled) and every directory the walk read (making,
 * removing or renaming a pin sets its directory's mtime and ctime). A
 * check costs a poll and a stat per directory, not a readdir of each; any
 * change, or a stamp too recent to trust, walks everything again. A pure
 * memo private to this file, like the inode memo above.
 */
struct pin_ref {
	__u32 id;
	__u32 off; /* of its path in paths */
};

static struct {
	pthread_mutex_t lock;
	int mountinfo; /* the fd the walk read through, polled since; or -1 */
	bool valid;    /* false: walk again before answering */
	struct dir_stamp *dirs;
	size_t ndirs;
	struct pin_ref *pins; /* sorted by id, then path */
	size_t npins;
	char *paths; /* every pin's path, NUL-ended, in the order of pins */
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER, .mountinfo = -1};

static void dirs_free(struct dir_stamp *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(d[i].path);
	free(d);
}

static bool ts_eq(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Does the kept walk still say what a walk now would? Lock held. */
static bool cache_current(void)
{
	struct pollfd p = {.fd = cache.mountinfo, .events = POLLPRI};
	const struct dir_stamp *d;
	struct stat st;
	size_t i;

	if (!cache.valid || cache.mountinfo < 0 || poll(&p, 1, 0) != 0)
		return false;
	for (i = 0; i < cache.ndirs; i++) {
		d = &cache.dirs[i];
		if (stat(d->path, &st) || st.st_dev != d->dev ||
		    st.st_ino != d->ino || !ts_eq(&st.st_mtim, &d->mtime) ||
		    !ts_eq(&st.st_ctim, &d->ctime))
			return false;
	}
	return true;
}

/* mountinfo_each()'s callback: walk @m if it is a bpffs mount */
static int walk_mount(const struct mountinfo_entry *m, void *arg)
{
	struct walk *w = arg;
	char *path;

	if (strcmp(m->fstype, "bpf") || strlen(m->mount_point) >= PATH_MAX)
		return 0;
	path = malloc(PATH_MAX);
	if (!path)
		return -ENOMEM;
	strcpy(path, m->mount_point);
	/* "/" as a mount point: children are "/x", not "//x" */
	dir_walk(w, path, strcmp(path, "/") ? strlen(path) : 0, 0);
	free(path);
	return w->err;
}

/* The walk's pins, packed into the cache's arrays. Lock held. */
static int cache_pack(const struct pin_index *idx)
{
	size_t i, len = 0, off = 0;

	for (i = 0; i < idx->n; i++)
		len += strlen(idx->v[i].path) + 1;
	if (len > UINT32_MAX)
		return -E2BIG;
	cache.pins = malloc(idx->n * sizeof(*cache.pins) + 1);
	cache.paths = malloc(len + 1);
	if (!cache.pins || !cache.paths)
		return -ENOMEM;
	for (i = 0; i < idx->n; i++) {
		size_t n = strlen(idx->v[i].path) + 1;

		cache.pins[i] = (struct pin_ref){idx->v[i].id, (__u32)off};
		memcpy(cache.paths + off, idx->v[i].path, n);
		off += n;
	}
	cache.npins = idx->n;
	return 0;
}

static void cache_drop(void)
{
	if (cache.mountinfo >= 0)
		close(cache.mountinfo);
	cache.mountinfo = -1;
	dirs_free(cache.dirs, cache.ndirs);
	free(cache.pins);
	free(cache.paths);
	cache.dirs = NULL;
	cache.pins = NULL;
	cache.paths = NULL;
	cache.ndirs = cache.npins = 0;
	cache.valid = false;
}

/*
 * Walk now and keep it. The walk reads mountinfo through a dup of the fd
 * it keeps, opened first: a mount change after the open shows in a poll.
 * Lock held. Return: 0, or -ENOMEM, -E2BIG, -errno of opening mountinfo.
 */
static int cache_rebuild(void)
{
	struct pin_index idx = {0};
	struct walk w = {.idx = &idx};
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC), err;

	cache_drop();
	if (fd < 0)
		return -errno;
	clock_gettime(CLOCK_REALTIME, &w.start);
	err = mountinfo_each(fd, walk_mount, &w);
	if (!w.err)
		w.err = err;
	if (!w.err) {
		seen_keep(&w);
		if (idx.n) /* qsort() wants a non-NULL base */
			qsort(idx.v, idx.n, sizeof(*idx.v), cmp_pin);
		w.err = cache_pack(&idx);
	}
	free(w.seen);
	pin_index_free(&idx);
	cache.dirs = w.dirs;
	cache.ndirs = w.ndirs;
	cache.mountinfo = fd;
	if (w.err) {
		cache_drop();
		return w.err;
	}
	cache.valid = !w.racy;
	return 0;
}

/* Index of link @id's first pin in the cache, or where it would be */
static size_t cache_lower(__u32 id)
{
	size_t lo = 0, hi = cache.npins;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cache.pins[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Copy pins [@first, @first + @n) of the cache into @idx. Lock held. */
static int cache_copy(struct pin_index *idx, size_t first, size_t n)
{
	size_t i, base, len;

	if (!n)
		return 0;
	base = cache.pins[first].off;
	len = cache.pins[first + n - 1].off - base +
	      strlen(cache.paths + cache.pins[first + n - 1].off) + 1;
	idx->v = malloc(n * sizeof(*idx->v));
	idx->paths = malloc(len);
	if (!idx->v || !idx->paths) {
		pin_index_free(idx);
		return -ENOMEM;
	}
	memcpy(idx->paths, cache.paths + base, len);
	for (i = 0; i < n; i++) {
		idx->v[i].id = cache.pins[first + i].id;
		idx->v[i].path =
			idx->paths + (cache.pins[first + i].off - base);
	}
	idx->n = n;
	return 0;
}

/* The pins of link @id, or of every link (@all), into @idx */
static int pins_now(struct pin_index *idx, __u32 id, bool all)
{
	size_t first = 0, n;
	int err = 0;

	*idx = (struct pin_index){0};
	pthread_mutex_lock(&cache.lock);
	if (!cache_current())
		err = cache_rebuild();
	if (!err) {
		n = cache.npins;
		if (!all) {
			first = cache_lower(id);
			for (n = 0; first + n < cache.npins &&
				    cache.pins[first + n].id == id;
			     n++)
				;
		}
		err = cache_copy(idx, first, n);
	}
	pthread_mutex_unlock(&cache.lock);
	return err;
}

int pin_index_build(struct pin_index *idx)
{
	return pins_now(idx, 0, true);
}

int pin_index_build_link(struct pin_index *idx, __u32 id)
{
	return pins_now(idx, id, false);
}

void pin_index_free(struct pin_index *idx)
{
	size_t i;

	/* packed paths are one block; a walk's own index strdup()s each */
	for (i = 0; !idx->paths && i < idx->n; i++)
		free(idx->v[i].path);
	free(idx->paths);
	free(idx->v);
	idx->v = NULL;
	idx->paths = NULL;
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
