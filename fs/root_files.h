/* SPDX-License-Identifier: GPL-2.0-only */
/* The files of the mount's root (root_files.c's table). */
#ifndef BPFLINKFS_ROOT_FILES_H
#define BPFLINKFS_ROOT_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "ino.h"

struct daemon;

/** root_file_name() - the name of root file @rf */
const char *root_file_name(enum root_file_id rf);

/** root_file_mode() - the permission bits of root file @rf */
mode_t root_file_mode(enum root_file_id rf);

/**
 * root_file_live() - whether @rf's content moves with every hit: its
 * st_mtime is when it was made
 */
bool root_file_live(enum root_file_id rf);

/**
 * root_file_render() - root file @rf as it reads now, for a reader who
 * may (@sees_addrs) or may not see kernel addresses
 * @buf: out, malloc'd (the caller frees it); @len: out, its length
 * Return: 0, -ENOMEM, or the -errno of reading the kernel's state.
 */
int root_file_render(const struct daemon *d, enum root_file_id rf,
		     bool sees_addrs, char **buf, size_t *len);

#endif
