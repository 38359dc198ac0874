// SPDX-License-Identifier: GPL-2.0-only
/*
 * A wildcard probe line (bpflinkfs(8), CONTROL LANGUAGE) to one multi link:
 * match the targets (uprobe: the file's functions, uprobe_glob(); kprobe:
 * tracefs available_filter_functions), give each its own counter slot as
 * its cookie, attach one uprobe_multi or kprobe_multi link, register it.
 * On a kernel without that link type: one perf-event link per match.
 * A USDT probe's locations (usdt_multi_create()) take the same way, with
 * their semaphores as ref_ctr_offsets.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "perf_event_link.h"
#include "tracefs.h"
#include "counter_load.h"
#include "multi_probe.h"
#include "multi_targets.h"
#include "owned.h"
#include "register.h"
#include "resolve.h"
#include "sight.h"
#include "uprobe_target.h"

#define BPF_CMD_LINK_CREATE 28 /* enum bpf_cmd BPF_LINK_CREATE */

struct multi_targets {
	char path[PATH_MAX];	 /* uprobe: the daemon's path to the file */
	int fd;			 /* uprobe: the file that was read (O_PATH) */
	struct uprobe_matches m; /* uprobe: offsets; kprobe: names */
	__u64 *ref_ctr_offsets;	 /* usdt: semaphores, one per target */
};

static int by_name(const void *x, const void *y)
{
	const struct uprobe_match *a = x, *b = y;

	return strcmp(a->name, b->name);
}

/* "func" or "func [module]" of available_filter_functions, matched. */
static int kfunc_line_add(char *line, const struct probe_spec *p,
			  struct uprobe_matches *m, size_t *cap)
{
	char *mod = strchr(line, ' '), *end;
	struct uprobe_match *grown;

	line[strcspn(line, "\n")] = '\0';
	if (mod) {
		*mod++ = '\0';
		end = strchr(mod, ']');
		mod = *mod == '[' && end ? (*end = '\0', mod + 1) : NULL;
	}
	if (fnmatch(p->symbol, line, 0) ||
	    (p->path[0] && (!mod || strcmp(mod, p->path))))
		return 0;
	if (m->n == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		grown = realloc(m->m, *cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		m->m = grown;
	}
	m->m[m->n].name = strdup(line);
	if (!m->m[m->n].name)
		return -ENOMEM;
	m->m[m->n].offset = 0;
	m->m[m->n++].seq = 0;
	return 0;
}

/* The kernel functions FUNC matches, each name once, sorted. */
static int kprobe_glob(const struct probe_spec *p, struct uprobe_matches *m,
		       struct bl_error *e)
{
	const char *root = tracefs_root();
	char path[PATH_MAX], line[1024];
	size_t cap = 0, i, n = 0;
	FILE *f;
	int err = 0;

	e->column = p->symbol_col;
	/* as for kprobe:FUNC: say what the kernel lacks, not what it hides */
	if (!pmu_present("kprobe") && !multi_link_creatable(false))
		return bl_fail(
			e, -EOPNOTSUPP,
			"this kernel has no kprobe support (no kprobe PMU, "
			"no kprobe_multi links)");
	snprintf(path, sizeof(path), "%s/available_filter_functions",
		 root ? root : "/sys/kernel/tracing");
	f = root ? fopen(path, "re") : NULL;
	if (!f && !root)
		return bl_fail(
			e, -ENOENT,
			"tracefs is not mounted, and a kprobe pattern is "
			"matched against its available_filter_functions "
			"(mount -t tracefs nodev /sys/kernel/tracing)");
	if (!f) {
		err = -errno;
		bl_errorf(e, "cannot read %s to match a pattern: %s", path,
			  strerror(-err));
		return err;
	}
	while (!err && fgets(line, sizeof(line), f))
		err = kfunc_line_add(line, p, m, &cap);
	fclose(f);
	if (m->n)
		qsort(m->m, m->n, sizeof(*m->m), by_name);
	for (i = 0; i < m->n; i++) {
		if (n && !strcmp(m->m[n - 1].name, m->m[i].name))
			free(m->m[i].name);
		else
			m->m[n++] = m->m[i];
	}
	m->n = n;
	if (!err && !n) {
		err = -ENOENT;
		bl_errorf(e, "no traceable kernel function matches '%s'",
			  p->symbol);
	}
	e->column = p->symbol_col;
	return err;
}

/* The targets of a uprobe pattern, in the file @t->fd then holds. */
static int uprobe_targets(const struct probe_spec *p, pid_t pid,
			  struct path_memo *memo, struct multi_targets *t,
			  struct uprobe_err *te)
{
	int err = -EAGAIN, tries;

