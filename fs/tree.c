// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE low-level operations. Inode numbers are computed, never stored:
 * (link id << 8) | (1 + index into link_files[]) for a link's files,
 * (link id << 8) for its directory, and id 0 for the root and its files.
 * A file whose content depends on the reader (addr, the tables) has two
 * inodes, bit 7 set for readers who see kernel addresses: the page cache,
 * which splice and sendfile read from, is per inode, so one class of
 * reader never reads what was rendered for the other.
 * attached/ has an inode space of its own, bit 63 set (attached_fs.h):
 * link inodes never reach bit 40, so the two cannot collide.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "access.h"
#include "attached_fs.h"
#include "control.h"
#include "daemon.h"
#include "owned.h"
#include "render.h"
#include "tables.h"
#include "fmt.h"
#include "links.h"
#include "handles.h"
#include "tree.h"

#define INO(id, idx) ((fuse_ino_t)(id) << 8 | (idx))
#define INO_ID(ino) ((__u32)((ino) >> 8))
#define INO_IDX(ino) ((unsigned int)((ino)&0x7f))
#define INO_SEES 0x80u
#define INO_SEES_ADDRS(ino) (((ino)&INO_SEES) != 0)
#define ROOT_FILE_BASE 2
/*
 * The root's files keep their inode while mounted, so the kernel may keep
 * their dentries (control's excepted, see below). Attributes always have
 * a timeout of 0: sizes and the root's link count follow the content
 * (DESIGN 2.1), and so do the dentries of reader-dependent files.
 */
#define ROOT_TIMEOUT 86400.0
/*
 * control is the exception: each LOOKUP of it answers a new node id,
 * INO(generation, CONTROL_NODE), so that each open has an inode of its
 * own. The kernel serialises the writes to one inode (its i_rwsem), and a
 * write request may take long (a large ELF file to resolve): writers on
 * other handles must not wait for it. Its attributes, st_ino included,
 * are control's; its dentry has a timeout of 0, so every path walk looks
 * it up again. (CONTROL_NODE is an index no link file has.)
 */
#define CONTROL_NODE 0x7fu
#define INO_CONTROL INO(0, ROOT_FILE_BASE + RF_CONTROL)

enum root_file_id { RF_CONTROL, RF_ERROR_LOG, RF_FEATURES, RF_LINKS, RF_JSON };

struct root_file {
	const char *name;
	mode_t mode;
	char *(*render)(const struct reader *r, size_t *len);
};

static char *render_error_log(const struct reader *r, size_t *len)
{
	return error_log_render(len);
}

static char *render_features_file(const struct reader *r, size_t *len)
{
	return render_features(len);
}

static const struct root_file root_files[] = {
	[RF_CONTROL] = {"control", 0600, NULL},
	[RF_ERROR_LOG] = {"error_log", 0644, render_error_log},
	[RF_FEATURES] = {"features", 0444, render_features_file},
	[RF_LINKS] = {"links", 0444, render_links_table},
	[RF_JSON] = {"links.json", 0444, render_links_json},
};
#define ROOT_FILE_COUNT (sizeof(root_files) / sizeof(root_files[0]))

struct open_file {
	struct control_handle *control; /* control only */
	bool error_log;
	char *buf;
	size_t len;
};

struct dir_entry {
	char name[16];
	fuse_ino_t ino;
	mode_t mode;
};

struct open_dir {
	struct dir_entry *entries;
	size_t len;
};

static time_t mount_time;

/*
 * Every file reports the length of its value as rendered now: readers that
 * copy through splice or sendfile (busybox and Rust coreutils cat,
 * Python's shutil) take from the page cache up to st_size, and tar and
 * rsync read st_size bytes. Each open drops the page cache (keep_cache
 * 0), so a new open reads a new value.
 */
static void attr_fill(const struct daemon *d, struct stat *st, fuse_ino_t ino,
		      mode_t mode, off_t size)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_mode = mode;
	/* control stays root's alone, whatever uid=/umask= say */
	if (ino != INO_CONTROL) {
		st->st_mode = mode & ~(d->umask & 0777);
		st->st_uid = d->uid;
		st->st_gid = d->gid;
	}
	st->st_nlink = S_ISDIR(mode) ? 2 : 1;
	st->st_size = size;
	st->st_blocks = (size + 511) / 512; /* not sparse: no SEEK_HOLE games */
	st->st_blksize = 4096;
	st->st_atime = st->st_mtime = st->st_ctime = mount_time;
}

