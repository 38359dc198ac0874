// SPDX-License-Identifier: GPL-2.0-only
/*
 * The files of the mount's root: one entry each, with its mode and how
 * its value is rendered (the tables, features, error_log, metrics).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array_size.h"
#include "control.h"
#include "daemon.h"
#include "metrics.h"
#include "owned.h"
#include "root_files.h"
#include "tables.h"

struct root_file {
	const char *name;
	mode_t mode;
	char *(*render)(const struct daemon *d, const struct reader *r,
			size_t *len);
	/* content that moves with every hit: st_mtime is when it was made */
	bool live;
};

static char *render_error_log(const struct daemon *d, const struct reader *r,
			      size_t *len)
{
	return error_log_render(d->errors, len);
}

static char *render_features_file(const struct daemon *d,
				  const struct reader *r, size_t *len)
{
	return render_features(d->stats, len);
}

static char *render_links_file(const struct daemon *d, const struct reader *r,
			       size_t *len)
{
	return render_links_table(d->owned, r, len);
}

static char *render_json_file(const struct daemon *d, const struct reader *r,
			      size_t *len)
{
	return render_links_json(d->owned, r, len);
}

static char *render_metrics_file(const struct daemon *d, const struct reader *r,
				 size_t *len)
{
	return render_metrics(d->owned, d->attached, d->stats, len);
}

static const struct root_file root_files[] = {
	[RF_CONTROL] = {"control", 0600, NULL, false},
	[RF_ERROR_LOG] = {"error_log", 0644, render_error_log, false},
	[RF_FEATURES] = {"features", 0444, render_features_file, false},
	[RF_LINKS] = {"links", 0444, render_links_file, false},
	[RF_JSON] = {"links.json", 0444, render_json_file, false},
	[RF_METRICS] = {"metrics.prom", 0444, render_metrics_file, true},
	/* a stream (top.c): root's alone, whatever uid=, gid=, umask= say */
	[RF_TOP] = {"top", 0400, NULL, false},
};
_Static_assert(ARRAY_SIZE(root_files) == RF_COUNT,
	       "one root_files entry a root file");

const char *root_file_name(enum root_file_id rf)
{
	return root_files[rf].name;
}

mode_t root_file_mode(enum root_file_id rf)
{
	return root_files[rf].mode;
}

bool root_file_live(enum root_file_id rf)
{
	return root_files[rf].live;
}

int root_file_render(const struct daemon *d, enum root_file_id rf,
		     bool sees_addrs, char **buf, size_t *len)
{
	struct reader r = {sees_addrs};

	*len = 0;
	errno = 0;
	if (rf == RF_CONTROL)
		*buf = owned_list(d->owned, len);
	else if (!root_files[rf].render) /* a stream: nothing to size */
		*buf = calloc(1, 1);
	else
		*buf = root_files[rf].render(d, &r, len);
	if (!*buf)
		return errno ? -errno : -ENOMEM;
	return 0;
}