	/* uprobe_glob() opens the file, as resolve_uprobe_file() would */
	for (tries = 0; err == -EAGAIN && tries < 3; tries++) {
		if (t->fd >= 0)
			close(t->fd);
		t->fd = -1;
		uprobe_matches_free(&t->m);
		err = locate_uprobe_file(p, pid, memo, t->path, te);
		if (!err)
			err = uprobe_file_hold(t->path, &t->fd);
		if (!err)
			err = uprobe_glob(t->path, p->symbol, &t->m, te);
		if (!err)
			err = uprobe_file_check(t->fd, t->m.dev, t->m.ino);
	}
	if (err == -EAGAIN) {
		te->e.column = p->path_col;
		bl_errorf(&te->e,
			  "%s was replaced while it was read, %d times: "
			  "nothing made",
			  p->path, tries);
	}
	return err;
}

static int targets_find(const struct probe_spec *p, pid_t pid,
			struct path_memo *memo, struct multi_targets *t,
			struct bl_error *e)
{
	struct uprobe_err te = {.path_col = p->path_col,
				.symbol_col = p->symbol_col,
				.e.column = p->path_col};
	int err;

	if (p->kind == PROBE_KPROBE || p->kind == PROBE_KRETPROBE)
		return kprobe_glob(p, &t->m, e);
	err = uprobe_targets(p, pid, memo, t, &te);
	if (err)
		*e = te.e;
	return err;
}

static bool is_uprobe(const struct probe_spec *p)
{
	return p->kind == PROBE_UPROBE || p->kind == PROBE_URETPROBE ||
	       p->kind == PROBE_USDT;
}

static bool is_return(const struct probe_spec *p)
{
	return p->kind == PROBE_URETPROBE || p->kind == PROBE_KRETPROBE;
}

/*
 * bpf(2) BPF_LINK_CREATE for uprobe_multi (libbpf 1.1 has no opts), on
 * the @n targets of @t from @first: @ret sets UPROBE_MULTI_RETURN,
 * @session makes it a uprobe session link (its attach type from the
 * kernel's BTF).
 */
static int uprobe_multi_range(int prog, const struct probe_spec *p,
			      const struct multi_targets *t,
			      const __u64 *cookies, size_t first, size_t n,
			      bool ret, bool session)
{
	struct abi_link_create_uprobe_multi attr;
	__u64 *offsets = calloc(n, sizeof(*offsets));
	char held[32];
	size_t i;
	int fd;

	if (!offsets)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		offsets[i] = t->m.m[first + i].offset;
	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = prog;
	attr.attach_type = session ? sight_session_attach_type()
				   : COUNTER_ATTACH_UPROBE_MULTI;
	/*
	 * The file that was read, not what t->path names now (a rename or a
	 * symlink may have changed that): the kernel keeps the file, not the
	 * string, and link info reports its own path for it.
	 */
	snprintf(held, sizeof(held), "/proc/self/fd/%d", t->fd);
	attr.path = (__u64)(unsigned long)held;
	attr.offsets = (__u64)(unsigned long)offsets;
	attr.ref_ctr_offsets =
		(__u64)(unsigned long)(t->ref_ctr_offsets
					       ? t->ref_ctr_offsets + first
					       : NULL);
	attr.cookies = (__u64)(unsigned long)(cookies + first);
	attr.cnt = n;
	attr.uflags = ret ? UPROBE_MULTI_RETURN : 0;
	attr.pid = p->opts & OPT_PID ? p->pid : 0;
	fd = syscall(__NR_bpf, BPF_CMD_LINK_CREATE, &attr, sizeof(attr));
	if (fd < 0)
		fd = -errno;
	free(offsets);
	return fd;
}

/* The link on every target of @t (see uprobe_multi_range()). */
static int uprobe_multi_link(int prog, const struct probe_spec *p,
			     const struct multi_targets *t,
			     const __u64 *cookies, bool ret, bool session)
{
	return uprobe_multi_range(prog, p, t, cookies, 0, t->m.n, ret, session);
}

/* The link a line asks for: return probe or not, session for latency. */
static int uprobe_multi_create(int prog, const struct probe_spec *p,
			       const struct multi_targets *t,
			       const __u64 *cookies)
{
	return uprobe_multi_link(prog, p, t, cookies, is_return(p),
				 p->opts & OPT_LATENCY);
}


/*
 * Which target of @t the kernel refused as an instruction it cannot probe:
 * halves of the range are tried (a link made is closed at once) until one
 * target is left, about log2(n) tries. Return: its index, or -1.
 */
static ssize_t unprobeable_target(int prog, const struct probe_spec *p,
				  const struct multi_targets *t,
				  const __u64 *cookies)
{
	size_t lo = 0, hi = t->m.n, mid;
	int fd;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		fd = uprobe_multi_range(prog, p, t, cookies, lo, mid - lo,
					is_return(p), p->opts & OPT_LATENCY);
		if (fd >= 0)
			close(fd);
		if (fd == -ENOTSUPP_KERNEL)
			hi = mid;
		else if (fd >= 0)
			lo = mid;
		else
			return -1; /* another error: no answer */
	}
	fd = uprobe_multi_range(prog, p, t, cookies, lo, 1, is_return(p),
				p->opts & OPT_LATENCY);
	if (fd >= 0)
		close(fd);
	return fd == -ENOTSUPP_KERNEL ? (ssize_t)lo : -1;
}

