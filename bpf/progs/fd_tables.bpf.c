// SPDX-License-Identifier: GPL-2.0-only
/*
 * Link holders and perf events by a scan of each process's fd table, from
 * the task iterator (iter/task) with bpf_loop(): the same records as
 * link_holders, link_holders_of and perf_event_files of task_files.bpf.c,
 * in the same order (tasks by id, fds ascending), for a fifth of the cost.
 *
 * The task-file iterator takes and drops a reference on every open file of
 * the host and runs its program once per file; with 10,000 link fds held,
 * one link's `pids` took ~5 ms, spent on those references and on a
 * bpf_probe_read_kernel() of each file's f_op. Here the program reads the
 * open-fd bitmap and 16 file pointers at a time, and looks at a file through
 * bpf_rdonly_cast() (kernel 6.2+): a plain load each, no reference, no
 * helper call. The scan takes no lock on the fd table: a load through
 * bpf_rdonly_cast() or bpf_probe_read_kernel() cannot fault (a bad address
 * reads as 0), the program runs under rcu_read_lock() and a grown table's
 * old fd array is freed only after a grace period, so a file closed or
 * opened meanwhile is seen or not, as with the task-file iterator. A
 * process exiting in the middle of its scan may still be listed, as
 * /proc lists it until it is reaped.
 *
 * Where bpf_rdonly_cast() or bpf_loop() is missing the object does not
 * load, and task_files.c keeps the task-file programs.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "iter_types.h"
#include "anon_files.h"

/* file pointers read at once: 128 bytes of the caller's stack */
#define CHUNK 16

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

/* The kernel's types, reduced to what is read; CO-RE fixes the offsets. */

struct fdtable {
	unsigned int max_fds;
	struct file **fd;
	unsigned long *open_fds;
} __attribute__((preserve_access_index));

struct files_struct {
	struct fdtable *fdt;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	int tgid;
	struct task_struct *group_leader;
	struct files_struct *files;
	char comm[TASK_COMM_LEN];
} __attribute__((preserve_access_index));

struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
} __attribute__((preserve_access_index));

/*
 * The file_operations of link files (bpf_link_fops and, for links that
 * poll, bpf_link_fops_poll) and of perf events (perf_fops), learnt from
 * the first file whose name says so: the symbols are not in kallsyms on
 * kernels built without CONFIG_KALLSYMS_ALL. Each slot is written only
 * with such an f_op, one 64-bit store, so a scan in another thread reads a
 * right one or 0.
 */
__u64 link_fops[2];
__u64 perf_fops;

/*
 * Always 0, but the verifier cannot know it: struct scan's count of bytes
 * starts from it, so the verifier does not follow each value the count
 * takes as a state of its own.
 */
__u32 unknown_zero;

/*
 * What each reading thread asks of scan_filtered, by its thread id (a
 * read(2) of an iterator runs the program in the reader's thread, so
 * threads reading at once each see their own filter).
 * Must match struct fd_scan_filter of fd_scan.c.
 */
struct scan_filter {
	__u32 kind;    /* KIND_LINK or KIND_PERF_EVENT */
	__u32 link_id; /* KIND_LINK: this link's holders, one record per
			  table; or 0 */
	__u32 tid;     /* or the rest of this task's table... */
	__u32 chunk;   /* ...from this chunk on */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32); /* the reader's thread id */
	__type(value, struct scan_filter);
} scan_filters SEC(".maps");

/*
 * The bytes one program run may write: the iterator's buffer holds 32 KiB
 * (PAGE_SIZE << 3, kernel/bpf/bpf_iter.c), and a run that writes more fails
 * the read with E2BIG. A table with more fds to report stops at a chunk and
 * writes a resume record (a record whose first word is 0, then the task id
 * and the chunk); the reader reads the rest through the filtered program.
 */
#define RUN_BYTES_MAX 24576

