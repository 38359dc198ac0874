// SPDX-License-Identifier: GPL-2.0-only
/*
 * mklinks - make BPF perf-event links without any bpflinkfs code, so the
 * integration tests can compare what bpflinkfs shows against links whose
 * every property the test chose itself.
 *
 * Usage: mklinks [--pin DIR] [--ref-ctr 0xOFF] [--keep-perf-fd] SPEC...
 *   uprobe:PATH:0xOFFSET:COOKIE       uretprobe:PATH:0xOFFSET:COOKIE
 *   tracepoint:CATEGORY:NAME:COOKIE   software:CONFIG:CPU:COOKIE
 *
 * OFFSET is a file offset. CONFIG is a number or a software event name
 * (cpu-clock, task-clock, ...). CPU -1 means "this process on any CPU".
 * --ref-ctr gives the reference counter (USDT semaphore) file offset of
 * the next uprobe spec only. PATH is everything between the first colon
 * and the last two, so it may hold colons. --keep-perf-fd keeps each perf
 * event fd open next to its link, as libbpf-made links do (the kernel's
 * BPF_TASK_FD_QUERY answers for such an fd).
 *
 * Output, one tab-separated line per link, in the order of the specs:
 *   ID TYPE NAME OFFSET COOKIE PROG_ID
 * TYPE is uprobe, uretprobe, tracepoint or software; NAME is the path,
 * CATEGORY:NAME or the decimal config; OFFSET is 0x hex or "-". Then
 * "ready"; mklinks then waits for EOF on stdin (or a signal) and exits,
 * which detaches its links. With --pin it pins each link as DIR/link_ID
 * and exits after "ready" (remove the pins to detach).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>

enum kind { K_UPROBE, K_URETPROBE, K_TRACEPOINT, K_SOFTWARE };

static const char *const kind_names[] = {"uprobe", "uretprobe", "tracepoint",
					 "software"};

struct spec {
	enum kind kind;
	char *name;	 /* path, CATEGORY:NAME, or the config as given */
	uint64_t offset; /* uprobe file offset */
	uint64_t ref_ctr;
	uint64_t config;
	int cpu;
	uint64_t cookie;
};

static int keep_perf_fd; /* --keep-perf-fd */

static const char *const sw_names[] = {
	"cpu-clock",	    "task-clock",   "page-faults",  "context-switches",
	"cpu-migrations",   "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy",	    "bpf-output",   "cgroup-switches",
};

static void __attribute__((noreturn))
die(const char *what, const char *arg, int err)
{
	fprintf(stderr, "mklinks: %s%s%s: %s\n", what, arg ? " " : "",
		arg ? arg : "", strerror(err));
	exit(1);
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return (errno || *end) ? -EINVAL : 0;
}

/* Split off the last field after ':'; NULL when there is none. */
static char *pop_field(char *s)
{
	char *c = strrchr(s, ':');

	if (!c)
		return NULL;
	*c = '\0';
	return c + 1;
}

static int parse_config(const char *s, uint64_t *config)
{
	size_t i;

	for (i = 0; i < sizeof(sw_names) / sizeof(sw_names[0]); i++) {
		if (!strcmp(s, sw_names[i])) {
			*config = i;
			return 0;
		}
	}
	return parse_u64(s, config);
}

static int parse_spec(char *arg, struct spec *sp)
{
	char *rest = strchr(arg, ':'), *cookie, *mid;
	uint64_t v;

	if (!rest)
		return -EINVAL;
	*rest++ = '\0';
	cookie = pop_field(rest);
	mid = cookie ? pop_field(rest) : NULL;
	if (!mid || !*rest || parse_u64(cookie, &sp->cookie))
		return -EINVAL;
	sp->name = rest;
	if (!strcmp(arg, "uprobe") || !strcmp(arg, "uretprobe")) {
		sp->kind = arg[1] == 'r' ? K_URETPROBE : K_UPROBE;
		return parse_u64(mid, &sp->offset);
	}
	if (!strcmp(arg, "tracepoint")) {
		sp->kind = K_TRACEPOINT;
		/* rest is CATEGORY, mid is NAME: glue them back */
		mid[-1] = ':';
		return strchr(rest, '/') ? -EINVAL : 0;
	}
	if (!strcmp(arg, "software")) {
		sp->kind = K_SOFTWARE;
		if (!strcmp(mid, "-1")) {
			sp->cpu = -1;
		} else {
			if (parse_u64(mid, &v) || v > INT_MAX)
				return -EINVAL;
			sp->cpu = (int)v;
		}
		return parse_config(rest, &sp->config);
	}
	return -EINVAL;
}

