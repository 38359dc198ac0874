/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ld.so cache: a library name (`libc`) to its path.
 */
#ifndef BPFLINKFS_UPROBE_LDCACHE_H
#define BPFLINKFS_UPROBE_LDCACHE_H

#include <stddef.h>

/**
 * uprobe_ldcache_lookup() - find a library for this architecture in the
 * ld.so cache
 * @name: "libc", "libc.so" or "libc.so.6" (exact names win over prefixes)
 * @out: out, the path the cache names (not yet canonical)
 * @outlen: size of @out
 *
 * Return: 0, -ENOENT (not in the cache), -EINVAL (unreadable cache format).
 */
int uprobe_ldcache_lookup(const char *name, char *out, size_t outlen);

/* The same in the cache file @cache (another root's /etc/ld.so.cache). */
int uprobe_ldcache_lookup_in(const char *cache, const char *name, char *out,
			     size_t outlen);

#endif