/* The message for a refused instruction: which target, when it is known. */
static void unprobeable_error(int prog, const struct probe_spec *p,
			      const struct multi_targets *t,
			      const __u64 *cookies, struct bl_error *e)
{
	ssize_t bad =
		is_uprobe(p) ? unprobeable_target(prog, p, t, cookies) : -1;
	const struct uprobe_match *m = bad >= 0 ? &t->m.m[bad] : NULL;

	if (m && m->name)
		bl_errorf(e,
			  "%s (file offset 0x%llx), a target of the %zu, is an "
			  "instruction the kernel cannot probe; leave it out "
			  "of the pattern",
			  m->name, (unsigned long long)m->offset, t->m.n);
	else if (m)
		bl_errorf(e,
			  "the target at file offset 0x%llx, of the %zu, is "
			  "an instruction the kernel cannot probe",
			  (unsigned long long)m->offset, t->m.n);
	else
		bl_errorf(e,
			  "a target of the %zu is an instruction the kernel "
			  "cannot probe; narrow the pattern",
			  t->m.n);
	e->column = p->symbol_col;
}

static int kprobe_multi_create(int prog, const struct probe_spec *p,
			       const struct multi_targets *t,
			       const __u64 *cookies)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	const char **syms = calloc(t->m.n, sizeof(*syms));
	size_t i;
	int fd;

	if (!syms)
		return -ENOMEM;
	for (i = 0; i < t->m.n; i++)
		syms[i] = t->m.m[i].name;
	opts.kprobe_multi.syms = syms;
	opts.kprobe_multi.cnt = t->m.n;
	opts.kprobe_multi.cookies = cookies;
	opts.kprobe_multi.flags = is_return(p) ? KPROBE_MULTI_RETURN : 0;
	fd = bpf_link_create(prog, 0, COUNTER_ATTACH_KPROBE_MULTI, &opts);
	if (fd < 0)
		fd = -errno;
	free(syms);
	return fd;
}

/* latency, by=, stacks=: a program of the link's own (sight.h) */
static int multi_sight_prog(struct owned *o, const struct probe_spec *p,
			    int slot, size_t n, struct bl_error *e)
{
	int type = COUNTER_ATTACH_UPROBE_MULTI, fd;

	if (p->opts & OPT_LATENCY)
		type = sight_session_attach_type();
	else if (!is_uprobe(p))
		type = COUNTER_ATTACH_KPROBE_MULTI;
	fd = type < 0 ? type
		      : sight_prog_load(owned_counter(o), p, slot, n, type);
	if (fd < 0)
		bl_errorf(e, "cannot load the built-in program with %s: %s",
			  p->opts & OPT_LATENCY ? "latency" : "its options",
			  strerror(-fd));
	return fd;
}

/*
 * The program: the built-in one as loaded for multi links, its per-link
 * instance for by= and latency, or prog=.
 */
