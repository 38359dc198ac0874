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
/* bpf_loop()'s limit on loops (BPF_MAX_LOOPS, kernel/bpf/bpf_iter.c) */
#define LOOPS_MAX (1u << 23)

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
 * takes as a state of its own (from a known 0, the 16 files of a chunk,
 * each written or not, split its states past its limit).
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
	__u32 resumes; /* or the rest of each table scan_resumes names for
			  the reader */
	__u32 fd;      /* KIND_LINK with link_id: the reader's own fd of the
			  link, or -1 */
	__u64 link;    /* the link's address, found through that fd by the
			  first run of a read; 0 until then */
	__u64 file;    /* that fd's file: not a holder, the scan's own */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32); /* the reader's thread id */
	__type(value, struct scan_filter);
} scan_filters SEC(".maps");

/* A table to resume for a reader: the reader's and the task's ids */
struct resume_key {
	__u32 reader;
	__u32 task;
};

/*
 * The tables each reader resumes in one run, and the chunk each resumes
 * at: one run of the task iterator for all the tables cut short in the
 * run before, not one per table (a run visits every task, so one per
 * table cost (tables x tasks) with thousands of threads of large tables
 * of their own).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct resume_key);
	__type(value, __u32); /* the chunk */
} scan_resumes SEC(".maps");

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
	__u64 want;	/* KIND_LINK: the address of the one link asked
			   about (its id in r.link_id); 0: every link */
	__u32 kind;	/* what to report: KIND_LINK or KIND_PERF_EVENT */
	__u32 first;	/* the chunk the scan starts at */
	__u32 tid;	/* the task, for a resume record */
	__u32 written;	/* bytes this run may have written, at most */
	/* the record being written, by kind */
	union {
		struct {
			struct holder_record r;
			__u64 skip; /* one link's: the reader's own file */
		};
		struct file_record p;
	};
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
	struct bpf_link *link;

	/* one link's fds are known by its address, without a load of each
	 * link met (a cache miss apiece on a host of many) */
	if (s->want) {
		if ((__u64)file->private_data != s->want ||
		    (__u64)file == s->skip)
			return 0;
		bpf_seq_write(s->seq, &s->r, sizeof(s->r));
		return 1;
	}
	link = bpf_rdonly_cast(file->private_data,
			       bpf_core_type_id_kernel(struct bpf_link));
	s->r.link_id = link->id;
	if (!s->r.link_id)
		return 0; /* a link not yet settled */
	bpf_seq_write(s->seq, &s->r, sizeof(s->r));
	return 0;
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

/* The number of bits set in @v, below 1 << 16, without a branch */
static __always_inline __u32 popcount16(__u32 v)
{
	v = v - ((v >> 1) & 0x5555);
	v = (v & 0x3333) + ((v >> 2) & 0x3333);
	v = (v + (v >> 4)) & 0x0f0f;
	return (v + (v >> 8)) & 0x1f;
}

/* The resume record of s's table at chunk @c: a record of either size,
 * its first three words 0, the task id and @c */
static __always_inline void write_resume(struct scan *s, __u32 c)
{
	struct file_record resume = {.fd = s->tid, .kind = c};

	bpf_seq_write(s->seq, &resume,
		      s->kind == KIND_LINK ? sizeof(s->r) : sizeof(resume));
}

/*
 * Chunk @i past the first of the table, fds [c * CHUNK, (c + 1) * CHUNK)
 * for chunk c: the files the bitmap says are open. Return: 1 to end the
 * scan (the link asked about found, the run's bytes spent, or the table
 * unreadable), else 0.
 */
/* One chunk's files, for the loop over them */
struct chunk {
	struct scan *s;
	__u64 ptrs[CHUNK];
	__u64 touched; /* what load_fops() read, kept so its loads stay */
	__u32 bits;    /* which of them are open */
	__u32 c;       /* the chunk */
	__u32 end;     /* set when the scan is to end */
};

