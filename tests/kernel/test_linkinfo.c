// SPDX-License-Identifier: GPL-2.0-only
/*
 * link_info_read_fd() on a real tracepoint link: a name buffer too small
 * gives -ENOSPC (and nothing made up), a PATH_MAX one gives the name that
 * tracefs lists; a link id that does not exist gives -ENOENT.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_event_link.h"
#include "check.h"
#include "counter_load.h"
#include "link_info.h"

int main(void)
{
	struct perf_probe p = {.kind = PROBE_TRACEPOINT,
			       .tp_category = "sched",
			       .tp_name = "sched_process_exec",
			       .pid = -1,
			       .cpu = -1};
	static struct link_fields f;
	struct counter *c;
	struct bl_error be = {0};
	const char *msg = be.msg;
	struct stat st;
	int pfd, lfd, err;

	if (geteuid())
		skip_all("needs root");
	if (stat("/sys/kernel/tracing/events/sched/sched_process_exec", &st))
		skip_all("no tracefs at /sys/kernel/tracing");
	if (link_features_detect() || counter_open(&c, 16))
		bail_out("cannot detect features or load the counter");
	pfd = perf_probe_open(&p, &be);
	lfd = pfd < 0 ? pfd
		      : perf_link_create(counter_prog_fd(c, p.kind, 0), pfd, 5);
	CHECK(lfd >= 0, "tracepoint link made (%s)", lfd < 0 ? msg : "");
	if (pfd >= 0)
		close(pfd);
	if (lfd < 0)
		return done_testing();
	if (!link_features()->perf_link_info) {
		close(lfd);
		skip_all("this kernel has no perf link info");
	}
	err = link_info_read_fd(lfd, &f, 4);
	CHECK(err == -ENOSPC, "4-byte name buffer gives ENOSPC (got %d)", err);
	err = link_info_read_fd(lfd, &f, sizeof(f.name));
	CHECK(err == 0 && strcmp(f.name, p.tp_name) == 0,
	      "PATH_MAX buffer gives the tracefs name (got '%s')", f.name);
	CHECK(f.kind == PERF_LINK_TRACEPOINT, "kind is tracepoint (%d)",
	      f.kind);
	CHECK(!link_features()->cookie || f.cookie == 5, "cookie 5 (%llu)",
	      (unsigned long long)f.cookie);
	err = link_info_read(f.id, &f);
	CHECK(err == 0 && f.kind == PERF_LINK_TRACEPOINT, "read by id %u",
	      f.id);
	close(lfd);
	counter_close(c);
	err = link_info_read(UINT32_MAX, &f);
	CHECK(err == -ENOENT, "unknown id gives ENOENT (got %d)", err);
	return done_testing();
}
