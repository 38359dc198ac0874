// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "counter_load.h"
#include "parse.h"
#include "log.h"
#include "multi_targets.h"
#include "owned_pins.h"
#include "pin_dir.h"

#define META_ENTRIES 65536
#define MAP_PINS_MAX 16 /* hits, meta and the counter's events maps */
/* "/" and the longest pin name, link_ID (the maps' names are shorter), NUL */
#define PIN_NAME_ROOM (sizeof("/link_4294967295"))

/* The value of DIR/meta; its layout is the pin_dir's on-disk format. */
struct pin_meta {
	__u32 version;
	__s32 slot;
	__u32 probe_kind;
	__u32 offset_hi; /* uprobe file offset >> 32 (link info has 32 bits) */
	__u64 dev;
	__u64 ino;
	char category[124];
	/* multi links: slots slot .. slot + nslots - 1; 0 in a single-target
	 * link's record (and in records older than multi links, where these
	 * bytes were the end of a shorter category) */
	__u32 nslots;
	char spec[8192 - 160];
};
_Static_assert(COMMAND_MAX_BYTES + sizeof(" cpu=4294967295") <=
		       sizeof(((struct pin_meta *)0)->spec),
	       "a pin_dir keeps every accepted command whole");

/*
 * What bpffs reports on DIR (inotify): pins removed or moved away, and DIR
 * itself. Our own pins are not watched (IN_CREATE), so bulk creation costs
 * nothing here; our own unpins are: the reaper's show up as ids that are
 * no longer owned and are ignored.
 */