static int multi_prog(struct owned *o, const struct probe_spec *p, int slot,
		      size_t n, bool *close_it, struct bl_error *e)
{
	int fd;

	*close_it = (p->opts & OPT_PROG) || sight_needed(p);
	if (sight_needed(p))
		return multi_sight_prog(o, p, slot, n, e);
	if (*close_it) {
		fd = prog_open_pinned(p->prog, p->kind, e);
		if (fd < 0)
			e->column = p->prog_col; /* the caret under prog= */
		return fd;
	}
	fd = counter_multi_prog_fd(owned_counter(o), is_uprobe(p));
	if (fd < 0)
		bl_errorf(e,
			  "cannot load the built-in program for a multi link: "
			  "%s",
			  strerror(-fd));
	return fd;
}

/* Cookies: slot .. slot + n - 1 for the built-in program, else cookie=. */
static int multi_attach(struct owned *o, const struct probe_spec *p,
			const struct multi_targets *t, int slot,
			struct bl_error *e)
{
	__u64 *cookies = calloc(t->m.n, sizeof(*cookies));
	bool close_it;
	size_t i;
	int prog, fd;

	if (!cookies)
		return -ENOMEM;
	for (i = 0; i < t->m.n; i++)
		cookies[i] = slot > 0 ? (__u64)slot + i : p->cookie;
	prog = multi_prog(o, p, slot, t->m.n, &close_it, e);
	fd = prog;
	if (prog >= 0) {
		fd = is_uprobe(p) ? uprobe_multi_create(prog, p, t, cookies)
				  : kprobe_multi_create(prog, p, t, cookies);
		/* uprobes refuse an instruction they cannot step (ENOTSUPP,
		 * kernel-internal 524): say which, with an errno users know */
		if (fd == -ENOTSUPP_KERNEL) {
			fd = -EOPNOTSUPP;
			unprobeable_error(prog, p, t, cookies, e);
		} else if (fd < 0) {
			bl_fail_at(
				e, fd, p->symbol_col,
				"cannot create the %s link of %zu targets: %s",
				is_uprobe(p) ? "uprobe_multi" : "kprobe_multi",
				t->m.n, strerror(-fd));
		}
		if (close_it)
			close(prog);
	}
	free(cookies);
	return fd;
}

static int multi_register(struct owned *o, const struct probe_spec *p,
			  const struct multi_targets *t, int slot,
			  const char *line, size_t len, int *lfd,
			  struct bl_error *e, __u32 *id)
{
	struct owned_info *own = calloc(1, sizeof(*own));
	struct stat st;
	int err = own ? link_id_read_fd(*lfd, &own->id) : -ENOMEM;

	if (!err) {
		own->f.id = own->id;
		own->f.link_type = is_uprobe(p) ? LINK_TYPE_UPROBE_MULTI
						: LINK_TYPE_KPROBE_MULTI;
		own->slot = slot;
		own->nslots = slot > 0 ? t->m.n : 0;
		own->kind = p->kind;
		own->sight = p->opts & OPT_SIGHT;
		snprintf(own->f.name, sizeof(own->f.name), "%s", t->path);
		/* the file uprobe_glob() read; a USDT line's, looked up */
		if (t->m.dev || t->m.ino) {
			own->dev = t->m.dev;
			own->ino = t->m.ino;
		} else if (is_uprobe(p) && !stat(t->path, &st)) {
			own->dev = st.st_dev;
			own->ino = st.st_ino;
		}
		snprintf(own->spec, sizeof(own->spec), "%.*s", (int)len, line);
		err = own_link(o, own, lfd, e);
		if (!err)
			*id = own->id;
	}
	free(own);
	return err;
}

/*
 * The return half of a latency pair on the targets @t: a return
 * uprobe_multi link running @rfd with the entry's cookies, registered with
 * the same line and paired with @entry_id (it has no hits of its own).
 */
static int multi_pair_return(struct owned *o, const struct probe_spec *p,
			     const struct multi_targets *t, int rfd,
			     const __u64 *cookies, const char *line, size_t len,
			     __u32 entry_id, struct bl_error *e)
{
	struct probe_spec *ret = malloc(sizeof(*ret));
	int lfd, err = ret ? 0 : -ENOMEM;
	__u32 rid;

	if (err)
		return err;
	*ret = *p;
	ret->kind = PROBE_URETPROBE;
	ret->opts &= ~OPT_SIGHT; /* latency shows on the entry link */
	lfd = uprobe_multi_link(rfd, p, t, cookies, true, false);
	if (lfd < 0)
		bl_errorf(e, "cannot create the return link of %zu targets: %s",
			  t->m.n, strerror(-lfd));
	err = lfd < 0 ? lfd
		      : multi_register(o, ret, t, -1, line, len, &lfd, e, &rid);
	if (lfd >= 0 && err) /* else the registry holds it */
		close(lfd);
	if (!err)
		err = owned_pair(o, entry_id, rid);
	free(ret);
	return err;
}