/* File @j of the chunk: a loop of its own, so that the verifier walks one
 * file's branches once, not sixteen times over (seconds to load) */
static long scan_slot(__u32 j, struct chunk *k)
{
	j &= CHUNK - 1; /* bounds the stack read for the verifier */
	if (!(k->bits & (1u << j)))
		return 0;
	if (scan_file(k->s, k->ptrs[j], k->c * CHUNK + j)) {
		k->end = 1;
		return 1;
	}
	return 0;
}

/*
 * The f_op of each of the chunk's files, read before any file is looked
 * at: sixteen loads that wait on nothing, so that their cache misses
 * overlap (one file at a time, each was a miss of its own on a host of
 * many fds). What they read is kept only so that they are not left out;
 * the files' own look then finds their lines in the cache. A slot closed
 * since reads as 0: a load through bpf_rdonly_cast() does not fault.
 */
static __always_inline void load_fops(struct chunk *k)
{
	struct file *file;
	int j;

#pragma unroll
	for (j = 0; j < CHUNK; j++) {
		file = bpf_rdonly_cast((void *)k->ptrs[j],
				       bpf_core_type_id_kernel(struct file));
		/* a store the compiler keeps, with no branch for the
		 * verifier to follow */
		*(volatile __u64 *)&k->touched = (__u64)file->f_op;
	}
}

static long scan_chunk(__u32 i, struct scan *s)
{
	struct chunk k = {.s = s, .c = s->first + i};
	__u32 open;

	if ((i == 0 || k.c % (64 / CHUNK) == 0) &&
	    bpf_probe_read_kernel(
		    &s->word, sizeof(s->word),
		    (void *)(s->open_fds + k.c / (64 / CHUNK) * 8)))
		return 1;
	k.bits =
		(s->word >> (k.c % (64 / CHUNK) * CHUNK)) & ((1u << CHUNK) - 1);
	if (!k.bits)
		return 0;
	/*
	 * Each open file counted as a record written: a count of the
	 * records themselves would differ by the files' kinds, and the
	 * verifier would walk each count as a state of its own. One link's
	 * holders give one record per table and never resume.
	 */
	open = popcount16(k.bits) * record_size(s);
	if (!s->want && s->written + open > RUN_BYTES_MAX) {
		write_resume(s, k.c);
		return 1;
	}
	s->written += open;
	if (bpf_probe_read_kernel(k.ptrs, sizeof(k.ptrs),
				  (void *)(s->fds + (__u64)k.c * CHUNK * 8)))
		return 1;
	load_fops(&k);
	bpf_loop(CHUNK, scan_slot, &k, 0);
	return k.end ? 1 : 0;
}

/* Scan @task's fd table from chunk s->first (see struct scan); the task
 * is read from @ctx once, by the caller: the verifier refuses a second
 * read of the context at an offset the compiler computed */
static __always_inline int scan_task(struct bpf_iter__task *ctx,
				     struct task_struct *task, struct scan *s)
{
	struct files_struct *files;
	struct fdtable *fdt;
	__u32 chunks, loops;

	if (!task)
		return 0;
	files = task->files;
	/* a thread sharing its leader's table: the leader's visit scans it */
	if (!files ||
	    (task->pid != task->tgid && files == task->group_leader->files))
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
	s->written = unknown_zero;
	/* comm is TASK_COMM_LEN bytes, always NUL-ended: no string read */
	if (s->kind == KIND_LINK) {
		s->r.pid = task->tgid;
		bpf_probe_read_kernel(s->r.comm, sizeof(s->r.comm),
				      task->group_leader->comm);
	} else {
		s->p.pid = task->tgid;
		s->p.kind = KIND_PERF_EVENT;
		bpf_probe_read_kernel(s->p.comm, sizeof(s->p.comm),
				      task->group_leader->comm);
	}
	/* bpf_loop() refuses more than LOOPS_MAX loops and runs none: a
	 * larger table is scanned in parts, the rest resumed */
	loops = chunks - s->first < LOOPS_MAX ? chunks - s->first : LOOPS_MAX;
	if (bpf_loop(loops, scan_chunk, s, 0) == loops &&
	    s->first + loops < chunks && !s->want)
		write_resume(s, s->first + loops);
	return 0;
}