static bool file_is_volatile(size_t i)
{
	return link_files[i].flags & (LF_LIVE | LF_READER);
}

/* addr, and the tables with their addr column */
static bool ino_reader_dependent(fuse_ino_t ino)
{
	unsigned int idx = INO_IDX(ino);

	if (attached_is_ino(ino))
		return attached_reader_dependent(ino);
	if (INO_ID(ino) == 0)
		return idx == ROOT_FILE_BASE + RF_LINKS ||
		       idx == ROOT_FILE_BASE + RF_JSON;
	return idx >= 1 && idx <= link_file_count &&
	       link_files[idx - 1].flags & LF_READER;
}

/*
 * The reader class of a request for @ino: the inode's class, but never
 * more than the reader may see. -EACCES for a reader who holds the inode
 * of the other class (only a race or a handle trick reaches that).
 */
static int ino_reader(fuse_req_t req, fuse_ino_t ino, struct reader *r)
{
	r->sees_addrs = false;
	if (!INO_SEES_ADDRS(ino))
		return 0;
	if (!reader_may_see_addrs(fuse_req_ctx(req)->pid))
		return -EACCES;
	r->sees_addrs = true;
	return 0;
}

/* The length of root file @rf as it would read now. */
static int root_file_size(size_t rf, bool sees_addrs, off_t *size)
{
	struct reader r = {sees_addrs};
	size_t len = 0;
	char *buf;

	if (rf == RF_CONTROL)
		buf = owned_list(&len);
	else
		buf = root_files[rf].render(&r, &len);
	if (!buf)
		return errno ? -errno : -ENOMEM;
	free(buf);
	*size = len;
	return 0;
}

/* The root's st_nlink: 2, and one for each link directory. */
static int root_stat(const struct daemon *d, struct stat *st)
{
	__u32 *ids = NULL;
	int n = listed_link_ids(&ids);

	free(ids);
	if (n < 0)
		return n;
	attr_fill(d, st, FUSE_ROOT_ID, S_IFDIR | 0755, 0);
	st->st_nlink = 2 + n + 1; /* attached/ */
	return 0;
}

/* The inode that @ino stands for: control for each of control's nodes. */
static fuse_ino_t ino_canon(fuse_ino_t ino)
{
	return INO_IDX(ino) == CONTROL_NODE ? INO_CONTROL : ino;
}

/* A node id for one LOOKUP of control, never 0. */
static fuse_ino_t control_node(void)
{
	static uint32_t generation;
	uint32_t g;

	do
		g = __atomic_add_fetch(&generation, 1, __ATOMIC_RELAXED);
	while (!g);
	return INO(g, CONTROL_NODE);
}

/* Attributes of an inode of attached/, asked of the kernel now. */
static int attached_stat(const struct daemon *d, fuse_ino_t ino,
			 struct stat *st)
{
	mode_t mode;
	off_t size;
	nlink_t nlink;
	int err = attached_attr(d->attached, ino, INO_SEES_ADDRS(ino), &mode,
				&size, &nlink);

	if (!err) {
		attr_fill(d, st, ino, mode, size);
		st->st_nlink = nlink;
	}
	return err;
}

/* Attributes of @ino, checked against the kernel now. */
static int ino_stat(const struct daemon *d, fuse_ino_t ino, struct stat *st)
{
	__u32 id = INO_ID(ino);
	unsigned int idx = INO_IDX(ino);
	struct link_view *v;
	int n = 0;

	off_t size = 0;

	if (ino == FUSE_ROOT_ID)
		return root_stat(d, st);
	if (attached_is_ino(ino))
		return attached_stat(d, ino, st);
	if (id == 0) {
		if (idx < ROOT_FILE_BASE ||
		    idx - ROOT_FILE_BASE >= ROOT_FILE_COUNT)
			return -ENOENT;
		n = root_file_size(idx - ROOT_FILE_BASE, INO_SEES_ADDRS(ino),
				   &size);
		if (!n)
			attr_fill(d, st, ino,
				  S_IFREG |
					  root_files[idx - ROOT_FILE_BASE].mode,
				  size);
		return n;
	}
	if (idx > link_file_count)
		return -ENOENT;
	v = malloc(sizeof(*v));
	n = v ? link_view_load(id, v) : -ENOMEM;
	if (!n && idx == 0) {
		attr_fill(d, st, ino, S_IFDIR | 0555, 0);
	} else if (!n) {
		struct reader r = {INO_SEES_ADDRS(ino)};

		char *value = NULL;

		v->reader = &r;
		if (!link_file_applies(idx - 1, v))
			n = -ENOENT;
		else
			n = link_file_render_alloc(idx - 1, v, &value);
		free(value);
		if (n >= 0) {
			attr_fill(d, st, ino, S_IFREG | 0444, n);
			n = 0;
		}
	}
	free(v);
	return n == -ENODATA ? -ENOENT : n;
}

