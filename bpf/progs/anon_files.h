/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Open files as the task-file programs (task_files.bpf.c) and the fd-table
 * scan (fd_tables.bpf.c) read them: the kernel's types reduced to the
 * fields read (CO-RE fixes the offsets), which kind of file the name of an
 * anonymous inode says, and the records both write.
 */
#ifndef BPFLINKFS_ANON_FILES_H
#define BPFLINKFS_ANON_FILES_H

#define TASK_COMM_LEN 16
#define KIND_LINK 1	  /* TASK_FILE_LINK of task_files.h */
#define KIND_PERF_EVENT 2 /* TASK_FILE_PERF_EVENT */

/* The anonymous inodes' file system (ANON_INODE_FS_MAGIC, linux/magic.h) */
#define ANON_INODE_FS_MAGIC 0x09041934

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

struct perf_event_attr {
	__u32 type;
	__u64 config;
} __attribute__((preserve_access_index));

struct perf_event {
	struct perf_event_attr attr;
	struct bpf_prog *prog;
} __attribute__((preserve_access_index));

/* Must match struct task_file of task_files.h */
struct file_record {
	__u32 pid;
	__u32 fd;
	__u32 kind;
	__u32 id;
	char comm[TASK_COMM_LEN];
	__u64 key;
	__u64 config;
	__u32 event_type;
	__u32 reserved;
	char prog_name[16];
};

/* Must match struct link_holder of task_files.h */
struct holder_record {
	__u32 link_id;
	__u32 pid;
	char comm[TASK_COMM_LEN];
};

/* An anonymous inode's name, read as words to compare at once */
union anon_name {
	char c[16];
	__u32 w[4];
	__u64 v[2];
};

static const union anon_name link_under = {.c = "bpf_link"};
static const union anon_name link_dash = {.c = "bpf-link"};
static const union anon_name perf_name = {.c = "[perf_event]"};

/*
 * Which kind the anonymous inode's name says, 0 for any other file. A link
 * made by its attacher is "bpf_link" (bpf_link_prime()), a link fd got
 * from a pin or by id "bpf-link" (bpf_link_new_fd()): both hold it. The
 * name counts only on the anonymous inodes' file system: anyone can name
 * a regular file or a FIFO "bpf_link", and the programs keep the answer
 * for every file of the same file_operations. 16 bytes of the name are
 * read whole and compared as words (a byte loop and a string read were a
 * fifth of a links.json, and each byte's branch weighs on the verifier);
 * they lie inside the dentry's inline name (DNAME_INLINE_LEN is 32 or
 * more) or inside a longer external name.
 */
static __always_inline int name_kind(struct file *file)
{
	struct dentry *dentry = file->f_path.dentry;
	union anon_name name;

	if (!dentry || dentry->d_sb->s_magic != ANON_INODE_FS_MAGIC)
		return 0;
	if (bpf_probe_read_kernel(&name, sizeof(name), dentry->d_name.name))
		return 0;
	if ((name.v[0] == link_under.v[0] || name.v[0] == link_dash.v[0]) &&
	    !name.c[8])
		return KIND_LINK;
	if (name.v[0] == perf_name.v[0] && name.w[2] == perf_name.w[2] &&
	    !name.c[12])
		return KIND_PERF_EVENT;
	return 0;
}

#endif