/*
 * latency without uprobe session links: an entry uprobe_multi link and a
 * return one sharing the entry times per thread (sight_pair_load()), with
 * slots @slot .. for the targets; nothing is left made on failure.
 */
static int multi_pair_make(struct owned *o, const struct probe_spec *p,
			   const struct multi_targets *t, int slot,
			   const char *line, size_t len, struct bl_error *e,
			   __u32 *id)
{
	__u64 *cookies = calloc(t->m.n, sizeof(*cookies));
	int efd = -1, rfd = -1, lfd = -1, err = cookies ? 0 : -ENOMEM;
	size_t i;

	for (i = 0; cookies && i < t->m.n; i++)
		cookies[i] = (__u64)slot + i;
	if (!err)
		err = sight_pair_load(owned_counter(o), p, slot, t->m.n,
				      COUNTER_ATTACH_UPROBE_MULTI, &efd, &rfd);
	if (err)
		bl_errorf(e,
			  "cannot load the built-in program with latency: %s",
			  strerror(-err));
	if (!err) {
		lfd = uprobe_multi_link(efd, p, t, cookies, false, false);
		err = lfd < 0 ? lfd : 0;
		if (err)
			bl_errorf(e,
				  "cannot create the uprobe_multi link of %zu "
				  "targets: %s",
				  t->m.n, strerror(-err));
	}
	if (!err)
		err = multi_register(o, p, t, slot, line, len, &lfd, e, id);
	if (lfd >= 0 && err) /* else the registry holds it */
		close(lfd);
	if (!err &&
	    (err = multi_pair_return(o, p, t, rfd, cookies, line, len, *id, e)))
		owned_remove(o, *id); /* the reaper frees the slots */
	else if (err)
		for (i = 0; i < t->m.n; i++)
			counter_slot_free(owned_counter(o), slot + i);
	if (efd >= 0)
		close(efd);
	if (rfd >= 0)
		close(rfd);
	free(cookies);
	return err;
}

/* A uprobe target of @t as a single one, on the file @t holds. */
static int per_match_uprobe(struct owned *o, const struct probe_spec *p,
			    const struct multi_targets *t, size_t i,
			    const char *spec, struct request_ids *made,
			    struct bl_error *e)
{
	struct uprobe_target *ut = calloc(1, sizeof(*ut));
	int err = ut ? request_ids_reserve(made, 1) : -ENOMEM;

	if (!err) {
		snprintf(ut->path, sizeof(ut->path), "%s", t->path);
		ut->fd = t->fd;
		ut->dev = t->m.dev;
		ut->ino = t->m.ino;
		ut->offset = t->m.m[i].offset;
		err = perf_probe_link_make(o, p, ut, -1, spec, e,
					   &made->ids[made->len]);
	}
	if (!err)
		made->len++;
	free(ut);
	return err;
}

/* The kernel has no multi link of that kind: one perf link per match. */
static int per_match(struct owned *o, const struct probe_spec *p,
		     const struct multi_targets *t, const char *line,
		     size_t len, pid_t pid, struct request_ids *made,
		     struct path_memo *memo, struct bl_error *e)
{
	struct probe_spec *one = malloc(sizeof(*one));
	char *spec = strndup(line, len);
	size_t i;
	int err = one && spec ? 0 : -ENOMEM;

	for (i = 0; !err && i < t->m.n; i++) {
		*one = *p;
		one->wildcard = false;
		if (is_uprobe(p)) {
			err = per_match_uprobe(o, one, t, i, spec, made, e);
			continue;
		}
		snprintf(one->symbol, sizeof(one->symbol), "%s",
			 t->m.m[i].name);
		err = single_probe_create(o, one, line, len, pid, made, memo,
					  e);
	}
	free(spec);
	free(one);
	return err;
}

/*
 * One multi link for the targets @t: counter slots, the link, its
 * registration; nothing is left behind on failure.
 */