/* A directory name that is a link id: digits, no leading zero. */
static __u32 parse_id(const char *name)
{
	unsigned long long v = 0;
	const char *p;

	if (name[0] < '1' || name[0] > '9' || strlen(name) > 10)
		return 0;
	for (p = name; *p; p++) {
		if (*p < '0' || *p > '9')
			return 0;
		v = v * 10 + (*p - '0');
	}
	return v > UINT32_MAX ? 0 : (__u32)v;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e = {0};
	size_t i;
	int err = -ENOENT;

	if (parent == FUSE_ROOT_ID) {
		for (i = 0; i < ROOT_FILE_COUNT; i++)
			if (strcmp(name, root_files[i].name) == 0)
				e.ino = INO(0, ROOT_FILE_BASE + i);
		if (!e.ino && parse_id(name))
			e.ino = INO(parse_id(name), 0);
		if (!strcmp(name, ATTACHED_DIR_NAME))
			e.ino = ATTACHED_DIR_INO;
	} else if (attached_is_ino(parent)) {
		err = attached_lookup(parent, name, &e.ino);
	} else if (INO_ID(parent) && INO_IDX(parent) == 0) {
		for (i = 0; i < link_file_count; i++)
			if (strcmp(name, link_files[i].name) == 0)
				e.ino = INO(INO_ID(parent), 1 + i);
	} else {
		err = -ENOTDIR;
	}
	if (e.ino && ino_reader_dependent(e.ino) &&
	    reader_may_see_addrs(fuse_req_ctx(req)->pid))
		e.ino |= INO_SEES;
	if (e.ino)
		err = ino_stat(fuse_req_userdata(req), e.ino, &e.attr);
	if (err) {
		fuse_reply_err(req, -err);
		return;
	}
	if (INO_ID(e.ino) == 0 && !ino_reader_dependent(e.ino) &&
	    !attached_is_ino(e.ino))
		e.entry_timeout = ROOT_TIMEOUT;
	if (e.ino == INO_CONTROL) {
		e.ino = control_node();
		e.entry_timeout = 0;
	}
	fuse_reply_entry(req, &e);
}

/* The size of what an open handle reads, or -1 when it has no fixed one. */
static off_t handle_size(struct fuse_file_info *fi)
{
	struct open_file *of = fi ? handle_get(fi->fh) : NULL;
	off_t size = -1;

	if (!of)
		return -1;
	if (!of->control && !of->error_log)
		size = of->len;
	handle_put(fi->fh);
	return size;
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	off_t size = handle_size(fi);
	struct stat st;
	int err = ino_stat(fuse_req_userdata(req), ino = ino_canon(ino), &st);

	if (!err && size >= 0) {
		st.st_size = size;
		st.st_blocks = (size + 511) / 512;
	}
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_attr(req, &st, 0);
}

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
static int root_snapshot(struct open_dir *d, size_t *cap)
{
	__u32 *ids = NULL;
	char name[16];
	size_t i;
	int n, err = 0;

	for (i = 0; !err && i < ROOT_FILE_COUNT; i++)
		err = dir_add(d, cap, root_files[i].name,
			      INO(0, ROOT_FILE_BASE + i), S_IFREG);
	if (!err)
		err = dir_add(d, cap, ATTACHED_DIR_NAME, ATTACHED_DIR_INO,
			      S_IFDIR);
	n = err ? err : listed_link_ids(&ids);
	for (i = 0; n > 0 && !err && i < (size_t)n; i++) {
		fmt_u64(name, sizeof(name), ids[i], 0);
		err = dir_add(d, cap, name, INO(ids[i], 0), S_IFDIR);
	}
	free(ids);
	return err ? err : n < 0 ? n : 0;
}

