// SPDX-License-Identifier: GPL-2.0-only
/*
 * Link holders by a scan of each process's fd table, from the task
 * iterator (iter/task) with bpf_loop(): the same records as link_holders
 * and link_holders_of of task_files.bpf.c, in the same order (tasks by id,
 * fds ascending), for about a fifth of the cost.
 *
 * The task-file iterator takes and drops a reference on every open file of
 * the host and runs its program once per file; with 10,000 link fds held,
 * one link's `pids` took ~5 ms, spent on those references and on a
 * bpf_probe_read_kernel() of each file's f_op. Here the program reads the
 * open-fd bitmap and 16 file pointers at a time, and looks at a file through
 * bpf_rdonly_cast() (kernel 6.2+): a plain load each, no reference, no
 * helper call. The scan holds no lock on the fd table, as /proc/PID/fdinfo
 * readers need none either: the table is freed only after an RCU grace
 * period and the program runs under rcu_read_lock(); a file closed
 * meanwhile is seen or not, as with the task-file iterator.
 *
 * Where bpf_rdonly_cast() or bpf_loop() is missing the object does not
 * load, and task_files.c keeps the task-file programs.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "iter_types.h"

#define TASK_COMM_LEN 16
/* The anonymous inodes' file system (ANON_INODE_FS_MAGIC, linux/magic.h) */
#define ANON_INODE_FS_MAGIC 0x09041934
/* file pointers read at once: 128 bytes of the caller's stack */
#define CHUNK 16

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

/* The kernel's types, reduced to what is read; CO-RE fixes the offsets. */

struct qstr {
	const unsigned char *name;
} __attribute__((preserve_access_index));

struct super_block {
	unsigned long s_magic;
} __attribute__((preserve_access_index));

struct dentry {
	struct qstr d_name;
	struct super_block *d_sb;
} __attribute__((preserve_access_index));

struct path {
	struct dentry *dentry;
} __attribute__((preserve_access_index));

struct file {
	struct path f_path;
	const void *f_op;
	void *private_data;
} __attribute__((preserve_access_index));

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

/* Must match struct link_holder of task_files.h */
struct holder_record {
	__u32 link_id;
	__u32 pid;
	char comm[TASK_COMM_LEN];
};

/*
 * The file_operations of link files (bpf_link_fops and, for links that
 * poll, bpf_link_fops_poll), learnt from the first file whose name says
 * so: the symbols are not in kallsyms on kernels built without
 * CONFIG_KALLSYMS_ALL. Each slot is written only with a link's f_op, one
 * 64-bit store, so a scan in another thread reads a right one or 0.
 */
__u64 link_fops[2];

/*
 * What each reading thread asks of scan_link_holders_filtered, by its
 * thread id (a read(2) of an iterator runs the program in the reader's
 * thread, so threads reading at once each see their own filter).
 * Must match struct fd_scan_filter of fd_scan.c.
 */
