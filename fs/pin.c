// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "counter.h"
#include "pin.h"

#define META_ENTRIES 65536

/* The value of DIR/meta; its layout is the pin_dir's on-disk format. */
struct pin_meta {
	__u32 version;
	__s32 slot;
	__u32 probe_kind;
	__u32 offset_hi; /* uprobe file offset >> 32 (link info has 32 bits) */
	__u64 dev;
	__u64 ino;
	char category[128];
	char spec[8192 - 160];
};

static char pin_root[PATH_MAX];
static int meta_fd = -1, lock_fd = -1;

bool pin_enabled(void)
{
	return pin_root[0] != '\0';
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

/* The nearest existing ancestor of @dir is in bpffs: nothing made else. */
static bool under_bpffs(const char *dir)
{
	char path[PATH_MAX], *slash;
	struct statfs sfs;

	snprintf(path, sizeof(path), "%s", dir);
	while (statfs(path, &sfs)) {
		slash = strrchr(path, '/');
		if (errno != ENOENT || !slash || slash == path)
			return false;
		*slash = '\0';
	}
	return sfs.f_type == BPF_FS_MAGIC;
}

static int dir_take(const char *dir)
{
	struct statfs sfs;
	int err = dir[0] != '/' ? -EINVAL : !under_bpffs(dir) ? -ENOTDIR :
								  mkdir_p(dir);

	if (err == -ENOTDIR) {
		fprintf(stderr, "bpflinkfs: pin_dir %s is not in a BPF file "
				"system: mount -t bpf bpf /sys/fs/bpf\n",
			dir);
		return -EINVAL;
	}

	if (err) {
		fprintf(stderr, "bpflinkfs: pin_dir %s: %s\n", dir,
			err == -EINVAL ? "must be an absolute path" :
			err == -EPERM && strchr(dir, '.') ?
					 "bpffs refuses names with a '.'" :
					 strerror(-err));
		return err;
	}
	if (statfs(dir, &sfs) || sfs.f_type != BPF_FS_MAGIC) {
		fprintf(stderr, "bpflinkfs: pin_dir %s is not in a BPF file "
				"system: mount -t bpf bpf /sys/fs/bpf\n",
			dir);
		return -EINVAL;
	}
	lock_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lock_fd < 0 || flock(lock_fd, LOCK_EX | LOCK_NB)) {
		err = -errno;
		fprintf(stderr, "bpflinkfs: pin_dir %s is in use by another "
				"bpflinkfs\n",
			dir);
		return err == -EWOULDBLOCK ? -EBUSY : err;
	}
	return 0;
}

/* Open DIR/NAME, or make it with @make and pin it there. */
static int map_open_or_make(const char *name, int (*make)(void))
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", pin_root, name);
	fd = bpf_obj_get(path);
	if (fd >= 0 || errno != ENOENT)
		return fd >= 0 ? fd : -errno;
	fd = make();
	if (fd >= 0 && bpf_obj_pin(fd, path)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int meta_make(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "bpflinkfs_meta",
				sizeof(__u32), sizeof(struct pin_meta),
				META_ENTRIES, &opts);

	return fd < 0 ? -errno : fd;
}

static int hits_make(void)
{
	int err = counter_open(&daemon_state.counter,
			       daemon_state.counter_slots);

	if (err)
		return err;
	return dup(counter_map_fd(daemon_state.counter));
}

int pin_dir_open(const char *dir)
{
	int err = dir_take(dir), hits;

	if (err)
		return err;
	snprintf(pin_root, sizeof(pin_root), "%s", dir);
	meta_fd = map_open_or_make("meta", meta_make);
	hits = meta_fd < 0 ? meta_fd : map_open_or_make("hits", hits_make);
	if (hits >= 0 && !daemon_state.counter)
		err = counter_open_reuse(&daemon_state.counter, hits);
	else
		err = hits < 0 ? hits : 0;
	if (hits >= 0)
		close(hits);
	if (err) {
		fprintf(stderr, "bpflinkfs: pin_dir %s: cannot open its maps: "
				"%s\n",
			dir, strerror(-err));
		pin_root[0] = '\0';
	}
	return err;
}

