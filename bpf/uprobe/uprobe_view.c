// SPDX-License-Identifier: GPL-2.0-only
/*
 * Uprobe targets, where PATH lives: in the writer's view of the file
 * system, reached through /proc/PID/root and /proc/PID/cwd of the writing
 * process, never by the path text in the daemon's own namespace. The walk
 * is realpath(3) done one component at a time from the view's root
 * descriptor, so that symlinks and ".." stay inside that root, /proc magic
 * links (root, cwd, exe, fd/N) lead where the kernel says, and the daemon's
 * own mount is recognised by its device before anything in it is looked
 * up: a lookup there is a request to the daemon itself, which hangs it for
 * good when it runs single-threaded.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "uprobe_err.h"
#include "uprobe_mount.h"
#include "uprobe_view.h"
#include "uprobe_target.h"

#define MAX_SYMLINKS 40 /* as the kernel's path walk */
#define PROC_ROOT_INO 1 /* procfs's root directory */
#define STX_WANT (STATX_TYPE | STATX_MODE | STATX_INO | STATX_MNT_ID)

/* The walk: what is resolved so far, and what is left. */
struct walk {
	int root;	       /* O_PATH: where absolute paths start */
	bool own_root;	       /* root is ours to close */
	struct statx wroot;    /* the writer's root, when not the daemon's */
	char prefix[PATH_MAX]; /* the daemon's path to root; "" its own */
	char canon[PATH_MAX];  /* resolved, inside root; "" is the root */
	char todo[PATH_MAX];   /* still to resolve */
	size_t pos;	       /* in todo */
	struct statx st;       /* of canon (followed when magic) */
	bool magic;	       /* canon ends in a /proc magic link */
	int links;
	pid_t pid;	     /* the writer (see uprobe_resolve_path) */
	const char *written; /* PATH as written, for messages */
	struct uprobe_err *terr;
	dev_t mnt_dev; /* the daemon's own mount, when mnt_known */
	bool mnt_known;
	bool in_mount; /* the walk stopped at the daemon's own mount */
};

static const char *errstr(int e)
{
	const char *s = strerrordesc_np(e);

	return s ? s : "unknown error";
}

/* ---- the daemon's own root and mount ---- */

/* The device of the daemon's own mount into @w. */
static void own_mount_dev(struct walk *w)
{
	w->mnt_known = uprobe_own_mount_dev(&w->mnt_dev, NULL) == 0;
}

static bool on_own_mount(const struct walk *w, const struct statx *st)
{
	return w->mnt_known &&
	       makedev(st->stx_dev_major, st->stx_dev_minor) == w->mnt_dev;
}

/* A walk's root that is the daemon's own: absolute paths, no descriptor. */
#define SELF_ROOT AT_FDCWD

/* Process-wide on purpose: the process's own root and /proc, facts of the
 * process itself, read once */
static pthread_once_t self_once = PTHREAD_ONCE_INIT;
static struct statx self_root_st, self_proc_st;
static bool self_proc_ok; /* /proc numbers pids as FUSE does */

static void self_init(void)
{
	char buf[32];
	ssize_t n;

	if (statx(AT_FDCWD, "/", 0, STX_WANT, &self_root_st))
		self_root_st.stx_mask = 0;
	if (statx(AT_FDCWD, "/proc", 0, STX_WANT, &self_proc_st))
		self_proc_st.stx_mask = 0;
	/* a /proc of another pid namespace would name other processes */
	n = readlink("/proc/self", buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = '\0';
		self_proc_ok = strtol(buf, NULL, 10) == getpid();
	}
}

static bool same_file(const struct statx *a, const struct statx *b)
{
	return a->stx_dev_major == b->stx_dev_major &&
	       a->stx_dev_minor == b->stx_dev_minor && a->stx_ino == b->stx_ino;
}

/* The same directory through the same mount: the same view. */
static bool same_root(const struct statx *a, const struct statx *b)
{
	return (a->stx_mask & b->stx_mask & STATX_MNT_ID) &&
	       a->stx_mnt_id == b->stx_mnt_id && same_file(a, b);
}

