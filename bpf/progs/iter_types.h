/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's types that the iterator programs share (link_ids, link_progs,
 * task_files), reduced to the fields they read: CO-RE relocates each field
 * read by its name against the running kernel's BTF, so a field listed here
 * and not read costs nothing.
 */
#ifndef BPFLINKFS_ITER_TYPES_H
#define BPFLINKFS_ITER_TYPES_H

struct seq_file;
struct bpf_prog_stats; /* link_progs.bpf.c reads into it */

struct bpf_prog_aux {
	__u32 id;
	char name[16];
} __attribute__((preserve_access_index));

struct bpf_prog {
	struct bpf_prog_stats *stats;
	struct bpf_prog_aux *aux;
} __attribute__((preserve_access_index));

struct bpf_iter_meta {
	struct seq_file *seq;
} __attribute__((preserve_access_index));

struct bpf_link {
	__u32 id;
	enum bpf_link_type type;
	struct bpf_prog *prog;
} __attribute__((preserve_access_index));

/* A perf link (kernel/bpf/syscall.c): its perf event's file, the key by
 * which the task-file walks know that event's fd */
struct file;
struct bpf_perf_link {
	struct bpf_link link;
	struct file *perf_file;
} __attribute__((preserve_access_index));

struct bpf_iter__bpf_link {
	struct bpf_iter_meta *meta;
	struct bpf_link *link;
} __attribute__((preserve_access_index));

#endif
