// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bare perf events: the PERF_EVENT records of task_files that no link
 * holds, described by BPF_TASK_FD_QUERY (kernel/bpf/syscall.c,
 * bpf_task_fd_query(): fd_type, the name, probe_offset, probe_addr). The
 * query does not answer for perf events running a BPF_PROG_TYPE_PERF_EVENT
 * program (software and hardware events: EOPNOTSUPP); their type and
 * config come from the iterator, which reads perf_event_attr.
 */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "bare_perf_events.h"
#include "fixed_fields.h"
#include "link_list.h"
#include "owned.h"
#include "task_files.h"

/*
 * A perf event's description never changes while it lives: its probe is
 * fixed at perf_event_open() and its program cannot be replaced (a second
 * PERF_EVENT_IOC_SET_BPF is EEXIST). So each one is asked once and kept,
 * keyed by holder, fd, the perf event's identity and its program, and
 * dropped by the first pass that no longer lists that very key.
 */
struct cached {
	__u32 pid, fd, prog_id;
	__u64 key;
	struct bare_perf_event p;
};

struct bare_perf_set {
	pthread_mutex_t lock; /* guards the cache: FUSE is multi-threaded */
	struct cached *cache; /* by (pid, fd) */
	size_t ncache;
	/* its links' perf events are not bare; read with its task-file
	 * iterator (owned_task_files()) */
	struct owned *reg;
};

int bare_perf_open(struct bare_perf_set **out, struct owned *reg)
{
	struct bare_perf_set *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	s->reg = reg;
	*out = s;
	return 0;
}

void bare_perf_close(struct bare_perf_set *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->lock);
	free(s->cache);
	free(s);
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* A sorted array of u64, to look keys and program ids up in */
struct u64_set {
	__u64 *v;
	size_t n;
};

static bool u64_set_has(const struct u64_set *s, __u64 x)
{
	return s->n && bsearch(&x, s->v, s->n, sizeof(x), cmp_u64);
}

/* Insert @x into @s, kept sorted (room for it is there) */
static void u64_set_insert(struct u64_set *s, __u64 x)
{
	size_t lo = 0, hi = s->n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (s->v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(s->v + lo + 1, s->v + lo, (s->n - lo) * sizeof(*s->v));
	s->v[lo] = x;
	s->n++;
}

/*
 * Keys of the perf events that links hold: of every perf link where the
 * link iterator runs (pinned-only links too), else of the perf links some
 * process holds an fd of (the LINK records' keys).
 */
static int held_keys(struct task_files *tf, const struct task_file *v, int n,
		     struct u64_set *out)
{
	__u64 *keys = NULL;
	int nk = task_files_perf_link_keys(tf, &keys), i;

	if (nk >= 0) {
		out->v = keys;
		out->n = (size_t)nk;
		return 0;
	}
	if (nk != -EOPNOTSUPP)
		return nk;
	out->v = malloc((n ? n : 1) * sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	for (i = 0, out->n = 0; i < n; i++)
		if (v[i].kind == TASK_FILE_LINK && v[i].key)
			out->v[out->n++] = v[i].key;
	qsort(out->v, out->n, sizeof(*out->v), cmp_u64);
	return 0;
}

/* The /proc walk has no keys: the programs of every perf link instead */
static int link_progs(struct owned *reg, struct u64_set *out)
{
	struct link_fields *f = malloc(sizeof(*f));
	__u32 *ids = NULL;
	int n = f ? listed_link_ids(reg, &ids) : -ENOMEM, i;

	out->v = n >= 0 ? malloc((n ? n : 1) * sizeof(*out->v)) : NULL;
	if (n >= 0 && !out->v)
		n = -ENOMEM;
	for (i = 0, out->n = 0; i < n; i++)
		if (!fixed_fields_get(ids[i], f, false) &&
		    f->link_type == LINK_TYPE_PERF_EVENT)
			out->v[out->n++] = f->prog_id;
	free(ids);
	free(f);
	if (n < 0)
		return n;
	qsort(out->v, out->n, sizeof(*out->v), cmp_u64);
	return 0;
}

/*
 * Keep in @v the bare perf events only, the first holder of each.
 * Return: the count kept, or -ENOMEM.
 */
/* Whether a perf event of @v has a key that no link of @held holds */
static bool any_unheld(const struct task_file *v, int n,
		       const struct u64_set *held)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i].kind == TASK_FILE_PERF_EVENT &&
		    !u64_set_has(held, v[i].key))
			return true;
	return false;
}

