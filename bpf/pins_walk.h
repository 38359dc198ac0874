/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where links are pinned: every path of every mounted BPF filesystem
 * (this process's /proc/self/mountinfo, fstype "bpf") that holds a link,
 * found by opening each file with BPF_OBJ_GET and asking the link's id,
 * as bpftool does for its `pinned` lines. Read whenever asked, never kept.
 */
#ifndef BPFLINKFS_PINS_WALK_H
#define BPFLINKFS_PINS_WALK_H

#include <stddef.h>
#include <linux/types.h>

struct link_pin {
	__u32 id;   /* the link's kernel id */
	char *path; /* absolute path through the mount point */
};

/* Every link pin found by one walk, sorted by id, then path */
struct pin_index {
	struct link_pin *v;
	size_t n;
};

/**
 * pin_index_build() - walk every mounted bpffs now
 * @idx: out; free with pin_index_free()
 *
 * Files that vanish during the walk, and files that are not links (maps,
 * programs), are skipped; a mount that cannot be read is skipped too. The
 * same bpffs mounted twice gives each pin once per mount point.
 *
 * Return: 0, or -ENOMEM, or -errno of reading /proc/self/mountinfo.
 */
int pin_index_build(struct pin_index *idx);

/** pin_index_free() - free what pin_index_build() made; @idx is emptied */
void pin_index_free(struct pin_index *idx);

/**
 * pin_index_find() - the pins of link @id
 * @first: out, index of its first pin in @idx->v
 * Return: how many pins it has (0: none, *first unset).
 */
size_t pin_index_find(const struct pin_index *idx, __u32 id, size_t *first);

#endif
