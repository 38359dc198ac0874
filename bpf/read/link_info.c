// SPDX-License-Identifier: GPL-2.0-only
#include "link_info.h"
#include "array_size.h"
#include "btf_names.h"
#include "prog_names.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * Process-wide on purpose: facts of the running kernel, the same for every
 * mount, not a daemon's state: written once under pthread_once by
 * whichever call comes first, read-only afterwards (see link_features()
 * in link_info.h).
 */
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
	features.multi_link_info =
		btf_has_path(btf, "bpf_link_info", "kprobe_multi.addrs") &&
		btf_has_path(btf, "bpf_link_info", "uprobe_multi.path");
	features.kprobe_multi_missed =
		btf_has_path(btf, "bpf_link_info", "kprobe_multi.missed");
	features.multi_cookies =
		btf_has_path(btf, "bpf_link_info", "kprobe_multi.cookies");
	features.tracing_cookie =
		btf_has_path(btf, "bpf_link_info", "tracing.cookie");
	features.raw_tp_cookie =
		btf_has_path(btf, "bpf_link_info", "raw_tracepoint.cookie");
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

/* The second call of a perf link: its name into @f->name. */
static int perf_name_read(int fd, struct abi_link_info *info,
			  struct link_fields *f, size_t name_len)
{
	__u64 *name;
	__u32 *len;
	int err;

	if (!name_slot(info, &len))
		return 0;
	memset(info, 0, sizeof(*info));
	info->perf_event.type = f->kind;
	name = name_slot(info, &len);
	*name = (__u64)(unsigned long)f->name;
	*len = name_len;
	err = info_get(fd, info);
	if (!err)
		f->name[name_len ? name_len - 1 : 0] = '\0';
	return err;
}

/* Raw tracepoint: tp_name, and the cookie where the kernel reports it. */
static int raw_tp_read(int fd, struct abi_link_info *info,
		       struct link_fields *f, size_t name_len)
{
	int err;

	memset(info, 0, sizeof(*info));
	info->raw_tracepoint.tp_name = (__u64)(unsigned long)f->name;
	info->raw_tracepoint.tp_name_len = name_len;
	err = info_get(fd, info);
	if (err)
		return err;
	f->name[name_len ? name_len - 1 : 0] = '\0';
	f->cookie = info->raw_tracepoint.cookie;
	if (link_features()->raw_tp_cookie)
		f->known |= LINK_KNOWN_COOKIE;
	return 0;
}

/* uprobe_multi: the path (d_path of the probed file) in a second call. */
static int uprobe_multi_path_read(int fd, struct abi_link_info *info,
				  struct link_fields *f, size_t name_len)
{
	int err;

	memset(info, 0, sizeof(*info));
	info->uprobe_multi.path = (__u64)(unsigned long)f->name;
	info->uprobe_multi.path_size = name_len;
	err = info_get(fd, info);
	if (!err)
		f->name[name_len ? name_len - 1 : 0] = '\0';
	return err;
}

/* The view kind of a multi link, from its flags (session links are told
 * apart by attach type only, which link info does not report). */
static void multi_decode(const struct abi_link_info *info,
			 struct link_fields *f)
{
	if (info->type == LINK_TYPE_KPROBE_MULTI) {
		f->count = info->kprobe_multi.count;
		f->flags = info->kprobe_multi.flags;
		f->missed = info->kprobe_multi.missed;
		f->view = f->flags & KPROBE_MULTI_RETURN ? VIEW_KRETPROBE_MULTI
							 : VIEW_KPROBE_MULTI;
		return;
	}
	f->count = info->uprobe_multi.count;
	f->flags = info->uprobe_multi.flags;
	f->pid = info->uprobe_multi.pid;
	f->view = f->flags & UPROBE_MULTI_RETURN ? VIEW_URETPROBE_MULTI
						 : VIEW_UPROBE_MULTI;
}

/* The attach type of the link types whose info part reports one, and what
 * else a non-probe link's part reports (as bpftool prints them). */