/* ---- one step ---- */

/* @canon relative to the walk's root descriptor ("" is the root itself). */
static const char *rel_of(const struct walk *w, const char *canon)
{
	if (w->root == SELF_ROOT)
		return canon[0] ? canon : "/";
	return canon[0] ? canon + 1 : "";
}

/*
 * statx of @canon inside @root without a sync: for the daemon's own FUSE
 * mount a sync would be a request to itself. -EINVAL (with a message) on
 * that mount.
 */
static int vstat(struct walk *w, const char *canon, bool follow,
		 struct statx *st)
{
	const char *rel = rel_of(w, canon);
	int fl = AT_STATX_DONT_SYNC | (follow ? 0 : AT_SYMLINK_NOFOLLOW);
	char dir[PATH_MAX];
	dev_t dev;

	if (!*rel)
		fl |= AT_EMPTY_PATH;
	if (statx(w->root, rel, fl, STX_WANT, st))
		return -errno;
	if (!on_own_mount(w, st))
		return 0;
	w->in_mount = true;
	if (w->terr && uprobe_own_mount_dev(&dev, dir) == 0)
		uprobe_set_err(
			w->terr, 0,
			"%s leads inside the bpflinkfs mount %s: its own "
			"files cannot be probed or used",
			w->written, dir);
	return -EINVAL;
}

/* Append "/@name" (@len bytes) to @canon. */
static int canon_add(char *canon, const char *name, size_t len)
{
	size_t n = strlen(canon);

	if (n + 1 + len >= PATH_MAX)
		return -ENAMETOOLONG;
	canon[n] = '/';
	memcpy(canon + n + 1, name, len);
	canon[n + 1 + len] = '\0';
	return 0;
}

/* Put @text before what is left to do. */
static int todo_push(struct walk *w, const char *text)
{
	char *rest = w->todo + w->pos;
	size_t n = strlen(text), r = strlen(rest);

	if (n + 1 + r >= sizeof(w->todo))
		return -ENAMETOOLONG;
	memmove(w->todo + n + 1, rest, r + 1);
	memcpy(w->todo, text, n);
	w->todo[n] = '/';
	w->pos = 0;
	return 0;
}

/* Start again from the root (an absolute symlink or PATH). */
static int walk_to_root(struct walk *w)
{
	w->canon[0] = '\0';
	return vstat(w, "", true, &w->st);
}

static int walk_dotdot(struct walk *w)
{
	char *slash = strrchr(w->canon, '/');

	if (slash)
		*slash = '\0';
	return vstat(w, w->canon, false, &w->st);
}

