// SPDX-License-Identifier: GPL-2.0-only
/*
 * Uprobe targets, the path half: a bare name (no slash) found in the
 * writer's view of the file system, through the ld.so cache
 * (uprobe_ldcache.c) or the fixed PATH; a PATH with a slash is found by
 * uprobe_view.c. uprobe_resolve_path() is the entry for both.
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

#include "uprobe_cache.h"
#include "uprobe_elf.h"
#include "uprobe_err.h"
#include "uprobe_ldcache.h"
#include "uprobe_view.h"
#include "uprobe_target.h"

#define FIXED_PATH                                                             \
	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* ---- bare names: the ld.so cache and the fixed PATH, the writer's ---- */

/* @text as @pid sees it, a regular file: its path for the daemon. */
static int bare_try(pid_t pid, const char *text, char *out, bool exec)
{
	mode_t mode;
	int err = uprobe_view_resolve(text, pid, text, out, &mode, NULL);

	if (!err && (!S_ISREG(mode) || (exec && !(mode & 0111))))
		err = -ENOENT;
	return err;
}

static int bare_ldcache(pid_t pid, const char *name, char *out)
{
	char *cache = malloc(2 * PATH_MAX), *lib = cache + PATH_MAX;
	int err = cache ? bare_try(pid, "/etc/ld.so.cache", cache, false)
			: -ENOMEM;

	if (!err)
		err = uprobe_ldcache_lookup_in(cache, name, lib, PATH_MAX);
	if (!err)
		err = bare_try(pid, lib, out, false);
	free(cache);
	return err;
}

static int bare_path(pid_t pid, const char *name, char *out)
{
	const char *dir = FIXED_PATH, *end;
	char *cand = malloc(PATH_MAX);
	int err = cand ? -ENOENT : -ENOMEM;

	for (; cand && *dir && err; dir = *end ? end + 1 : end) {
		end = strchrnul(dir, ':');
		if (snprintf(cand, PATH_MAX, "%.*s/%s", (int)(end - dir), dir,
			     name) >= PATH_MAX) {
			err = -ENAMETOOLONG;
			break;
		}
		err = bare_try(pid, cand, out, true) ? -ENOENT : 0;
	}
	free(cand);
	return err;
}

static int find_bare_name(const char *name, pid_t pid, char *out,
			  struct uprobe_err *terr)
{
	bool lib_first = strncmp(name, "lib", 3) == 0;
	int cache_err = -ENOENT, path_err;

	/* a missing or unreadable cache only means "not a cached library" */
	if (lib_first) {
		cache_err = bare_ldcache(pid, name, out);
		if (!cache_err)
			return 0;
	}
	path_err = bare_path(pid, name, out);
	if (!path_err)
		return 0;
	if (!lib_first) {
		cache_err = bare_ldcache(pid, name, out);
		if (!cache_err)
			return 0;
	}
	uprobe_set_err(terr, 0,
		       "'%s' is neither a library in /etc/ld.so.cache%s nor a "
		       "command on " FIXED_PATH,
		       name, cache_err == -ENOENT ? "" : " (unreadable)");
	return path_err == -ENAMETOOLONG ? path_err : -ENOENT;
}

int uprobe_locate_path(const char *path, pid_t pid, char *out,
		       struct uprobe_err *terr)
{
	mode_t mode;

	if (terr)
		terr->e.msg[0] = '\0';
	if (!path || !*path) {
		uprobe_set_err(terr, 0, "empty path");
		return -EINVAL;
	}
	if (strchr(path, '/'))
		return uprobe_view_resolve(path, pid, path, out, &mode, terr);
	return find_bare_name(path, pid, out, terr);
}

int uprobe_resolve_path(const char *path, pid_t pid, char *out,
			struct uprobe_err *terr)
{
	struct uprobe_elf f;
	int err = uprobe_locate_path(path, pid, out, terr);

	if (err)
		return err;
	/* unchanged since it was parsed: it passed uprobe_elf_open() then */
	if (uprobe_rescache_known(out))
		return 0;
	err = uprobe_elf_open(&f, out, terr);
	uprobe_elf_close(&f);
	return err;
}
