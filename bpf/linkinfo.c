// SPDX-License-Identifier: GPL-2.0-only
#include "linkinfo.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* detected once (pthread_once), read-only afterwards */
static struct link_features features;
static pthread_once_t features_once = PTHREAD_ONCE_INIT;
static int features_err;

/* Byte offset of a member, looking through anonymous struct/union members. */
static int btf_member_find(const struct btf *btf, __u32 type_id,
			   const char *name, __u32 *type_out)
{
	const struct btf_type *t = btf__type_by_id(btf, type_id);
	const struct btf_member *m;
	int i;

	while (t && btf_is_mod(t))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_composite(t))
		return -ENOENT;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);

		if (n && *n && strcmp(n, name) == 0) {
			*type_out = m->type;
			return 0;
		}
		if ((!n || !*n) &&
		    btf_member_find(btf, m->type, name, type_out) == 0)
			return 0;
	}
	return -ENOENT;
}

/* Does "a.b.c" exist below struct @root? */
static bool btf_has_path(const struct btf *btf, const char *root,
			 const char *path)
{
	char buf[128], *save = NULL, *tok;
	__s32 id = btf__find_by_name_kind(btf, root, BTF_KIND_STRUCT);
	__u32 type;

	if (id < 0 || strlen(path) >= sizeof(buf))
		return false;
	type = id;
	strcpy(buf, path);
	for (tok = strtok_r(buf, ".", &save); tok;
	     tok = strtok_r(NULL, ".", &save))
		if (btf_member_find(btf, type, tok, &type))
			return false;
	return true;
}

bool kernel_btf_present(void)
{
	return access("/sys/kernel/btf/vmlinux", R_OK) == 0;
}

static void features_detect(void)
{
	struct btf *btf = btf__load_vmlinux_btf();

	if (!btf) {
		features_err = errno ? -errno : -ENOENT;
		return;
	}
	features.perf_link_info =
		btf_has_path(btf, "bpf_link_info", "perf_event.uprobe.offset");
	features.cookie =
		btf_has_path(btf, "bpf_link_info", "perf_event.uprobe.cookie");
	features.missed =
		btf_has_path(btf, "bpf_link_info", "perf_event.kprobe.missed");
	features.ref_ctr_offset = btf_has_path(
		btf, "bpf_link_info", "perf_event.uprobe.ref_ctr_offset");
	btf__free(btf);
}

int link_features_detect(void)
{
	pthread_once(&features_once, features_detect);
	return features_err;
}

const struct link_features *link_features(void)
{
	pthread_once(&features_once, features_detect);
	return &features;
}

static int info_get(int fd, struct abi_link_info *info)
{
	__u32 len = sizeof(*info);

	if (bpf_obj_get_info_by_fd(fd, info, &len))
		return -errno;
	return 0;
}

/* Where the kernel writes the name, for kinds that have one. */
static __u64 *name_slot(struct abi_link_info *info, __u32 **len)
{
	switch (info->perf_event.type) {
	case PERF_LINK_UPROBE:
	case PERF_LINK_URETPROBE:
		*len = &info->perf_event.uprobe.name_len;
		return &info->perf_event.uprobe.file_name;
	case PERF_LINK_KPROBE:
	case PERF_LINK_KRETPROBE:
		*len = &info->perf_event.kprobe.name_len;
		return &info->perf_event.kprobe.func_name;
	case PERF_LINK_TRACEPOINT:
		*len = &info->perf_event.tracepoint.name_len;
		return &info->perf_event.tracepoint.tp_name;
	default:
		return NULL;
	}
}

static void fields_decode(const struct abi_link_info *info,
			  struct link_fields *f)
{
	const __typeof__(info->perf_event) *pe = &info->perf_event;