static void link_pin_path(__u32 id, char *buf, size_t len)
{
	snprintf(buf, len, "%s/link_%u", pin_root, id);
}

int pin_link(const struct owned_info *info, int fd)
{
	struct pin_meta *m = calloc(1, sizeof(*m));
	char path[PATH_MAX];
	int err = 0;

	if (!m)
		return -ENOMEM;
	m->version = 1;
	m->slot = info->slot;
	m->probe_kind = info->kind;
	m->offset_hi = info->f.offset >> 32;
	m->dev = info->dev;
	m->ino = info->ino;
	snprintf(m->category, sizeof(m->category), "%s", info->category);
	snprintf(m->spec, sizeof(m->spec), "%s", info->spec);
	if (bpf_map_update_elem(meta_fd, &info->id, m, BPF_NOEXIST))
		err = -errno;
	link_pin_path(info->id, path, sizeof(path));
	if (!err && bpf_obj_pin(fd, path)) {
		err = -errno;
		bpf_map_delete_elem(meta_fd, &info->id);
	}
	free(m);
	return err;
}

void pin_unlink(__u32 id)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	char path[PATH_MAX];
	int i, fd;

	link_pin_path(id, path, sizeof(path));
	unlink(path);
	bpf_map_delete_elem(meta_fd, &id);
	/* the kernel releases an unpinned link from a work queue */
	for (i = 0; i < 500; i++) {
		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			return;
		close(fd);
		nanosleep(&tick, NULL);
	}
}

/* Adopt DIR/link_ID; -errno with a log line when it is left alone. */
static int adopt_one(const char *name)
{
	struct owned_info *own = calloc(1, sizeof(*own));
	struct pin_meta *m = malloc(sizeof(*m));
	char path[PATH_MAX];
	int fd = -1, err = own && m ? 0 : -ENOMEM;

	snprintf(path, sizeof(path), "%s/%s", pin_root, name);
	if (!err && (fd = bpf_obj_get(path)) < 0)
		err = -errno;
	if (!err)
		err = link_info_read_fd(fd, &own->f, sizeof(own->f.name));
	if (!err && own->f.link_type != LINK_TYPE_PERF_EVENT)
		err = -EINVAL;
	if (!err && bpf_map_lookup_elem(meta_fd, &own->f.id, m))
		err = -ENOENT;
	if (!err && m->slot > 0)
		err = counter_slot_claim(daemon_state.counter, m->slot);
	if (!err) {
		own->id = own->f.id;
		own->slot = m->slot;
		own->kind = m->probe_kind;
		own->f.offset |= (__u64)m->offset_hi << 32;
		own->dev = m->dev;
		own->ino = m->ino;
		snprintf(own->category, sizeof(own->category), "%s",
			 m->category);
		snprintf(own->spec, sizeof(own->spec), "%s", m->spec);
		err = owned_add(own, -1);
	}
	if (err)
		log_msg(LOG_WARNING, "pin_dir: leaving %s alone: %s", path,
			err == -EINVAL ? "not a perf-event link" :
			err == -ENOENT ? "no record of it (damaged entry)" :
					 strerror(-err));
	if (fd >= 0)
		close(fd);
	free(own);
	free(m);
	return err;
}

int pin_adopt(void)
{
	DIR *d = opendir(pin_root);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "link_", 5) == 0) {
			n += adopt_one(e->d_name) == 0;
		} else if (e->d_name[0] != '.' && strcmp(e->d_name, "hits") &&
			   strcmp(e->d_name, "meta")) {
			log_msg(LOG_WARNING, "pin_dir: leaving %s/%s alone: "
					     "not made by bpflinkfs",
				pin_root, e->d_name);
		}
	}
	closedir(d);
	if (n)
		log_msg(LOG_INFO, "pin_dir: adopted %d link(s) from %s", n,
			pin_root);
	return n;
}