static int read_sysfs_u64(const char *path, const char *prefix, uint64_t *out)
{
	char buf[64];
	size_t plen = strlen(prefix);
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	buf[n] = '\0';
	buf[strcspn(buf, "\n-")] = '\0'; /* "config:32-63" -> first bit */
	if (strncmp(buf, prefix, plen))
		return -EINVAL;
	return parse_u64(buf + plen, out);
}

static int tracepoint_id(const char *catname, uint64_t *id)
{
	static const char *const roots[] = {"/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing"};
	char path[PATH_MAX], cat[256];
	const char *name = strchr(catname, ':');
	size_t i;
	int err = -ENOENT;

	if (!name || (size_t)(name - catname) >= sizeof(cat))
		return -EINVAL;
	memcpy(cat, catname, name - catname);
	cat[name - catname] = '\0';
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/id", roots[i],
			 cat, name + 1);
		err = read_sysfs_u64(path, "", id);
		if (err != -ENOENT)
			return err;
	}
	return err;
}

static int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	int fd = syscall(SYS_perf_event_open, attr, pid, cpu, -1,
			 PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int open_uprobe(const struct spec *sp)
{
	struct perf_event_attr attr = {.size = sizeof(attr)};
	uint64_t type, bit = 0, ref_shift;
	int err;

	err = read_sysfs_u64("/sys/bus/event_source/devices/uprobe/type", "",
			     &type);
	if (err)
		die("uprobe PMU type", NULL, -err);
	if (sp->kind == K_URETPROBE) {
		err = read_sysfs_u64("/sys/bus/event_source/devices/uprobe/"
				     "format/retprobe",
				     "config:", &bit);
		if (err)
			die("uprobe retprobe bit", NULL, -err);
		attr.config |= 1ULL << bit;
	}
	if (sp->ref_ctr) {
		err = read_sysfs_u64("/sys/bus/event_source/devices/uprobe/"
				     "format/ref_ctr_offset",
				     "config:", &ref_shift);
		if (err)
			die("uprobe ref_ctr_offset format", NULL, -err);
		attr.config |= sp->ref_ctr << ref_shift;
	}
	attr.type = (uint32_t)type;
	attr.config1 = (uint64_t)(uintptr_t)sp->name; /* uprobe_path */
	attr.config2 = sp->offset;		      /* probe_offset */
	return perf_open(&attr, -1, 0);
}

static int open_event(const struct spec *sp)
{
	struct perf_event_attr attr = {.size = sizeof(attr)};
	uint64_t id;
	int err;

	if (sp->kind == K_TRACEPOINT) {
		err = tracepoint_id(sp->name, &id);
		if (err)
			die("tracepoint id (is tracefs mounted?)", sp->name,
			    -err);
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = id;
		return perf_open(&attr, -1, 0);
	}
	/* a BPF program attaches only to a sampling event */
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = sp->config;
	attr.sample_period = 1000000;
	return perf_open(&attr, sp->cpu < 0 ? 0 : -1, sp->cpu);
}

static int load_prog(enum kind kind)
{
	static const struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	static char log[4096];
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log,
		    .log_size = sizeof(log), .log_level = 0);
	enum bpf_prog_type type = BPF_PROG_TYPE_KPROBE;
	const char *name = "mkl_uprobe";
	int fd;

	if (kind == K_TRACEPOINT) {
		type = BPF_PROG_TYPE_TRACEPOINT;
		name = "mkl_tracepoint";
	} else if (kind == K_SOFTWARE) {
		type = BPF_PROG_TYPE_PERF_EVENT;
		name = "mkl_event";
	}
	fd = bpf_prog_load(type, name, "GPL", insns, 2, &opts);
	if (fd < 0) {
		fprintf(stderr, "mklinks: load %s program: %s\n%s", name,
			strerror(-fd), log);
		exit(1);
	}
	return fd;
}

