// SPDX-License-Identifier: GPL-2.0-only
/*
 * setbpf - attach BPF programs to perf events the old way, with the
 * PERF_EVENT_IOC_SET_BPF ioctl and no link (as bcc and bpftrace 0.17 do),
 * using no bpflinkfs code: for the tests of attached/.
 *
 * Usage: setbpf [--prog PATH] [--procs N] SPEC...
 *
 * SPEC is one of
 *   uprobe:PATH:0xOFFSET   uretprobe:PATH:0xOFFSET   (OFFSET: a file offset)
 *   kprobe:FUNC            tracepoint:CATEGORY:NAME
 *   software:CONFIG        (a number, or cpu-clock / task-clock)
 *
 * Each SPEC gets a perf event and a program of its own (a program that
 * returns 0); the program fd is closed after the ioctl, so the perf event
 * fd is all the process holds. Output, one tab-separated line per SPEC in
 * order: FD PROG_ID; then "ready". setbpf then waits for EOF on stdin and
 * exits, which detaches everything. --procs N: N processes (this one and
 * N-1 children), process number i (0 is this one) attaching SPEC number
 * i modulo the count of SPECs only, so that many processes can share a
 * few tracepoints (a tracepoint takes at most 64 programs); the lines are
 * then PID FD PROG_ID (children first, in turn). --prog PATH: every SPEC
 * runs the program pinned at PATH (e.g. by bpftool prog load) instead.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>

static int die(const char *what, const char *arg)
{
	fprintf(stderr, "setbpf: %s: %s: %s\n", what, arg, strerror(errno));
	exit(1);
}

/* A number from a sysfs or tracefs file, -1 when unreadable */
static long read_num(const char *path)
{
	FILE *fp = fopen(path, "re");
	long v = -1;

	if (!fp)
		return -1;
	if (fscanf(fp, "%ld", &v) != 1)
		v = -1;
	fclose(fp);
	return v;
}

static long tracepoint_id(const char *cat, const char *name)
{
	static const char *const roots[] = {"/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing"};
	char path[512];
	long id;
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/id", roots[i],
			 cat, name);
		id = read_num(path);
		if (id >= 0)
			return id;
	}
	return -1;
}

/* --prog: the pinned program every SPEC runs, or NULL (one of its own) */
static const char *prog_pin;

static int load_prog(enum bpf_prog_type type)
{
	struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};

	if (prog_pin)
		return bpf_obj_get(prog_pin);
	return bpf_prog_load(type, "setbpf", "GPL", insns, 2, NULL);
}

/* perf_event_attr of a kprobe or uprobe of the PMU named @pmu */
static void probe_attr(struct perf_event_attr *a, const char *pmu, bool ret,
		       const char *target, __u64 offset)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
		 pmu);
	a->type = (__u32)read_num(path);
	if (ret)
		a->config = 1; /* format/retprobe: config:0 */
	a->config1 = (__u64)(unsigned long)target;
	a->config2 = offset;
}

/* The perf_event_attr, pid and cpu of @spec; the program type it needs */
static enum bpf_prog_type parse(const char *spec, char *rest,
				struct perf_event_attr *attr, int *pid,
				int *cpu)
{
	char *colon = strrchr(rest, ':');

	*pid = -1; /* probes: every process, on CPU 0 */
	*cpu = 0;
	if (!strncmp(spec, "uprobe:", 7) || !strncmp(spec, "uretprobe:", 10)) {
		if (!colon)
			return BPF_PROG_TYPE_UNSPEC;
		*colon = '\0';
		probe_attr(attr, "uprobe", spec[1] == 'r', rest,
			   strtoull(colon + 1, NULL, 0));
		return BPF_PROG_TYPE_KPROBE;
	}
	if (!strncmp(spec, "kprobe:", 7)) {
		probe_attr(attr, "kprobe", false, rest, 0);
		return BPF_PROG_TYPE_KPROBE;
	}
	if (!strncmp(spec, "tracepoint:", 11) && colon) {
		*colon = '\0';
		attr->type = PERF_TYPE_TRACEPOINT;
		attr->config = (__u64)tracepoint_id(rest, colon + 1);
		return BPF_PROG_TYPE_TRACEPOINT;
	}
	if (!strncmp(spec, "software:", 9)) {
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config =
			!strcmp(rest, "cpu-clock")    ? PERF_COUNT_SW_CPU_CLOCK
			: !strcmp(rest, "task-clock") ? PERF_COUNT_SW_TASK_CLOCK
						      : strtoull(rest, NULL, 0);
		attr->sample_period = 1000000000ULL; /* never fires in a test */
		*pid = 0;			     /* this process, any CPU */
		*cpu = -1;
		return BPF_PROG_TYPE_PERF_EVENT;
	}
	return BPF_PROG_TYPE_UNSPEC;
}