static int multi_make(struct owned *o, const struct probe_spec *p,
		      const struct multi_targets *t, const char *line,
		      size_t len, struct request_ids *made, struct bl_error *e)
{
	int err = 0, slot = -1, lfd = -1;

	if (!(p->opts & OPT_PROG)) {
		slot = counter_slot_alloc_range(owned_counter(o), t->m.n);
		if (slot < 0) {
			err = slot;
			bl_errorf(e, "out of counter slots for %zu targets",
				  t->m.n);
		}
	}
	if (!err)
		err = request_ids_reserve(made, 1);
	if (!err && is_uprobe(p) && sight_use_pair(p, owned_latency_pairs(o))) {
		err = multi_pair_make(o, p, t, slot, line, len, e,
				      &made->ids[made->len]);
		if (!err)
			made->len++;
		return err;
	}
	if (!err) {
		lfd = multi_attach(o, p, t, slot, e);
		err = lfd < 0 ? lfd : 0;
	}
	if (!err)
		err = multi_register(o, p, t, slot, line, len, &lfd, e,
				     &made->ids[made->len]);
	if (!err)
		made->len++;
	if (lfd >= 0 && err)
		close(lfd);
	if (err && slot > 0)
		for (size_t i = 0; i < t->m.n; i++)
			counter_slot_free(owned_counter(o), slot + i);
	return err;
}

int multi_probe_create(struct owned *o, const struct probe_spec *p,
		       const char *line, size_t len, pid_t pid,
		       struct request_ids *made, struct path_memo *memo,
		       struct bl_error *e)
{
	struct multi_targets *t = calloc(1, sizeof(*t));
	int err = t ? 0 : -ENOMEM;

	if (t)
		t->fd = -1;
	if (!err)
		err = targets_find(p, pid, memo, t, e);
	if (!err && !multi_link_creatable(is_uprobe(p))) {
		err = per_match(o, p, t, line, len, pid, made, memo, e);
		/* after: each single_probe_create() clears the warning */
		bl_warnf(e,
			 "this kernel has no %s links: %zu %s links made, one "
			 "per match",
			 is_uprobe(p) ? "uprobe_multi" : "kprobe_multi", t->m.n,
			 probe_kind_name(p->kind));
	} else if (!err) {
		err = multi_make(o, p, t, line, len, made, e);
	}
	if (t && t->fd >= 0)
		close(t->fd);
	if (t)
		uprobe_matches_free(&t->m);
	free(t);
	e->err = err;
	return err;
}

int usdt_multi_create(struct owned *o, const struct probe_spec *p,
		      const struct uprobe_target *ut,
		      const struct usdt_location *locs, size_t n,
		      const char *line, size_t len, struct request_ids *made,
		      struct bl_error *e)
{
	struct multi_targets *t = calloc(1, sizeof(*t));
	int err = t ? 0 : -ENOMEM;
	size_t i;

	if (!err) {
		t->m.m = calloc(n, sizeof(*t->m.m));
		t->ref_ctr_offsets = calloc(n, sizeof(*t->ref_ctr_offsets));
		err = t->m.m && t->ref_ctr_offsets ? 0 : -ENOMEM;
	}
	if (!err) {
		snprintf(t->path, sizeof(t->path), "%s", ut->path);
		t->fd = ut->fd; /* the caller's */
		t->m.dev = ut->dev;
		t->m.ino = ut->ino;
		for (i = 0; i < n; i++) {
			t->m.m[i].offset = locs[i].offset;
			t->ref_ctr_offsets[i] = locs[i].ref_ctr_offset;
		}
		t->m.n = n;
		err = multi_make(o, p, t, line, len, made, e);
	}
	if (t) {
		uprobe_matches_free(&t->m);
		free(t->ref_ctr_offsets);
	}
	free(t);
	e->err = err;
	return err;
}

int session_probe_create(struct owned *o, const struct probe_spec *p,
			 const char *line, size_t len, pid_t pid,
			 struct request_ids *made, struct path_memo *memo,
			 struct bl_error *e)
{
	struct uprobe_target *ut = calloc(1, sizeof(*ut));
	struct usdt_location one = {0};
	int err = -ENOMEM;

	if (ut) {
		ut->fd = -1;
		err = resolve_uprobe(p, pid, memo, ut, e);
	}
	if (!err && ut->warning[0])
		bl_warnf(e, "%s", ut->warning);
	if (!err) {
		one.offset = ut->offset;
		err = usdt_multi_create(o, p, ut, &one, 1, line, len, made, e);
	}
	if (ut && ut->fd >= 0)
		close(ut->fd);
	free(ut);
	e->err = err;
	return err;
}
