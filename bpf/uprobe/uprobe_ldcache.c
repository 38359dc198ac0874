// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ld.so cache (/etc/ld.so.cache), read directly because no library
 * exposes it: which file a bare library name stands for.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "uprobe_arch.h"
#include "uprobe_ldcache.h"
#include "uprobe_target.h"

#define LD_SO_CACHE "/etc/ld.so.cache"

/* glibc's dl-cache.h: the "new" cache format and its entry flags */
#define CACHE_MAGIC_NEW "glibc-ld.so.cache1.1"
#define CACHE_HDR_NEW 48
#define CACHE_ENTRY_NEW 24
#define CACHE_FLAG_ELF_LIBC6 0x0003
#define CACHE_FLAG_TYPE_MASK 0x00ff
#define CACHE_FLAG_ARCH_MASK 0xff00

/* ---- ld.so cache ---- */

static bool cache_name_matches(const char *key, const char *name, bool exact)
{
	size_t n = strlen(name);

	if (exact)
		return strcmp(key, name) == 0;
	if (strncmp(key, name, n) != 0)
		return false;
	key += n;
	/* "libc" must not match "libcrypt.so": only "libc.so" or "libc.so.*" */
	if (!strstr(name, ".so")) {
		if (strncmp(key, ".so", 3) != 0)
			return false;
		key += 3;
	}
	return *key == '\0' || *key == '.';
}

/* Search the new-format table at @base (@size bytes up to end of file). */
static int cache_search(const char *base, size_t size, const char *name,
			bool exact, char *out, size_t outlen)
{
	uint32_t nlibs, i;

	if (size < CACHE_HDR_NEW ||
	    memcmp(base, CACHE_MAGIC_NEW, strlen(CACHE_MAGIC_NEW)) != 0)
		return -EINVAL;
	memcpy(&nlibs, base + 20, sizeof(nlibs));
	if (nlibs > (size - CACHE_HDR_NEW) / CACHE_ENTRY_NEW)
		return -EINVAL;
	for (i = 0; i < nlibs; i++) {
		const char *e =
			base + CACHE_HDR_NEW + (size_t)i * CACHE_ENTRY_NEW;
		int32_t flags;
		uint32_t key, val;

		memcpy(&flags, e, 4);
		memcpy(&key, e + 4, 4);
		memcpy(&val, e + 8, 4);
		if ((flags & CACHE_FLAG_ARCH_MASK) != UPROBE_LDCACHE_ARCH ||
		    (flags & CACHE_FLAG_TYPE_MASK) != CACHE_FLAG_ELF_LIBC6)
			continue;
		if (key >= size || val >= size ||
		    !memchr(base + key, '\0', size - key) ||
		    !memchr(base + val, '\0', size - val))
			return -EINVAL;
		if (!cache_name_matches(base + key, name, exact))
			continue;
		if (strlen(base + val) >= outlen)
			return -ENAMETOOLONG;
		strcpy(out, base + val);
		return 0;
	}
	return -ENOENT;
}

int uprobe_ldcache_lookup(const char *name, char *out, size_t outlen)
{
	return uprobe_ldcache_lookup_in(LD_SO_CACHE, name, out, outlen);
}

int uprobe_ldcache_lookup_in(const char *cache, const char *name, char *out,
			     size_t outlen)
{
	struct stat st;
	char *map;
	int fd, err;

	fd = open(cache, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = fstat(fd, &st) < 0 ? -errno : st.st_size == 0 ? -EINVAL : 0;
	if (err) {
		close(fd);
		return err;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (err)
		return err;
	/* glibc >= 2.32 writes only the new format, which starts the file */
	err = cache_search(map, st.st_size, name, true, out, outlen);
	if (err == -ENOENT)
		err = cache_search(map, st.st_size, name, false, out, outlen);
	munmap(map, st.st_size);
	return err;
}