static int link_dir_snapshot(__u32 id, struct open_dir *d, size_t *cap)
{
	struct link_view *v = malloc(sizeof(*v));
	struct reader r = {false};
	size_t i;
	int err = v ? link_view_load(id, v) : -ENOMEM;

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

static void open_file_free(void *obj)
{
	struct open_file *of = obj;

	/* a last line nobody's close ran: its error goes to error_log only */
	if (of->control)
		control_flush(of->control, 0, true);
	control_release(of->control);
	free(of->buf);
	free(of);
}

/*
 * Reply to an OPEN or OPENDIR: @err (-errno) when it failed, else register
 * @obj as its handle (@destroy frees @obj, also when it fails).
 */
static void reply_open(fuse_req_t req, struct fuse_file_info *fi, int err,
		       void *obj, void (*destroy)(void *obj))
{
	if (!err) {
		fi->fh = handle_new(obj, destroy);
		err = fi->fh ? 0 : -ENOMEM;
	}
	if (err) {
		if (obj)
			destroy(obj);
		fuse_reply_err(req, -err);
		return;
	}
	fuse_reply_open(req, fi);
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct open_dir *d = calloc(1, sizeof(*d));
	size_t cap = 0;
	int err = d ? 0 : -ENOMEM;

	if (!err)
		err = dir_add(d, &cap, ".", ino, S_IFDIR);
	if (!err)
		err = dir_add(d, &cap, "..", FUSE_ROOT_ID, S_IFDIR);
	if (!err && ino == FUSE_ROOT_ID)
		err = root_snapshot(d, &cap);
	else if (!err && attached_is_ino(ino))
		err = attached_snapshot(req, ino, d, &cap);
	else if (!err && INO_ID(ino) && INO_IDX(ino) == 0)
		err = link_dir_snapshot(INO_ID(ino), d, &cap);
	else if (!err)
		err = -ENOTDIR;
	fi->cache_readdir = 0;
	reply_open(req, fi, err, d, open_dir_free);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct open_dir *d = handle_get(fi->fh);
	char *buf = d ? malloc(size) : NULL;
	size_t used = 0;
	struct stat st;

	if (!buf) {
		if (d)
			handle_put(fi->fh);
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
	handle_put(fi->fh);
}

static void op_releasedir(fuse_req_t req, fuse_ino_t ino,
			  struct fuse_file_info *fi)
{
	handle_close(fi->fh);
	fuse_reply_err(req, 0);
}

static struct open_file *root_file_open(fuse_req_t req, fuse_ino_t ino,
					struct fuse_file_info *fi, int *err)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct open_file *of = calloc(1, sizeof(*of));
	size_t rf = INO_IDX(ino) - ROOT_FILE_BASE;
	int acc = fi->flags & O_ACCMODE;
	struct reader r;

	*err = of ? 0 : -ENOMEM;
	if (*err)
		return NULL;
	if (rf == RF_CONTROL) {
		of->control = control_open();
		*err = ctx->uid == 0 ? (of->control ? 0 : -ENOMEM) : -EACCES;
		fi->nonseekable = 1;
	} else if (acc != O_RDONLY && (rf != RF_ERROR_LOG || ctx->uid != 0)) {
		*err = -EACCES; /* root bypasses mode bits: refuse here */
	} else if (acc != O_RDONLY) {
		of->error_log = true;
	} else if (!(*err = ino_reader(req, ino, &r))) {
		of->buf = root_files[rf].render(&r, &of->len);
		*err = of->buf ? 0 : -errno;
	}
	if (*err) {
		control_release(of->control);
		free(of);
		return NULL;
	}
	return of;
}

static struct open_file *link_file_open(fuse_req_t req, fuse_ino_t ino,
					struct fuse_file_info *fi, int *err)
{
	struct open_file *of = calloc(1, sizeof(*of));
	struct link_view *v = malloc(sizeof(*v));
	unsigned int idx = INO_IDX(ino) - 1;
	struct reader r;
	int n;

	of = of && v ? of : (free(of), NULL);
	*err = of ? 0 : -ENOMEM;
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		*err = -EACCES;
	if (!*err)
		*err = link_view_load(INO_ID(ino), v);
	if (!*err)
		*err = ino_reader(req, ino, &r);
	if (!*err) {
		v->reader = &r;
		n = link_file_render_alloc(idx, v, &of->buf);
		*err = n == -ENODATA ? -ENOENT : n < 0 ? n : 0;
		of->len = n;
	}
	fi->direct_io = file_is_volatile(idx);
	free(v);
	if (*err && of) {
		free(of->buf);
		free(of);
		of = NULL;
	}
	return of;
}

/* A file of attached/: read-only, reader-dependent where addr is */
static struct open_file *attached_file_open(fuse_req_t req, fuse_ino_t ino,
					    struct fuse_file_info *fi, int *err)
{
	const struct daemon *d = fuse_req_userdata(req);
	struct open_file *of = calloc(1, sizeof(*of));
	struct reader r;

	*err = of ? 0 : -ENOMEM;
	if (!*err && (fi->flags & O_ACCMODE) != O_RDONLY)
		*err = -EACCES;
	if (!*err)
		*err = ino_reader(req, ino, &r);
	if (!*err)
		*err = attached_render(d->attached, ino, r.sees_addrs, &of->buf,
				       &of->len);
	fi->direct_io = 1; /* always current; the tables depend on the reader */
	if (*err) {
		free(of);
		return NULL;
	}
	return of;
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct open_file *of = NULL;
	unsigned int idx = INO_IDX(ino = ino_canon(ino));
	int err = -ENOENT;

	if (attached_is_ino(ino)) { /* first: INO_ID() is 0 for some */
		of = attached_file_open(req, ino, fi, &err);
	} else if (INO_ID(ino) == 0 && idx >= ROOT_FILE_BASE &&
		   idx - ROOT_FILE_BASE < ROOT_FILE_COUNT) {
		of = root_file_open(req, ino, fi, &err);
		fi->direct_io = 1;
	} else if (INO_ID(ino) && idx >= 1 && idx <= link_file_count) {
		of = link_file_open(req, ino, fi, &err);
	} else if (ino == FUSE_ROOT_ID || (INO_ID(ino) && idx == 0)) {
		err = -EISDIR;
	}
	fi->keep_cache = 0;
	reply_open(req, fi, of ? 0 : err, of, open_file_free);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct open_file *of = handle_get(fi->fh);
	ssize_t n;
	char *buf;

	if (!of) {
		fuse_reply_err(req, EBADF);
		return;
	}
	if (of->control) {
		buf = malloc(size ? size : 1);
		n = buf ? control_read(of->control, buf, size, off) : -ENOMEM;
		if (n < 0)
			fuse_reply_err(req, -n);
		else
			fuse_reply_buf(req, buf, n);
		free(buf);
	} else if (of->error_log || off < 0 || (size_t)off >= of->len) {
		fuse_reply_buf(req, NULL, 0);
	} else {
		n = of->len - off < size ? of->len - off : size;
		fuse_reply_buf(req, of->buf + off, n);
	}
	handle_put(fi->fh);
}

/*
 * Creating and removing links asks what the kernel asks (DESIGN 5): a
 * writer without it changes nothing, and error_log says why.
 */
static ssize_t control_write_checked(struct control_handle *h, const char *data,
				     size_t size, pid_t pid)
{
	static const char msg[] =
		"creating or removing links needs CAP_SYS_ADMIN, or CAP_BPF "
		"with CAP_PERFMON, in the initial user namespace";
	const char *nl = memchr(data, '\n', size);

	if (writer_may_attach(pid))
		return control_write(h, data, size, pid);
	error_log_add(-EPERM, 1, msg, data, nl ? (size_t)(nl - data) : size, 0);
	return -EPERM;
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *data,
		     size_t size, off_t off, struct fuse_file_info *fi)
{
	struct open_file *of = handle_get(fi->fh);
	ssize_t n;

	if (!of) {
		n = -EBADF;
	} else if (of->control) {
		n = control_write_checked(of->control, data, size,
					  fuse_req_ctx(req)->pid);
	} else if (of->error_log) {
		/* an empty line (or nothing) clears the log */
		n = size == 0 || (size == 1 && data[0] == '\n') ? (ssize_t)size
								: -EINVAL;
		if (n >= 0)
			error_log_clear();
	} else {
		n = -EACCES;
	}
	if (of)
		handle_put(fi->fh);
	if (n < 0)
		fuse_reply_err(req, -n);
	else
		fuse_reply_write(req, n);
}

static void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct open_file *of = handle_get(fi->fh);
	int err = 0;

	if (of && of->control)
		err = control_flush(of->control, fuse_req_ctx(req)->pid, false);
	if (of)
		handle_put(fi->fh);
	fuse_reply_err(req, -err);
}