static int keep_bare_of(struct bare_perf_set *s, struct task_file *v, int n,
			bool keyed, const struct u64_set *given)
{
	struct u64_set held = {0}, seen = {0};
	int i, kept = 0, err;

	/*
	 * Keys the caller read before this walk miss a link made since: they
	 * say only that there is no bare event. Else the keys are read now,
	 * after the walk, as a link comes after its perf event.
	 */
	if (keyed && given && !any_unheld(v, n, given))
		return 0;
	err = keyed ? held_keys(owned_task_files(s->reg), v, n, &held)
		    : link_progs(s->reg, &held);
	seen.v = err ? NULL : malloc((n ? n : 1) * sizeof(*seen.v));
	if (!err && !seen.v)
		err = -ENOMEM;
	for (i = 0; !err && i < n; i++) {
		if (v[i].kind != TASK_FILE_PERF_EVENT ||
		    u64_set_has(&held, keyed ? v[i].key : v[i].id))
			continue;
		/* records come by (pid, fd): the first holder comes first */
		if (keyed && u64_set_has(&seen, v[i].key))
			continue;
		if (keyed)
			u64_set_insert(&seen, v[i].key);
		v[kept++] = v[i];
	}
	free(held.v);
	free(seen.v);
	return err ? err : kept;
}

static int keep_bare(struct bare_perf_set *s, struct task_file *v, int n,
		     bool keyed)
{
	return keep_bare_of(s, v, n, keyed, NULL);
}

/*
 * The bare perf event records now, by (pid, fd); @given: the keys of the
 * perf events links hold, read by the caller, or NULL to read them here
 */
static int bare_records_of(struct bare_perf_set *s,
			   const struct u64_set *given, struct task_file **out)
{
	struct task_files *tf = owned_task_files(s->reg);
	struct task_file *v = NULL;
	/* perf event fds alone where the links' keys come from their own
	 * iterator: the link fds, most of the host's, are not needed */
	int n = task_files_read_perf_events(tf, &v);

	if (n == -EOPNOTSUPP)
		n = task_files_read(tf, &v);
	if (n >= 0)
		n = keep_bare_of(s, v, n,
				 !strcmp(task_files_source(tf), "iterator"),
				 given);
	if (n < 0) {
		free(v);
		return n;
	}
	*out = v;
	return n;
}

static int bare_records(struct bare_perf_set *s, struct task_file **out)
{
	return bare_records_of(s, NULL, out);
}

int bare_perf_ids(struct bare_perf_set *s, struct bare_perf_id **out)
{
	struct task_file *v = NULL;
	struct bare_perf_id *ids;
	int n = bare_records(s, &v), i;

	if (n < 0)
		return n;
	ids = malloc((n ? n : 1) * sizeof(*ids));
	for (i = 0; ids && i < n; i++) {
		ids[i].pid = v[i].pid;
		ids[i].fd = v[i].fd;
	}
	free(v);
	if (!ids)
		return -ENOMEM;
	*out = ids;
	return n;
}

/*
 * Every process holding the perf event of bare record @r in @v (all
 * @n records, by pid and fd), each once, by pid, into @out. Return: the
 * count, -ENOMEM.
 */
static int holders_of(const struct task_file *v, int n,
		      const struct task_file *r, struct link_holder **out)
{
	struct link_holder *h = malloc((n ? n : 1) * sizeof(*h));
	int i, k = 0;

	if (!h)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (v[i].kind != TASK_FILE_PERF_EVENT ||
		    (r->key ? v[i].key != r->key
			    : v[i].pid != r->pid || v[i].fd != r->fd))
			continue;
		if (k && h[k - 1].pid == v[i].pid)
			continue;
		h[k].link_id = 0;
		h[k].pid = v[i].pid;
		memcpy(h[k].comm, v[i].comm, sizeof(h[k].comm));
		h[k].comm[sizeof(h[k].comm) - 1] = '\0';
		k++;
	}
	*out = h;
	return k;
}

