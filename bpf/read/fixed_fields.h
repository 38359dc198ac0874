/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fields of a link that never change while its id lives (everything in
 * link info but kprobe `missed`, and the program's name), kept by id and
 * checked against the kernel's id enumeration. Counters are never cached.
 */
#ifndef BPFLINKFS_FIXED_FIELDS_H
#define BPFLINKFS_FIXED_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "link_ids.h"
#include "link_info.h"

/**
 * fixed_fields_get() - a link's fields, from the cache or the kernel
 * @id: kernel link id
 * @f: out, for every link type (counters such as missed may be stale:
 *     read them live)
 * @verify: check with one BPF_LINK_GET_NEXT_ID that @id still exists
 *          (false right after an enumeration that listed it)
 * Return: 0, -ENOENT (gone), or -errno from bpf(2).
 */
int fixed_fields_get(__u32 id, struct link_fields *f, bool verify);

/**
 * fixed_fields_prog_name() - the name of the link's program, whole
 * (prog_name_read())
 * Return: 0, or -ENOENT / -errno.
 */
int fixed_fields_prog_name(__u32 id, __u32 prog_id, char *buf, size_t len);

/**
 * fixed_fields_link_type() - BPF_LINK_TYPE_* of an id just enumerated
 * Return: 0, -ENOENT, or -errno.
 */
int fixed_fields_link_type(__u32 id, __u32 *link_type);

/**
 * fixed_fields_types() - the link type of each enumerated id, in place
 * @v: ids just enumerated, ascending; their types are set, and ids gone
 *     meanwhile are dropped (the array is compacted)
 * @n: their count
 * Return: how many are left. Cached types are read under one lock.
 */
int fixed_fields_types(struct link_id_type *v, size_t n);

/**
 * fixed_fields_prune() - forget every id not in @v
 * @v: every link the kernel listed just now, ascending by id
 * @n: their count
 */
void fixed_fields_prune(const struct link_id_type *v, size_t n);

/** fixed_fields_forget() - forget one id (the kernel says it is gone) */
void fixed_fields_forget(__u32 id);

#endif
