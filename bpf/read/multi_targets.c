// SPDX-License-Identifier: GPL-2.0-only
/* Reading the targets of kprobe_multi and uprobe_multi links
 * (multi_targets.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "kernel_offers.h"
#include "multi_targets.h"

/* What the running kernel has, from its BTF (multi_btf_detect()): facts
 * of the one kernel, the same for every mount, so process-wide and
 * written once under pthread_once. */
static struct {
	bool kmulti_info, kmulti_missed, kmulti_cookies, umulti_info;
} multi_btf;

static pthread_once_t multi_btf_once = PTHREAD_ONCE_INIT;

/* The type id of member @name of composite @id, through anonymous ones. */
static __s32 member_type(const struct btf *btf, __u32 id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;
	int i;

	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_composite(t))
		return -ENOENT;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		__s32 inner;

		if (n && *n) {
			if (!strcmp(n, name))
				return m->type;
			continue;
		}
		inner = member_type(btf, m->type, name);
		if (inner >= 0)
			return inner;
	}
	return -ENOENT;
}

/* bpf_link_info has @part, and (if @member) @part.@member. */
static bool info_has(const struct btf *btf, __s32 info, const char *part,
		     const char *member)
{
	__s32 p = info < 0 ? -ENOENT : member_type(btf, info, part);

	return p >= 0 && (!member || member_type(btf, p, member) >= 0);
}

static void multi_btf_detect(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	__s32 info;

	if (!btf)
		return;
	info = btf__find_by_name_kind(btf, "bpf_link_info", BTF_KIND_STRUCT);
	multi_btf.kmulti_info = info_has(btf, info, "kprobe_multi", "addrs");
	multi_btf.kmulti_missed = info_has(btf, info, "kprobe_multi", "missed");
	multi_btf.kmulti_cookies =
		info_has(btf, info, "kprobe_multi", "cookies");
	multi_btf.umulti_info = info_has(btf, info, "uprobe_multi", "offsets");
	btf__free(btf);
}

bool multi_link_type(__u32 link_type)
{
	return link_type == LINK_TYPE_KPROBE_MULTI ||
	       link_type == LINK_TYPE_UPROBE_MULTI;
}

bool multi_link_creatable(bool uprobe)
{
	return uprobe ? kernel_offers()->uprobe_multi : kernel_offers()->kprobe_multi;
}

static int info_get(int fd, struct abi_link_info *info)
{
	__u32 len = sizeof(*info);

	return bpf_obj_get_info_by_fd(fd, info, &len) ? -errno : 0;
}

/* The second call: arrays for @mi->count targets, and the path. */
static int targets_read(int fd, struct multi_link_targets *mi, __u64 *a, __u64 *b,
			__u64 *c)
{
	struct abi_link_info info;
	int err;

	memset(&info, 0, sizeof(info));
	if (mi->link_type == LINK_TYPE_UPROBE_MULTI) {
		info.uprobe_multi.path = (__u64)(unsigned long)mi->path;
		info.uprobe_multi.path_size = sizeof(mi->path);
		info.uprobe_multi.offsets = (__u64)(unsigned long)a;
		info.uprobe_multi.ref_ctr_offsets = (__u64)(unsigned long)b;
		info.uprobe_multi.cookies = (__u64)(unsigned long)c;
		info.uprobe_multi.count = mi->count;
	} else {
		info.kprobe_multi.addrs = (__u64)(unsigned long)a;
		if (mi->has_cookies)
			info.kprobe_multi.cookies = (__u64)(unsigned long)c;
		info.kprobe_multi.count = mi->count;
	}
	err = info_get(fd, &info);
	if (err)
		return err;
	mi->path[sizeof(mi->path) - 1] = '\0';
	return 0;
}

/* The first call: type, count, flags, pid, missed. */
static int head_read(int fd, struct multi_link_targets *mi)
{
	struct abi_link_info info;
	int err;

	memset(&info, 0, sizeof(info));
	err = info_get(fd, &info);
	if (err)
		return err;
	mi->id = info.id;
	mi->link_type = info.type;
	if (info.type == LINK_TYPE_UPROBE_MULTI && multi_btf.umulti_info) {
		mi->count = info.uprobe_multi.count;
		mi->flags = info.uprobe_multi.flags;
		mi->pid = info.uprobe_multi.pid;
		mi->has_cookies = true;
		return 0;
	}
	if (info.type == LINK_TYPE_KPROBE_MULTI && multi_btf.kmulti_info) {
		mi->count = info.kprobe_multi.count;
		mi->flags = info.kprobe_multi.flags;
		mi->missed = info.kprobe_multi.missed;
		mi->has_missed = multi_btf.kmulti_missed;
		mi->has_cookies = multi_btf.kmulti_cookies;
		return 0;
	}
	return -EINVAL;
}

int multi_targets_read_fd(int fd, struct multi_link_targets *mi)
{
	__u64 *arr = NULL;
	__u32 i;
	int err, tries;

	pthread_once(&multi_btf_once, multi_btf_detect);
	memset(mi, 0, offsetof(struct multi_link_targets, path));
	mi->path[0] = '\0';
	mi->t = NULL;
	for (tries = 0; tries < 3; tries++) {
		err = head_read(fd, mi);
		if (err)
			return err;
		free(arr);
		/* three arrays of count u64s; count 0 still gets one slot */
		arr = calloc(3 * (size_t)(mi->count + 1), sizeof(*arr));
		if (!arr)
			return -ENOMEM;
		err = targets_read(fd, mi, arr, arr + mi->count + 1,
				   arr + 2 * (mi->count + 1));
		if (err != -ENOSPC)
			break;
	}
	if (!err) {
		mi->t = calloc(mi->count + 1, sizeof(*mi->t));
		err = mi->t ? 0 : -ENOMEM;
	}
	for (i = 0; !err && i < mi->count; i++) {
		mi->t[i].where = arr[i];
		mi->t[i].ref_ctr_offset = arr[mi->count + 1 + i];
		mi->t[i].cookie = arr[2 * (mi->count + 1) + i];
	}
	free(arr);
	if (err)
		multi_targets_free(mi);
	return err;
}

int multi_targets_read(__u32 id, struct multi_link_targets *mi)
{
	int fd = bpf_link_get_fd_by_id(id), err;

	if (fd < 0)
		return errno == EAGAIN || errno == ENOENT ? -ENOENT : -errno;
	err = multi_targets_read_fd(fd, mi);
	close(fd);
	return err;
}

void multi_targets_free(struct multi_link_targets *mi)
{
	free(mi->t);
	mi->t = NULL;
}
