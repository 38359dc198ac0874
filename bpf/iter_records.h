/* SPDX-License-Identifier: GPL-2.0-only */
/* Reading a BPF iterator that writes fixed-size records (struct link_id_type
 * of progs/link_ids.bpf.c, struct link_prog_rec of progs/link_progs.bpf.c). */
#ifndef BPFLINKFS_ITER_RECORDS_H
#define BPFLINKFS_ITER_RECORDS_H

#include <stddef.h>

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

#endif