/* The daemon's path to @canon: the root's prefix, then @canon. */
static int kpath(const struct walk *w, const char *canon, char *out)
{
	int n = snprintf(out, PATH_MAX, "%s%s", w->prefix,
			 canon[0] || w->prefix[0] ? canon : "/");

	return n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

/* ---- working directories ---- */

struct cwd_job {
	int root, cwd, err;
	char *out;
};

static void *cwd_main(void *arg)
{
	struct cwd_job *j = arg;

	/* this thread's own root and cwd: the daemon's stay as they are */
	if (unshare(CLONE_FS) ||
	    (j->root != SELF_ROOT && (fchdir(j->root) || chroot("."))) ||
	    fchdir(j->cwd) || !getcwd(j->out, PATH_MAX))
		j->err = -errno;
	return NULL;
}

/*
 * The path of directory @cwd inside @root, as the process whose they are
 * sees it: readlink where @root is the daemon's own, else getcwd() in a
 * thread that takes them as its own root and cwd (there is no other way
 * to ask the kernel).
 */
static int view_cwd(int root, int cwd, char *out)
{
	struct cwd_job j = {.root = root, .cwd = cwd, .out = out};
	struct statx st;
	char fdpath[32];
	pthread_t t;
	ssize_t n;
	int err;

	if (root == SELF_ROOT)
		st = self_root_st;
	else if (statx(root, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STX_WANT,
		       &st))
		return -errno;
	if (root == SELF_ROOT || same_root(&st, &self_root_st)) {
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", cwd);
		n = readlink(fdpath, out, PATH_MAX - 1);
		if (n > 0 && out[0] == '/') {
			out[n] = '\0';
			return 0;
		}
	}
	err = pthread_create(&t, NULL, cwd_main, &j);
	if (err)
		return -err;
	pthread_join(t, NULL);
	return j.err;
}

/* ---- symlinks, and /proc's ---- */

enum link_kind { LK_PLAIN, LK_SELF, LK_MAGIC };

/*
 * A symlink @name in canon: a plain one; procfs's "self" or "thread-self";
 * or a magic link of a /proc/PID directory (root, cwd, exe, fd/N ...),
 * which leads where the kernel says, not where its text does.
 */
static int link_kind(struct walk *w, const char *name)
{
	const char *rel =
		w->canon[0] || w->root == SELF_ROOT ? rel_of(w, w->canon) : ".";
	struct statfs sfs;
	int fd, err;

	if (w->st.stx_dev_major != 0) /* procfs has an anonymous device */
		return LK_PLAIN;
	fd = openat(w->root, rel, O_PATH | O_DIRECTORY | O_CLOEXEC);
	err = fd < 0 ? -errno : fstatfs(fd, &sfs) ? -errno : 0;
	if (fd >= 0)
		close(fd);
	if (err)
		return err;
	if (sfs.f_type != PROC_SUPER_MAGIC)
		return LK_PLAIN;
	if (w->st.stx_ino != PROC_ROOT_INO)
		return LK_MAGIC;
	return !strcmp(name, "self") || !strcmp(name, "thread-self") ? LK_SELF
								     : LK_PLAIN;
}

/* @pid's number in its innermost pid namespace (NSpid's last field). */
static pid_t innermost_pid(pid_t pid)
{
	char path[32], *line = NULL, *last;
	size_t cap = 0;
	pid_t n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	while (f && getline(&line, &cap, f) > 0) {
		if (strncmp(line, "NSpid:", 6))
			continue;
		last = strrchr(line, '\t');
		n = last ? (pid_t)strtol(last + 1, NULL, 10) : -1;
		break;
	}
	free(line);
	if (f)
		fclose(f);
	return n;
}

/* /proc/self is the writer's, not the daemon's: its pid in that procfs. */
static int self_pid(struct walk *w, char *buf, size_t len)
{
	pid_t n = w->pid;

	if (n < 0) {
		uprobe_set_err(
			w->terr, 0,
			"%s: /proc/self means the writing process, whose "
			"pid bpflinkfs cannot see (another pid "
			"namespace)",
			w->written);
		return -EINVAL;
	}
	if (n == 0)
		n = getpid();
	else if (!same_file(&w->st, &self_proc_st))
		n = innermost_pid(n);
	if (n <= 0)
		return -ENOENT;
	snprintf(buf, len, "%d", (int)n);
	return 0;
}

/* Go on at the top of another root, @fd (ours from now on), which the
 * daemon reaches as @kp. */
static int walk_reroot(struct walk *w, int fd, const char *kp)
{
	struct statx st;
	int err = 0;

	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STX_WANT, &st))
		err = -errno;
	else if (strlen(kp) >= sizeof(w->prefix))
		err = -ENAMETOOLONG;
	if (err) {
		close(fd);
		return err;
	}
	if (w->own_root)
		close(w->root);
	w->own_root = !same_root(&st, &self_root_st);
	if (!w->own_root)
		close(fd);
	w->root = w->own_root ? fd : SELF_ROOT;
	/* the writer's root again (/proc/self/root/...): the short way */
	if (w->own_root && w->pid > 0 && same_root(&st, &w->wroot))
		snprintf(w->prefix, sizeof(w->prefix), "/proc/%d/root",
			 (int)w->pid);
	else
		strcpy(w->prefix, w->own_root ? kp : "");
	if (!w->wroot.stx_mask)
		w->wroot = st;
	return walk_to_root(w);
}