int bare_perf_holders(struct bare_perf_set *s, __u32 pid, __u32 fd,
		     struct link_holder **out)
{
	struct task_files *tf = owned_task_files(s->reg);
	struct task_file *v = NULL, *bare = NULL;
	int n = task_files_read(tf, &v), nb, i, err = -ENOENT;

	bare = n >= 0 ? malloc((n ? n : 1) * sizeof(*bare)) : NULL;
	nb = !bare ? (n < 0 ? n : -ENOMEM) : 0;
	if (bare) {
		if (n)
			memcpy(bare, v, n * sizeof(*bare));
		nb = keep_bare(s, bare, n,
			       !strcmp(task_files_source(tf), "iterator"));
	}
	for (i = 0; i < nb; i++)
		if (bare[i].pid == pid && bare[i].fd == fd) {
			err = holders_of(v, n, &bare[i], out);
			break;
		}
	free(bare);
	free(v);
	return nb < 0 ? nb : err;
}

/* BPF_TASK_FD_QUERY's fd_type as a perf link kind */
static enum perf_link_kind fd_type_kind(__u32 fd_type)
{
	switch (fd_type) {
	case BPF_FD_TYPE_TRACEPOINT:
		return PERF_LINK_TRACEPOINT;
	case BPF_FD_TYPE_KPROBE:
		return PERF_LINK_KPROBE;
	case BPF_FD_TYPE_KRETPROBE:
		return PERF_LINK_KRETPROBE;
	case BPF_FD_TYPE_UPROBE:
		return PERF_LINK_UPROBE;
	case BPF_FD_TYPE_URETPROBE:
		return PERF_LINK_URETPROBE;
	default:
		return PERF_LINK_UNSPEC;
	}
}

/* Describe record @r into @p. Return: 0, -ENOENT (gone), -errno. */
static int describe(const struct task_file *r, struct bare_perf_event *p)
{
	__u32 len = sizeof(p->f.name), prog_id = 0, fd_type = 0;
	__u64 offset = 0, addr = 0;
	int err;

	memset(p, 0, sizeof(*p));
	p->pid = r->pid;
	p->fd = r->fd;
	memcpy(p->comm, r->comm, sizeof(p->comm) - 1);
	memcpy(p->prog_name, r->prog_name, sizeof(p->prog_name) - 1);
	err = bpf_task_fd_query((int)r->pid, (int)r->fd, 0, p->f.name, &len,
				&prog_id, &fd_type, &offset, &addr);
	if (err && errno == EOPNOTSUPP && r->event_type != 2) {
		/* a perf_event program: a generic perf event (not type 2,
		 * PERF_TYPE_TRACEPOINT), told by the iterator */
		p->f.kind = PERF_LINK_EVENT;
		p->f.event_type = r->event_type;
		p->f.config = r->config;
		p->f.prog_id = r->id;
		p->f.name[0] = '\0';
		return r->key ? 0 : -ENOENT;
	}
	if (err)
		return errno == ENOSPC ? -ENAMETOOLONG
		       : errno == EBADF || errno == ESRCH || errno == ENOENT
			       ? -ENOENT
			       : -errno;
	if (prog_id != r->id)
		return -ENOENT; /* the fd was reused meanwhile */
	p->f.kind = fd_type_kind(fd_type);
	p->f.prog_id = prog_id;
	p->f.offset = offset;
	p->f.addr = addr;
	p->f.name[len < sizeof(p->f.name) ? len : sizeof(p->f.name) - 1] = 0;
	return p->f.kind == PERF_LINK_UNSPEC ? -ENOENT : 0;
}

static int cmp_cached(const void *a, const void *b)
{
	const struct cached *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->fd < y->fd ? -1 : x->fd > y->fd;
}

/* The kept description of record @r, if it is that very perf event */
static const struct bare_perf_event *cache_find(const struct bare_perf_set *s,
					       const struct task_file *r)
{
	struct cached want = {.pid = r->pid, .fd = r->fd};
	const struct cached *c;

	if (!r->key || !s->ncache)
		return NULL; /* the /proc walk has no identity to go by */
	c = bsearch(&want, s->cache, s->ncache, sizeof(*c), cmp_cached);
	return c && c->key == r->key && c->prog_id == r->id ? &c->p : NULL;
}

