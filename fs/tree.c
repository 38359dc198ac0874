// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE low-level operations on the tree's files; directories are in
 * dirs.c, the inode scheme in ino.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "access.h"
#include "attached_fs.h"
#include "control.h"
#include "daemon.h"
#include "dirs.h"
#include "ino.h"
#include "events.h"
#include "top.h"
#include "owned.h"
#include "render.h"
#include "tables.h"
#include "metrics.h"
#include "fmt.h"
#include "link_list.h"
#include "handles.h"
#include "root_files.h"
#include "tree.h"
#include "foreign.h"

struct open_file {
	struct control_handle *control; /* control only */
	struct event_stream *stream;	/* events only */
	struct top_stream *top;		/* top only */
	bool error_log;
	char *buf;
	size_t len;
	struct timespec made; /* when buf was rendered (live root files) */
	fuse_ino_t ino;	      /* the file it was opened on (canonical) */
};

/*
 * Answer @req with the error @err (a positive errno). FUSE refuses an errno
 * past 511 (kernel-internal values such as ENOTSUPP) and leaves the caller
 * waiting for ever; one that slipped through the library is EOPNOTSUPP.
 */
static void reply_err(fuse_req_t req, int err)
{
	fuse_reply_err(req, err > 0 && err < 512 ? err : err ? EOPNOTSUPP : 0);
}

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
	st->st_atime = st->st_mtime = st->st_ctime = d->mount_time;
}

static bool file_is_volatile(size_t i)
{
	return link_files[i].flags & (LF_LIVE | LF_READER);
}