/* Attach one SPEC; print its line (with @pid_col, the pid first). */
static void attach(const char *spec, int pid_col)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .sample_period = 1, .wakeup_events = 1};
	char *s = strdup(spec), *colon = s ? strchr(s, ':') : NULL;
	struct bpf_prog_info info = {0};
	__u32 len = sizeof(info);
	enum bpf_prog_type type;
	int pid, cpu, pfd, prog;

	errno = EINVAL;
	if (!colon)
		die("bad spec", spec);
	type = parse(spec, colon + 1, &attr, &pid, &cpu);
	if (type == BPF_PROG_TYPE_UNSPEC)
		die("bad spec", spec);
	pfd = (int)syscall(SYS_perf_event_open, &attr, pid, cpu, -1,
			   PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		die("perf_event_open", spec);
	prog = load_prog(type);
	if (prog < 0)
		die("BPF_PROG_LOAD", spec);
	if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, prog) ||
	    ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0))
		die("PERF_EVENT_IOC_SET_BPF", spec);
	if (bpf_obj_get_info_by_fd(prog, &info, &len))
		die("BPF_OBJ_GET_INFO_BY_FD", spec);
	close(prog);
	if (pid_col)
		printf("%d\t", (int)getpid());
	printf("%d\t%u\n", pfd, info.id);
	free(s);
}

/* Every SPEC in this process, then wait for EOF (a child: tell @done, then wait
 * for @go to close). */
static void run(int argc, char **argv, int pid_col, int go, int done)
{
	char buf[64];
	int i;

	for (i = 0; i < argc; i++)
		attach(argv[i], pid_col);
	fflush(stdout);
	if (go >= 0) { /* a child: tell the parent, wait for it to go */
		if (write(done, "", 1) != 1)
			_exit(1);
		close(done);
		while (read(go, buf, sizeof(buf)) > 0)
			;
		_exit(0);
	}
}

int main(int argc, char **argv)
{
	int procs = 1, i, gate[2], done[2], status;
	char buf[64];
	pid_t child;

	if (argc > 2 && !strcmp(argv[1], "--prog")) {
		prog_pin = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc > 2 && !strcmp(argv[1], "--procs")) {
		procs = atoi(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc < 2 || procs < 1) {
		fprintf(stderr,
			"usage: setbpf [--prog PATH] [--procs N] SPEC...\n");
		return 2;
	}
	if (pipe(gate))
		die("pipe", "gate");
	for (i = 1; i < procs; i++) {
		if (pipe(done))
			die("pipe", "done");
		child = fork();
		if (child < 0)
			die("fork", "child");
		if (!child) {
			close(gate[1]);
			close(done[0]);
			run(1, argv + 1 + i % (argc - 1), 1, gate[0], done[1]);
		}
		/* one child at a time, so the lines do not interleave */
		close(done[1]);
		if (read(done[0], buf, 1) != 1)
			die("child", "attach");
		close(done[0]);
	}
	close(gate[0]);
	if (procs > 1)
		run(1, argv + 1, 1, -1, -1);
	else
		run(argc - 1, argv + 1, 0, -1, -1);
	printf("ready\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	close(gate[1]); /* the children go */
	while (wait(&status) > 0)
		;
	return 0;
}