/*
 * Copy @src to @dst up to its name's NUL: the name is the struct's last
 * member, PATH_MAX long, and mostly empty; copying it whole costs a page
 * touched per entry on every render.
 */
static void probe_copy(struct bare_perf_event *dst,
		       const struct bare_perf_event *src)
{
	size_t head = offsetof(struct bare_perf_event, f) +
		      offsetof(struct link_fields, name);

	memcpy(dst, src,
	       head + strnlen(src->f.name, sizeof(src->f.name) - 1) + 1);
	dst->f.name[sizeof(dst->f.name) - 1] = '\0';
}

/*
 * Describe @r into @p, from the cache where it holds that perf event.
 * Return: 1 from the cache, 0 described now, -errno.
 */
static int describe_cached(struct bare_perf_set *s, const struct task_file *r,
			   struct bare_perf_event *p)
{
	const struct bare_perf_event *c;

	pthread_mutex_lock(&s->lock);
	c = cache_find(s, r);
	if (c)
		probe_copy(p, c);
	pthread_mutex_unlock(&s->lock);
	return c ? 1 : describe(r, p);
}

int bare_perf_get(struct bare_perf_set *s, __u32 pid, __u32 fd,
		 struct bare_perf_event *p)
{
	struct task_file *v = NULL;
	int n = bare_records(s, &v), i, err = -ENOENT;

	for (i = 0; i < n; i++)
		if (v[i].pid == pid && v[i].fd == fd) {
			err = describe_cached(s, &v[i], p);
			err = err > 0 ? 0 : err;
			break;
		}
	free(v);
	return n < 0 ? n : err;
}

/* Replace the cache with @p (@n entries, by pid and fd) of records @v */
static void cache_replace(struct bare_perf_set *s, const struct task_file *v,
			  const struct bare_perf_event *p, int n)
{
	struct cached *c = malloc((n ? n : 1) * sizeof(*c));
	int i, kept = 0;

	for (i = 0; c && i < n; i++) {
		if (!v[i].key)
			continue;
		c[kept].pid = p[i].pid;
		c[kept].fd = p[i].fd;
		c[kept].prog_id = p[i].f.prog_id;
		c[kept].key = v[i].key;
		probe_copy(&c[kept++].p, &p[i]);
	}
	pthread_mutex_lock(&s->lock);
	free(s->cache);
	s->cache = c;
	s->ncache = c ? (size_t)kept : 0;
	pthread_mutex_unlock(&s->lock);
}

/*
 * Whether the cache is exactly the @kept perf events just described, all
 * @cached of them from it: then it stands as it is.
 */
static bool cache_holds_all(struct bare_perf_set *s, int cached, int kept)
{
	bool same;

	pthread_mutex_lock(&s->lock);
	same = cached == kept && (size_t)kept == s->ncache;
	pthread_mutex_unlock(&s->lock);
	return same;
}

int bare_perf_read_all(struct bare_perf_set *s, struct bare_perf_event **out)
{
	return bare_perf_read_all_keyed(s, NULL, 0, out);
}

int bare_perf_read_all_keyed(struct bare_perf_set *s, const __u64 *keys,
			     size_t nkeys, struct bare_perf_event **out)
{
	struct u64_set given = {(__u64 *)keys, nkeys};
	struct bare_perf_event *p = NULL;
	struct task_file *v = NULL;
	int n = bare_records_of(s, keys ? &given : NULL, &v), i, kept = 0;
	int cached = 0, err = 0;

	if (n > 0 && !(p = malloc(n * sizeof(*p))))
		err = -ENOMEM;
	for (i = 0; !err && i < n; i++) {
		err = describe_cached(s, &v[i], &p[kept]);
		cached += err > 0;
		if (err >= 0)
			v[kept++] = v[i]; /* v[k] stays p[k]'s record */
		err = err == -ENOENT || err == -ENAMETOOLONG
			      ? 0 /* gone meanwhile, or a name we cannot hold */
		      : err > 0 ? 0
				: err;
	}
	if (!err && n >= 0 && !cache_holds_all(s, cached, kept))
		cache_replace(s, v, p, kept);
	free(v);
	if (n < 0 || err) {
		free(p);
		return n < 0 ? n : err;
	}
	*out = p;
	return kept;
}