/* Every link fd of every process: link_holders of task_files.bpf.c */
SEC("iter/task")
int scan_link_holders(struct bpf_iter__task *ctx)
{
	struct scan s = {.kind = KIND_LINK};

	return scan_task(ctx, ctx->task, &s);
}

/* Every perf event fd with a program: perf_event_files of
 * task_files.bpf.c */
SEC("iter/task")
int scan_perf_events(struct bpf_iter__task *ctx)
{
	struct scan s = {.kind = KIND_PERF_EVENT};

	return scan_task(ctx, ctx->task, &s);
}

/*
 * The addresses of the link @f asks about and of the reader's own file of
 * it, fd f->fd (the reader is the current task: a read(2) of an iterator
 * runs the program in the reader's thread), into f->link and f->file;
 * left 0 when that fd is not a link with this id. A function of its own,
 * which the verifier checks once: inlined, each of its outcomes made the
 * scan after it a walk of its own, past the verifier's limit.
 */
__noinline int own_link(struct scan_filter *f)
{
	struct task_struct *me =
		bpf_rdonly_cast((void *)bpf_get_current_task(),
				bpf_core_type_id_kernel(struct task_struct));
	struct fdtable *fdt = me->files->fdt;
	__u64 file_addr = 0, link_addr = 0;
	struct bpf_link *link;
	struct file *file;

	if (!f || !fdt || f->fd >= fdt->max_fds ||
	    bpf_probe_read_kernel(&file_addr, sizeof(file_addr),
				  fdt->fd + f->fd))
		return 0;
	file = bpf_rdonly_cast((void *)file_addr,
			       bpf_core_type_id_kernel(struct file));
	if (!file_addr || file_kind(file) != KIND_LINK)
		return 0;
	link = bpf_rdonly_cast(file->private_data,
			       bpf_core_type_id_kernel(struct bpf_link));
	/* the address as a number: a function the verifier checks alone
	 * returns no pointer, nor stores one */
	if (link->id != f->link_id ||
	    bpf_probe_read_kernel(&link_addr, sizeof(link_addr),
				  &file->private_data))
		return 0;
	f->file = file_addr;
	f->link = link_addr;
	return 0;
}

/*
 * What the reading thread's filter asks: one record per fd table that
 * holds the link (link_holders_of of task_files.bpf.c), one task's table
 * from a chunk on, or the tables to resume that scan_resumes names.
 */
SEC("iter/task")
int scan_filtered(struct bpf_iter__task *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct scan_filter *f = bpf_map_lookup_elem(&scan_filters, &tid);
	struct task_struct *task = ctx->task;
	struct resume_key key = {.reader = tid};
	struct scan s = {};
	__u32 *chunk;

	if (!f || !task || (f->tid && f->tid != (__u32)task->pid))
		return 0;
	s.first = f->chunk;
	if (f->resumes) {
		key.task = task->pid;
		chunk = bpf_map_lookup_elem(&scan_resumes, &key);
		if (!chunk)
			return 0;
		s.first = *chunk;
	}
	s.kind = f->kind == KIND_PERF_EVENT ? KIND_PERF_EVENT : KIND_LINK;
	/* one link's holders: its address, found once a read through the
	 * reader's own fd (the filter is the reader's alone); not found,
	 * nothing is scanned, and the reader sees f->link still 0 */
	if (s.kind == KIND_LINK && f->link_id) {
		if (!f->link && f->fd != (__u32)-1)
			own_link(f);
		if (!f->link)
			return 0;
		s.want = f->link;
		s.skip = f->file;
		s.r.link_id = f->link_id;
	}
	return scan_task(ctx, task, &s);
}

char LICENSE[] SEC("license") = "GPL";
