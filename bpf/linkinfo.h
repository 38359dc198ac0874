/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Link info of BPF perf-event links, with the project's own copy of the
 * kernel ABI: the system's <linux/bpf.h> may predate bpf_link_info.perf_event
 * (added in 6.6). tests/kernel/test_abi.c checks these against kernel BTF.
 */
#ifndef BPFLINKFS_LINKINFO_H
#define BPFLINKFS_LINKINFO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#define LINK_TYPE_PERF_EVENT 7 /* BPF_LINK_TYPE_PERF_EVENT, 5.15+ */
#define LINK_TYPE_RAW_TRACEPOINT 1 /* BPF_LINK_TYPE_RAW_TRACEPOINT */
#define LINK_TYPE_TRACING 2	   /* BPF_LINK_TYPE_TRACING */

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
		/* room for the kernel's larger union members; must stay zero */
		__u8 union_room[112];
	};
};

/* Optional link info fields, detected once from the running kernel's BTF */
struct link_features {
	bool perf_link_info; /* bpf_link_info.perf_event (6.6+) */
	bool cookie;	     /* perf_event.*.cookie (6.9+) */
	bool missed;	     /* perf_event.kprobe.missed (6.7+) */
	bool ref_ctr_offset; /* perf_event.uprobe.ref_ctr_offset (6.16+) */
};

/**
 * link_features() - what this kernel's link info reports; detected from
 * its BTF on the first call (link_features_detect()), all false when the
 * kernel has no BTF
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

/* A perf-event link's fields, decoded from struct bpf_link_info */
struct link_fields {
	__u32 id;
	__u32 link_type; /* BPF_LINK_TYPE_* */
	__u32 prog_id;
	enum perf_link_kind kind;
	__u64 offset; /* uprobe: file offset; kprobe: from func */
	__u64 addr;   /* kprobe: as the kernel showed it to us */
	__u64 missed; /* kprobe */
	__u64 cookie;
	__u64 ref_ctr_offset; /* uprobe */
	__u64 config;	      /* event: perf_event_attr.config */
	__u32 event_type;     /* event: perf_event_attr.type */
	char name[PATH_MAX];  /* uprobe path, kprobe func, tracepoint name */
};

/**
 * link_info_read_fd() - read a link's info with two BPF_OBJ_GET_INFO_BY_FD
 * @fd: link fd
 * @f: out
 * @name_len: size of the name buffer handed to the kernel (PATH_MAX; tests
 *            use less)
 *
 * The first call has a zeroed struct (a preset name pointer is EINVAL on
 * raw_tp and multi links); the second, for perf links only and only where
 * the kernel has perf link info, passes the name buffer.
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

/**
 * prog_name_read() - bpf_prog_info.name of a program id
 * Return: 0, -ENOENT (program gone), or -errno.
 */
int prog_name_read(__u32 prog_id, char *buf, size_t len);

/** perf_link_kind_name() - "uprobe", ..., "event"; NULL for unknown */
const char *perf_link_kind_name(enum perf_link_kind kind);

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

/**
 * bpf_fd_is() - is @fd a BPF object of that kind?
 * @kind: "bpf-prog", "bpf-map" or "bpf-link": the name of its anon inode.
 *        BPF_OBJ_GET_INFO_BY_FD answers for every kind, each in its own
 *        layout, so the kind comes from /proc/self/fd instead.
 */
bool bpf_fd_is(const char *kind, int fd);

#endif
