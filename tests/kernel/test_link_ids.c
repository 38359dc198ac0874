// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf/read/link_ids.c against libbpf's own walk of the kernel's links
 * (bpf_link_get_next_id, bpf_link_get_fd_by_id, bpf_obj_get_info_by_fd):
 * the iterator lists every link that both walks around it list, with the
 * type that link info reports, in ascending order, and never its own
 * iter link. Other processes' links may come and go meanwhile, so only
 * links listed both before and after are required.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "check.h"
#include "link_ids.h"

#define MAX_LINKS (1 << 17)

/* libbpf's walk: id and link type of every link that is there. */
static int walk(struct link_id_type *out, int max)
{
	__u32 id = 0;
	int n = 0;

	while (n < max && bpf_link_get_next_id(id, &id) == 0) {
		struct bpf_link_info info = {0};
		__u32 len = sizeof(info);
		int fd = bpf_link_get_fd_by_id(id);

		if (fd < 0)
			continue; /* gone, or not settled yet */
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0) {
			out[n].id = id;
			out[n++].type = info.type;
		}
		close(fd);
	}
	return n;
}

static const struct link_id_type *find(const struct link_id_type *v, int n,
				       __u32 id)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i].id == id)
			return &v[i];
	return NULL;
}

static struct link_id_type pre[MAX_LINKS], before[MAX_LINKS], after[MAX_LINKS];
static int np, nb, na;

/* Every link both walks list around the read is in @it, with its type. */
static void check_listed(const struct link_id_type *it, int n)
{
	int i;

	for (i = 0; i < nb; i++) {
		const struct link_id_type *a = find(after, na, before[i].id);
		const struct link_id_type *got = find(it, n, before[i].id);

		if (!a)
			continue; /* came and went around the read */
		/* the walks include the iterator's own link: it must not be */
		if (before[i].type == BPF_LINK_TYPE_ITER && !got)
			continue;
		if (EXPECT(got, "link %u (type %u) missing", before[i].id,
			   before[i].type))
			EXPECT(got->type == before[i].type,
			       "link %u: type %u, link info says %u",
			       before[i].id, got->type, before[i].type);
	}
	group_end("every link of both walks listed, with its type");
	for (i = 0; i < n; i++)
		EXPECT(find(before, nb, it[i].id) || find(after, na, it[i].id),
		       "link %u listed by neither walk", it[i].id);
	group_end("no link that neither walk saw");
}

/* Iter links that came with link_ids_open(): its own, left out. */
static void check_own_left_out(const struct link_id_type *it, int n)
{
	int i, own = 0;

	for (i = 0; i < nb; i++) {
		if (before[i].type != BPF_LINK_TYPE_ITER ||
		    find(pre, np, before[i].id))
			continue;
		own++;
		EXPECT(!find(it, n, before[i].id),
		       "its own iter link %u listed", before[i].id);
	}
	EXPECT(own >= 1, "no iter link appeared with link_ids_open()");
	group_end("its own iter link left out");
}

int main(void)
{
	struct link_id_type *it = NULL;
	struct link_ids *ids;
	int n, i, err;

	if (geteuid() != 0)
		skip_all("needs root (BPF)");
	np = walk(pre, MAX_LINKS);
	err = link_ids_open(&ids);
	if (err)
		skip_all("no link iterator here: %s", strerror(-err));
	nb = walk(before, MAX_LINKS);
	n = link_ids_read(ids, &it);
	na = walk(after, MAX_LINKS);
	if (!CHECK(n >= 0, "link_ids_read: %s", n < 0 ? strerror(-n) : "ok"))
		return done_testing();
	for (i = 1; i < n; i++)
		EXPECT(it[i - 1].id < it[i].id, "not ascending at %d", i);
	group_end("ids ascending");
	check_listed(it, n);
	check_own_left_out(it, n);
	link_ids_close(ids);
	free(it);
	CHECK(link_ids_read(NULL, &it) == -EOPNOTSUPP, "read without one");
	diag("%d links listed, %d before, %d after", n, nb, na);
	return done_testing();
}
