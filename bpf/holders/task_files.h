/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Who holds what: every open file of every process that is a BPF link or a
 * perf event with a BPF program attached, in one pass. A BPF iterator over
 * every task's files (iter/task_file, kernel 5.8+, as bpftool finds link
 * holders) where the kernel has one, a walk of /proc/PID/fd otherwise.
 */
#ifndef BPFLINKFS_TASK_FILES_H
#define BPFLINKFS_TASK_FILES_H

#include <linux/types.h>

enum task_file_kind { TASK_FILE_LINK = 1, TASK_FILE_PERF_EVENT = 2 };

/* One open file; the layout is also what the iterator program writes. */
struct task_file {
	__u32 pid; /* thread-group id */
	__u32 fd;
	__u32 kind; /* enum task_file_kind */
	__u32 id;   /* LINK: link id; PERF_EVENT: id of the attached program */
	char comm[16]; /* the thread-group leader's comm */
	/*
	 * PERF_EVENT: opaque identity of the perf event (the same for every fd
	 * of one event, in every process). LINK of a perf-event link: the
	 * identity of the perf event that link holds, so that a perf event
	 * with the same key is the link's and not a bare attachment. 0 when
	 * unknown: always from the /proc walk, and for other links.
	 */
	__u64 key;
	/* PERF_EVENT from the iterator: perf_event_attr.config and .type,
	 * which BPF_TASK_FD_QUERY does not tell for software and hardware
	 * events; 0 from the /proc walk */
	__u64 config;
	__u32 event_type;
	__u32 reserved;
	/* PERF_EVENT from the iterator: the program's name (bpf_prog_aux.name,
	 * as BPF_OBJ_GET_INFO_BY_FD reports it); empty from the /proc walk */
	char prog_name[16];
};

/*
 * One process holding a link: the short record of the links-only
 * iterator program (its layout is also what that program writes).
 */
struct link_holder {
	__u32 link_id;
	__u32 pid;     /* thread-group id, in the daemon's pid namespace */
	char comm[16]; /* the thread-group leader's comm, NUL-ended */
};

/*
 * The handle's own iterator links: task_file, bpf_link, links only, one
 * link's holders, perf events only
 */
#define TASK_FILES_OWN_MAX 5

/* The loaded iterator (or the /proc walk): opaque, one per caller. */
struct task_files;

/**
 * task_files_open() - load and attach the task-file iterator
 * @out: the new handle, for task_files_read() and task_files_close()
 *
 * Where the kernel cannot run the iterator (no BTF, no iter/task_file, a
 * verifier that refuses it) the handle walks /proc instead, with the same
 * records except that keys are 0 and perf events whose program
 * BPF_TASK_FD_QUERY does not report (software and hardware events, which
 * it answers with EOPNOTSUPP) are missing. The iterator is a BPF link of
 * type iter held by the caller; task_files_read() leaves it out.
 *
 * Return: 0, or -ENOMEM.
 */
int task_files_open(struct task_files **out);

/**
 * task_files_open_walk() - a handle that always walks /proc
 * @out: the new handle
 *
 * For tests and for comparing both sources. Return: 0, or -ENOMEM.
 */
int task_files_open_walk(struct task_files **out);

/** task_files_close() - detach and unload; NULL is allowed */
void task_files_close(struct task_files *tf);

/**
 * task_files_source() - where the records come from
 * Return: "iterator" or "proc".
 */
const char *task_files_source(const struct task_files *tf);

/**
 * task_files_read() - every link fd and every perf event fd with a program
 * @tf: the handle
 * @out: malloc'd array, sorted by (pid, fd), the caller frees it
 *
 * One record per fd of a thread group, not per thread. Processes appear
 * and go while the walk runs: a process that exits meanwhile may or may not
 * be listed. Needs CAP_SYS_ADMIN (the iterator; the walk: ptrace access to
 * /proc/PID/fd and CAP_SYS_ADMIN or CAP_PERFMON for BPF_TASK_FD_QUERY).
 *
 * Return: the count, or -ENOMEM, -errno of read(2) on the iterator or of
 * opendir(/proc).
 */
int task_files_read(struct task_files *tf, struct task_file **out);

/**
 * task_files_read_links() - who holds each link: every (link, process) pair
 * @tf: the handle
 * @out: malloc'd array, sorted by link id then pid, each pair once (a
 *       process with several fds of one link, or threads with fd tables
 *       of their own, count once); the handle's own links left out; the
 *       caller frees it
 *
 * A scan of every fd table (fd_scan.h) where it loaded, else the
 * iterator's links-only program, else the records of task_files_read().
 * Same rules and capabilities as task_files_read().
 * Return: the count, or -ENOMEM, -EOVERFLOW, -errno of read(2) on the
 * iterator or of opendir(/proc).
 */
int task_files_read_links(struct task_files *tf, struct link_holder **out);

/**
 * task_files_read_link() - who holds link @link_id
 * @tf: the handle
 * @link_id: the link
 * @out: malloc'd array of its (link, process) pairs, as
 *       task_files_read_links() gives them; the caller frees it
 *
 * A program that keeps only that link's fds where it loaded: the fd-table
 * scan (fd_scan.h, one record per table that holds it), else the
 * task-file program (the kernel still visits every task's files, but
 * nothing else is copied out or sorted); else (or when the filter's map is
 * full or its read fails) task_files_read_links() filtered. Same rules and capabilities as
 * task_files_read().
 * Return: the count, or -ENOMEM, -EOVERFLOW, -errno of read(2) on the
 * iterator or of opendir(/proc).
 */
int task_files_read_link(struct task_files *tf, __u32 link_id,
			 struct link_holder **out);

/**
 * task_files_read_perf_events() - task_files_read()'s TASK_FILE_PERF_EVENT
 * records alone, by pid and fd, from an iterator that copies out nothing
 * else
 * @out: malloc'd (caller frees)
 *
 * Only where task_files_perf_link_keys() reads too: without it, the keys
 * of the links' perf events come from the LINK records.
 *
 * By the fd-table scan (fd_scan.h) where it loaded, else by a task-file
 * program.
 *
 * Return: the count, -EOPNOTSUPP where either iterator is missing or the
 * scan failed (read task_files_read() instead), or -errno.
 */
int task_files_read_perf_events(struct task_files *tf, struct task_file **out);

/**
 * task_files_perf_link_keys() - the perf event of every perf link
 * @tf: the handle
 * @keys: out, malloc'd, ascending: the keys (as struct task_file.key) of
 *        the perf events that perf links hold, pinned-only links included
 *
 * From a second iterator (iter/bpf_link, kernel 5.19+).
 * Return: the count, or -EOPNOTSUPP (no such iterator here, or the /proc
 * walk), -ENOMEM, -errno of read(2).
 */
int task_files_perf_link_keys(struct task_files *tf, __u64 **keys);

/**
 * task_files_own_link_ids() - the handle's own iterator links
 * @tf: the handle
 * @ids: out, room for TASK_FILES_OWN_MAX
 *
 * The daemon holds them; a listing of every link should leave them out,
 * as task_files_read() does.
 * Return: how many (0 to TASK_FILES_OWN_MAX).
 */
int task_files_own_link_ids(const struct task_files *tf,
			    __u32 ids[TASK_FILES_OWN_MAX]);

#endif