/* One fd table's scan: bpf_loop()'s context, on the program's stack */
struct scan {
	struct seq_file *seq;
	__u64 fds;	/* the table's struct file *[max_fds] */
	__u64 open_fds; /* its bitmap */
	__u64 word;	/* the bitmap word of the chunk */
	__u32 kind;	/* what to report: KIND_LINK or KIND_PERF_EVENT */
	__u32 first;	/* the chunk the scan starts at */
	__u32 want;	/* KIND_LINK: the one link asked about; 0: all */
	__u32 tid;	/* the task, for a resume record */
	__u32 written;	/* bytes this run may have written, at most */
	struct holder_record r;
	struct file_record p;
};

static __always_inline int file_kind(struct file *file)
{
	const void *fop = file->f_op;
	int kind;

	if (!fop)
		return 0;
	if (fop == (const void *)link_fops[0] ||
	    fop == (const void *)link_fops[1])
		return KIND_LINK;
	if (fop == (const void *)perf_fops)
		return KIND_PERF_EVENT;
	kind = name_kind(file);
	if (kind == KIND_PERF_EVENT)
		perf_fops = (__u64)fop;
	else if (kind == KIND_LINK && !link_fops[0])
		link_fops[0] = (__u64)fop;
	else if (kind == KIND_LINK)
		link_fops[1] = (__u64)fop;
	return kind;
}

/* A link fd: its record. Return: 1 when the one link asked about is
 * found, else 0. */
static __always_inline int link_record(struct scan *s, struct file *file)
{
	struct bpf_link *link = bpf_rdonly_cast(
		file->private_data, bpf_core_type_id_kernel(struct bpf_link));

	s->r.link_id = link->id;
	if (!s->r.link_id || (s->want && s->r.link_id != s->want))
		return 0; /* a link not yet settled, or another */
	bpf_seq_write(s->seq, &s->r, sizeof(s->r));
	return s->want != 0;
}

/* A perf event fd @fd: its record if a program is attached to it */
static __always_inline void perf_record(struct scan *s, struct file *file,
					__u64 ptr, __u32 fd)
{
	struct perf_event *event = bpf_rdonly_cast(
		file->private_data, bpf_core_type_id_kernel(struct perf_event));
	struct bpf_prog *prog = event->prog;

	if (!prog)
		return;
	s->p.id = prog->aux->id;
	if (!s->p.id)
		return;
	s->p.fd = fd;
	s->p.key = ptr; /* the file's address, as task_files.bpf.c's */
	s->p.config = event->attr.config;
	s->p.event_type = event->attr.type;
	bpf_probe_read_kernel_str(s->p.prog_name, sizeof(s->p.prog_name),
				  prog->aux->name);
	bpf_seq_write(s->seq, &s->p, sizeof(s->p));
}

/* Open file @ptr, fd @fd. Return: 1 to end the scan, else 0. */
static __always_inline int scan_file(struct scan *s, __u64 ptr, __u32 fd)
{
	struct file *file;
	int kind;

	if (!ptr)
		return 0;
	file = bpf_rdonly_cast((void *)ptr,
			       bpf_core_type_id_kernel(struct file));
	kind = file_kind(file);
	if ((__u32)kind != s->kind)
		return 0;
	if (kind == KIND_LINK)
		return link_record(s, file);
	perf_record(s, file, ptr, fd);
	return 0;
}

/* The record the scan writes, in bytes */
static __always_inline __u32 record_size(const struct scan *s)
{
	return s->kind == KIND_LINK ? sizeof(s->r) : sizeof(s->p);
}

/*
 * Chunk @i past the first of the table, fds [c * CHUNK, (c + 1) * CHUNK)
 * for chunk c: the files the bitmap says are open. Return: 1 to end the
 * scan (the link asked about found, the run's bytes spent, or the table
 * unreadable), else 0.
 */