static void attach_type_decode(const struct abi_link_info *info,
			       struct link_fields *f)
{
	switch (info->type) {
	case LINK_TYPE_TRACING:
		f->attach_type = info->tracing.attach_type;
		break;
	case LINK_TYPE_CGROUP:
		f->attach_type = info->cgroup.attach_type;
		f->cgroup_id = info->cgroup.cgroup_id;
		f->known |= LINK_KNOWN_CGROUP_ID;
		break;
	case LINK_TYPE_NETNS:
		f->attach_type = info->netns.attach_type;
		f->netns_ino = info->netns.netns_ino;
		f->known |= LINK_KNOWN_NETNS_INO;
		break;
	case LINK_TYPE_TCX:
	case LINK_TYPE_NETKIT: /* the same layout: ifindex, attach_type */
		f->attach_type = info->tcx.attach_type;
		f->ifindex = info->tcx.ifindex;
		f->known |= LINK_KNOWN_IFINDEX;
		break;
	case LINK_TYPE_SOCKMAP:
		f->attach_type = info->sockmap.attach_type;
		f->map_id = info->sockmap.map_id;
		f->known |= LINK_KNOWN_MAP_ID;
		break;
	case LINK_TYPE_XDP:
		f->ifindex = info->xdp.ifindex;
		f->known |= LINK_KNOWN_IFINDEX;
		return;
	case LINK_TYPE_STRUCT_OPS:
		f->map_id = info->struct_ops.map_id;
		f->known |= LINK_KNOWN_MAP_ID;
		return;
	default:
		return;
	}
	f->known |= LINK_KNOWN_ATTACH_TYPE;
}

/* A perf link: its kind, name and fields (kernel 6.6+). */
static int perf_read(int fd, struct abi_link_info *info, struct link_fields *f,
		     size_t name_len)
{
	int err;

	if (!link_features()->perf_link_info)
		return 0;
	f->kind = info->perf_event.type;
	f->view = (unsigned)f->kind <= PERF_LINK_EVENT ? (int)f->kind
						       : VIEW_PERF_UNSPEC;
	err = perf_name_read(fd, info, f, name_len);
	if (!err)
		fields_decode(info, f);
	return err;
}

/* What the first call (zeroed struct) said, per link type. */
static int type_read(int fd, struct abi_link_info *info, struct link_fields *f,
		     size_t name_len)
{
	attach_type_decode(info, f);
	switch (info->type) {
	case LINK_TYPE_PERF_EVENT:
		return perf_read(fd, info, f, name_len);
	case LINK_TYPE_RAW_TRACEPOINT:
		f->view = VIEW_RAW_TP;
		return raw_tp_read(fd, info, f, name_len);
	case LINK_TYPE_TRACING:
		f->view = VIEW_TRACING;
		f->target_obj_id = info->tracing.target_obj_id;
		f->target_btf_id = info->tracing.target_btf_id;
		f->cookie = info->tracing.cookie;
		if (link_features()->tracing_cookie)
			f->known |= LINK_KNOWN_COOKIE;
		/* no target (an unknown BTF): the name file is left out */
		btf_target_name(f->target_obj_id, f->target_btf_id, f->name,
				name_len);
		return 0;
	case LINK_TYPE_KPROBE_MULTI:
		multi_decode(info, f);
		return 0;
	case LINK_TYPE_UPROBE_MULTI:
		multi_decode(info, f);
		return link_features()->multi_link_info
			       ? uprobe_multi_path_read(fd, info, f, name_len)
			       : 0;
	default:
		f->view = VIEW_OTHER;
		return 0;
	}
}

