// SPDX-License-Identifier: GPL-2.0-only
/* Creating a link, step one: resolve what a probe line names (resolve.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_event_link.h"
#include "resolve.h"
#include "uprobe_insn.h"

int probe_cpus(const struct probe_spec *p, int *cpus, size_t max)
{
	bool event = p->kind == PROBE_SOFTWARE || p->kind == PROBE_HARDWARE;

	if (!event) {
		cpus[0] = -1;
		return 1;
	}
	if (p->opts & OPT_CPU) {
		int n = online_cpus(cpus, max), i;

		for (i = 0; i < n; i++)
			if (cpus[i] == p->cpu)
				break;
		if (n > 0 && i == n)
			return -ENXIO; /* told apart by the caller */
		cpus[0] = p->cpu;
		return 1;
	}
	if (p->opts & OPT_PID) {
		cpus[0] = -1;
		return 1;
	}
	return online_cpus(cpus, max);
}

/* Not a relative path: those depend on the writer's cwd of the moment. */
static bool memo_hit(const struct path_memo *m, const char *path)
{
	return m && m->path && !strcmp(m->path, path);
}

static void memo_set(struct path_memo *m, const char *path, const char *canon)
{
	if (!m || (path[0] != '/' && strchr(path, '/')))
		return;
	path_memo_clear(m);
	m->path = strdup(path);
	m->canon = strdup(canon);
	if (!m->path || !m->canon)
		path_memo_clear(m);
}

/* @p's PATH through @memo; @check: the file must be a probe-able ELF. */
static int uprobe_file(const struct probe_spec *p, pid_t pid,
		       struct path_memo *memo, char *canon,
		       struct uprobe_err *te, bool check)
{
	pid_t seen = pid ? pid : UPROBE_PID_UNSEEN;
	int err = 0;

	if (memo_hit(memo, p->path))
		snprintf(canon, PATH_MAX, "%s", memo->canon);
	else if (!(err = check ? uprobe_resolve_path(p->path, seen, canon, te)
			       : uprobe_locate_path(p->path, seen, canon, te)))
		memo_set(memo, p->path, canon);
	return err;
}

int resolve_uprobe_file(const struct probe_spec *p, pid_t pid,
			struct path_memo *memo, char *canon,
			struct uprobe_err *te)
{
	return uprobe_file(p, pid, memo, canon, te, true);
}

int locate_uprobe_file(const struct probe_spec *p, pid_t pid,
		       struct path_memo *memo, char *canon,
		       struct uprobe_err *te)
{
	return uprobe_file(p, pid, memo, canon, te, false);
}

/* What is found in the probed file once it is known (its canonical path) */
typedef int (*in_file_fn)(const struct probe_spec *p, const char *canon, int fd,
			  void *arg, struct uprobe_err *te);

/* Tries of a resolution whose file is replaced while it is read. */
#define RESOLVE_TRIES 3

/*
 * The file at @canon, opened before it is read, is the one that was read:
 * the descriptor holds its inode from before the reading to after it, so
 * the same device and inode mean the same file. -EAGAIN: it was replaced.
 */
int uprobe_file_hold(const char *canon, int *fd)
{
	*fd = open(canon, O_PATH | O_CLOEXEC);
	return *fd < 0 ? -errno : 0;
}

int uprobe_file_check(int fd, dev_t dev, ino_t ino)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	return st.st_dev == dev && st.st_ino == ino ? 0 : -EAGAIN;
}

/* The file at PATH was replaced each time it was read. */
static int replaced_error(const struct probe_spec *p, struct uprobe_err *te)
{
	te->e.column = p->path_col;
	bl_errorf(&te->e,
		  "%s was replaced while it was read, %d times: nothing made",
		  p->path, RESOLVE_TRIES);
	return -EAGAIN;
}

/*
 * Resolve @p's PATH in the writer's view (@pid), then @find in that file,
 * which fills @ut; an error's caret under PATH unless the resolver says
 * otherwise, or under @symbol_col for what @find does not find. @ut->fd
 * is the file that @find read (or -1 on failure).
 */
static int resolve_in_file(const struct probe_spec *p, pid_t pid,
			   struct path_memo *memo, size_t symbol_col,
			   in_file_fn find, void *arg, struct uprobe_target *ut,
			   struct bl_error *e)
{
	struct uprobe_err te = {.path_col = p->path_col,
				.symbol_col = symbol_col,
				.provider_col = p->provider_col,
				.e.column = p->path_col};
	char *canon = malloc(PATH_MAX);
	int err = -EAGAIN, fd = -1, tries;

	ut->fd = -1;
	if (!canon)
		return -ENOMEM;
	for (tries = 0; err == -EAGAIN && tries < RESOLVE_TRIES; tries++) {
		if (fd >= 0)
			close(fd);
		fd = -1;
		err = resolve_uprobe_file(p, pid, memo, canon, &te);
		if (!err)
			err = uprobe_file_hold(canon, &fd);
		if (!err)
			err = find(p, canon, fd, arg, &te);
		if (!err)
			err = uprobe_file_check(fd, ut->dev, ut->ino);
	}
	if (err == -EAGAIN)
		err = replaced_error(p, &te);
	free(canon);
	if (err && fd >= 0)
		close(fd);
	ut->fd = err ? -1 : fd;
	if (err) {
		*e = te.e;
		e->err = err;
	}
	return err;
}

/* SYMBOL[+OFFSET] or 0xOFFSET, on an instruction boundary */
static int uprobe_in_file(const struct probe_spec *p, const char *canon, int fd,
			  void *arg, struct uprobe_err *te)
{
	struct uprobe_target *ut = arg;
	char held[32];
	int err = uprobe_resolve(canon, p->by_offset ? NULL : p->symbol,
				 p->offset, p->by_offset,
				 p->kind == PROBE_URETPROBE, ut, te);

	/* the code read is the held file's, whatever @canon names now */
	snprintf(held, sizeof(held), "/proc/self/fd/%d", fd);
	return err ? err
		   : uprobe_insn_check(held, ut->offset,
				       p->kind == PROBE_URETPROBE, te);
}

int resolve_uprobe(const struct probe_spec *p, pid_t pid,
		   struct path_memo *memo, struct uprobe_target *ut,
		   struct bl_error *e)
{
	return resolve_in_file(p, pid, memo, p->symbol_col, uprobe_in_file, ut,
			       ut, e);
}

struct usdt_arg {
	struct uprobe_target *ut;
	struct usdt_location **locs;
	size_t *n;
};

/* [PROVIDER:]NAME (or a pattern) in the file's USDT notes */
static int usdt_in_file(const struct probe_spec *p, const char *canon, int fd,
			void *arg, struct uprobe_err *te)
{
	struct usdt_arg *a = arg;

	(void)fd;
	/* a file replaced while it was read is read again: drop the last */
	free(*a->locs);
	*a->locs = NULL;
	*a->n = 0;
	return uprobe_usdt_resolve(canon, p->provider, p->symbol, a->locs, a->n,
				   a->ut, te);
}

int resolve_usdt(const struct probe_spec *p, pid_t pid, struct path_memo *memo,
		 struct uprobe_target *ut, struct usdt_location **locs,
		 size_t *n, struct bl_error *e)
{
	struct usdt_arg a = {ut, locs, n};

	/* an unknown probe: the caret under NAME (PROVIDER when the file has
	 * no probe of that provider) */
	return resolve_in_file(p, pid, memo, p->symbol_col, usdt_in_file, &a,
			       ut, e);
}
