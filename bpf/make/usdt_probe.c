// SPDX-License-Identifier: GPL-2.0-only
/*
 * A usdt line: the probe's locations from its notes (resolve_usdt()), made
 * into one uprobe_multi link (multi_probe.c) or, on a kernel without
 * them, one perf uprobe link per location (single_probe.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "single_probe.h"
#include "multi_probe.h"
#include "multi_targets.h"
#include "resolve.h"
#include "uprobe_target.h"
#include "usdt_probe.h"

/*
 * usdt: one uprobe_multi link for every location of the probe (or of
 * every probe the pattern matches), with their semaphores as
 * ref_ctr_offsets, where the kernel has uprobe_multi links; otherwise one
 * perf uprobe link per location, all with the line as their spec, and
 * @e's warning says so when there are several. If one of those fails, those
 * made stay in @made for the caller to remove (the line is all-or-nothing).
 */
static int usdt_create(struct owned *o, const struct probe_spec *p,
		       const char *spec, pid_t pid, struct request_ids *made,
		       struct path_memo *memo, struct bl_error *e)
{
	struct uprobe_target *ut = calloc(1, sizeof(*ut));
	struct usdt_location *locs = NULL;
	size_t n = 0, i;
	int err = ut ? resolve_usdt(p, pid, memo, ut, &locs, &n, e) : -ENOMEM;

	if (!err && multi_link_creatable(true)) {
		err = usdt_multi_create(o, p, ut, locs, n, spec, strlen(spec),
					made, e);
		n = 0;
	} else if (!err && n > 1) {
		bl_warnf(e,
			 "this kernel has no uprobe_multi links: %zu uprobe "
			 "links made, one per USDT location",
			 n);
	}
	for (i = 0; !err && i < n; i++) {
		ut->offset = locs[i].offset;
		ut->ref_ctr_offset = locs[i].ref_ctr_offset;
		err = request_ids_reserve(made, 1);
		if (!err)
			err = perf_probe_link_make(o, p, ut, -1, spec, e,
						   &made->ids[made->len]);
		if (!err)
			made->len++;
	}
	free(locs);
	if (ut && ut->fd >= 0)
		close(ut->fd);
	free(ut);
	return err;
}

int usdt_probe_create(struct owned *o, const struct probe_spec *p,
		      const char *line, size_t len, pid_t pid,
		      struct request_ids *made, struct path_memo *memo,
		      struct bl_error *e)
{
	char *spec = strndup(line, len);
	int err;

	e->err = 0;
	e->column = 0;
	e->msg[0] = e->warning[0] = '\0';
	err = spec ? usdt_create(o, p, spec, pid, made, memo, e) : -ENOMEM;
	free(spec);
	e->err = err;
	return err;
}
