// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "fixed_fields.h"
#include "prog_names.h"
#include "taskfd_query.h"

#define LINK_TYPE_UNSPEC 0   /* BPF_LINK_TYPE_UNSPEC: no link has it */
#define CACHE_MAX (1u << 20) /* ids; past that the cache starts over */

/* About 100 bytes a link plus its name (within 256 + name). */
struct cached_link {
	struct cached_link *next;
	__u32 id, link_type, prog_id, offset, event_type;
	enum perf_link_kind kind;
	enum link_view_kind view;
	__u32 known, attach_type, target_obj_id, target_btf_id;
	__u32 count, flags, pid;
	__u64 addr, cookie, ref_ctr_offset, config;
	char prog_name[16]; /* BPF_OBJ_NAME_LEN: the kernel's name */
	bool prog_name_known;
	char name[]; /* flexible: exactly its length */
};

/* Process-wide on purpose: link info the kernel does not change for a link
 * id is the same whichever mount asks; a memo private to this file,
 * pruned to the ids listed, not part of the handle of owned.h */
static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static struct cached_link **buckets;
static size_t nbuckets, count;

static size_t bucket_of(__u32 id)
{
	return (id * 2654435761u) & (nbuckets - 1);
}

/* lock held */
static struct cached_link *find(__u32 id)
{
	struct cached_link *c;

	if (!nbuckets)
		return NULL;
	for (c = buckets[bucket_of(id)]; c; c = c->next)
		if (c->id == id)
			return c;
	return NULL;
}

static void clear_all(void)
{
	size_t i;

	for (i = 0; i < nbuckets; i++)
		while (buckets[i]) {
			struct cached_link *c = buckets[i];

			buckets[i] = c->next;
			free(c);
		}
	count = 0;
}

/* Grow to keep chains short; write lock held. */
static void grow(void)
{
	size_t n = nbuckets ? nbuckets * 2 : 1024, i;
	struct cached_link **b = calloc(n, sizeof(*b));

	if (!b)
		return;
	for (i = 0; i < nbuckets; i++)
		while (buckets[i]) {
			struct cached_link *c = buckets[i];

			buckets[i] = c->next;
			c->next = b[(c->id * 2654435761u) & (n - 1)];
			b[(c->id * 2654435761u) & (n - 1)] = c;
		}
	free(buckets);
	buckets = b;
	nbuckets = n;
}

static void to_fields(const struct cached_link *c, struct link_fields *f)
{
	memset(f, 0, offsetof(struct link_fields, name));
	f->id = c->id;
	f->link_type = c->link_type;
	f->prog_id = c->prog_id;
	f->kind = c->kind;
	f->view = c->view;
	f->known = c->known;
	f->attach_type = c->attach_type;
	f->target_obj_id = c->target_obj_id;
	f->target_btf_id = c->target_btf_id;
	f->count = c->count;
	f->flags = c->flags;
	f->pid = c->pid;
	f->offset = c->offset;
	f->addr = c->addr;
	f->cookie = c->cookie;
	f->ref_ctr_offset = c->ref_ctr_offset;
	f->config = c->config;
	f->event_type = c->event_type;
	memcpy(f->name, c->name, strlen(c->name) + 1);
}

static void insert(const struct link_fields *f)
{
	size_t len = strlen(f->name);
	struct cached_link *c = calloc(1, sizeof(*c) + len + 1);

	if (!c)
		return;
	*c = (struct cached_link){.id = f->id,
				  .link_type = f->link_type,
				  .prog_id = f->prog_id,
				  .offset = f->offset,
				  .event_type = f->event_type,
				  .kind = f->kind,
				  .view = f->view,
				  .known = f->known,
				  .attach_type = f->attach_type,
				  .target_obj_id = f->target_obj_id,
				  .target_btf_id = f->target_btf_id,
				  .count = f->count,
				  .flags = f->flags,
				  .pid = f->pid,
				  .addr = f->addr,
				  .cookie = f->cookie,
				  .ref_ctr_offset = f->ref_ctr_offset,
				  .config = f->config};
	memcpy(c->name, f->name, len);
	c->name[len] = '\0';
	pthread_rwlock_wrlock(&lock);
	if (count >= CACHE_MAX)
		clear_all();
	if (count >= nbuckets)
		grow();
	if (nbuckets && !find(f->id)) {
		c->next = buckets[bucket_of(f->id)];
		buckets[bucket_of(f->id)] = c;
		count++;
		c = NULL;
	}
	pthread_rwlock_unlock(&lock);
	free(c);
}

/* One syscall, no fd: is @id still listed? */
static bool id_exists(__u32 id)
{
	__u32 next;

	return link_next_id(id - 1, &next) == 0 && next == id;
}

