// SPDX-License-Identifier: GPL-2.0-only
/*
 * The task-file iterator: one read(2) of an iterator fd yields every open
 * file of every process that is a BPF link or a perf event with a BPF
 * program attached (PERF_EVENT_IOC_SET_BPF, or held by a perf link), with
 * the holder's tgid, fd and comm. The kernel's iterator
 * (kernel/bpf/task_iter.c) visits each fd table once: threads that share
 * their leader's table are skipped.
 *
 * The two kinds of file are told apart by the name of their anonymous
 * inode ("bpf_link" or "bpf-link", "[perf_event]", as /proc/PID/fd shows
 * them): the
 * file_operations symbols are not in kallsyms on kernels built without
 * CONFIG_KALLSYMS_ALL, so comparing f_op with __ksym would not load there.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "iter_types.h"
#include "anon_files.h"

#define LINK_TYPE_PERF_EVENT 7

/* The kernel's types, reduced to what is read; CO-RE fixes the offsets. */

struct task_struct {
	int tgid;
	struct task_struct *group_leader;
	char comm[TASK_COMM_LEN];
} __attribute__((preserve_access_index));

struct bpf_iter__task_file {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
	__u32 fd;
	struct file *file;
} __attribute__((preserve_access_index));

/*
 * The kind of each file_operations seen, learnt from the name the first
 * time: a file's kind follows from its f_op alone (links have
 * bpf_link_fops or, for links that poll, bpf_link_fops_poll; perf events
 * perf_fops; no other file has those), and the f_op word lies in the file
 * the walk already holds, where the name is two pointers away. An entry
 * is the f_op's address with the kind in its low bits (file_operations
 * are word-aligned): one 64-bit store, so a walk in another thread sees a
 * whole entry, old or new. Two f_ops of one slot take turns; a slot never
 * gives a wrong kind.
 */
#define KIND_SLOTS 256
#define KIND_BITS 7ULL
__u64 kind_by_fop[KIND_SLOTS];

static __always_inline int file_kind(struct file *file)
{
	__u64 fop = 0, entry, *slot;
	int kind;

	if (bpf_probe_read_kernel(&fop, sizeof(fop), &file->f_op) || !fop ||
	    fop & KIND_BITS)
		return name_kind(file);
	slot = &kind_by_fop[(fop >> 6) & (KIND_SLOTS - 1)];
	entry = *slot;
	if ((entry & ~KIND_BITS) == fop)
		return entry & KIND_BITS;
	kind = name_kind(file);
	*slot = fop | kind;
	return kind;
}

/* One open file's record; @links: link fds too, else perf events alone */
static __always_inline int write_file_record(struct bpf_iter__task_file *ctx,
					     int links)
{
	struct task_struct *task = ctx->task;
	struct file *file = ctx->file;
	struct file_record r = {};
	struct bpf_link *link;
	struct perf_event *event;
	struct bpf_prog *prog;

	if (!file || !task)
		return 0;
	r.kind = file_kind(file);
	/* private_data is void * to the verifier: read through it by probe */
	if (r.kind == KIND_LINK && links) {
		link = file->private_data;
		r.id = BPF_CORE_READ(link, id);
		/* a perf link: the perf event it holds, to match
		 * KIND_PERF_EVENT */
		if (BPF_CORE_READ(link, type) == LINK_TYPE_PERF_EVENT)
			r.key = (__u64)(unsigned long)BPF_CORE_READ(
				(struct bpf_perf_link *)link, perf_file);
	} else if (r.kind == KIND_PERF_EVENT) {
		event = file->private_data;
		prog = BPF_CORE_READ(event, prog);
		if (!prog)
			return 0;
		r.id = BPF_CORE_READ(prog, aux, id);
		BPF_CORE_READ_STR_INTO(&r.prog_name, prog, aux, name);
		r.key = (__u64)(unsigned long)file;
		r.config = BPF_CORE_READ(event, attr.config);
		r.event_type = BPF_CORE_READ(event, attr.type);
	} else {
		return 0;
	}
	if (!r.id)
		return 0; /* a link not yet settled */
	r.pid = task->tgid;
	r.fd = ctx->fd;
	bpf_probe_read_kernel_str(r.comm, sizeof(r.comm),
				  task->group_leader->comm);
	bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
	return 0;
}

SEC("iter/task_file")
int task_files(struct bpf_iter__task_file *ctx)
{
	return write_file_record(ctx, 1);
}

/*
 * Perf events alone: what the bare perf events (attached/, metrics.prom)
 * need where perf_link_keys gives the keys of the links' perf events, so
 * the link fds of the host, most of its BPF files, are not copied out.
 */
SEC("iter/task_file")
int perf_event_files(struct bpf_iter__task_file *ctx)
{
	return write_file_record(ctx, 0);
}

/*
 * Link fds only, in the short record the holder index keeps: a third of
 * task_files' bytes to copy out, and nothing to convert (the pids of
 * every link of a links.json read every task's files each time).
 */
SEC("iter/task_file")
int link_holders(struct bpf_iter__task_file *ctx)
{
	struct task_struct *task = ctx->task;
	struct file *file = ctx->file;
	struct holder_record r = {};
	struct bpf_link *link;

	if (!file || !task || file_kind(file) != KIND_LINK)
		return 0;
	link = file->private_data;
	r.link_id = BPF_CORE_READ(link, id);
	if (!r.link_id)
		return 0; /* a link not yet settled */
	r.pid = task->tgid;
	/* comm is TASK_COMM_LEN bytes, always NUL-ended: no string read */
	bpf_probe_read_kernel(r.comm, sizeof(r.comm), task->group_leader->comm);
	bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
	return 0;
}

/*
 * The link each reading thread asks about, by its thread id: a read(2) of
 * an iterator runs the program in the reader's thread, so threads reading
 * at once each see their own filter.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);   /* the reader's thread id */
	__type(value, __u32); /* the link id */
} holder_filter SEC(".maps");

/*
 * link_holders for one link, the one holder_filter names for the reading
 * thread: the holders of one link without copying out, sorting and
 * searching every link's (one per-link file asked for them all before).
 */
SEC("iter/task_file")
int link_holders_of(struct bpf_iter__task_file *ctx)
{
	struct task_struct *task = ctx->task;
	struct file *file = ctx->file;
	struct holder_record r = {};
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), *want;
	struct bpf_link *link;

	if (!file || !task || file_kind(file) != KIND_LINK)
		return 0;
	want = bpf_map_lookup_elem(&holder_filter, &tid);
	link = file->private_data;
	r.link_id = BPF_CORE_READ(link, id);
	if (!want || !r.link_id || r.link_id != *want)
		return 0;
	r.pid = task->tgid;
	bpf_probe_read_kernel(r.comm, sizeof(r.comm), task->group_leader->comm);
	bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
	return 0;
}

/*
 * Every perf link's perf event, also of links that only a pin holds (no
 * process has an fd of them): (link id, key) pairs, the key as above.
 */
SEC("iter/bpf_link")
int perf_link_keys(struct bpf_iter__bpf_link *ctx)
{
	struct bpf_link *link = ctx->link;
	__u64 rec[2];

	if (!link || !link->id || link->type != LINK_TYPE_PERF_EVENT)
		return 0;
	rec[0] = link->id;
	rec[1] = (__u64)(unsigned long)BPF_CORE_READ(
		(struct bpf_perf_link *)link, perf_file);
	bpf_seq_write(ctx->meta->seq, rec, sizeof(rec));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
