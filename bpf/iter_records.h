/* SPDX-License-Identifier: GPL-2.0-only */
/* Attaching a BPF iterator, and reading one that writes fixed-size records (struct link_id_type
 * of progs/link_ids.bpf.c, struct link_prog_rec of progs/link_progs.bpf.c). */
#ifndef BPFLINKFS_ITER_RECORDS_H
#define BPFLINKFS_ITER_RECORDS_H

#include <stddef.h>

#include <linux/types.h>

struct bpf_program;
struct bpf_link;

/**
 * iter_records_read() - every record of one new read of an iterator
 * @iter_link_fd: the iterator's link (BPF_ITER_CREATE makes a reader of it)
 * @size: the size of one record, in bytes; the kernel never splits a
 *        record written by one bpf_seq_write() across reads
 * @out: the records (malloc'd; the caller frees), NULL when none
 *
 * Return: the number of records, or -errno (BPF_ITER_CREATE, read(2),
 * -ENOMEM).
 */
int iter_records_read(int iter_link_fd, size_t size, void **out);

/**
 * iter_attach() - attach iterator program @prog, for all of its objects
 * @prog: a loaded iter/ program
 * @link: out, the iterator's link (the caller destroys it); NULL when the
 *        attach fails
 *
 * Return: the link's id (BPF_OBJ_GET_INFO_BY_FD), which the caller's own
 * walks of held links leave out; 0 when it cannot be attached or its id
 * read (errno says why).
 */
__u32 iter_attach(struct bpf_program *prog, struct bpf_link **link);

#endif