/* From the kernel, into the cache. */
static int fetch(__u32 id, struct link_fields *f)
{
	int err = link_info_read(id, f);

	/* before 6.6: ask the perf event fd of a process holding the link */
	if (!err && f->link_type == LINK_TYPE_PERF_EVENT &&
	    !link_features()->perf_link_info)
		link_info_from_task_fd(f->id, f->prog_id, f);
	/* what a non-probe link's info part reports can change (a netns that
	 * dies, a detached xdp or cgroup link, a struct_ops map update): such
	 * links are read anew each time */
	if (!err && f->view != VIEW_OTHER)
		insert(f);
	return err;
}

int fixed_fields_get(__u32 id, struct link_fields *f, bool verify)
{
	struct cached_link *c;
	bool hit = false;

	if (verify && !id_exists(id)) {
		fixed_fields_forget(id);
		return -ENOENT;
	}
	pthread_rwlock_rdlock(&lock);
	c = find(id);
	if (c) {
		to_fields(c, f);
		hit = true;
	}
	pthread_rwlock_unlock(&lock);
	if (hit)
		return 0;
	return fetch(id, f);
}

int fixed_fields_link_type(__u32 id, __u32 *link_type)
{
	struct cached_link *c;
	int err = -ENOENT;

	pthread_rwlock_rdlock(&lock);
	c = find(id);
	if (c) {
		*link_type = c->link_type;
		err = 0;
	}
	pthread_rwlock_unlock(&lock);
	if (!err)
		return 0;
	{
		struct link_fields *f = malloc(sizeof(*f));

		err = f ? fetch(id, f) : -ENOMEM;
		if (!err)
			*link_type = f->link_type;
		free(f);
	}
	return err;
}

int fixed_fields_types(struct link_id_type *v, size_t n)
{
	size_t i, kept = 0;
	struct cached_link *c;

	/* one read lock for every cached id, not one per id */
	pthread_rwlock_rdlock(&lock);
	for (i = 0; i < n; i++) {
		c = find(v[i].id);
		v[i].type = c ? c->link_type : LINK_TYPE_UNSPEC;
	}
	pthread_rwlock_unlock(&lock);
	for (i = 0; i < n; i++)
		if (v[i].type != LINK_TYPE_UNSPEC ||
		    fixed_fields_link_type(v[i].id, &v[i].type) == 0)
			v[kept++] = v[i];
	return (int)kept;
}

int fixed_fields_prog_name(__u32 id, __u32 prog_id, char *buf, size_t len)
{
	struct cached_link *c;
	int err = -ENOENT;

	pthread_rwlock_rdlock(&lock);
	c = find(id);
	if (c && c->prog_name_known && c->prog_id == prog_id && len) {
		/* as snprintf "%s" would, without its set-up: once a link
		 * in a listing */
		size_t n = strnlen(c->prog_name, len - 1);

		memcpy(buf, c->prog_name, n);
		buf[n] = '\0';
		err = 0;
	}
	pthread_rwlock_unlock(&lock);
	/* the kernel's name is kept here; one it cut short, whole there */
	if (!err)
		return prog_full_name(prog_id, buf, buf, len);
	err = prog_name_read(prog_id, buf, len);
	if (err)
		return err;
	pthread_rwlock_wrlock(&lock);
	c = find(id);
	if (c && c->prog_id == prog_id) {
		snprintf(c->prog_name, sizeof(c->prog_name), "%s", buf);
		c->prog_name_known = true;
	}
	pthread_rwlock_unlock(&lock);
	return 0;
}

static bool listed(const struct link_id_type *v, size_t n, __u32 id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].id == id;
}

void fixed_fields_prune(const struct link_id_type *v, size_t n)
{
	size_t i, hits = 0;
	bool stale;

	/*
	 * The kernel reuses ids once they wrap at INT_MAX, so no stale entry
	 * may stay. When every cached id is among the listed ones, there is
	 * none: one hash lookup per listed id, cheaper than the walk below.
	 */
	pthread_rwlock_rdlock(&lock);
	for (i = 0; i < n && nbuckets; i++)
		hits += find(v[i].id) != NULL;
	stale = hits != count;
	pthread_rwlock_unlock(&lock);
	if (!stale)
		return;
	pthread_rwlock_wrlock(&lock);
	for (i = 0; i < nbuckets; i++) {
		struct cached_link **pp = &buckets[i];

		while (*pp) {
			struct cached_link *c = *pp;

			if (listed(v, n, c->id)) {
				pp = &c->next;
				continue;
			}
			*pp = c->next;
			free(c);
			count--;
		}
	}
	pthread_rwlock_unlock(&lock);
}

void fixed_fields_forget(__u32 id)
{
	struct cached_link **pp, *c;

	pthread_rwlock_wrlock(&lock);
	for (pp = nbuckets ? &buckets[bucket_of(id)] : NULL; pp && *pp;
	     pp = &(*pp)->next) {
		if ((*pp)->id != id)
			continue;
		c = *pp;
		*pp = c->next;
		free(c);
		count--;
		break;
	}
	pthread_rwlock_unlock(&lock);
}