int link_info_read_fd(int fd, struct link_fields *f, size_t name_len)
{
	struct abi_link_info info;
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
	return type_read(fd, &info, f, name_len);
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

int prog_info_read(__u32 prog_id, struct bpf_prog_info *info)
{
	__u32 info_len = sizeof(*info);
	int fd = bpf_prog_get_fd_by_id(prog_id), err = 0;

	if (fd < 0)
		return errno == EAGAIN ? -ENOENT : -errno;
	memset(info, 0, sizeof(*info));
	if (bpf_obj_get_info_by_fd(fd, info, &info_len))
		err = -errno;
	close(fd);
	return err;
}

int prog_name_read(__u32 prog_id, char *buf, size_t len)
{
	struct bpf_prog_info info;
	int err = prog_info_read(prog_id, &info);

	if (!err)
		err = prog_full_name(prog_id, info.name, buf, len);
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

const char *link_type_name(__u32 link_type)
{
	static const char *const names[] = {
		[LINK_TYPE_RAW_TRACEPOINT] = "raw_tracepoint",
		[LINK_TYPE_TRACING] = "tracing",
		[LINK_TYPE_CGROUP] = "cgroup",
		[LINK_TYPE_ITER] = "iter",
		[LINK_TYPE_NETNS] = "netns",
		[LINK_TYPE_XDP] = "xdp",
		[LINK_TYPE_PERF_EVENT] = "perf_event",
		[LINK_TYPE_KPROBE_MULTI] = "kprobe_multi",
		[LINK_TYPE_STRUCT_OPS] = "struct_ops",
		[LINK_TYPE_NETFILTER] = "netfilter",
		[LINK_TYPE_TCX] = "tcx",
		[LINK_TYPE_UPROBE_MULTI] = "uprobe_multi",
		[LINK_TYPE_NETKIT] = "netkit",
		[LINK_TYPE_SOCKMAP] = "sockmap",
	};

	return link_type < ARRAY_SIZE(names) ? names[link_type] : NULL;
}

static const char *tracing_kind_name(__u32 attach_type)
{
	switch (attach_type) {
	case ATTACH_TRACE_FENTRY:
		return "fentry";
	case ATTACH_TRACE_FEXIT:
		return "fexit";
	case ATTACH_MODIFY_RETURN:
		return "fmod_ret";
	case ATTACH_LSM_MAC:
		return "lsm";
	case ATTACH_LSM_CGROUP:
		return "lsm_cgroup";
	default:
		return "tracing";
	}
}

const char *link_view_name(const struct link_fields *f, char *buf, size_t len)
{
	static const char *const multi[VIEW_KIND_COUNT] = {
		[VIEW_UPROBE_MULTI] = "uprobe_multi",
		[VIEW_URETPROBE_MULTI] = "uretprobe_multi",
		[VIEW_UPROBE_SESSION] = "uprobe_session",
		[VIEW_KPROBE_MULTI] = "kprobe_multi",
		[VIEW_KRETPROBE_MULTI] = "kretprobe_multi",
		[VIEW_KPROBE_SESSION] = "kprobe_session",
		[VIEW_RAW_TP] = "raw_tracepoint",
	};
	const char *name;

	if (f->link_type == LINK_TYPE_PERF_EVENT)
		return perf_link_kind_name(f->kind);
	if (f->view == VIEW_TRACING)
		return tracing_kind_name(f->attach_type);
	if ((unsigned)f->view < VIEW_KIND_COUNT && multi[f->view])
		return multi[f->view];
	name = link_type_name(f->link_type);
	if (name)
		return name;
	snprintf(buf, len, "link_type_%u", f->link_type);
	return buf;
}

const char *attach_type_name(__u32 attach_type)
{
	/* types after BPF_TRACE_KPROBE_MULTI (42), unknown to libbpf 1.1:
	 * indexed by enum bpf_attach_type (the name in the comment) */
	static const char *const newer[] = {
		[ATTACH_LSM_CGROUP] = "lsm_cgroup",
		[44] = "struct_ops",		  /* BPF_STRUCT_OPS */
		[45] = "netfilter",		  /* BPF_NETFILTER */
		[46] = "tcx_ingress",		  /* BPF_TCX_INGRESS */
		[47] = "tcx_egress",		  /* BPF_TCX_EGRESS */
		[48] = "trace_uprobe_multi",	  /* BPF_TRACE_UPROBE_MULTI */
		[49] = "cgroup_unix_connect",	  /* BPF_CGROUP_UNIX_CONNECT */
		[50] = "cgroup_unix_sendmsg",	  /* BPF_CGROUP_UNIX_SENDMSG */
		[51] = "cgroup_unix_recvmsg",	  /* BPF_CGROUP_UNIX_RECVMSG */
		[52] = "cgroup_unix_getpeername", /* ..._UNIX_GETPEERNAME */
		[53] = "cgroup_unix_getsockname", /* ..._UNIX_GETSOCKNAME */
		[54] = "netkit_primary",	  /* BPF_NETKIT_PRIMARY */
		[55] = "netkit_peer",		  /* BPF_NETKIT_PEER */
		[ATTACH_TRACE_KPROBE_SESSION] = "trace_kprobe_session",
		[ATTACH_TRACE_UPROBE_SESSION] = "trace_uprobe_session",
	};
	const char *name = libbpf_bpf_attach_type_str(attach_type);

	if (name)
		return name;
	if (attach_type < ARRAY_SIZE(newer))
		return newer[attach_type];
	return NULL;
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

int link_brief_read(__u32 id, struct link_brief *out)
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
	if (err)
		return err;
	out->link_type = info.type;
	out->prog_id = info.prog_id;
	out->kind = info.type == LINK_TYPE_PERF_EVENT ? info.perf_event.type
						      : PERF_LINK_UNSPEC;
	return 0;
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
