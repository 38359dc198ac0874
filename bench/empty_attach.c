// SPDX-License-Identifier: GPL-2.0-only
/*
 * empty_attach OBJ uprobe PATH FUNC | OBJ tracepoint CATEGORY NAME |
 *              OBJ fentry FUNC |
 *              OBJ floor-uprobe PATH FUNC | OBJ floor-tracepoint CAT NAME
 *
 * Loads the one empty program of empty.bpf.o that the probe kind needs
 * (with the floor- prefix: the floor program, which adds one to a global
 * in .bss) with libbpf and attaches it the way a libbpf user does
 * (bpf_program__attach_uprobe_opts by function name,
 * bpf_program__attach_tracepoint, bpf_program__attach_trace after
 * bpf_program__set_attach_target), prints "ready" and holds the link until
 * SIGTERM or SIGINT. A floor program's count is printed at exit to stderr
 * ("hits N"), so the caller can check that the probe fired.
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

#define FLOOR_PREFIX "floor-"

/* whether KIND asks for the floor program (floor-uprobe, floor-tracepoint) */
static int is_floor(const char *kind)
{
	return !strncmp(kind, FLOOR_PREFIX, strlen(FLOOR_PREFIX));
}

/* the probe kind without the floor- prefix */
static const char *probe_kind(const char *kind)
{
	return is_floor(kind) ? kind + strlen(FLOOR_PREFIX) : kind;
}

/* the program for a kind, or NULL for an unknown kind */
static const char *prog_name(const char *kind)
{
	int floor = is_floor(kind);

	kind = probe_kind(kind);
	if (!strcmp(kind, "uprobe"))
		return floor ? "floor_uprobe" : "empty_uprobe";
	if (!strcmp(kind, "tracepoint"))
		return floor ? "floor_tp" : "empty_tp";
	if (!strcmp(kind, "fentry") && !floor)
		return "empty_fentry";
	return NULL;
}

/* the floor program's count (its .bss), or -1 when it cannot be read */
static long long floor_hits(struct bpf_object *obj)
{
	struct bpf_map *bss = bpf_object__find_map_by_name(obj, ".bss");
	unsigned long long hits;
	int key = 0;

	if (!bss || bpf_map__value_size(bss) < sizeof(hits) ||
	    bpf_map__lookup_elem(bss, &key, sizeof(key), &hits, sizeof(hits),
				 0))
		return -1;
	return (long long)hits;
}

/*
 * Only the program used is loaded: a kernel that refuses fentry must still
 * load the uprobe and tracepoint ones, and an fentry program needs its
 * target before the load.
 */
static struct bpf_program *choose(struct bpf_object *obj, char **argv)
{
	const char *name = prog_name(argv[2]);
	struct bpf_program *prog, *p;

	prog = name ? bpf_object__find_program_by_name(obj, name) : NULL;
	if (!prog)
		return NULL;
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, p == prog);
	if (!strcmp(argv[2], "fentry") &&
	    bpf_program__set_attach_target(prog, 0, argv[3]))
		return NULL;
	return prog;
}

static struct bpf_link *attach(struct bpf_program *prog, char **argv)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = argv[4]);
	const char *kind = probe_kind(argv[2]);

	if (!strcmp(kind, "uprobe"))
		return bpf_program__attach_uprobe_opts(prog, -1, argv[3], 0,
						       &uo);
	if (!strcmp(kind, "fentry"))
		return bpf_program__attach_trace(prog);
	return bpf_program__attach_tracepoint(prog, argv[3], argv[4]);
}

int main(int argc, char **argv)
{
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_link *link;

	if (argc != (argc > 2 && !strcmp(argv[2], "fentry") ? 4 : 5)) {
		fprintf(stderr,
			"usage: empty_attach OBJ [floor-]uprobe PATH FUNC | "
			"OBJ [floor-]tracepoint CATEGORY NAME | "
			"OBJ fentry FUNC\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	prog = obj ? choose(obj, argv) : NULL;
	if (!prog || bpf_object__load(obj)) {
		fprintf(stderr, "empty_attach: cannot load %s for %s\n",
			argv[1], argv[2]);
		return 1;
	}
	link = attach(prog, argv);
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
	if (is_floor(argv[2]))
		fprintf(stderr, "hits %lld\n", floor_hits(obj));
	bpf_object__close(obj);
	return 0;
}
