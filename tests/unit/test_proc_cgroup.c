// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf/holders/proc_cgroup.c: the `0::` path of this process against its own
 * reading of /proc/self/cgroup, a pid that does not exist (ENOENT, and a
 * place with no path in the cache), and the cache keeping one place per
 * pid over many pids (its growth).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "proc_cgroup.h"

/* The text after "0::" in /proc/self/cgroup, by stdio; NULL if none */
static char *own_v2_path(void)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[8192], *r = NULL;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			r = strdup(line + 3);
		}
	if (f)
		fclose(f);
	return r;
}

int main(void)
{
	struct cgroup_cache c = {0};
	const struct cgroup_place *p, *q;
	char *want = own_v2_path(), *got = NULL;
	__u32 self = (__u32)getpid(), pid;
	int err, all = 1;

	err = proc_cgroup_v2(self, &got);
	if (want)
		CHECK(!err && got && !strcmp(got, want),
		      "own path: %d '%s', want '%s'", err, got ? got : "",
		      want);
	else
		CHECK(err == -ENOENT, "no cgroup v2 here: got %d", err);
	free(got);

	/* pid_max is at most 2^22: this pid never exists */
	err = proc_cgroup_v2(1u << 23, &got);
	CHECK(err == -ENOENT, "missing pid: got %d", err);

	p = cgroup_cache_get(&c, 1u << 23);
	CHECK(p && p->known && !p->path && !p->container,
	      "missing pid in the cache: no path, no container");
	p = cgroup_cache_get(&c, self);
	q = cgroup_cache_get(&c, self);
	CHECK(p && p == q && c.n == 2, "one place per pid (%zu places)", c.n);
	/* past several growths: every pid found again, each once */
	for (pid = 1u << 23; pid < (1u << 23) + 1000; pid++)
		all &= cgroup_cache_get(&c, pid) != NULL;
	for (pid = 1u << 23; pid < (1u << 23) + 1000; pid++) {
		p = cgroup_cache_get(&c, pid);
		all &= p && p->pid == pid && !p->path;
	}
	p = cgroup_cache_get(&c, self);
	CHECK(all && c.n == 1001 && p &&
		      (want ? p->path && !strcmp(p->path, want) : !p->path),
	      "1001 pids after growth: %zu places", c.n);
	cgroup_cache_free(&c);
	CHECK(!c.v && !c.n && !c.cap, "freed cache is empty");
	free(want);
	return done_testing();
}
