/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a probe sees besides its count: hits per process, command or
 * cgroup (by=) and call times (latency), from a program instance loaded
 * per link that asks (progs/sight.bpf.c). sight_load.c loads it,
 * sight_read.c reads its maps.
 */
#ifndef BPFLINKFS_SIGHT_H
#define BPFLINKFS_SIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>
#include <linux/types.h>

#include "counter_load.h"
#include "error.h"
#include "parse.h"
#include "sight_abi.h"

/* BPF_TRACE_UPROBE_SESSION of include/uapi/linux/bpf.h (6.13+), which the
 * 6.1 headers lack; the running kernel's BTF has the number to use */
#define SIGHT_ATTACH_UPROBE_SESSION 57

/**
 * sight_needed() - does @p ask for more than counting (latency, by=,
 * stacks=)?
 */
static inline int sight_needed(const struct probe_spec *p)
{
	return (p->opts & OPT_SIGHT) != 0;
}

/**
 * sight_check() - can this build and kernel give what @p asks for?
 * @p: the parsed probe
 * @e: on refusal, the message and the caret (under the option)
 *
 * latency: uprobe and usdt lines (wildcards too), through uprobe session
 * links or entry/return pairs (sight_use_pair()); kprobe and fentry lines
 * are refused (this build times calls of user code only). by= and latency on
 * fentry, fexit and rawtracepoint lines are refused, as stacks= there.
 *
 * Return: 0, or -EOPNOTSUPP with @e set.
 */
int sight_check(const struct probe_spec *p, struct bl_error *e);

/**
 * sight_session_attach_type() - the number of BPF_TRACE_UPROBE_SESSION in
 * enum bpf_attach_type of the running kernel's BTF (/sys/kernel/btf/vmlinux)
 * Return: the number, or -EOPNOTSUPP when the kernel has none.
 */
int sight_session_attach_type(void);

/**
 * sight_prog_load() - load the per-link program for @p
 * @c: the counter, whose hits and events maps the program counts into
 *     (as the built-in program does)
 * @p: the parsed probe: its kind, latency and by=
 * @first_slot: the counter slot of the link (of its first target)
 * @ntargets: the link's targets (1 for a single-target link)
 * @attach_type: kprobe-type programs: 0 for a perf-event link,
 *               BPF_TRACE_UPROBE_MULTI's number, or
 *               sight_session_attach_type() for latency
 *
 * Return: a program fd the caller closes once the link holds it, or
 * -EOPNOTSUPP (the counter has an earlier version's per-CPU hits map), or
 * -errno from libbpf or the kernel.
 */
int sight_prog_load(struct counter *c, const struct probe_spec *p,
		    uint32_t first_slot, uint32_t ntargets, int attach_type);

/**
 * sight_pair_load() - latency where the kernel has no session links: an
 * entry and a return program (one loaded object) that share a per-thread
 * map of entry times, for an entry link and a return link on the same
 * targets with the same cookies
 * @attach_type: 0 for perf-event links, else BPF_TRACE_UPROBE_MULTI's
 *               number (the return link sets UPROBE_MULTI_RETURN)
 * @entry_fd: out, the entry program (counts hits, as the built-in does)
 * @ret_fd: out, the return program (files the time under its target)
 *
 * Return: 0 (the caller closes both fds once the links hold them), or as
 * sight_prog_load().
 */
int sight_pair_load(struct counter *c, const struct probe_spec *p,
		    uint32_t first_slot, uint32_t ntargets, int attach_type,
		    int *entry_fd, int *ret_fd);

/**
 * sight_use_pair() - does latency on this kernel take an entry/return
 * pair? True where it has no uprobe session links, or when @force (the
 * daemon's -o latency_pairs)
 */
static inline bool sight_use_pair(const struct probe_spec *p, bool force)
{
	return (p->opts & OPT_LATENCY) &&
	       (force || sight_session_attach_type() < 0);
}

/* One line of hits_by */
struct sight_by_row {
	struct sight_by_key key;
	__u64 hits;
};

/**
 * sight_by_read() - every key of a link's by= map
 * @prog_id: the link's program (its prog_id)
 * @rows: out, malloc'd rows, busiest first (ties by key)
 * @n: out, their count
 * Return: 0, -ENOENT (the program has no by= map: not a link with by=,
 * or gone), -ENOMEM, or -errno from bpf(2).
 */