static int walk_run(struct walk *w);

/*
 * Walk to directory @cwd (an fd) by its path @text inside the root, one
 * checked component at a time: the text may pass through the daemon's
 * mount even where @cwd itself is not on it.
 */
static int walk_to_cwd(struct walk *w, int cwd, const char *text)
{
	struct statx st;
	int err;

	if (statx(cwd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STX_WANT, &st))
		return -errno;
	if (text[0] != '/' || strlen(text) >= sizeof(w->todo))
		return -ENOENT;
	strcpy(w->todo, text);
	w->pos = 0;
	err = walk_to_root(w);
	if (!err)
		err = walk_run(w);
	if (!err && (!S_ISDIR(w->st.stx_mode) || !same_file(&st, &w->st)))
		err = -ENOENT; /* deleted, or moved meanwhile */
	return err;
}

/* /proc/PID/cwd/...: go on in PID's root at its working directory. */
static int walk_into_cwd(struct walk *w, const char *cand, int cwd)
{
	char *buf = malloc(3 * PATH_MAX), *root = buf + PATH_MAX,
	     *kp = root + PATH_MAX;
	int fd, err = buf ? 0 : -ENOMEM;

	if (!err) {
		snprintf(root, PATH_MAX, "%.*s/root",
			 (int)(strrchr(cand, '/') - cand), cand);
		err = kpath(w, root, kp);
	}
	if (!err) {
		fd = openat(w->root, rel_of(w, root),
			    O_PATH | O_DIRECTORY | O_CLOEXEC);
		err = fd < 0 ? -errno : view_cwd(fd, cwd, buf);
		if (!err)
			err = walk_reroot(w, fd, kp);
		else if (fd >= 0)
			close(fd);
	}
	/* the rest of the PATH waits behind the cwd's own walk */
	if (!err && strlen(w->todo + w->pos) >= PATH_MAX)
		err = -ENAMETOOLONG;
	if (!err) {
		strcpy(root, w->todo + w->pos);
		err = walk_to_cwd(w, cwd, buf);
	}
	if (!err) {
		strcpy(w->todo, root);
		w->pos = 0;
	}
	close(cwd);
	free(buf);
	return err;
}

/* A magic link @cand (named @name): the file itself when @last. */
static int walk_magic(struct walk *w, const char *cand, const char *name,
		      bool last)
{
	char kp[PATH_MAX];
	struct statx st;
	int fd, err;

	err = vstat(w, cand, true, &st);
	if (err)
		return err;
	if (last) {
		strcpy(w->canon, cand);
		w->st = st;
		w->magic = true;
		return 0;
	}
	fd = openat(w->root, rel_of(w, cand), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!strcmp(name, "cwd"))
		return walk_into_cwd(w, cand, fd);
	err = kpath(w, cand, kp);
	if (err) {
		close(fd);
		return err;
	}
	/* root, or a directory fd: ".." stops there */
	return walk_reroot(w, fd, kp);
}

static int walk_link(struct walk *w, const char *cand, const char *name,
		     bool last)
{
	char target[PATH_MAX];
	int kind = link_kind(w, name), err = 0;
	ssize_t n;

	if (kind < 0)
		return kind;
	if (++w->links > MAX_SYMLINKS)
		return -ELOOP;
	if (kind == LK_MAGIC)
		return walk_magic(w, cand, name, last);
	if (kind == LK_SELF) {
		err = self_pid(w, target, sizeof(target));
	} else {
		n = readlinkat(w->root, rel_of(w, cand), target,
			       sizeof(target) - 1);
		if (n < 0)
			err = -errno;
		else
			target[n] = '\0';
	}
	if (!err)
		err = todo_push(w, target);
	if (!err && target[0] == '/')
		err = walk_to_root(w);
	return err;
}

