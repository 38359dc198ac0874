// SPDX-License-Identifier: GPL-2.0-only
/* What tracefs says about tracepoints it lists (tracefs.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "array_size.h"
#include "parse.h"
#include "tracefs.h"

static const char *const tracefs_roots[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

const char *tracefs_root(void)
{
	char path[64];
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tracefs_roots); i++) {
		snprintf(path, sizeof(path), "%s/events", tracefs_roots[i]);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return tracefs_roots[i];
	}
	return NULL;
}

/* A foreign tracepoint's category, when exactly one category has it. */
static int tracefs_category_scan(const char *name, char *out, size_t len)
{
	const char *root = tracefs_root();
	char path[PATH_MAX];
	struct dirent *e;
	int found = 0;
	DIR *d;

	if (!root)
		return -ENODATA;
	snprintf(path, sizeof(path), "%s/events", root);
	d = opendir(path);
	if (!d)
		return -ENODATA;
	while ((e = readdir(d)) && found < 2) {
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s/%s", root, e->d_name,
			 name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (!found)
				snprintf(out, len, "%s", e->d_name);
			found++;
		}
	}
	closedir(d);
	return found == 1 ? 0 : -ENODATA;
}

/*
 * The scan stats every category: remember its answer for a few seconds
 * (tracefs changes only when a module adds or removes events).
 */
#define CATEGORY_CACHE 64
#define CATEGORY_TTL 5

struct category_memo {
	char name[PROBE_NAME_MAX];
	char category[PROBE_NAME_MAX];
	int err;
	time_t when;
};

/* Process-wide on purpose: a timed copy of what the one tracefs says, the
 * same for every mount; a memo private to this file, not part of the
 * handle of owned.h */
static pthread_mutex_t category_lock = PTHREAD_MUTEX_INITIALIZER;
static struct category_memo category_memo[CATEGORY_CACHE];
static unsigned int category_next;

int tracefs_category(const char *name, char *out, size_t len)
{
	time_t now = time(NULL);
	struct category_memo m;
	int i, err = 1;

	pthread_mutex_lock(&category_lock);
	for (i = 0; i < CATEGORY_CACHE; i++) {
		struct category_memo *c = &category_memo[i];

		if (now - c->when < CATEGORY_TTL &&
		    strcmp(c->name, name) == 0) {
			snprintf(out, len, "%s", c->category);
			err = c->err;
			break;
		}
	}
	pthread_mutex_unlock(&category_lock);
	if (err <= 0)
		return err;
	err = tracefs_category_scan(name, m.category, sizeof(m.category));
	snprintf(m.name, sizeof(m.name), "%s", name);
	m.err = err;
	m.when = now;
	if (!err)
		snprintf(out, len, "%s", m.category);
	pthread_mutex_lock(&category_lock);
	category_memo[category_next++ % CATEGORY_CACHE] = m;
	pthread_mutex_unlock(&category_lock);
	return err;
}
