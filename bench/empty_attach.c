// SPDX-License-Identifier: GPL-2.0-only
/*
 * empty_attach OBJ uprobe PATH FUNC | OBJ tracepoint CATEGORY NAME
 *
 * Loads empty.bpf.o with libbpf and attaches its empty program the way a
 * libbpf user does (bpf_program__attach_uprobe_opts by function name,
 * bpf_program__attach_tracepoint), prints "ready" and holds the link until
 * SIGTERM or SIGINT.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static struct bpf_link *attach(struct bpf_object *obj, char **argv)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = argv[4]);
	struct bpf_program *prog;

	if (!strcmp(argv[2], "uprobe")) {
		prog = bpf_object__find_program_by_name(obj, "empty_uprobe");
		return bpf_program__attach_uprobe_opts(prog, -1, argv[3], 0,
						       &uo);
	}
	prog = bpf_object__find_program_by_name(obj, "empty_tp");
	return bpf_program__attach_tracepoint(prog, argv[3], argv[4]);
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_link *link;

	if (argc != 5) {
		fprintf(stderr, "usage: empty_attach OBJ uprobe PATH FUNC | "
				"OBJ tracepoint CATEGORY NAME\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "empty_attach: cannot load %s\n", argv[1]);
		return 1;
	}
	link = attach(obj, argv);
	if (!link) {
		fprintf(stderr, "empty_attach: attach failed\n");
		return 1;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		pause();
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return 0;
}