static int walk_step(struct walk *w, const char *name, bool last)
{
	char cand[PATH_MAX];
	struct statx st;
	int err;

	if (!strcmp(name, "."))
		return 0;
	if (!strcmp(name, ".."))
		return walk_dotdot(w);
	strcpy(cand, w->canon);
	err = canon_add(cand, name, strlen(name));
	if (!err)
		err = vstat(w, cand, false, &st);
	if (err)
		return err;
	if (S_ISLNK(st.stx_mode))
		return walk_link(w, cand, name, last);
	if (!last && !S_ISDIR(st.stx_mode))
		return -ENOTDIR;
	strcpy(w->canon, cand);
	w->st = st;
	return 0;
}

/* Resolve what is left in todo, from canon. */
static int walk_run(struct walk *w)
{
	char name[NAME_MAX + 1];
	int err = 0;

	while (!err) {
		const char *c = w->todo + w->pos;
		size_t len;
		bool last;

		c += strspn(c, "/");
		if (!*c)
			break;
		len = strcspn(c, "/");
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(name, c, len);
		name[len] = '\0';
		last = !c[len + strspn(c + len, "/")];
		w->pos = c + len - w->todo;
		err = walk_step(w, name, last);
	}
	return err;
}

/* ---- a whole PATH ---- */

static void walk_free(struct walk *w)
{
	if (w && w->own_root)
		close(w->root);
	free(w);
}

/* The writer's root: its /proc/PID/root. */
static int walk_writer_root(struct walk *w)
{
	char path[32];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/root", (int)w->pid);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		uprobe_set_err(w->terr, 0,
			       "%s: cannot reach the writer's root %s: %s",
			       w->written, path, errstr(errno));
		return -errno;
	}
	return walk_reroot(w, fd, path);
}

