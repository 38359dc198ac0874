/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Program names as bpftool shows them: the kernel keeps the first 15 bytes
 * of a program's name (BPF_OBJ_NAME_LEN), the program's BTF the whole name
 * of its function.
 */
#ifndef BPFLINKFS_PROG_NAMES_H
#define BPFLINKFS_PROG_NAMES_H

#include <stddef.h>
#include <linux/types.h>

/* Room for a full name and its NUL; longer names are cut (as bpftool's) */
#define PROG_NAME_MAX 128

/**
 * prog_full_name() - the name of program @prog_id, whole
 * @prog_id: the program's id
 * @kname: its name as the kernel keeps it (bpf_prog_info.name, at most 15
 *         bytes), or NULL to read it from the kernel
 * @buf: out, NUL-terminated
 * @len: its size (PROG_NAME_MAX holds every name whole)
 *
 * A kernel name of 15 bytes may be cut short: libbpf names a program
 * after its function and the kernel keeps 15 bytes of that. Then, when
 * the program has BTF, the name of its first function (func_info[0], a
 * BTF FUNC) is the full name, if the kernel name is its beginning; else,
 * and for shorter names, the kernel name is the name. Names looked up in
 * BTF are kept by program id (the kernel does not give a live program's
 * id to another).
 *
 * Return: 0; -ENOENT (the program is gone) or -errno only when @kname is
 * NULL and the kernel name cannot be read.
 */
int prog_full_name(__u32 prog_id, const char *kname, char *buf, size_t len);

#endif