int sight_by_read(__u32 prog_id, struct sight_by_row **rows, size_t *n);

/**
 * sight_lat_read() - a link's latency counts
 * @prog_id: the link's program
 * @partner: the return link of an entry/return pair (owned_pair()), whose
 *           program has the counts, or 0
 * @ntargets: its targets
 * @out: out, @ntargets * SIGHT_LAT_STRIDE u64 (sight_abi.h), summed over
 *       nothing: the map is shared by all CPUs
 * Return: 0, -ENOENT (no latency map), or -errno from bpf(2).
 */
int sight_lat_read(__u32 prog_id, __u32 partner, uint32_t ntargets, __u64 *out);

/**
 * sight_map_of_prog() - an fd of the map named @name that program
 * @prog_id uses (from its map ids)
 * Return: the fd (the caller closes it), or -ENOENT.
 */
int sight_map_of_prog(__u32 prog_id, const char *name);

/* A stacks= link's maps, open for one read (sight_stacks.c) */
struct sight_stacks;

/* One distinct (process, user stack, kernel stack) and its hits */
struct sight_stack_row {
	struct sight_stack_key key;
	__u64 hits;
};

/**
 * sight_stacks_open() - the stacks= maps of program @prog_id
 * Return: 0, -ENOENT (not a stacks= link's program, or gone), -ENOMEM.
 */
int sight_stacks_open(__u32 prog_id, struct sight_stacks **out);

/** sight_stacks_close() - close what sight_stacks_open() opened */
void sight_stacks_close(struct sight_stacks *s);

/**
 * sight_stacks_rows() - every distinct stack with its hits, and the hits
 * dropped (no room for their stack)
 * @rows: out, malloc'd, in no order; @n their count
 * Return: 0 or -ENOMEM.
 */
int sight_stacks_rows(struct sight_stacks *s, struct sight_stack_row **rows,
		      size_t *n, __u64 *dropped);

/**
 * sight_stack_ips() - the frames of stack @id, innermost first
 * @ips: out, SIGHT_STACK_DEPTH addresses
 * Return: their number (0 for @id -1), or -errno (the id is gone).
 */
int sight_stack_ips(struct sight_stacks *s, __s32 id, __u64 *ips);

/**
 * sight_stack_frames() - the user frames of stack @id, innermost first:
 * build id and file offset each (or the address, where the kernel could
 * not read the build id)
 * @f: out, SIGHT_STACK_DEPTH frames
 * Return: their number (0 for @id -1), or -errno (the id is gone).
 */
int sight_stack_frames(struct sight_stacks *s, __s32 id,
		       struct bpf_stack_build_id *f);

/* Files by build id, and the mappings of the last process read */
struct sight_umaps;

/**
 * sight_umaps_new() - a cache that knows the files the daemon maps
 * (libc, ld.so); NULL on ENOMEM
 */
struct sight_umaps *sight_umaps_new(void);

/**
 * sight_umaps_add_file() - learn the build id of the ELF file at @path
 * (the probed file of a uprobe link)
 * Return: 0, or -errno (no such file, no build id).
 */
int sight_umaps_add_file(struct sight_umaps *u, const char *path);

/** sight_umaps_free() - free it (NULL is fine) */
void sight_umaps_free(struct sight_umaps *u);

/**
 * sight_user_frame() - a user frame of process @tgid named as the `symbol`
 * file names a file offset: "FUNC+0xOFF", or "PATH+0xOFF" when no symbol
 * covers it; "[unknown]" when no file known has its build id (and, for a
 * frame given as an address, when the process has exited)
 * @u: the cache; @tgid's mappings are read while it runs
 * Return: 0, or -ENOENT ("[unknown]" written).
 */
int sight_user_frame(struct sight_umaps *u, __u32 tgid,
		     const struct bpf_stack_build_id *f, char *buf, size_t len);

/**
 * sight_cgroup_path() - the path under the cgroup v2 mount of the cgroup
 * with id @id (its directory's inode number), e.g. "/system.slice/x"
 * @buf: out, @len bytes
 * Return: 0, or -ENOENT (no such cgroup now, or no cgroup v2 mount).
 */
int sight_cgroup_path(__u64 id, char *buf, size_t len);

#endif
