/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where links are pinned: every path of every mounted BPF filesystem
 * (this process's /proc/self/mountinfo, fstype "bpf") that holds a link,
 * found by opening each file with BPF_OBJ_GET and asking the link's id,
 * as bpftool does for its `pinned` lines. The last walk is kept and
 * answers while the mounts and every directory it read are unchanged
 * (checked at each call), so every answer is as of the call.
 */
#ifndef BPFLINKFS_HOST_PINS_H
#define BPFLINKFS_HOST_PINS_H

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
	char *paths; /* the paths' storage; NULL: each path malloc'd */
};

/**
 * pin_index_build() - walk every mounted bpffs now
 * @idx: out; free with pin_index_free()
 *
 * Files that vanish during the walk, and files that are not links (maps,
 * programs), are skipped; a mount that cannot be read is skipped too. The
 * same bpffs mounted twice gives each pin once per mount point.
 *
 * Return: 0, or -ENOMEM, -E2BIG (4 GiB of paths), or -errno of opening
 * /proc/self/mountinfo.
 */
int pin_index_build(struct pin_index *idx);

/**
 * pin_index_build_link() - pin_index_build() for link @id alone
 * @idx: out, holding only @id's pins; free with pin_index_free()
 * @id: the link
 *
 * What one link's file needs: no copy of every other link's pins.
 * Return: as pin_index_build().
 */
int pin_index_build_link(struct pin_index *idx, __u32 id);

/** pin_index_free() - free what pin_index_build() made; @idx is emptied */
void pin_index_free(struct pin_index *idx);

/**
 * pin_index_find() - the pins of link @id
 * @first: out, index of its first pin in @idx->v
 * Return: how many pins it has (0: none, *first unset).
 */
size_t pin_index_find(const struct pin_index *idx, __u32 id, size_t *first);

#endif