/* The mode of file @ino: a root file's by its table, a link file's 0444 */
static mode_t file_mode(fuse_ino_t ino)
{
	if (INO_ID(ino) == 0 && !attached_is_ino(ino))
		return S_IFREG | root_file_mode(INO_IDX(ino) - ROOT_FILE_BASE);
	return S_IFREG | 0444;
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

/* The root's st_nlink: 2, and one for each link directory. */
static int root_stat(const struct daemon *d, struct stat *st)
{
	__u32 *ids = NULL;
	int n = listed_link_ids(d->owned, &ids);

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

/*
 * A node id for one LOOKUP of control, never 0. The counter is
 * process-wide: an id unique in the process is unique in its mount, and
 * it holds no other state.
 */
static fuse_ino_t control_node(void)
{
	static uint32_t generation;
	uint32_t g;

	do
		g = __atomic_add_fetch(&generation, 1, __ATOMIC_RELAXED);
	while (!g);
	return INO(g, CONTROL_NODE);
}

/*
 * Attributes of an inode of attached/, asked of the kernel now; a file's
 * render goes to the handoff for thread @tid's open.
 */
static int attached_stat(struct daemon *d, fuse_ino_t ino, pid_t tid,
			 struct stat *st)
{
	mode_t mode;
	off_t size;
	nlink_t nlink;
	char *buf = NULL;
	int err = attached_attr(d->attached, ino, INO_SEES_ADDRS(ino), &mode,
				&size, &nlink, &buf);

	if (!err) {
		attr_fill(d, st, ino, mode, size);
		st->st_nlink = nlink;
		handoff_put_render(&d->handoff, ino, tid, buf, size);
	} else {
		free(buf);
	}
	return err;
}

/*
 * Attributes of root file @ino, its value rendered now; the render goes
 * to the handoff for thread @tid's open.
 */
static int root_file_stat(struct daemon *d, fuse_ino_t ino, pid_t tid,
			  struct stat *st)
{
	size_t rf = INO_IDX(ino) - ROOT_FILE_BASE, len;
	struct timespec made;
	char *buf;
	int err;

	if (INO_IDX(ino) < ROOT_FILE_BASE || rf >= RF_COUNT)
		return -ENOENT;
	clock_gettime(CLOCK_REALTIME, &made);
	err = root_file_render(d, rf, INO_SEES_ADDRS(ino), &buf, &len);
	if (err)
		return err;
	attr_fill(d, st, ino, S_IFREG | root_file_mode(rf), len);
	if (root_file_live(rf))
		st->st_mtim = made;
	/* a stream: root's alone, whatever uid=, gid=, umask= say */
	if (rf == RF_TOP) {
		st->st_mode = S_IFREG | 0400;
		st->st_uid = st->st_gid = 0;
	}
	/* control and top read from the handle, not a rendered value; a
	 * root file whose dentry the kernel keeps may be opened without a
	 * LOOKUP of its own, so its render goes to no later open */
	if (rf == RF_CONTROL || rf == RF_TOP || !ino_reader_dependent(ino))
		free(buf);
	else
		handoff_put_render(&d->handoff, ino, tid, buf, len);
	return 0;
}

/*
 * A link's file (not its directory) whose value does not depend on the
 * reader. Which files a link id has is fixed for its life, and every path
 * walk to one looks the link's directory up again (timeout 0), which fails
 * once the link is gone: so the kernel may keep the file's dentry and skip
 * a LOOKUP (and its render) per name. Its attributes still time out at
 * once, so a stat asks for the size of the value as it is now; a file
 * that stops applying (symbol, when its ELF file is replaced) answers
 * that stat and any open with ENOENT, and a listing is always read anew.
 * An open of such a file need not come with a LOOKUP of its own, so no
 * render of a LOOKUP or GETATTR is handed to it (handoff.h): the open
 * renders the value anew.
 */
static bool link_file_may_keep_dentry(fuse_ino_t ino)
{
	return !attached_is_ino(ino) && INO_ID(ino) && INO_IDX(ino) &&
	       ino != INO_CONTROL && !ino_reader_dependent(ino);
}

/*
 * Attributes of @ino, checked against the kernel now. A file's value is
 * rendered for its size, and kept for the open of thread @tid that may
 * follow (handoff.h).
 */
static int ino_stat(struct daemon *d, fuse_ino_t ino, pid_t tid,
		    struct stat *st)
{
	__u32 id = INO_ID(ino);
	unsigned int idx = INO_IDX(ino);
	struct link_view *v;
	int n = 0;

	if (ino == FUSE_ROOT_ID)
		return root_stat(d, st);
	if (attached_is_ino(ino))
		return attached_stat(d, ino, tid, st);
	if (id == 0)
		return root_file_stat(d, ino, tid, st);
	if (idx > link_file_count)
		return -ENOENT;
	v = malloc(sizeof(*v));
	n = v ? link_view_load(d->owned, id, v) : -ENOMEM;
	/* an own link is there while it is owned: rmdir needs no fd */
	if ((n == -EMFILE || n == -ENFILE) && idx == 0 &&
	    owned_get(d->owned, id, &v->own) == 0)
		n = 0;
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
		if (n >= 0) {
			attr_fill(d, st, ino, file_mode(ino), n);
			if (!(link_files[idx - 1].flags & LF_STREAM) &&
			    !link_file_may_keep_dentry(ino)) {
				handoff_put_render(&d->handoff, ino, tid, value,
						   n);
				value = NULL;
			}
			n = 0;
		}
		free(value);
		/* a stream: root's alone, whatever uid=, gid=, umask= say */
		if (n == 0 && link_files[idx - 1].flags & LF_STREAM) {
			st->st_mode = S_IFREG | 0400;
			st->st_uid = st->st_gid = 0;
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
		for (i = 0; i < RF_COUNT; i++)
			if (strcmp(name, root_file_name(i)) == 0)
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
		err = ino_stat(fuse_req_userdata(req), e.ino,
			       fuse_req_ctx(req)->pid, &e.attr);
	if (err) {
		reply_err(req, -err);
		return;
	}
	/* attached/ too: it always exists (its link count is asked anew
	 * by stat, but a path walk through it need not count its entries) */
	if (INO_ID(e.ino) == 0 && !ino_reader_dependent(e.ino) &&
	    (!attached_is_ino(e.ino) || e.ino == ATTACHED_DIR_INO))
		e.entry_timeout = ROOT_TIMEOUT;
	if (link_file_may_keep_dentry(e.ino))
		e.entry_timeout = LINK_FILE_TIMEOUT;
	if (e.ino == INO_CONTROL) {
		e.ino = control_node();
		e.entry_timeout = 0;
	}
	fuse_reply_entry(req, &e);
}

/*
 * The size of what an open handle reads, or -1 when it has no fixed one;
 * in *made when it was rendered, if its file's mtime says so (else zero).
 */
static off_t handle_size(fuse_req_t req, struct fuse_file_info *fi,
			 struct timespec *made)
{
	struct handle_table *ht = req_handles(req);
	struct open_file *of = fi ? handle_get(ht, fi->fh) : NULL;
	off_t size = -1;

	*made = (struct timespec){0};
	if (!of)
		return -1;
	if (!of->control && !of->error_log && !of->stream) {
		size = of->len;
		*made = of->made;
	}
	handle_put(ht, fi->fh);
	return size;
}

static void open_file_free(void *obj);

/* Is @obj (a struct open_file: handle_find() asks only those) open on @ino
 * and holding a value? */
static bool opened_on(const void *obj, const void *ino)
{
	const struct open_file *of = obj;

	return of->ino == *(const fuse_ino_t *)ino && !of->control &&
	       !of->error_log && !of->stream && !of->top;
}

/*
 * A file whose link is gone, asked for by inode: a path would have failed
 * at its link directory's LOOKUP, so this is an fstat() of an fd still
 * open on it (the kernel does not say whose). As with a deleted regular
 * file, it answers with the value that handle holds, which read(2) still
 * returns. Return: 0 with @st filled, or -ENOENT when no handle is open.
 */
static int open_handle_stat(fuse_req_t req, fuse_ino_t ino, struct stat *st)
{
	struct handle_table *ht = req_handles(req);
	struct open_file *of;
	uint64_t fh =
		handle_find(ht, open_file_free, opened_on, &ino, (void **)&of);

	if (!fh)
		return -ENOENT;
	attr_fill(fuse_req_userdata(req), st, ino, file_mode(ino),
		  (off_t)of->len);
	if (of->made.tv_sec)
		st->st_mtim = of->made;
	handle_put(ht, fh);
	return 0;
}

/*
 * An fstat() of a file of which the reader holds a handle (@fi, or the
 * one its thread just opened: the kernel does not say which) is the size
 * of that handle's value, not of a new render.
 */
static void op_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct daemon *d = fuse_req_userdata(req);
	pid_t tid = fuse_req_ctx(req)->pid;
	struct timespec made;
	off_t size = handle_size(req, fi, &made);
	size_t len;
	struct stat st;
	int err;

	ino = ino_canon(ino);
	if (size < 0 && ino != INO_CONTROL &&
	    handoff_size(&d->handoff, ino, tid, &len, &made))
		size = (off_t)len;
	if (size >= 0) {
		attr_fill(d, &st, ino, file_mode(ino), size);
		if (made.tv_sec)
			st.st_mtim = made;
		fuse_reply_attr(req, &st, 0);
		return;
	}
	err = ino_stat(d, ino, tid, &st);
	if (err == -ENOENT)
		err = open_handle_stat(req, ino, &st);
	if (err)
		reply_err(req, -err);
	else
		fuse_reply_attr(req, &st, 0);
}

static void open_file_free(void *obj)
{
	struct open_file *of = obj;

	/* a last line nobody's close ran: its error goes to error_log only */
	if (of->control)
		control_flush(of->control, 0, true);
	control_release(of->control);
	event_stream_close(of->stream);
	top_stream_close(of->top);
	free(of->buf);
	free(of);
}

static struct open_file *root_file_open(fuse_req_t req, fuse_ino_t ino,
					struct fuse_file_info *fi, int *err)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct daemon *d = fuse_req_userdata(req);
	struct open_file *of = calloc(1, sizeof(*of));
	size_t rf = INO_IDX(ino) - ROOT_FILE_BASE;
	int acc = fi->flags & O_ACCMODE;
	struct reader r;

	*err = of ? 0 : -ENOMEM;
	if (*err)
		return NULL;
	if (rf == RF_CONTROL) {
		of->control = control_open(d->owned, d->errors);
		*err = ctx->uid == 0 ? (of->control ? 0 : -ENOMEM) : -EACCES;
		fi->nonseekable = 1;
	} else if (rf == RF_TOP) {
		*err = top_file_open(req, fi, d->top, &of->top);
	} else if (acc != O_RDONLY && (rf != RF_ERROR_LOG || ctx->uid != 0)) {
		*err = -EACCES; /* root bypasses mode bits: refuse here */
	} else if (acc != O_RDONLY) {
		of->error_log = true;
	} else if (!(*err = ino_reader(req, ino, &r))) {
		if (root_file_live(rf))
			clock_gettime(CLOCK_REALTIME, &of->made);
		of->buf = handoff_take_render(&d->handoff, ino, ctx->pid,
					      &of->len);
		*err = of->buf ? 0
			       : root_file_render(d, rf, r.sees_addrs, &of->buf,
						  &of->len);
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
	struct daemon *d = fuse_req_userdata(req);
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
		*err = ino_reader(req, ino, &r);
	/* the value this thread's LOOKUP just rendered for its size */
	if (!*err)
		of->buf = handoff_take_render(&d->handoff, ino,
					      fuse_req_ctx(req)->pid, &of->len);
	if (!*err && !of->buf)
		*err = link_view_load(d->owned, INO_ID(ino), v);
	if (!*err && !of->buf) {
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
	struct daemon *d = fuse_req_userdata(req);
	struct open_file *of = calloc(1, sizeof(*of));
	struct reader r;

	*err = of ? 0 : -ENOMEM;
	if (!*err && (fi->flags & O_ACCMODE) != O_RDONLY)
		*err = -EACCES;
	if (!*err)
		*err = ino_reader(req, ino, &r);
	if (!*err)
		of->buf = handoff_take_render(&d->handoff, ino,
					      fuse_req_ctx(req)->pid, &of->len);
	if (!*err && !of->buf)
		*err = attached_render(d->attached, ino, r.sees_addrs, &of->buf,
				       &of->len);
	fi->direct_io = 1; /* always current; the tables depend on the reader */
	if (*err) {
		free(of);
		return NULL;
	}
	return of;
}

/* A stream may be opened: read-only, by a watcher, on a link it applies to. */
static int link_file_open_check(fuse_req_t req, fuse_ino_t ino,
				struct fuse_file_info *fi)
{
	struct link_view *v = malloc(sizeof(*v));
	struct reader r = {false};
	int err = v ? 0 : -ENOMEM;

	if (!err && (fi->flags & O_ACCMODE) != O_RDONLY)
		err = -EACCES;
	if (!err)
		err = watcher_access(fuse_req_ctx(req)->uid,
				     fuse_req_ctx(req)->pid);
	if (!err)
		err = link_view_load(req_owned(req), INO_ID(ino), v);
	if (!err) {
		v->reader = &r;
		if (!link_file_applies(INO_IDX(ino) - 1, v))
			err = -ENOENT;
	}
	free(v);
	return err;
}

/* events: a stream of the link's hits from now on (fs/events.c) */
static struct open_file *stream_open(fuse_req_t req, fuse_ino_t ino,
				     struct fuse_file_info *fi, int *err)
{
	const struct daemon *d = fuse_req_userdata(req);
	struct open_file *of = calloc(1, sizeof(*of));

	*err = link_file_open_check(req, ino, fi);
	if (!*err && !of)
		*err = -ENOMEM;
	if (!*err && !d->events)
		*err = -EOPNOTSUPP;
	if (!*err)
		*err = event_stream_open(d->events, INO_ID(ino), &of->stream);
	if (*err) {
		free(of);
		return NULL;
	}
	/* seekable: a seek back over the last read reads it again */
	fi->direct_io = 1;
	return of;
}

/*
 * Splice and sendfile readers take from the page cache up to the i_size
 * the kernel holds, and an open does not refresh it: for content that
 * grew since the last stat, the read would be cut (a root file's dentry
 * lives long, and so does a link file's, so its open need not look it
 * up). So before the open of such a file is answered, its last page is
 * stored in the page
 * cache (FUSE_NOTIFY_STORE), which extends i_size to the handle's length;
 * the open then drops the page cache (keep_cache 0), the read asks this
 * handle, and a read that ends short of i_size shrinks it.
 */
static void open_size_notify(fuse_req_t req, fuse_ino_t ino,
			     const struct open_file *of)
{
	struct daemon *d = fuse_req_userdata(req);
	size_t page = (size_t)sysconf(_SC_PAGESIZE), start;
	struct fuse_bufvec bufv = FUSE_BUFVEC_INIT(0);

	if (!of->len || !d->se)
		return;
	start = (of->len - 1) / page * page;
	bufv.buf[0].mem = of->buf + start;
	bufv.buf[0].size = of->len - start;
	fuse_lowlevel_notify_store(d->se, ino, start, &bufv, 0);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct open_file *of = NULL;
	unsigned int idx = INO_IDX(ino = ino_canon(ino));
	int err = -ENOENT;

	if (attached_is_ino(ino)) { /* first: INO_ID() is 0 for some */
		of = attached_file_open(req, ino, fi, &err);
	} else if (INO_ID(ino) == 0 && idx >= ROOT_FILE_BASE &&
		   idx - ROOT_FILE_BASE < RF_COUNT) {
		of = root_file_open(req, ino, fi, &err);
		fi->direct_io = 1;
		if (of && !of->control && !of->error_log && !of->top)
			open_size_notify(req, ino, of);
	} else if (INO_ID(ino) && idx >= 1 && idx <= link_file_count &&
		   link_files[idx - 1].flags & LF_STREAM) {
		of = stream_open(req, ino, fi, &err);
	} else if (INO_ID(ino) && idx >= 1 && idx <= link_file_count) {
		of = link_file_open(req, ino, fi, &err);
		/* its dentry too is kept: the open may come without a LOOKUP */
		if (of && link_file_may_keep_dentry(ino))
			open_size_notify(req, ino, of);
	} else if (ino == FUSE_ROOT_ID || (INO_ID(ino) && idx == 0)) {
		err = -EISDIR;
	}
	fi->keep_cache = 0;
	if (of)
		of->ino = ino;
	if (of && !of->control && !of->error_log && !of->stream && !of->top)
		handoff_put_size(
			&((struct daemon *)fuse_req_userdata(req))->handoff,
			ino, fuse_req_ctx(req)->pid, of->len, of->made);
	reply_open(req, fi, of ? 0 : err, of, open_file_free);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct handle_table *ht = req_handles(req);
	struct open_file *of = handle_get(ht, fi->fh);
	ssize_t n;
	char *buf;

	if (!of) {
		reply_err(req, EBADF);
		return;
	}
	if (of->stream) {
		event_stream_read(of->stream, req, size, off,
				  fi->flags & O_NONBLOCK);
	} else if (of->top) {
		top_stream_read(of->top, req, size, off,
				fi->flags & O_NONBLOCK);
	} else if (of->control) {
		buf = malloc(size ? size : 1);
		n = buf ? control_read(of->control, buf, size, off) : -ENOMEM;
		if (n < 0)
			reply_err(req, -n);
		else
			fuse_reply_buf(req, buf, n);
		free(buf);
	} else if (of->error_log || off < 0 || (size_t)off >= of->len) {
		fuse_reply_buf(req, NULL, 0);
	} else {
		n = of->len - off < size ? of->len - off : size;
		fuse_reply_buf(req, of->buf + off, n);
	}
	handle_put(ht, fi->fh);
}

/*
 * Creating and removing links asks what the kernel asks (bpflinkfs(8), ACCESS):
 * a writer without it changes nothing, and error_log says why.
 */
static ssize_t control_write_checked(struct error_log *log,
				     struct control_handle *h, const char *data,
				     size_t size, pid_t pid)
{
	static const char msg[] =
		"creating or removing links needs CAP_SYS_ADMIN, or CAP_BPF "
		"with CAP_PERFMON, in the initial user namespace";
	const char *nl = memchr(data, '\n', size);
	int may = writer_may_attach(pid);
	char why[128];

	if (may > 0)
		return control_write(h, data, size, pid);
	if (may < 0) /* the daemon's own failure, not the writer's */
		snprintf(why, sizeof(why),
			 "cannot read the writer's capabilities: %s",
			 strerror(-may));
	error_log_add(log, may < 0 ? may : -EPERM, 1, may < 0 ? why : msg, data,
		      nl ? (size_t)(nl - data) : size, 0);
	return may < 0 ? may : -EPERM;
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *data,
		     size_t size, off_t off, struct fuse_file_info *fi)
{
	const struct daemon *d = fuse_req_userdata(req);
	struct handle_table *ht = req_handles(req);
	struct open_file *of = handle_get(ht, fi->fh);
	ssize_t n;

	if (!of) {
		n = -EBADF;
	} else if (of->control) {
		n = control_write_checked(d->errors, of->control, data, size,
					  fuse_req_ctx(req)->pid);
	} else if (of->error_log) {
		/* an empty line (or nothing) clears the log */
		n = size == 0 || (size == 1 && data[0] == '\n') ? (ssize_t)size
								: -EINVAL;
		if (n >= 0)
			error_log_clear(d->errors);
	} else {
		n = -EACCES;
	}
	if (of)
		handle_put(ht, fi->fh);
	if (n < 0)
		reply_err(req, -n);
	else
		fuse_reply_write(req, n);
}

static void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct handle_table *ht = req_handles(req);
	struct open_file *of = handle_get(ht, fi->fh);
	int err = 0;

	if (of && of->control)
		err = control_flush(of->control, fuse_req_ctx(req)->pid, false);
	if (of)
		handle_put(ht, fi->fh);
	reply_err(req, -err);
}

/* Only a stream waits for data; every other file is always ready. */
static void op_poll(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		    struct fuse_pollhandle *ph)
{
	struct handle_table *ht = req_handles(req);
	struct open_file *of = handle_get(ht, fi->fh);

	if (of && of->stream) {
		event_stream_poll(of->stream, req, ph);
	} else if (of && of->top) {
		top_stream_poll(of->top, req, ph);
	} else {
		if (ph)
			fuse_pollhandle_destroy(ph);
		fuse_reply_poll(req,
				POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM);
	}
	if (of)
		handle_put(ht, fi->fh);
}

static void op_release(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	handle_close(req_handles(req), fi->fh);
	reply_err(req, 0);
}

/* Only truncation of control or error_log to 0 (O_TRUNC) is accepted. */
static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int to_set, struct fuse_file_info *fi)
{
	struct stat st;
	int err =
		ino_stat(fuse_req_userdata(req), ino = ino_canon(ino), 0, &st);
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
		reply_err(req, -err);
	else
		fuse_reply_attr(
			req, &st,
			INO_ID(ino) || attached_is_ino(ino) ? 0 : ROOT_TIMEOUT);
}

static void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	__u32 id = parse_id(name);
	fuse_ino_t ino;
	struct stat st;
	int err;

	if (attached_is_ino(parent) ||
	    (parent == FUSE_ROOT_ID && !strcmp(name, ATTACHED_DIR_NAME))) {
		/* removing a bare probe is its holder's business */
		err = parent == FUSE_ROOT_ID
			      ? 0
			      : attached_lookup(parent, name, &ino);
		if (!err && parent != FUSE_ROOT_ID)
			err = ino_stat(fuse_req_userdata(req), ino, 0, &st);
		err = err ? err : -EPERM;
	} else if (parent != FUSE_ROOT_ID || !id)
		err = -ENOENT;
	else
		err = link_rmdir(req, id);
	reply_err(req, -err);
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	struct daemon *d = userdata;

	d->mount_time = time(NULL);
	/* the kernel then splits large writes into 1 MiB requests */
	conn->max_write = 1u << 20;
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
}

const struct fuse_lowlevel_ops tree_ops = {
	.init = op_init,
	.lookup = op_lookup,
	.getattr = op_getattr,
	.setattr = op_setattr,
	.opendir = dirs_opendir,
	.readdir = dirs_readdir,
	.releasedir = dirs_releasedir,
	.open = op_open,
	.read = op_read,
	.write = op_write,
	.flush = op_flush,
	.release = op_release,
	.poll = op_poll,
	.rmdir = op_rmdir,
	.mkdir = dirs_mkdir,
	.mknod = dirs_mknod,
	.unlink = dirs_unlink,
	.create = dirs_create,
	.rename = dirs_rename,
	.symlink = dirs_symlink,
	.link = dirs_link,
};
