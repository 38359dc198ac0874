/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Names of kernel BTF types by (BTF object id, type id): the target
 * function of a tracing link (bpf_link_info.tracing.target_obj_id and
 * target_btf_id), in vmlinux or a module's BTF.
 */
#ifndef BPFLINKFS_BTF_NAMES_H
#define BPFLINKFS_BTF_NAMES_H

#include <stddef.h>
#include <linux/types.h>

/**
 * btf_target_name() - the name of type @btf_id of kernel BTF object
 * @obj_id, `FUNC` in vmlinux, `MODULE:FUNC` in a module's BTF
 * @obj_id: BTF object id (BPF_BTF_GET_FD_BY_ID)
 * @btf_id: type id inside it
 * @buf: out, NUL-terminated; empty on error
 * @len: its size
 *
 * Loaded BTF objects are kept by object id (an id is never reused for
 * another object while the cache holds it, and ids only grow).
 *
 * Return: 0, -ENOENT (no such object or type), -ENAMETOOLONG, or -errno.
 */
int btf_target_name(__u32 obj_id, __u32 btf_id, char *buf, size_t len);

#endif