	switch (pe->type) {
	case PERF_LINK_UPROBE:
	case PERF_LINK_URETPROBE:
		f->offset = pe->uprobe.offset;
		f->cookie = pe->uprobe.cookie;
		f->ref_ctr_offset = pe->uprobe.ref_ctr_offset;
		break;
	case PERF_LINK_KPROBE:
	case PERF_LINK_KRETPROBE:
		f->offset = pe->kprobe.offset;
		f->addr = pe->kprobe.addr;
		f->missed = pe->kprobe.missed;
		f->cookie = pe->kprobe.cookie;
		break;
	case PERF_LINK_TRACEPOINT:
		f->cookie = pe->tracepoint.cookie;
		break;
	case PERF_LINK_EVENT:
		f->config = pe->event.config;
		f->event_type = pe->event.type;
		f->cookie = pe->event.cookie;
		break;
	default:
		break;
	}
}

int link_info_read_fd(int fd, struct link_fields *f, size_t name_len)
{
	struct abi_link_info info;
	__u64 *name;
	__u32 *len;
	int err;

	memset(&info, 0, sizeof(info));
	memset(f, 0, offsetof(struct link_fields, name));
	f->name[0] = '\0';
	err = info_get(fd, &info);
	if (err)
		return err;
	f->id = info.id;
	f->link_type = info.type;
	f->prog_id = info.prog_id;
	if (info.type != LINK_TYPE_PERF_EVENT ||
	    !link_features()->perf_link_info)
		return 0;
	f->kind = info.perf_event.type;
	name = name_slot(&info, &len);
	if (name) {
		memset(&info, 0, sizeof(info));
		info.perf_event.type = f->kind;
		name = name_slot(&info, &len);
		*name = (__u64)(unsigned long)f->name;
		*len = name_len;
		err = info_get(fd, &info);
		if (err)
			return err;
		f->name[name_len ? name_len - 1 : 0] = '\0';
	}
	fields_decode(&info, f);
	return 0;
}

int link_info_read(__u32 id, struct link_fields *f)
{
	int fd = bpf_link_get_fd_by_id(id), err;

	if (fd < 0) {
		err = -errno;
		return err == -EAGAIN ? -ENOENT : err;
	}
	err = link_info_read_fd(fd, f, sizeof(f->name));
	close(fd);
	return err;
}

int link_next_id(__u32 start, __u32 *next)
{
	if (bpf_link_get_next_id(start, next))
		return -errno;
	return 0;
}

int prog_name_read(__u32 prog_id, char *buf, size_t len)
{
	struct bpf_prog_info info;
	__u32 info_len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(prog_id), err = 0;

	if (fd < 0)
		return errno == EAGAIN ? -ENOENT : -errno;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &info_len))
		err = -errno;
	else
		snprintf(buf, len, "%s", info.name);
	close(fd);
	return err;
}

const char *perf_link_kind_name(enum perf_link_kind kind)
{
	static const char *const names[PERF_LINK_KIND_COUNT] = {
		[PERF_LINK_UPROBE] = "uprobe",
		[PERF_LINK_URETPROBE] = "uretprobe",
		[PERF_LINK_KPROBE] = "kprobe",
		[PERF_LINK_KRETPROBE] = "kretprobe",
		[PERF_LINK_TRACEPOINT] = "tracepoint",
		[PERF_LINK_EVENT] = "event",
	};

	return (unsigned)kind < PERF_LINK_KIND_COUNT ? names[kind] : NULL;
}

int link_id_read_fd(int fd, __u32 *id)
{
	struct abi_link_info info;
	int err;

	memset(&info, 0, sizeof(info));
	err = info_get(fd, &info);
	if (!err)
		*id = info.id;
	return err;
}

int link_type_read(__u32 id, __u32 *link_type)
{
	struct abi_link_info info;
	int fd = bpf_link_get_fd_by_id(id), err;

	if (fd < 0) {
		err = -errno;
		return err == -EAGAIN ? -ENOENT : err;
	}
	memset(&info, 0, sizeof(info));
	err = info_get(fd, &info);
	close(fd);
	if (!err)
		*link_type = info.type;
	return err;
}

bool bpf_fd_is(const char *kind, int fd)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strncmp(target, "anon_inode:", 11) == 0 &&
	       strcmp(target + 11, kind) == 0;
}
