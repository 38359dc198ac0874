/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Link info of every BPF link type, with the project's own copy of the
 * kernel ABI: the system's <linux/bpf.h> may predate bpf_link_info.perf_event
 * (added in 6.6) and the multi-link parts. tests/kernel/test_abi.c checks
 * these against kernel BTF.
 */
#ifndef BPFLINKFS_LINK_INFO_H
#define BPFLINKFS_LINK_INFO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

/* enum bpf_link_type (include/uapi/linux/bpf.h) */
#define LINK_TYPE_RAW_TRACEPOINT 1
#define LINK_TYPE_TRACING 2
#define LINK_TYPE_CGROUP 3
#define LINK_TYPE_ITER 4
#define LINK_TYPE_NETNS 5
#define LINK_TYPE_XDP 6
#define LINK_TYPE_PERF_EVENT 7 /* 5.15+ */
#define LINK_TYPE_KPROBE_MULTI 8
#define LINK_TYPE_STRUCT_OPS 9
#define LINK_TYPE_NETFILTER 10
#define LINK_TYPE_TCX 11
#define LINK_TYPE_UPROBE_MULTI 12
#define LINK_TYPE_NETKIT 13
#define LINK_TYPE_SOCKMAP 14

/* flags of the multi links' info (BPF_F_*_MULTI_RETURN) */
#define KPROBE_MULTI_RETURN (1u << 0)
#define UPROBE_MULTI_RETURN (1u << 0)

/* enum bpf_attach_type values this project names itself */
#define ATTACH_TRACE_FENTRY 24
#define ATTACH_TRACE_FEXIT 25
#define ATTACH_MODIFY_RETURN 26
#define ATTACH_LSM_MAC 27
#define ATTACH_LSM_CGROUP 43
#define ATTACH_TRACE_KPROBE_SESSION 56
#define ATTACH_TRACE_UPROBE_SESSION 57

/* enum bpf_perf_event_type, merged values (include/uapi/linux/bpf.h) */
enum perf_link_kind {
	PERF_LINK_UNSPEC = 0,
	PERF_LINK_UPROBE = 1,
	PERF_LINK_URETPROBE = 2,
	PERF_LINK_KPROBE = 3,
	PERF_LINK_KRETPROBE = 4,
	PERF_LINK_TRACEPOINT = 5,
	PERF_LINK_EVENT = 6,
	PERF_LINK_KIND_COUNT,
};

/*
 * What a link shows: its files follow from this (the table of fs/render.c
 * says which file applies to which views). The first seven are the perf
 * link kinds, same values (VIEW_PERF_UNSPEC: a perf link whose kind this
 * kernel does not report).
 */
enum link_view_kind {
	VIEW_PERF_UNSPEC = PERF_LINK_UNSPEC,
	VIEW_UPROBE = PERF_LINK_UPROBE,
	VIEW_URETPROBE = PERF_LINK_URETPROBE,
	VIEW_KPROBE = PERF_LINK_KPROBE,
	VIEW_KRETPROBE = PERF_LINK_KRETPROBE,
	VIEW_TRACEPOINT = PERF_LINK_TRACEPOINT,
	VIEW_EVENT = PERF_LINK_EVENT,
	VIEW_UPROBE_MULTI,
	VIEW_URETPROBE_MULTI,
	VIEW_UPROBE_SESSION,
	VIEW_KPROBE_MULTI,
	VIEW_KRETPROBE_MULTI,
	VIEW_KPROBE_SESSION,
	VIEW_TRACING, /* fentry, fexit, fmod_ret, lsm, ... by attach type */
	VIEW_RAW_TP,  /* raw_tracepoint */
	VIEW_OTHER,   /* every other link type: cgroup, xdp, netns, iter ... */
	VIEW_KIND_COUNT,
};