static void op_release(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	handle_close(fi->fh);
	fuse_reply_err(req, 0);
}

/* Only truncation of control or error_log to 0 (O_TRUNC) is accepted. */
static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int to_set, struct fuse_file_info *fi)
{
	struct stat st;
	int err = ino_stat(fuse_req_userdata(req), ino = ino_canon(ino), &st);
	bool trunc_ok = ino == INO_CONTROL ||
			ino == INO(0, ROOT_FILE_BASE + RF_ERROR_LOG);

	if (!err && (to_set & ~(FUSE_SET_ATTR_SIZE | FUSE_SET_ATTR_MTIME |
				FUSE_SET_ATTR_MTIME_NOW | FUSE_SET_ATTR_CTIME)))
		err = -EPERM;
	else if (!err && to_set & FUSE_SET_ATTR_SIZE &&
		 (!trunc_ok || attr->st_size != 0 ||
		  fuse_req_ctx(req)->uid != 0))
		err = -EACCES;
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_attr(req, &st,
				INO_ID(ino) || attached_is_ino(ino) ? 0
								    : ROOT_TIMEOUT);
}

static void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	__u32 id = parse_id(name);
	fuse_ino_t ino;
	struct stat st;
	int err;

	if (attached_is_ino(parent) || (parent == FUSE_ROOT_ID &&
					!strcmp(name, ATTACHED_DIR_NAME))) {
		/* removing a bare probe is its holder's business */
		err = parent == FUSE_ROOT_ID ? 0
					     : attached_lookup(parent, name, &ino);
		if (!err && parent != FUSE_ROOT_ID)
			err = ino_stat(fuse_req_userdata(req), ino, &st);
		err = err ? err : -EPERM;
	} else if (parent != FUSE_ROOT_ID || !id)
		err = -ENOENT;
	else if (fuse_req_ctx(req)->uid != 0)
		err = -EACCES;
	else if (!writer_may_attach(fuse_req_ctx(req)->pid))
		err = -EPERM;
	else
		err = owned_remove(id);
	fuse_reply_err(req, -err);
}

