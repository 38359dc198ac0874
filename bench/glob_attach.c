// SPDX-License-Identifier: GPL-2.0-only
/*
 * glob_attach - what a libbpf user writes for a wildcard uprobe: one
 * uprobe_multi link by glob with bpf_program__attach_uprobe_multi()
 * (libbpf 1.3+), the reference of every.sh's glob creation.
 *
 * Usage: glob_attach OBJ BINARY PATTERN
 *
 * OBJ is a BPF object whose first program is SEC("uprobe.multi"); it is
 * opened and loaded before the clock starts. Then the attach call alone is
 * timed (CLOCK_MONOTONIC): libbpf reads BINARY's symbols, matches PATTERN
 * and makes the link. Prints "NS LINK_ID" and exits, which releases the
 * link. Exit 1 with the reason on stderr when anything fails.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_link *link;
	long long t0, t1;

	if (argc != 4) {
		fprintf(stderr, "usage: glob_attach OBJ BINARY PATTERN\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "glob_attach: load %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	prog = bpf_object__next_program(obj, NULL);
	if (!prog) {
		fprintf(stderr, "glob_attach: no program in %s\n", argv[1]);
		return 1;
	}
	t0 = now_ns();
	link = bpf_program__attach_uprobe_multi(prog, -1, argv[2], argv[3],
						NULL);
	t1 = now_ns();
	if (!link) {
		fprintf(stderr, "glob_attach: attach %s:%s: %s\n", argv[2],
			argv[3], strerror(errno));
		return 1;
	}
	memset(&info, 0, sizeof(info));
	if (bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len)) {
		fprintf(stderr, "glob_attach: link info: %s\n",
			strerror(errno));
		return 1;
	}
	printf("%lld %u\n", t1 - t0, info.id);
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return 0;
}