#define WATCH_MASK                                                             \
	(IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
#define DIR_GONE_MASK                                                          \
	(IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT |          \
	 IN_IGNORED)

struct pin_events {
	bool rescan; /* DIR itself changed, or events were lost */
	bool maps;   /* DIR/hits or DIR/meta went */
	size_t n, cap;
	__u32 *ids; /* DIR/link_ID that went */
};

/* One daemon's pin_dir (pin_dir_open()) */
struct pin_dir {
	char root[PATH_MAX];
	int meta_fd, lock_fd, watch_fd, watch_wd;
	dev_t root_dev;
	ino_t root_ino;
	/* pinning holds it shared; acting on removed pins, exclusive */
	pthread_rwlock_t pin_lock;
	/* reading the watch, need_repair, repairing */
	pthread_mutex_t sync_lock;
	bool need_repair;
	/* the counter opened on DIR/hits, pinned again by repair() */
	struct counter *counter;
	/* what pin_dir_undo() leaves: the length of DIR's path that was
	 * there, the maps' pins that were in DIR */
	size_t kept;
	unsigned int nhad;
	char had[MAP_PINS_MAX][NAME_MAX + 1];
};

/* A pin of the maps in DIR (not a link's) */
static bool map_pin_name(const char *name)
{
	return !strcmp(name, "hits") || !strcmp(name, "meta") ||
	       counter_is_pin_name(name);
}

/* DIR/@name into @buf; -ENAMETOOLONG when it does not fit */
static int pin_path(const struct pin_dir *pd, const char *name, char *buf,
		    size_t len)
{
	int n = snprintf(buf, len, "%s/%s", pd->root, name);

	return n >= 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

/*
 * The names of DIR's map pins, at most @max in @names; the count. Read
 * whole before anything is removed (readdir while unlinking may skip).
 */
static unsigned int map_pins(const struct pin_dir *pd,
			     char (*names)[NAME_MAX + 1], unsigned int max)
{
	DIR *d = opendir(pd->root);
	struct dirent *e;
	unsigned int n = 0;

	while (d && n < max && (e = readdir(d)))
		if (map_pin_name(e->d_name))
			snprintf(names[n++], NAME_MAX + 1, "%s", e->d_name);
	if (d)
		closedir(d);
	return n;
}

void pin_dir_undo(struct pin_dir *pd)
{
	char names[MAP_PINS_MAX][NAME_MAX + 1], path[PATH_MAX];
	unsigned int n, i, j;

	if (!pd)
		return;
	n = map_pins(pd, names, MAP_PINS_MAX);
	for (i = 0; i < n; i++) {
		for (j = 0; j < pd->nhad && strcmp(pd->had[j], names[i]); j++)
			;
		if (j < pd->nhad)
			continue; /* there before this daemon */
		if (!pin_path(pd, names[i], path, sizeof(path)))
			unlink(path);
	}
	pin_dir_unmake(pd->root, pd->kept);
}

/* Open DIR/NAME, or make it with @make and pin it there. */
static int map_open_or_make(const struct pin_dir *pd, const char *name,
			    int (*make)(void *arg), void *arg)
{
	char path[PATH_MAX];
	int fd = pin_path(pd, name, path, sizeof(path));

	if (fd)
		return fd;
	fd = bpf_obj_get(path);
	if (fd >= 0 || errno != ENOENT)
		return fd >= 0 ? fd : -errno;
	fd = make(arg);
	if (fd >= 0 && bpf_obj_pin(fd, path)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int meta_make(void *arg)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "bpflinkfs_meta",
				sizeof(__u32), sizeof(struct pin_meta),
				META_ENTRIES, &opts);

	return fd < 0 ? -errno : fd;
}

/* hits_make()'s argument: where the counter goes, its size, the pin_dir */
struct hits_arg {
	struct counter **counter;
	__u32 slots;
	const char *root;
};

static int hits_make(void *arg)
{
	struct hits_arg *h = arg;
	int err = counter_open_pinned(h->counter, h->slots, -1, h->root);

	if (err)
		return err;
	return dup(counter_map_fd(*h->counter));
}

/* Make @fd (the lock on DIR) ours: remember DIR's inode, watch it. */
static void dir_adopt_fd(struct pin_dir *pd, int fd)
{
	char self[64];
	struct stat st;

	if (pd->lock_fd >= 0)
		close(pd->lock_fd);
	pd->lock_fd = fd;
	if (fstat(fd, &st) == 0) {
		pd->root_dev = st.st_dev;
		pd->root_ino = st.st_ino;
	}
	if (pd->watch_fd < 0)
		pd->watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (pd->watch_fd >= 0 && pd->watch_wd >= 0)
		inotify_rm_watch(pd->watch_fd, pd->watch_wd);
	/* through the fd: the directory we locked, whatever the path is now */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	pd->watch_wd = pd->watch_fd < 0 ? -1
					: inotify_add_watch(pd->watch_fd, self,
							    WATCH_MASK);
	if (pd->watch_wd < 0)
		log_msg(LOG_WARNING,
			"pin_dir %s: cannot watch it (%s): a "
			"removed pin_dir is still noticed, single "
			"removed pins are not",
			pd->root, strerror(errno));
}

/* DIR's maps: meta, and hits with the counter loaded on it. */
static int maps_open(struct pin_dir *pd, __u32 slots, struct counter **counter,
		     struct bl_error *e)
{
	struct hits_arg harg = {counter, slots, pd->root};
	int hits, err;

	pd->meta_fd = map_open_or_make(pd, "meta", meta_make, NULL);
	hits = pd->meta_fd < 0 ? pd->meta_fd
			       : map_open_or_make(pd, "hits", hits_make, &harg);
	if (hits >= 0 && !*counter)
		err = counter_open_pinned(counter, 0, hits, pd->root);
	else
		err = hits < 0 ? hits : 0;
	if (hits >= 0)
		close(hits);
	pd->counter = *counter;
	if (err)
		bl_fail(e, err, "pin_dir %s: cannot open its maps: %s",
			BL_PATH(pd->root), strerror(-err));
	return err;
}

int pin_dir_open(struct pin_dir **out, const char *dir, __u32 slots,
		 struct counter **counter, struct bl_error *e)
{
	struct pin_dir *pd = calloc(1, sizeof(*pd));
	int err;

	*out = NULL;
	if (!pd)
		return -ENOMEM;
	pd->meta_fd = pd->lock_fd = pd->watch_fd = pd->watch_wd = -1;
	pthread_rwlock_init(&pd->pin_lock, NULL);
	pthread_mutex_init(&pd->sync_lock, NULL);
	/* room left for every pin's name: DIR/NAME always fits PATH_MAX */
	err = pin_dir_normalize(dir, pd->root, sizeof(pd->root) - PIN_NAME_ROOM,
				e);
	if (!err)
		err = pin_dir_take(pd->root, &pd->kept, e);
	if (err < 0) {
		pin_dir_close(pd);
		return err;
	}
	dir_adopt_fd(pd, err);
	pd->nhad = map_pins(pd, pd->had, MAP_PINS_MAX);
	err = maps_open(pd, slots, counter, e);
	if (err) {
		pin_dir_undo(pd);
		pin_dir_close(pd);
		return err;
	}
	*out = pd;
	return 0;
}

void pin_dir_close(struct pin_dir *pd)
{
	if (!pd)
		return;
	if (pd->meta_fd >= 0)
		close(pd->meta_fd);
	if (pd->watch_fd >= 0)
		close(pd->watch_fd);
	if (pd->lock_fd >= 0)
		close(pd->lock_fd);
	pthread_mutex_destroy(&pd->sync_lock);
	pthread_rwlock_destroy(&pd->pin_lock);
	free(pd);
}

/* DIR/link_ID: 0, or -ENAMETOOLONG (pin_dir_open() left room for any id) */
static int link_pin_path(const struct pin_dir *pd, __u32 id, char *buf,
			 size_t len)
{
	char name[sizeof("link_4294967295")];

	snprintf(name, sizeof(name), "link_%u", id);
	return pin_path(pd, name, buf, len);
}

/* DIR is still the directory we locked. */
static bool dir_same(const struct pin_dir *pd)
{
	struct stat st;

	return stat(pd->root, &st) == 0 && st.st_dev == pd->root_dev &&
	       st.st_ino == pd->root_ino;
}

static void event_note(struct pin_events *ev, const struct inotify_event *e)
{
	__u32 id, *p;
	char extra;

	if (e->mask & DIR_GONE_MASK) {
		ev->rescan = true;
	} else if (e->len && sscanf(e->name, "link_%u%c", &id, &extra) == 1) {
		if (ev->n == ev->cap) {
			ev->cap = ev->cap ? 2 * ev->cap : 64;
			p = realloc(ev->ids, ev->cap * sizeof(*p));
			if (!p) {
				ev->rescan = true;
				return;
			}
			ev->ids = p;
		}
		ev->ids[ev->n++] = id;
	} else if (e->len &&
		   (!strcmp(e->name, "hits") || !strcmp(e->name, "meta") ||
		    counter_is_pin_name(e->name))) {
		ev->maps = true;
	}
}

/* What happened to DIR since the last call; true when anything did. */
static bool watch_read(struct pin_dir *pd, struct pin_events *ev)
{
	char buf[4096]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *e;
	ssize_t len;
	char *p;

	if (pd->watch_wd < 0) {
		ev->rescan = !dir_same(pd);
		return ev->rescan;
	}
	while ((len = read(pd->watch_fd, buf, sizeof(buf))) > 0)
		for (p = buf; p < buf + len; p += sizeof(*e) + e->len) {
			e = (const struct inotify_event *)p;
			event_note(ev, e);
		}
	return ev->rescan || ev->maps || ev->n;
}

/* Every owned link whose pin is gone; the count. */
static int rescan(const struct pin_dir *pd, const struct pin_owner *owner)
{
	char path[PATH_MAX];
	__u32 *ids = NULL;
	int n = owner->ids(owner->registry, &ids), i, gone = 0;

	for (i = 0; i < n; i++) {
		/* ENOTDIR: something else took DIR's place */
		if (!link_pin_path(pd, ids[i], path, sizeof(path)) &&
		    access(path, F_OK) && (errno == ENOENT || errno == ENOTDIR))
			gone += owner->forget(owner->registry, ids[i]) == 0;
	}
	free(ids);
	return gone;
}

/* Act on @ev; pin_lock held exclusively (no pin between pin and add). */
static void sync_apply(struct pin_dir *pd, const struct pin_events *ev,
		       const struct pin_owner *owner)
{
	size_t i;
	int gone = 0;

	for (i = 0; i < ev->n; i++)
		gone += owner->forget(owner->registry, ev->ids[i]) == 0;
	if (ev->rescan)
		gone += rescan(pd, owner);
	if (ev->maps || (ev->rescan && !dir_same(pd)))
		pd->need_repair = true;
	if (gone)
		log_msg(LOG_WARNING,
			"pin_dir %s: %d owned link(s) lost their "
			"pin (removed by hand): no longer owned, "
			"and detached unless held elsewhere",
			pd->root, gone);
}

void pin_sync(struct pin_dir *pd, const struct pin_owner *owner)
{
	struct pin_events ev = {0};

	if (!pd)
		return;
	pthread_mutex_lock(&pd->sync_lock);
	if (watch_read(pd, &ev)) {
		pthread_rwlock_wrlock(&pd->pin_lock);
		sync_apply(pd, &ev, owner);
		pthread_rwlock_unlock(&pd->pin_lock);
	}
	pthread_mutex_unlock(&pd->sync_lock);
	free(ev.ids);
}

/* Pin @fd as DIR/@name again unless something is there. */
static int repin(const struct pin_dir *pd, const char *name, int fd)
{
	char path[PATH_MAX];
	int err = pin_path(pd, name, path, sizeof(path));

	if (!err && bpf_obj_pin(fd, path) && errno != EEXIST)
		err = -errno;
	return err;
}

/* DIR or its maps were removed by hand: make them again (sync_lock held). */
static int repair(struct pin_dir *pd, struct bl_error *e)
{
	struct bl_error why = {0};
	size_t kept;
	int fd, err;

	if (!dir_same(pd)) {
		fd = pin_dir_take(pd->root, &kept, &why);
		if (fd < 0)
			return bl_fail(e, fd,
				       "pin_dir was removed while mounted "
				       "and cannot be made again: %s",
				       why.msg);
		dir_adopt_fd(pd, fd);
		log_msg(LOG_WARNING,
			"pin_dir %s was removed while mounted "
			"(its links detached): made it again",
			pd->root);
	}
	err = repin(pd, "meta", pd->meta_fd);
	if (!err)
		err = repin(pd, "hits", counter_map_fd(pd->counter));
	if (!err)
		err = counter_pin_events(pd->counter, pd->root);
	if (err)
		bl_fail(e, err,
			"pin_dir %s was changed by hand and its "
			"maps cannot be pinned again (%s): restart "
			"bpflinkfs",
			BL_PATH(pd->root), strerror(-err));
	pd->need_repair = err != 0;
	return err;
}

/* pin_sync(), then make DIR whole again if it was removed. */
static int pin_ready(struct pin_dir *pd, const struct pin_owner *owner,
		     struct bl_error *e)
{
	int err = 0;

	pin_sync(pd, owner);
	pthread_mutex_lock(&pd->sync_lock);
	if (pd->need_repair) {
		pthread_rwlock_wrlock(&pd->pin_lock);
		err = repair(pd, e);
		pthread_rwlock_unlock(&pd->pin_lock);
	}
	pthread_mutex_unlock(&pd->sync_lock);
	return err;
}

/* 0, or -ENAMETOOLONG when the record cannot keep the category or spec */
static int meta_fill(struct pin_meta *m, const struct owned_info *info)
{
	int c, s;

	m->version = 1;
	m->slot = info->slot;
	m->nslots = info->nslots;
	m->probe_kind = info->kind;
	m->offset_hi = info->f.offset >> 32;
	m->dev = info->dev;
	m->ino = info->ino;
	c = snprintf(m->category, sizeof(m->category), "%s", info->category);
	s = snprintf(m->spec, sizeof(m->spec), "%s", info->spec);
	if (c < 0 || (size_t)c >= sizeof(m->category) || s < 0 ||
	    (size_t)s >= sizeof(m->spec))
		return -ENAMETOOLONG;
	return 0;
}

/* Record, pin and own; pin_lock held shared. */
static int pin_own(struct pin_dir *pd, const struct owned_info *info, int fd,
		   const struct pin_meta *m, const struct pin_owner *owner)
{
	char path[PATH_MAX];
	int err = 0;

	if (bpf_map_update_elem(pd->meta_fd, &info->id, m, BPF_NOEXIST))
		return -errno;
	err = link_pin_path(pd, info->id, path, sizeof(path));
	if (!err && bpf_obj_pin(fd, path))
		err = -errno;
	else if (!err && (err = owner->add(owner->registry, info)))
		unlink(path);
	if (err)
		bpf_map_delete_elem(pd->meta_fd, &info->id);
	return err;
}

int pin_link(struct pin_dir *pd, const struct owned_info *info, int fd,
	     const struct pin_owner *owner, struct bl_error *e)
{
	struct pin_meta *m = calloc(1, sizeof(*m));
	int err = m ? -ENOENT : -ENOMEM, tries;

	if (m && meta_fill(m, info)) {
		free(m);
		return bl_fail(e, -ENAMETOOLONG,
			       "the pin_dir's record cannot keep this link's "
			       "category or line (too long): nothing made");
	}
	/* DIR may go between the check and the pin: then once more */
	for (tries = 0; err == -ENOENT && tries < 2; tries++) {
		err = pin_ready(pd, owner, e);
		if (err) {
			free(m);
			return err; /* @e says why */
		}
		pthread_rwlock_rdlock(&pd->pin_lock);
		err = pin_own(pd, info, fd, m, owner);
		pthread_rwlock_unlock(&pd->pin_lock);
	}
	if (err)
		bl_fail(e, err, "cannot pin the link in pin_dir %s: %s",
			BL_PATH(pd->root), strerror(-err));
	free(m);
	return err;
}

void pin_drop(struct pin_dir *pd, __u32 id)
{
	char path[PATH_MAX];

	if (!link_pin_path(pd, id, path, sizeof(path)))
		unlink(path);
	bpf_map_delete_elem(pd->meta_fd, &id);
}

void pin_unlink(struct pin_dir *pd, __u32 id)
{
	struct timespec tick = {0, 10 * 1000 * 1000};
	int i, fd;

	pin_drop(pd, id);
	/* the kernel releases an unpinned link from a work queue */
	for (i = 0; i < 500; i++) {
		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			return;
		close(fd);
		nanosleep(&tick, NULL);
	}
}

/* Claim a record's slot, or every slot of a multi link's record. */
static int slots_claim(const struct pin_dir *pd, const struct pin_meta *m)
{
	unsigned int i, n = m->nslots ? m->nslots : 1;
	int err = 0;

	for (i = 0; !err && i < n; i++)
		err = counter_slot_claim(pd->counter, m->slot + i);
	while (err && i-- > 1)
		counter_slot_free(pd->counter, m->slot + i - 1);
	return err;
}

/*
 * Links this daemon makes: perf-event links, the tracing and raw
 * tracepoint links of fentry/fexit/rawtracepoint lines (their record
 * says which), and the multi links of wildcard lines.
 */
static bool adoptable(__u32 link_type, __u32 probe_kind)
{
	if (link_type == LINK_TYPE_PERF_EVENT)
		return probe_kind != PROBE_FENTRY &&
		       probe_kind != PROBE_FEXIT && probe_kind != PROBE_RAWTP;
	if (link_type == LINK_TYPE_RAW_TRACEPOINT)
		return probe_kind == PROBE_RAWTP;
	if (link_type == LINK_TYPE_TRACING)
		return probe_kind == PROBE_FENTRY || probe_kind == PROBE_FEXIT;
	return multi_link_type(link_type); /* wildcard lines */
}

/*
 * The latency, stacks= and by= options that a link's spec gave; none for
 * the return link of an entry/return pair (its kind is not the line's)
 */
static unsigned int spec_sight(const char *spec, enum probe_kind kind)
{
	struct parsed_cmd *cmd = malloc(sizeof(*cmd));
	struct bl_error perr;
	unsigned int bits = 0;

	if (cmd && !parse_line(spec, strlen(spec), cmd, &perr) &&
	    cmd->kind == CMD_PROBE && cmd->probe.kind == kind)
		bits = cmd->probe.opts & OPT_SIGHT;
	free(cmd);
	return bits;
}

/* Adopt DIR/link_ID; -errno with a log line when it is left alone. */
static int adopt_one(const struct pin_dir *pd, const char *name,
		     const struct pin_owner *owner)
{
	struct owned_info *own = calloc(1, sizeof(*own));
	struct pin_meta *m = malloc(sizeof(*m));
	char path[PATH_MAX];
	int fd = -1, err = own && m ? 0 : -ENOMEM;

	if (!err)
		err = pin_path(pd, name, path, sizeof(path));
	if (!err && (fd = bpf_obj_get(path)) < 0)
		err = -errno;
	if (!err)
		err = link_info_read_fd(fd, &own->f, sizeof(own->f.name));
	if (!err && bpf_map_lookup_elem(pd->meta_fd, &own->f.id, m))
		err = -ENOENT;
	if (!err && !adoptable(own->f.link_type, m->probe_kind))
		err = -EINVAL;
	if (!err && m->slot > 0)
		err = slots_claim(pd, m);
	if (!err) {
		own->id = own->f.id;
		own->slot = m->slot;
		own->nslots = m->nslots;
		own->kind = m->probe_kind;
		own->f.offset |= (__u64)m->offset_hi << 32;
		own->dev = m->dev;
		own->ino = m->ino;
		snprintf(own->category, sizeof(own->category), "%s",
			 m->category);
		snprintf(own->spec, sizeof(own->spec), "%s", m->spec);
		own->sight = spec_sight(own->spec, own->kind);
		err = owner->add(owner->registry, own);
	}
	if (err)
		log_msg(LOG_WARNING, "pin_dir: leaving %s alone: %s", path,
			err == -EINVAL	 ? "not a link this daemon makes"
			: err == -ENOENT ? "no record of it (damaged entry)"
					 : strerror(-err));
	if (fd >= 0)
		close(fd);
	free(own);
	free(m);
	return err;
}

int pin_adopt(struct pin_dir *pd, const struct pin_owner *owner)
{
	DIR *d = opendir(pd->root);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "link_", 5) == 0) {
			n += adopt_one(pd, e->d_name, owner) == 0;
		} else if (e->d_name[0] != '.' && strcmp(e->d_name, "hits") &&
			   strcmp(e->d_name, "meta") &&
			   !counter_is_pin_name(e->d_name)) {
			log_msg(LOG_WARNING,
				"pin_dir: leaving %s/%s alone: "
				"not made by bpflinkfs",
				pd->root, e->d_name);
		}
	}
	closedir(d);
	if (n)
		log_msg(LOG_INFO, "pin_dir: adopted %d link(s) from %s", n,
			pd->root);
	return n;
}