/* A relative PATH starts at the writer's working directory. */
static int walk_from_cwd(struct walk *w, char *cwd_text)
{
	char path[32], *rest = strdup(w->todo);
	int fd, err = rest ? 0 : -ENOMEM;

	if (!err && w->pid < 0) {
		uprobe_set_err(
			w->terr, 0,
			"relative path %s: the writer's working directory is "
			"unknown, since its pid is not visible to bpflinkfs "
			"(another pid namespace); write an absolute path",
			w->written);
		err = -EINVAL;
	}
	if (w->pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/cwd", (int)w->pid);
	else
		strcpy(path, ".");
	fd = err ? -1 : open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (!err && fd < 0)
		err = -errno;
	if (!err)
		err = view_cwd(w->root, fd, cwd_text);
	if (!err)
		err = walk_to_cwd(w, fd, cwd_text);
	if (!err) {
		strcpy(w->todo, rest);
		w->pos = 0;
	} else if (!w->terr || !w->terr->e.msg[0]) {
		uprobe_set_err(w->terr, 0,
			       "%s: cannot find the writer's working "
			       "directory: %s",
			       w->written, errstr(-err));
	}
	if (fd >= 0)
		close(fd);
	free(rest);
	return err;
}

/*
 * Resolve @text as @pid sees it (see uprobe_resolve_path()): the daemon's
 * path to the file in @kp, the walk (caller frees) in *@wp.
 */
static int walk_text(pid_t pid, const char *text, const char *written,
		     struct uprobe_err *terr, char *kp, struct walk **wp)
{
	struct walk *w = calloc(1, sizeof(*w));
	char *cwd = NULL;
	int err;

	*wp = w;
	if (!w)
		return -ENOMEM;
	pthread_once(&self_once, self_init);
	own_mount_dev(w);
	w->root = SELF_ROOT;
	w->pid = pid > 0 && !self_proc_ok ? UPROBE_PID_UNSEEN : pid;
	w->written = written;
	w->terr = terr;
	err = strlen(text) >= sizeof(w->todo) ? -ENAMETOOLONG : 0;
	if (!err) {
		strcpy(w->todo, text);
		err = w->pid > 0 ? walk_writer_root(w) : walk_to_root(w);
	}
	if (!err && text[0] != '/') {
		cwd = malloc(PATH_MAX);
		err = cwd ? walk_from_cwd(w, cwd) : -ENOMEM;
	}
	if (!err)
		err = walk_run(w);
	if (!err)
		err = kpath(w, w->canon, kp);
	if (err && (!terr || !terr->e.msg[0])) {
		if (cwd && text[0] != '/')
			uprobe_set_err(terr, 0, "%s (relative to %s): %s",
				       written, cwd, errstr(-err));
		else
			uprobe_set_err(terr, 0, "%s: %s", written,
				       errstr(-err));
	}
	free(cwd);
	return err;
}

/*
 * A name for the file of @w that the daemon reaches from its own root, and
 * that outlives the writer: the same path in the daemon's namespace, or
 * the text of a magic link (/proc/PID/exe), where either leads to the same
 * file. Else @kp stays: /proc/PID/root/..., or the magic link itself.
 */
static bool walk_plain_name(const struct walk *w, char *kp)
{
	char *text = malloc(2 * PATH_MAX), *plain = text + PATH_MAX;
	struct walk *d = NULL;
	bool found = false;
	ssize_t n;

	if (!text)
		return false;
	if (w->magic) {
		n = readlinkat(w->root, rel_of(w, w->canon), text,
			       PATH_MAX - 1);
		text[n > 0 ? n : 0] = '\0';
	} else {
		strcpy(text, w->prefix[0] ? w->canon : "");
	}
	if (text[0] == '/' && walk_text(0, text, text, NULL, plain, &d) == 0 &&
	    !d->magic && S_ISREG(d->st.stx_mode) && same_file(&d->st, &w->st)) {
		strcpy(kp, plain);
		found = true;
	}
	walk_free(d);
	free(text);
	return found;
}

/*
 * The process that most likely outlives the writer in the same root: the
 * lowest pid whose /proc/PID/root is it (a container's init), so that
 * /proc/PID/root/... in `name` reaches the file after the writer exits.
 */
static pid_t root_holder(const struct walk *w)
{
	DIR *d = opendir("/proc");
	char path[64];
	struct dirent *e;
	struct statx st;
	pid_t n, best = w->pid;

	while (d && (e = readdir(d))) {
		n = (pid_t)strtol(e->d_name, NULL, 10);
		if (n <= 0 || n >= best)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/root", (int)n);
		if (!statx(AT_FDCWD, path, AT_STATX_DONT_SYNC, STX_WANT, &st) &&
		    same_root(&st, &w->wroot)) {
			best = n;
			break; /* /proc lists pids in ascending order */
		}
	}
	if (d)
		closedir(d);
	return best;
}

/* /proc/WRITER/root/... as /proc/HOLDER/root/... */
static void holder_name(const struct walk *w, char *kp)
{
	char own[32], name[PATH_MAX];
	pid_t holder;
	int n;

	snprintf(own, sizeof(own), "/proc/%d/root", (int)w->pid);
	if (w->magic || w->pid <= 0 || strcmp(w->prefix, own))
		return;
	holder = root_holder(w);
	if (holder == w->pid)
		return;
	n = snprintf(name, sizeof(name), "/proc/%d/root%s", (int)holder,
		     w->canon[0] ? w->canon : "/");
	/* too long for the holder's prefix: the writer's name stays */
	if (n > 0 && (size_t)n < sizeof(name))
		memcpy(kp, name, n + 1);
}

int uprobe_view_resolve(const char *text, pid_t pid, const char *written,
			char *out, mode_t *mode, struct uprobe_err *terr)
{
	struct walk *w = NULL;
	int err = walk_text(pid, text, written, terr, out, &w);

	if (!err && (w->magic || w->prefix[0])) {
		if (!walk_plain_name(w, out))
			holder_name(w, out);
	}
	if (!err)
		*mode = w->st.stx_mode;
	walk_free(w);
	return err;
}

int uprobe_view_outside_mount(const char *text, struct uprobe_err *terr)
{
	struct walk *w = NULL;
	char *out = malloc(PATH_MAX);
	int err = out ? 0 : -ENOMEM;

	if (!err && walk_text(0, text, text, terr, out, &w) && w && w->in_mount)
		err = -EINVAL;
	walk_free(w);
	free(out);
	return err;
}