/* Make one link and print its line. Return: the link fd. */
static int make_link(const struct spec *sp, const char *arg)
{
	LIBBPF_OPTS(bpf_link_create_opts, lopts,
		    .perf_event.bpf_cookie = sp->cookie);
	struct bpf_link_info info;
	struct bpf_prog_info pinfo;
	uint32_t len = sizeof(info), plen = sizeof(pinfo);
	int prog_fd, perf_fd, link_fd, err;

	prog_fd = load_prog(sp->kind);
	if (sp->kind == K_UPROBE || sp->kind == K_URETPROBE)
		perf_fd = open_uprobe(sp);
	else
		perf_fd = open_event(sp);
	if (perf_fd < 0)
		die("perf_event_open", arg, -perf_fd);
	link_fd = bpf_link_create(prog_fd, perf_fd, BPF_PERF_EVENT, &lopts);
	if (link_fd < 0)
		die("bpf_link_create", arg, -link_fd);
	/* the link holds the event and the program now */
	if (!keep_perf_fd)
		close(perf_fd);
	memset(&info, 0, sizeof(info));
	memset(&pinfo, 0, sizeof(pinfo));
	err = bpf_obj_get_info_by_fd(link_fd, &info, &len);
	if (!err)
		err = bpf_obj_get_info_by_fd(prog_fd, &pinfo, &plen);
	if (err)
		die("link info", arg, -err);
	close(prog_fd);
	if (pinfo.id != info.prog_id)
		die("link info: prog id mismatch", arg, EINVAL);
	printf("%u\t%s\t", info.id, kind_names[sp->kind]);
	if (sp->kind == K_SOFTWARE)
		printf("%llu\t", (unsigned long long)sp->config);
	else
		printf("%s\t", sp->name);
	if (sp->kind == K_UPROBE || sp->kind == K_URETPROBE)
		printf("0x%llx", (unsigned long long)sp->offset);
	else
		printf("-");
	printf("\t%llu\t%u\n", (unsigned long long)sp->cookie, info.prog_id);
	return link_fd;
}

static void pin_link(int link_fd, const char *dir)
{
	struct bpf_link_info info;
	uint32_t len = sizeof(info);
	char path[PATH_MAX];
	int err;

	memset(&info, 0, sizeof(info));
	err = bpf_obj_get_info_by_fd(link_fd, &info, &len);
	if (err)
		die("link info", NULL, -err);
	snprintf(path, sizeof(path), "%s/link_%u", dir, info.id);
	err = bpf_obj_pin(link_fd, path);
	if (err)
		die("pin", path, -err);
}

static void wait_stdin_eof(void)
{
	char buf[256];
	ssize_t n;

	do {
		n = read(STDIN_FILENO, buf, sizeof(buf));
	} while (n > 0 || (n < 0 && errno == EINTR));
}

int main(int argc, char **argv)
{
	const char *pin_dir = NULL;
	uint64_t ref_ctr = 0;
	struct spec sp;
	char *copy;
	int i, fd, nlinks = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--pin") && i + 1 < argc) {
			pin_dir = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "--ref-ctr") && i + 1 < argc) {
			if (parse_u64(argv[++i], &ref_ctr) || !ref_ctr)
				die("bad --ref-ctr", argv[i], EINVAL);
			continue;
		}
		if (!strcmp(argv[i], "--keep-perf-fd")) {
			keep_perf_fd = 1;
			continue;
		}
		memset(&sp, 0, sizeof(sp));
		copy = strdup(argv[i]);
		sp.name = copy;
		if (!copy || parse_spec(copy, &sp))
			die("bad spec", argv[i], EINVAL);
		if (ref_ctr && sp.kind != K_UPROBE && sp.kind != K_URETPROBE)
			die("--ref-ctr needs a uprobe spec", argv[i], EINVAL);
		sp.ref_ctr = ref_ctr;
		ref_ctr = 0;
		fd = make_link(&sp, argv[i]);
		free(copy); /* sp points into it; make_link() keeps nothing */
		if (pin_dir)
			pin_link(fd, pin_dir);
		nlinks++;
	}
	if (!nlinks) {
		fprintf(stderr, "usage: mklinks [--pin DIR] [--ref-ctr 0xOFF] "
				"[--keep-perf-fd] SPEC...\n");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	if (!pin_dir)
		wait_stdin_eof();
	return 0;
}