static void op_refuse(fuse_req_t req)
{
	fuse_reply_err(req, EPERM);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t p, const char *n, mode_t m)
{
	op_refuse(req);
}

static void op_mknod(fuse_req_t req, fuse_ino_t p, const char *n, mode_t m,
		     dev_t rdev)
{
	op_refuse(req);
}

static void op_unlink(fuse_req_t req, fuse_ino_t p, const char *n)
{
	op_refuse(req);
}

static void op_create(fuse_req_t req, fuse_ino_t p, const char *n, mode_t m,
		      struct fuse_file_info *fi)
{
	op_refuse(req);
}

static void op_rename(fuse_req_t req, fuse_ino_t p, const char *n,
		      fuse_ino_t np, const char *nn, unsigned int flags)
{
	op_refuse(req);
}

static void op_symlink(fuse_req_t req, const char *target, fuse_ino_t p,
		       const char *n)
{
	op_refuse(req);
}

static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t np,
		    const char *nn)
{
	op_refuse(req);
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	mount_time = time(NULL);
	/* the kernel then splits large writes into 1 MiB requests */
	conn->max_write = 1u << 20;
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
}

const struct fuse_lowlevel_ops tree_ops = {
	.init = op_init,
	.lookup = op_lookup,
	.getattr = op_getattr,
	.setattr = op_setattr,
	.opendir = op_opendir,
	.readdir = op_readdir,
	.releasedir = op_releasedir,
	.open = op_open,
	.read = op_read,
	.write = op_write,
	.flush = op_flush,
	.release = op_release,
	.rmdir = op_rmdir,
	.mkdir = op_mkdir,
	.mknod = op_mknod,
	.unlink = op_unlink,
	.create = op_create,
	.rename = op_rename,
	.symlink = op_symlink,
	.link = op_link,
};
