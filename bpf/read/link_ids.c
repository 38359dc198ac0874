// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "iter_records.h"
#include "link_ids.h"
#include "link_ids.skel.h"

/* the iterator as loaded by link_ids_open(); read-only until
 * link_ids_close(), so threads share it (each read makes its own fd) */
struct link_ids {
	struct link_ids_bpf *skel;
	struct bpf_link *iter_link;
	__u32 own_id; /* the link id of iter_link */
};

int link_ids_open(struct link_ids **out)
{
	struct bpf_link_info info = { 0 };
	struct link_ids *it = calloc(1, sizeof(*it));
	__u32 len = sizeof(info);
	int err;

	*out = NULL;
	if (!it)
		return -ENOMEM;
	it->skel = link_ids_bpf__open_and_load();
	if (!it->skel) {
		err = errno ? -errno : -ENOMEM;
		free(it);
		return err;
	}
	it->iter_link =
		bpf_program__attach_iter(it->skel->progs.link_ids, NULL);
	err = it->iter_link ? 0 : (errno ? -errno : -EINVAL);
	if (!err &&
	    bpf_obj_get_info_by_fd(bpf_link__fd(it->iter_link), &info, &len))
		err = -errno;
	if (err) {
		link_ids_close(it);
		return err;
	}
	it->own_id = info.id;
	*out = it;
	return 0;
}

__u32 link_ids_own(const struct link_ids *it)
{
	return it ? it->own_id : 0;
}

void link_ids_close(struct link_ids *it)
{
	if (!it)
		return;
	bpf_link__destroy(it->iter_link);
	link_ids_bpf__destroy(it->skel);
	free(it);
}

int link_ids_read(const struct link_ids *it, struct link_id_type **out)
{
	struct link_id_type *v = NULL;
	int n, i, kept = 0;

	if (!it)
		return -EOPNOTSUPP;
	n = iter_records_read(bpf_link__fd(it->iter_link), sizeof(*v),
			      (void **)&v);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++)
		if (v[i].id != it->own_id)
			v[kept++] = v[i];
	*out = v;
	return kept;
}