/* struct bpf_link_info, as far as this project reads it (kernel 6.16) */
struct abi_link_info {
	__u32 type;
	__u32 id;
	__u32 prog_id;
	__u32 pad0;
	union {
		struct {
			__u32 type; /* enum perf_link_kind */
			__u32 pad1;
			union {
				struct {
					__u64 file_name;
					__u32 name_len;
					__u32 offset;
					__u64 cookie;	      /* 6.9+ */
					__u64 ref_ctr_offset; /* 6.16+ */
				} uprobe;
				struct {
					__u64 func_name;
					__u32 name_len;
					__u32 offset;
					__u64 addr;
					__u64 missed; /* 6.7+ */
					__u64 cookie; /* 6.9+ */
				} kprobe;
				struct {
					__u64 tp_name;
					__u32 name_len;
					__u32 pad2;
					__u64 cookie; /* 6.9+ */
				} tracepoint;
				struct {
					__u64 config;
					__u32 type;
					__u32 pad3;
					__u64 cookie; /* 6.9+ */
				} event;
			};
		} perf_event;
		struct {
			__u64 tp_name;
			__u32 tp_name_len;
			__u32 pad4;
			__u64 cookie; /* 6.17+ */
		} raw_tracepoint;
		struct {
			__u32 attach_type;
			__u32 target_obj_id;
			__u32 target_btf_id;
			__u32 pad5;
			__u64 cookie; /* 6.17+ */
		} tracing;
		struct {
			__u64 cgroup_id;
			__u32 attach_type;
		} cgroup;
		struct {
			__u32 netns_ino;
			__u32 attach_type;
		} netns;
		struct {
			__u64 addrs;
			__u32 count;
			__u32 flags;   /* KPROBE_MULTI_RETURN */
			__u64 missed;  /* 6.7+ */
			__u64 cookies; /* 6.9+ */
		} kprobe_multi;
		struct {
			__u64 path;
			__u64 offsets;
			__u64 ref_ctr_offsets;
			__u64 cookies;
			__u32 path_size;
			__u32 count;
			__u32 flags; /* UPROBE_MULTI_RETURN */
			__u32 pid;
		} uprobe_multi;
		struct {
			__u32 ifindex;
			__u32 attach_type;
		} tcx;
		struct {
			__u32 ifindex;
			__u32 attach_type;
		} netkit;
		struct {
			__u32 map_id;
			__u32 attach_type;
		} sockmap;
		struct {
			__u32 ifindex;
		} xdp;
		struct {
			__u32 map_id;
		} struct_ops;
		/* room for the kernel's larger union members; must stay zero */
		__u8 union_room[112];
	};
};

/* Optional link info fields, detected once from the running kernel's BTF */
struct link_features {
	bool perf_link_info;	  /* bpf_link_info.perf_event (6.6+) */
	bool cookie;		  /* perf_event.*.cookie (6.9+) */
	bool missed;		  /* perf_event.kprobe.missed (6.7+) */
	bool ref_ctr_offset;	  /* perf_event.uprobe.ref_ctr_offset (6.16+) */
	bool multi_link_info;	  /* kprobe_multi and uprobe_multi parts */
	bool kprobe_multi_missed; /* kprobe_multi.missed (6.7+) */
	bool multi_cookies;	  /* kprobe_multi.cookies (6.9+) */
	bool tracing_cookie;	  /* tracing.cookie */
	bool raw_tp_cookie;	  /* raw_tracepoint.cookie */
};

/**
 * link_features() - what this kernel's link info reports; detected from
 * its BTF on the first call (link_features_detect()), all false when the
 * kernel has no BTF
 *
 * Not in the kernel library's handle (struct owned, owned.h) on purpose:
 * these are facts of the running kernel, the same for every daemon and
 * immutable once detected. Every reader (this call, link_info_read_fd()
 * and the rest of link_info.c) detects them first if nothing did yet
 * (pthread_once), so no call ever sees them undetected; the daemon calls
 * link_features_detect() at start only to refuse a kernel without BTF.
 */
const struct link_features *link_features(void);

/** kernel_btf_present() - /sys/kernel/btf/vmlinux is there to read */
bool kernel_btf_present(void);

/**
 * link_features_detect() - detect link_features() from
 * /sys/kernel/btf/vmlinux, once; later calls return the first answer
 * Return: 0, or -ENOENT (no kernel BTF), or -errno from libbpf.
 */
int link_features_detect(void);

/* Which optional facts link_fields holds (bits of link_fields.known) */
#define LINK_KNOWN_ATTACH_TYPE (1u << 0)
#define LINK_KNOWN_COOKIE (1u << 1)
#define LINK_KNOWN_CGROUP_ID (1u << 2) /* cgroup */
#define LINK_KNOWN_NETNS_INO (1u << 3) /* netns */
#define LINK_KNOWN_IFINDEX (1u << 4)   /* xdp, tcx, netkit */
#define LINK_KNOWN_MAP_ID (1u << 5)    /* sockmap, struct_ops */

/* A link's fields, decoded from struct bpf_link_info */
struct link_fields {
	__u32 id;
	__u32 link_type; /* BPF_LINK_TYPE_* */
	__u32 prog_id;
	enum perf_link_kind kind; /* perf links */
	enum link_view_kind view; /* every link */
	__u32 known;		  /* LINK_KNOWN_* */
	__u32 attach_type;	  /* tracing, cgroup, netns, tcx, netkit ... */
	__u32 target_obj_id;	  /* tracing: BTF object of the target */
	__u32 target_btf_id;	  /* tracing: the target's type id in it */
	__u32 count;		  /* multi links: targets */
	__u32 flags;		  /* multi links: *_MULTI_RETURN */
	__u32 pid;		  /* uprobe_multi: filter, 0 when none */
	__u64 offset;		  /* uprobe: file offset; kprobe: from func */
	__u64 addr;		  /* kprobe: as the kernel showed it to us */
	__u64 missed;		  /* kprobe */
	__u64 cookie;
	__u64 ref_ctr_offset; /* uprobe */
	__u64 config;	      /* event: perf_event_attr.config */
	__u32 event_type;     /* event: perf_event_attr.type */
	/* what the info part of a non-probe link reports (LINK_KNOWN_*) */
	__u64 cgroup_id;
	__u32 netns_ino, ifindex, map_id;
	/* uprobe and uprobe_multi path, kprobe func, tracepoint name, raw
	 * tracepoint, tracing target (MODULE:FUNC outside vmlinux) */
	char name[PATH_MAX];
};