static long scan_chunk(__u32 i, struct scan *s)
{
	__u32 c = s->first + i, bits, j;
	__u64 ptrs[CHUNK];

	/* one link's holders: one record per table, never a resume */
	if (!s->want && s->written + CHUNK * record_size(s) > RUN_BYTES_MAX) {
		struct file_record resume = {.fd = s->tid, .kind = c};

		/* a record of either size, its first three words 0, tid, c */
		bpf_seq_write(s->seq, &resume,
			      s->kind == KIND_LINK ? sizeof(s->r)
						   : sizeof(resume));
		return 1;
	}
	if ((i == 0 || c % (64 / CHUNK) == 0) &&
	    bpf_probe_read_kernel(&s->word, sizeof(s->word),
				  (void *)(s->open_fds + c / (64 / CHUNK) * 8)))
		return 1;
	bits = (s->word >> (c % (64 / CHUNK) * CHUNK)) & ((1u << CHUNK) - 1);
	if (!bits)
		return 0;
	/* counted per chunk, not per record: a count the files' branches
	 * change would split the verifier's states at each of them */
	s->written += CHUNK * record_size(s);
	if (bpf_probe_read_kernel(ptrs, sizeof(ptrs),
				  (void *)(s->fds + (__u64)c * CHUNK * 8)))
		return 1;
	for (j = 0; j < CHUNK; j++)
		if (bits & (1u << j) && scan_file(s, ptrs[j], c * CHUNK + j))
			return 1;
	return 0;
}

/* Scan @task's fd table from chunk s->first (see struct scan) */
static __always_inline int scan_task(struct bpf_iter__task *ctx,
				     struct scan *s)
{
	struct task_struct *task = ctx->task;
	struct files_struct *files;
	struct fdtable *fdt;
	__u32 chunks;

	if (!task)
		return 0;
	files = task->files;
	/* a thread sharing its leader's table: the leader's visit scans it */
	if (!files || (task->pid != task->tgid &&
		       files == task->group_leader->files))
		return 0;
	fdt = files->fdt;
	if (!fdt)
		return 0;
	/* max_fds is a multiple of BITS_PER_LONG (alloc_fdtable()) */
	chunks = fdt->max_fds / CHUNK;
	if (s->first >= chunks)
		return 0;
	s->seq = ctx->meta->seq;
	s->fds = (__u64)fdt->fd;
	s->open_fds = (__u64)fdt->open_fds;
	s->tid = task->pid;
	s->r.pid = s->p.pid = task->tgid;
	s->p.kind = KIND_PERF_EVENT;
	s->written = unknown_zero;
	/* comm is TASK_COMM_LEN bytes, always NUL-ended: no string read */
	bpf_probe_read_kernel(s->r.comm, sizeof(s->r.comm),
			      task->group_leader->comm);
	__builtin_memcpy(s->p.comm, s->r.comm, sizeof(s->p.comm));
	bpf_loop(chunks - s->first, scan_chunk, s, 0);
	return 0;
}

/* Every link fd of every process: link_holders of task_files.bpf.c */
SEC("iter/task")
int scan_link_holders(struct bpf_iter__task *ctx)
{
	struct scan s = {.kind = KIND_LINK};

	return scan_task(ctx, &s);
}

/* Every perf event fd with a program: perf_event_files of
 * task_files.bpf.c */
SEC("iter/task")
int scan_perf_events(struct bpf_iter__task *ctx)
{
	struct scan s = {.kind = KIND_PERF_EVENT};

	return scan_task(ctx, &s);
}

/*
 * What the reading thread's filter asks: one record per fd table that
 * holds the link (link_holders_of of task_files.bpf.c), or one task's
 * table from a chunk on.
 */
SEC("iter/task")
int scan_filtered(struct bpf_iter__task *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct scan_filter *f = bpf_map_lookup_elem(&scan_filters, &tid);
	struct task_struct *task = ctx->task;
	struct scan s = {};

	if (!f || !task || (f->tid && f->tid != (__u32)task->pid))
		return 0;
	s.kind = f->kind == KIND_PERF_EVENT ? KIND_PERF_EVENT : KIND_LINK;
	s.want = f->link_id;
	s.first = f->chunk;
	return scan_task(ctx, &s);
}

char LICENSE[] SEC("license") = "GPL";
