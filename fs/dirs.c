// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tree's directories: the root (its files, attached/, one directory
 * per link now), each link's directory (the files that apply to it) and
 * attached/. A listing is taken whole at OPENDIR, so that readdir's
 * offsets stay valid while links come and go.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "attached_fs.h"
#include "daemon.h"
#include "dirs.h"
#include "fmt.h"
#include "handles.h"
#include "ino.h"
#include "root_files.h"
#include "link_list.h"
#include "render.h"

struct dir_entry {
	/* the longest name: prog_recursion_misses and its NUL */
	char name[32];
	fuse_ino_t ino;
	mode_t mode;
};

struct open_dir {
	struct dir_entry *entries;
	size_t len;
};

static int dir_add(struct open_dir *d, size_t *cap, const char *name,
		   fuse_ino_t ino, mode_t mode)
{
	if (d->len == *cap) {
		void *p = realloc(d->entries, (*cap = *cap ? *cap * 2 : 32) *
						      sizeof(*d->entries));

		if (!p)
			return -ENOMEM;
		d->entries = p;
	}
	fmt_put(d->entries[d->len].name, sizeof(d->entries[0].name), name,
		strlen(name), 0);
	d->entries[d->len].ino = ino;
	d->entries[d->len++].mode = mode;
	return 0;
}

/* The root: its files, then one directory per perf link now. */
static int root_snapshot(struct owned *reg, struct open_dir *d, size_t *cap)
{
	__u32 *ids = NULL;
	char name[16];
	size_t i;
	int n, err = 0;

	for (i = 0; !err && i < RF_COUNT; i++)
		err = dir_add(d, cap, root_file_name(i),
			      INO(0, ROOT_FILE_BASE + i), S_IFREG);
	if (!err)
		err = dir_add(d, cap, ATTACHED_DIR_NAME, ATTACHED_DIR_INO,
			      S_IFDIR);
	n = err ? err : listed_link_ids(reg, &ids);
	for (i = 0; n > 0 && !err && i < (size_t)n; i++) {
		fmt_u64(name, sizeof(name), ids[i], 0);
		err = dir_add(d, cap, name, INO(ids[i], 0), S_IFDIR);
	}
	free(ids);
	return err ? err : n < 0 ? n : 0;
}

static int link_dir_snapshot(struct owned *reg, __u32 id, struct open_dir *d,
			     size_t *cap)
{
	struct link_view *v = malloc(sizeof(*v));
	struct reader r = {false};
	size_t i;
	int err = v ? link_view_load(reg, id, v) : -ENOMEM;

	if (!err)
		v->reader = &r;
	for (i = 0; !err && i < link_file_count; i++)
		if (link_file_applies(i, v))
			err = dir_add(d, cap, link_files[i].name,
				      INO(id, 1 + i), S_IFREG);
	free(v);
	return err;
}

struct dir_sink {
	struct open_dir *d;
	size_t *cap;
};

static int dir_sink_add(void *ctx, const char *name, fuse_ino_t ino,
			mode_t mode)
{
	struct dir_sink *sink = ctx;

	return dir_add(sink->d, sink->cap, name, ino, mode);
}

static int attached_snapshot(fuse_req_t req, fuse_ino_t ino, struct open_dir *d,
			     size_t *cap)
{
	const struct daemon *dm = fuse_req_userdata(req);
	struct dir_sink sink = {d, cap};

	return attached_list(dm->attached, ino, dir_sink_add, &sink);
}

static void open_dir_free(void *obj)
{
	struct open_dir *d = obj;

	free(d->entries);
	free(d);
}

void dirs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct open_dir *d = calloc(1, sizeof(*d));
	size_t cap = 0;
	int err = d ? 0 : -ENOMEM;

	if (!err)
		err = dir_add(d, &cap, ".", ino, S_IFDIR);
	if (!err)
		err = dir_add(d, &cap, "..", FUSE_ROOT_ID, S_IFDIR);
	if (!err && ino == FUSE_ROOT_ID)
		err = root_snapshot(req_owned(req), d, &cap);
	else if (!err && attached_is_ino(ino))
		err = attached_snapshot(req, ino, d, &cap);
	else if (!err && INO_ID(ino) && INO_IDX(ino) == 0)
		err = link_dir_snapshot(req_owned(req), INO_ID(ino), d, &cap);
	else if (!err)
		err = -ENOTDIR;
	fi->cache_readdir = 0;
	reply_open(req, fi, err, d, open_dir_free);
}

void dirs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		  struct fuse_file_info *fi)
{
	struct handle_table *ht = req_handles(req);
	struct open_dir *d = handle_get(ht, fi->fh);
	char *buf = d ? malloc(size) : NULL;
	size_t used = 0;
	struct stat st;

	if (!buf) {
		if (d)
			handle_put(ht, fi->fh);
		fuse_reply_err(req, d ? ENOMEM : EBADF);
		return;
	}
	for (; off >= 0 && (size_t)off < d->len; off++) {
		size_t n;

		memset(&st, 0, sizeof(st));
		st.st_ino = d->entries[off].ino;
		st.st_mode = d->entries[off].mode;
		n = fuse_add_direntry(req, buf + used, size - used,
				      d->entries[off].name, &st, off + 1);
		if (n > size - used)
			break;
		used += n;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
	handle_put(ht, fi->fh);
}

void dirs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	handle_close(req_handles(req), fi->fh);
	fuse_reply_err(req, 0);
}

/* Nothing in the tree is made, renamed or linked by hand: EPERM. */
static void refuse(fuse_req_t req)
{
	fuse_reply_err(req, EPERM);
}

void dirs_mkdir(fuse_req_t req, fuse_ino_t p, const char *n, mode_t m)
{
	refuse(req);
}

void dirs_mknod(fuse_req_t req, fuse_ino_t p, const char *n, mode_t m,
		dev_t rdev)
{
	refuse(req);
}

void dirs_unlink(fuse_req_t req, fuse_ino_t p, const char *n)
{
	refuse(req);
}

void dirs_create(fuse_req_t req, fuse_ino_t p, const char *n, mode_t m,
		 struct fuse_file_info *fi)
{
	refuse(req);
}

void dirs_rename(fuse_req_t req, fuse_ino_t p, const char *n, fuse_ino_t np,
		 const char *nn, unsigned int flags)
{
	refuse(req);
}

void dirs_symlink(fuse_req_t req, const char *target, fuse_ino_t p,
		  const char *n)
{
	refuse(req);
}

void dirs_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t np, const char *nn)
{
	refuse(req);
}