/**
 * link_info_read_fd() - read a link's info with two BPF_OBJ_GET_INFO_BY_FD
 * @fd: link fd
 * @f: out
 * @name_len: size of the name buffer handed to the kernel (PATH_MAX; tests
 *            use less)
 *
 * The first call has a zeroed struct (a preset name pointer is EINVAL on
 * raw_tp and multi links); the second passes the name buffer, for perf
 * links (where the kernel has perf link info), raw tracepoint and
 * uprobe_multi links only. A tracing link's name is its target function,
 * from BTF (btf_names.h).
 *
 * Return: 0, or -ENOSPC (name longer than @name_len), -errno from bpf(2).
 */
int link_info_read_fd(int fd, struct link_fields *f, size_t name_len);

/**
 * link_info_read() - open a link by id, read its info, close it
 * @id: kernel link id
 * @f: out
 *
 * The fd is never kept: an open fd would keep a foreign link alive.
 *
 * Return: 0, -ENOENT (no such link; EAGAIN from GET_FD_BY_ID, an id not
 * yet settled, counts as gone), or -errno.
 */
int link_info_read(__u32 id, struct link_fields *f);

/**
 * link_next_id() - BPF_LINK_GET_NEXT_ID
 * Return: 0 and *next, -ENOENT at the end, or -errno (EPERM).
 */
int link_next_id(__u32 start, __u32 *next);

struct bpf_prog_info;

/**
 * prog_info_read() - BPF_OBJ_GET_INFO_BY_FD of a program id (struct
 * bpf_prog_info of the system's <linux/bpf.h>: name, run_cnt, ...)
 * Return: 0, -ENOENT (program gone), or -errno.
 */
int prog_info_read(__u32 prog_id, struct bpf_prog_info *info);

/**
 * prog_name_read() - the name of a program id, whole (prog_full_name():
 * bpf_prog_info.name, or its BTF's when the kernel's was cut to 15 bytes)
 * Return: 0, -ENOENT (program gone), or -errno.
 */
int prog_name_read(__u32 prog_id, char *buf, size_t len);

/** perf_link_kind_name() - "uprobe", ..., "event"; NULL for unknown */
const char *perf_link_kind_name(enum perf_link_kind kind);

/**
 * link_type_name() - the kernel's name of a link type as bpftool prints
 * it: "raw_tracepoint", "cgroup", "xdp", ...; NULL for a type this build
 * does not know
 */
const char *link_type_name(__u32 link_type);

/**
 * link_view_name() - the `type` file of a link: the perf kind, the multi
 * kind (uprobe_multi ... kprobe_session), the tracing kind by attach type
 * (fentry, fexit, fmod_ret, lsm, lsm_cgroup; else "tracing"),
 * "raw_tracepoint", or link_type_name(), else "link_type_N"
 * @f: the link
 * @buf: out, for link_type_N
 * Return: @buf or a static string; NULL for a perf link of unknown kind.
 */
const char *link_view_name(const struct link_fields *f, char *buf, size_t len);

/**
 * attach_type_name() - enum bpf_attach_type as bpftool names it
 * ("trace_fentry", "cgroup_inet_ingress", ...): libbpf's names, own ones
 * for types newer than the libbpf in use, else NULL
 */
const char *attach_type_name(__u32 attach_type);

/**
 * link_id_read_fd() - the kernel id of a link fd: one OBJ_GET_INFO_BY_FD
 * with a zeroed struct.
 * Return: 0, or -errno.
 */
int link_id_read_fd(int fd, __u32 *id);

/**
 * link_type_read() - only the link type (BPF_LINK_TYPE_*) of a link id:
 * one GET_FD_BY_ID and one OBJ_GET_INFO_BY_FD with a zeroed struct.
 * Return: 0, -ENOENT (gone, or EAGAIN), or -errno.
 */
int link_type_read(__u32 id, __u32 *link_type);

struct link_brief {
	__u32 link_type; /* BPF_LINK_TYPE_* */
	__u32 prog_id;
	__u32 kind; /* perf links: enum perf_link_kind (6.6+), else 0 */
};

/**
 * link_brief_read() - type, program and perf kind of a link id: one
 * GET_FD_BY_ID and one OBJ_GET_INFO_BY_FD with a zeroed struct (no name
 * is copied), for samplers that read every link
 * Return: 0, -ENOENT (gone, or EAGAIN), or -errno.
 */
int link_brief_read(__u32 id, struct link_brief *out);

/**
 * bpf_fd_is() - is @fd a BPF object of that kind?
 * @kind: "bpf-prog", "bpf-map" or "bpf-link": the name of its anon inode.
 *        BPF_OBJ_GET_INFO_BY_FD answers for every kind, each in its own
 *        layout, so the kind comes from /proc/self/fd instead.
 */
bool bpf_fd_is(const char *kind, int fd);

#endif