struct scan_filter {
	__u32 link_id; /* this link's holders, one record per table; or 0 */
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
 * The records one program run may write: the iterator's buffer holds 32
 * KiB (PAGE_SIZE << 3, kernel/bpf/bpf_iter.c), and a run that writes more
 * fails the read with E2BIG. A table with more link fds stops at a chunk
 * and writes a resume record; the reader reads the rest through the
 * filtered program.
 */
#define RUN_RECORDS_MAX 1024

/* One fd table's scan: bpf_loop()'s context, on the program's stack */
struct scan {
	struct seq_file *seq;
	__u64 fds;	/* the table's struct file *[max_fds] */
	__u64 open_fds; /* its bitmap */
	__u64 word;	/* the bitmap word of the chunk */
	__u32 first;	/* the chunk the scan starts at */
	__u32 want;	/* the one link asked about; 0: all */
	__u32 tid;	/* the task, for a resume record */
	__u32 written;	/* records this run */
	struct holder_record r;
};

/* A link file, by the name of its anonymous inode ("bpf_link" from its
 * attacher, "bpf-link" from a pin or an id); any other file is not */
static __always_inline int is_link_by_name(struct file *file)
{
	struct dentry *dentry = file->f_path.dentry;
	char name[16];

	if (!dentry || dentry->d_sb->s_magic != ANON_INODE_FS_MAGIC)
		return 0;
	if (bpf_probe_read_kernel(name, sizeof(name), dentry->d_name.name))
		return 0;
	return name[0] == 'b' && name[1] == 'p' && name[2] == 'f' &&
	       (name[3] == '_' || name[3] == '-') && name[4] == 'l' &&
	       name[5] == 'i' && name[6] == 'n' && name[7] == 'k' && !name[8];
}

static __always_inline int is_link(struct file *file)
{
	const void *fop = file->f_op;

	if (!fop)
		return 0;
	if (fop == (const void *)link_fops[0] ||
	    fop == (const void *)link_fops[1])
		return 1;
	if (!is_link_by_name(file))
		return 0;
	if (!link_fops[0])
		link_fops[0] = (__u64)fop;
	else
		link_fops[1] = (__u64)fop;
	return 1;
}

/* One open file: a record if it is a link (the one asked about).
 * Return: 1 when the one link asked about is found, else 0. */
static __always_inline int scan_file(struct scan *s, __u64 ptr)
{
	struct file *file;
	struct bpf_link *link;

	if (!ptr)
		return 0;
	file = bpf_rdonly_cast((void *)ptr,
			       bpf_core_type_id_kernel(struct file));
	if (!is_link(file))
		return 0;
	link = bpf_rdonly_cast(file->private_data,
			       bpf_core_type_id_kernel(struct bpf_link));
	s->r.link_id = link->id;
	if (!s->r.link_id || (s->want && s->r.link_id != s->want))
		return 0; /* a link not yet settled, or another */
	bpf_seq_write(s->seq, &s->r, sizeof(s->r));
	s->written++;
	return s->want != 0;
}

/*
 * Chunk @i past the first of the table, fds [c * CHUNK, (c + 1) * CHUNK)
 * for chunk c: the files the bitmap says are open. Return: 1 to end the
 * scan (the link asked about found, the run's records spent, or the
 * table unreadable), else 0.
 */
static long scan_chunk(__u32 i, struct scan *s)
{
	__u32 c = s->first + i, bits, j;
	__u64 ptrs[CHUNK];
	struct holder_record resume = {};

	if (s->written > RUN_RECORDS_MAX - CHUNK) {
		resume.pid = s->tid;
		*(__u32 *)resume.comm = c;
		bpf_seq_write(s->seq, &resume, sizeof(resume));
		return 1;
	}
	if ((i == 0 || c % (64 / CHUNK) == 0) &&
	    bpf_probe_read_kernel(&s->word, sizeof(s->word),
				  (void *)(s->open_fds + c / (64 / CHUNK) * 8)))
		return 1;
	bits = (s->word >> (c % (64 / CHUNK) * CHUNK)) & ((1u << CHUNK) - 1);
	if (!bits)
		return 0;
	if (bpf_probe_read_kernel(ptrs, sizeof(ptrs),
				  (void *)(s->fds + (__u64)c * CHUNK * 8)))
		return 1;
	for (j = 0; j < CHUNK; j++)
		if (bits & (1u << j) && scan_file(s, ptrs[j]))
			return 1;
	return 0;
}

/* Scan @task's fd table from chunk @first (see struct scan) */
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
	s->r.pid = task->tgid;
	/* comm is TASK_COMM_LEN bytes, always NUL-ended: no string read */
	bpf_probe_read_kernel(s->r.comm, sizeof(s->r.comm),
			      task->group_leader->comm);
	bpf_loop(chunks - s->first, scan_chunk, s, 0);
	return 0;
}

/* Every link fd of every process: link_holders of task_files.bpf.c */
SEC("iter/task")
int scan_link_holders(struct bpf_iter__task *ctx)
{
	struct scan s = {};

	return scan_task(ctx, &s);
}

/*
 * What the reading thread's filter asks: one record per fd table that
 * holds the link (link_holders_of of task_files.bpf.c), or one task's
 * table from a chunk on.
 */
SEC("iter/task")
int scan_link_holders_filtered(struct bpf_iter__task *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct scan_filter *f = bpf_map_lookup_elem(&scan_filters, &tid);
	struct task_struct *task = ctx->task;
	struct scan s = {};

	if (!f || !task || (f->tid && f->tid != (__u32)task->pid))
		return 0;
	s.want = f->link_id;
	s.first = f->chunk;
	return scan_task(ctx, &s);
}

char LICENSE[] SEC("license") = "GPL";
