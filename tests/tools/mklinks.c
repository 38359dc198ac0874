// SPDX-License-Identifier: GPL-2.0-only
/*
 * mklinks - make BPF links without any bpflinkfs code: for the
 * tests, which compare what bpflinkfs shows against links whose every
 * property the test chose itself, and for the benchmarks' foreign sets.
 *
 * Usage: mklinks [--pin DIR] [--ref-ctr 0xOFF] [--keep-perf-fd]
 *                [--pid PID] [--prog PATH] [--fork] SPEC...
 *        mklinks --set DIR BINARY PREFIX NUPROBES NTRACEPOINTS NSOFTWARE
 *        mklinks --pin-prog PATH   (a uprobe_multi program, pinned at PATH)
 *
 * SPEC is one of
 *   uprobe:PATH:0xOFFSET:COOKIE       uretprobe:PATH:0xOFFSET:COOKIE
 *   tracepoint:CATEGORY:NAME:COOKIE   software:CONFIG:CPU:COOKIE
 *   raw_tracepoint:NAME:COOKIE        (a raw tracepoint link)
 *   uprobe_multi:PATH:TARGETS:COOKIES uretprobe_multi:PATH:TARGETS:COOKIES
 *   flow_dissector                    (a netns link, in a new netns)
 *   kprobe_multi:PATTERN_OR_LIST:COOKIES (a kprobe_multi link)
 *   fentry:FUNC                       (a tracing link on a vmlinux function)
 *
 * TARGETS of a uprobe_multi link is 0xOFFSET[/0xREF_CTR_OFFSET],... and
 * COOKIES COOKIE,... (as many); --pid filters the next multi spec to one
 * process; --prog PATH makes the next spec's link run the program pinned
 * at PATH (e.g. by bpftool prog load) instead of one of its own. A
 * flow_dissector link attaches to a network namespace that
 * mklinks makes for it (unshare), so the host's own is left alone.
 * kprobe_multi's PATTERN_OR_LIST is FUNC,FUNC,... or a glob (*, ?, [)
 * matched against tracefs's available_filter_functions (vmlinux functions,
 * each name once, sorted, at most 64); each FUNC's address is read from
 * /proc/kallsyms and the link is made by address (bpf_link_create with
 * BPF_TRACE_KPROBE_MULTI), so the test knows what it attached. COOKIES is
 * one per function, or one number N: N, N+1, ... in function order.
 * --fork forks after making the links: parent and child both hold every
 * link fd (prints "child PID" before "ready"; both exit at EOF).
 *
 * OFFSET is a file offset. CONFIG is a number or a software event name
 * (cpu-clock, task-clock, ...). CPU -1 means "this process on any CPU".
 * --ref-ctr gives the reference counter (USDT semaphore) file offset of
 * the next uprobe spec only. PATH is everything between the first colon
 * and the last two, so it may hold colons. --keep-perf-fd keeps each perf
 * event fd open next to its link, as libbpf-made links do (the kernel's
 * BPF_TASK_FD_QUERY answers for such an fd). Each SPEC link runs a
 * program of its own.
 *
 * Output, one tab-separated line per link, in the order of the specs:
 *   ID TYPE NAME OFFSET COOKIE PROG_ID
 * TYPE is the spec's first word; NAME is the path, CATEGORY:NAME, the
 * decimal config, the raw tracepoint or "-"; OFFSET is 0x hex, TARGETS as
 * given (kprobe_multi: FUNC=0xADDR,... as attached), or "-"; COOKIE the
 * cookie, COOKIES as given (kprobe_multi: one per function), or "-". Then
 * "ready"; mklinks then waits for EOF on stdin (or a signal) and exits,
 * which detaches its links. With --pin it pins each link as DIR/link_ID
 * and exits after "ready" (remove the pins to detach).
 *
 * --set makes the foreign link set of the listing benchmark (bench/): many
 * links, pinned in DIR so that no process holds their fds and the set
 * outlives this program (the kernel needs ~0.1 s to release one uprobe
 * link, so the set is made once per run). NUPROBES uprobes on the FUNC
 * symbols of BINARY's .symtab whose names start with PREFIX (in symbol
 * table order), NTRACEPOINTS links on distinct, rarely firing tracepoints
 * and NSOFTWARE cpu-clock events spread over the online CPUs with a period
 * long enough never to fire; one program per kind. Each link is pinned as
 * DIR/link_ID and its fd closed at once, as is each perf event fd (the fd
 * limit). Prints "made N" and exits 0 when every link was made; 1
 * otherwise (the links made so far stay pinned: remove DIR to release
 * them).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

enum kind {
	K_UPROBE,
	K_URETPROBE,
	K_TRACEPOINT,
	K_SOFTWARE,
	K_RAW_TP,
	K_UPROBE_MULTI,
	K_URETPROBE_MULTI,
	K_FLOW_DISSECTOR,
	K_FENTRY,
	K_KPROBE_MULTI,
};

static const char *const kind_names[] = {
	"uprobe",	  "uretprobe",	  "tracepoint",	     "software",
	"raw_tracepoint", "uprobe_multi", "uretprobe_multi", "flow_dissector",
	"fentry",	  "kprobe_multi",
};

#define MULTI_MAX 64 /* targets of one uprobe_multi spec */

struct spec {
	enum kind kind;
	char *name;	 /* path, CATEGORY:NAME, or the config as given */
	uint64_t offset; /* uprobe file offset */
	uint64_t ref_ctr;
	uint64_t config;
	int cpu;
	uint64_t period; /* software: sample_period */
	uint64_t cookie;
	/* uprobe_multi */
	char *targets, *cookies; /* as given, for the output line */
	uint64_t offsets[MULTI_MAX], ref_ctrs[MULTI_MAX], mcookies[MULTI_MAX];
	unsigned long kaddrs[MULTI_MAX]; /* kprobe_multi: from kallsyms */
	uint32_t cnt;
	uint32_t pid;	  /* --pid */
	const char *prog; /* --prog: the pinned program to run, or NULL */
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

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
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

/* TARGETS and COOKIES of a uprobe_multi spec into @sp */
static int parse_multi(char *targets, char *cookies, struct spec *sp)
{
	char *save = NULL, *tok, *slash;
	uint32_t n = 0;

	sp->targets = strdup(targets);
	sp->cookies = strdup(cookies);
	if (!sp->targets || !sp->cookies)
		return -ENOMEM;
	for (tok = strtok_r(targets, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save), n++) {
		if (n == MULTI_MAX)
			return -E2BIG;
		slash = strchr(tok, '/');
		if (slash) {
			*slash = '\0';
			if (parse_u64(slash + 1, &sp->ref_ctrs[n]))
				return -EINVAL;
		}
		if (parse_u64(tok, &sp->offsets[n]))
			return -EINVAL;
	}
	sp->cnt = n;
	n = 0;
	for (tok = strtok_r(cookies, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save), n++)
		if (n == MULTI_MAX || parse_u64(tok, &sp->mcookies[n]))
			return -EINVAL;
	return n == sp->cnt && n ? 0 : -EINVAL;
}

/* kprobe_multi: the functions of @sp->name, a list or a glob */
static int kmulti_funcs(const struct spec *sp, char **funcs)
{
	char *list, *tok, *save = NULL, *line = NULL, *end;
	size_t cap = 0;
	int n = 0, i;
	FILE *f;

	if (!strpbrk(sp->name, "*?[")) {
		list = strdup(sp->name);
		for (tok = list ? strtok_r(list, ",", &save) : NULL; tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (n == MULTI_MAX || !(funcs[n++] = strdup(tok)))
				return -E2BIG;
		}
		free(list);
		return n ? n : -EINVAL;
	}
	f = fopen("/sys/kernel/tracing/available_filter_functions", "re");
	if (!f)
		f = fopen("/sys/kernel/debug/tracing/"
			  "available_filter_functions",
			  "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		end = line + strcspn(line, " \n");
		if (*end == ' ') /* "func [module]": vmlinux only */
			continue;
		*end = '\0';
		if (fnmatch(sp->name, line, 0))
			continue;
		for (i = 0; i < n && strcmp(funcs[i], line); i++)
			;
		if (i < n)
			continue;
		if (n == MULTI_MAX || !(funcs[n++] = strdup(line)))
			break;
	}
	free(line);
	fclose(f);
	qsort(funcs, n, sizeof(*funcs), cmp_str);
	return n ? n : -ENOENT;
}

/*
 * The addresses of the @n vmlinux text symbols @funcs in /proc/kallsyms
 * (the first of each name), in one pass; 0 where there is none.
 */
static void kallsyms_addrs(char **funcs, int n, unsigned long *addrs)
{
	char line[512], type, name[256], mod;
	FILE *f = fopen("/proc/kallsyms", "re");
	unsigned long a;
	int i, left = n;

	memset(addrs, 0, (size_t)n * sizeof(*addrs));
	while (f && left && fgets(line, sizeof(line), f)) {
		mod = 0;
		if (sscanf(line, "%lx %c %255s %c", &a, &type, name, &mod) <
			    3 ||
		    mod || (type != 't' && type != 'T'))
			continue;
		for (i = 0; i < n; i++)
			if (!addrs[i] && !strcmp(name, funcs[i])) {
				addrs[i] = a;
				left--;
			}
	}
	if (f)
		fclose(f);
}

/* kprobe_multi: functions, their addresses, cookies, the output columns */
static int parse_kmulti(struct spec *sp, char *cookies)
{
	char *funcs[MULTI_MAX], *save = NULL, *tok;
	size_t len = 1, off = 0;
	uint64_t base = 0;
	int n = kmulti_funcs(sp, funcs), i, k = 0;

	if (n < 0)
		return n;
	for (tok = strtok_r(cookies, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save), k++)
		if (k == n || parse_u64(tok, &sp->mcookies[k]))
			return -EINVAL;
	if (k != n && k != 1)
		return -EINVAL;
	base = sp->mcookies[0];
	kallsyms_addrs(funcs, n, sp->kaddrs);
	for (i = 0; i < n; i++) {
		if (k == 1)
			sp->mcookies[i] = base + (uint64_t)i;
		if (!sp->kaddrs[i])
			die("no address in /proc/kallsyms (root, kptr_restrict?)",
			    funcs[i], ENOENT);
		len += strlen(funcs[i]) + 24;
	}
	sp->cnt = (uint32_t)n;
	sp->targets = malloc(len);
	sp->cookies = malloc((size_t)n * 24 + 1);
	if (!sp->targets || !sp->cookies)
		return -ENOMEM;
	sp->targets[0] = '\0';
	for (i = 0; i < n; i++) {
		off += (size_t)sprintf(sp->targets + off, "%s%s=0x%lx",
				       i ? "," : "", funcs[i], sp->kaddrs[i]);
		free(funcs[i]);
	}
	for (i = 0, off = 0; i < n; i++)
		off += (size_t)sprintf(sp->cookies + off, "%s%llu",
				       i ? "," : "",
				       (unsigned long long)sp->mcookies[i]);
	return 0;
}

static int parse_spec(char *arg, struct spec *sp)
{
	char *rest = strchr(arg, ':'), *cookie, *mid;
	uint64_t v;

	if (!strncmp(arg, "fentry:", 7) && arg[7]) {
		sp->kind = K_FENTRY;
		sp->name = arg + 7;
		return 0;
	}
	if (!strncmp(arg, "kprobe_multi:", 13)) {
		sp->kind = K_KPROBE_MULTI;
		cookie = pop_field(arg + 13);
		sp->name = arg + 13;
		return cookie && *sp->name ? parse_kmulti(sp, cookie) : -EINVAL;
	}
	if (!strcmp(arg, "flow_dissector")) {
		sp->kind = K_FLOW_DISSECTOR;
		return 0;
	}
	if (!rest)
		return -EINVAL;
	if (!strncmp(arg, "raw_tracepoint:", 15)) {
		sp->kind = K_RAW_TP;
		cookie = pop_field(rest + 1);
		sp->name = rest + 1;
		return cookie && *sp->name ? parse_u64(cookie, &sp->cookie)
					   : -EINVAL;
	}
	*rest++ = '\0';
	cookie = pop_field(rest);
	mid = cookie ? pop_field(rest) : NULL;
	if (mid && *rest &&
	    (!strcmp(arg, "uprobe_multi") || !strcmp(arg, "uretprobe_multi"))) {
		sp->name = rest;
		sp->kind = arg[1] == 'r' ? K_URETPROBE_MULTI : K_UPROBE_MULTI;
		return parse_multi(mid, cookie, sp);
	}
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
		sp->period = 1000000;
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
	attr.sample_period = sp->period;
	return perf_open(&attr, sp->cpu < 0 ? 0 : -1, sp->cpu);
}

#define ATTACH_TRACE_UPROBE_MULTI 48 /* BPF_TRACE_UPROBE_MULTI, 6.6 */
#define UPROBE_MULTI_RETURN 1	     /* BPF_F_UPROBE_MULTI_RETURN */

/* fentry: the target's type id in vmlinux BTF, for load_prog() */
static __u32 fentry_btf_id;

/* The FUNC type id of @func in vmlinux BTF (exits if none) */
static __u32 vmlinux_func_id(const char *func)
{
	struct btf *btf = btf__load_vmlinux_btf();
	__s32 id = btf ? btf__find_by_name_kind(btf, func, BTF_KIND_FUNC)
		       : -ENOENT;

	btf__free(btf);
	if (id <= 0)
		die("no function in vmlinux BTF", func, ENOENT);
	return (__u32)id;
}

/* A program that returns 0, of the type that @kind attaches; named @name. */
static int load_prog(enum kind kind, const char *name)
{
	static const struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	static char log[4096];
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log,
		    .log_size = sizeof(log), .log_level = 0);
	enum bpf_prog_type type = BPF_PROG_TYPE_KPROBE;
	int fd;

	if (kind == K_TRACEPOINT)
		type = BPF_PROG_TYPE_TRACEPOINT;
	else if (kind == K_SOFTWARE)
		type = BPF_PROG_TYPE_PERF_EVENT;
	else if (kind == K_RAW_TP)
		type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	else if (kind == K_FLOW_DISSECTOR)
		type = BPF_PROG_TYPE_FLOW_DISSECTOR;
	if (kind == K_UPROBE_MULTI || kind == K_URETPROBE_MULTI)
		opts.expected_attach_type = ATTACH_TRACE_UPROBE_MULTI;
	if (kind == K_KPROBE_MULTI)
		opts.expected_attach_type = BPF_TRACE_KPROBE_MULTI;
	if (kind == K_FENTRY) {
		type = BPF_PROG_TYPE_TRACING;
		opts.expected_attach_type = BPF_TRACE_FENTRY;
		opts.attach_btf_id = fentry_btf_id;
	}
	fd = bpf_prog_load(type, name, "GPL", insns, 2, &opts);
	if (fd < 0) {
		fprintf(stderr, "mklinks: load %s program: %s\n%s", name,
			strerror(-fd), log);
		exit(1);
	}
	return fd;
}

/*
 * The 6.1 <linux/bpf.h> and libbpf 1.1 predate the raw tracepoint cookie
 * and uprobe_multi links: their bpf(2) attributes, as the kernel's BTF
 * (union bpf_attr) lays them out.
 */
struct raw_tp_attr {
	uint64_t name;
	uint32_t prog_fd;
	uint32_t pad;
	uint64_t cookie; /* 6.10+ */
};

struct uprobe_multi_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, flags2, pid;
};

static int sys_bpf(int cmd, void *attr, size_t size)
{
	int fd = syscall(SYS_bpf, cmd, attr, size);

	return fd < 0 ? -errno : fd;
}

static int link_raw_tp(const struct spec *sp, int prog_fd)
{
	struct raw_tp_attr a;

	memset(&a, 0, sizeof(a));
	a.name = (uint64_t)(uintptr_t)sp->name;
	a.prog_fd = prog_fd;
	a.cookie = sp->cookie;
	return sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a, sizeof(a));
}

static int link_uprobe_multi(const struct spec *sp, int prog_fd)
{
	struct uprobe_multi_attr a;

	memset(&a, 0, sizeof(a)); /* padding too: the kernel checks it */
	a.prog_fd = prog_fd;
	a.attach_type = ATTACH_TRACE_UPROBE_MULTI;
	a.path = (uint64_t)(uintptr_t)sp->name;
	a.offsets = (uint64_t)(uintptr_t)sp->offsets;
	a.ref_ctr_offsets = (uint64_t)(uintptr_t)sp->ref_ctrs;
	a.cookies = (uint64_t)(uintptr_t)sp->mcookies;
	a.cnt = sp->cnt;
	a.flags2 = sp->kind == K_URETPROBE_MULTI ? UPROBE_MULTI_RETURN : 0;
	a.pid = sp->pid;
	return sys_bpf(BPF_LINK_CREATE, &a, sizeof(a));
}

/* A flow dissector link in a network namespace of its own (unshare). */
static int link_flow_dissector(int prog_fd)
{
	int ns_fd, fd;

	if (unshare(CLONE_NEWNET))
		die("unshare(CLONE_NEWNET)", NULL, errno);
	ns_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ns_fd < 0)
		die("open /proc/self/ns/net", NULL, errno);
	/* the namespace lives while this process is in it */
	fd = bpf_link_create(prog_fd, ns_fd, BPF_FLOW_DISSECTOR, NULL);
	close(ns_fd);
	return fd;
}

/* The link of @sp with program @prog_fd. Return: its fd (exits if none). */
static int link_spec(const struct spec *sp, int prog_fd, const char *arg)
{
	LIBBPF_OPTS(bpf_link_create_opts, lopts,
		    .perf_event.bpf_cookie = sp->cookie);
	int perf_fd, link_fd;

	if (sp->kind == K_KPROBE_MULTI) {
		LIBBPF_OPTS(bpf_link_create_opts, kopts,
			    .kprobe_multi.addrs = sp->kaddrs,
			    .kprobe_multi.cookies = (const __u64 *)sp->mcookies,
			    .kprobe_multi.cnt = sp->cnt);

		link_fd = bpf_link_create(prog_fd, 0, BPF_TRACE_KPROBE_MULTI,
					  &kopts);
		if (link_fd < 0)
			die("kprobe_multi link create", arg, -link_fd);
		return link_fd;
	}
	if (sp->kind == K_FENTRY) {
		link_fd = bpf_raw_tracepoint_open(NULL, prog_fd);
		if (link_fd < 0)
			die("fentry attach", arg, errno);
		return link_fd;
	}
	link_fd = sp->kind == K_RAW_TP		 ? link_raw_tp(sp, prog_fd)
		  : sp->kind == K_FLOW_DISSECTOR ? link_flow_dissector(prog_fd)
		  : sp->kind == K_UPROBE_MULTI || sp->kind == K_URETPROBE_MULTI
			  ? link_uprobe_multi(sp, prog_fd)
			  : 0;
	if (link_fd < 0)
		die("link create", arg, -link_fd);
	if (link_fd > 0)
		return link_fd;

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
	return link_fd;
}

/* Make one link, with a program of its own, and print its line. */
static int make_link(const struct spec *sp, const char *arg)
{
	static const char *const prog_names[] = {
		"mkl_uprobe", "mkl_uprobe", "mkl_tracepoint", "mkl_event",
		"mkl_raw_tp", "mkl_umulti", "mkl_umulti",     "mkl_flow",
		"mkl_fentry", "mkl_kmulti"};
	struct bpf_link_info info;
	struct bpf_prog_info pinfo;
	uint32_t len = sizeof(info), plen = sizeof(pinfo);
	int prog_fd, link_fd, err;

	if (sp->kind == K_FENTRY)
		fentry_btf_id = vmlinux_func_id(sp->name);
	prog_fd = sp->prog ? bpf_obj_get(sp->prog)
			   : load_prog(sp->kind, prog_names[sp->kind]);
	if (prog_fd < 0)
		die("--prog", sp->prog, errno);
	link_fd = link_spec(sp, prog_fd, arg);
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
	else if (sp->kind == K_FLOW_DISSECTOR)
		printf("-\t");
	else
		printf("%s\t", sp->name);
	if (sp->kind == K_UPROBE || sp->kind == K_URETPROBE)
		printf("0x%llx", (unsigned long long)sp->offset);
	else if (sp->targets)
		printf("%s", sp->targets);
	else
		printf("-");
	if (sp->cookies)
		printf("\t%s", sp->cookies);
	else if (sp->kind == K_FLOW_DISSECTOR)
		printf("\t-");
	else
		printf("\t%llu", (unsigned long long)sp->cookie);
	printf("\t%u\n", info.prog_id);
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

/* ---- --set: the benchmarks' foreign set ---- */

/* Tracepoints that an idle VM hardly ever hits. */
static const char *const quiet_tps[] = {
	"sched:sched_process_exec", "sched:sched_process_fork",
	"sched:sched_process_exit", "signal:signal_deliver",
	"signal:signal_generate",   "module:module_load",
	"module:module_free",	    "oom:mark_victim",
	"power:cpu_idle_miss",	    "task:task_rename",
};

/* File offset of a virtual address: the PT_LOAD segment holding it. */
static int vaddr_to_off(Elf *elf, uint64_t va, uint64_t *off)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (va >= ph.p_vaddr && va < ph.p_vaddr + ph.p_filesz) {
			*off = va - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

/* Offsets of the first @max FUNC symbols of @sh named @prefix*. */
static long symtab_offsets(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			   const char *prefix, uint64_t *offs, long max)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	const char *name;
	GElf_Sym sym;
	long n = 0;
	size_t i;

	for (i = 0; d && i < sh->sh_size / sh->sh_entsize && n < max; i++) {
		if (!gelf_getsym(d, (int)i, &sym) ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || strncmp(name, prefix, strlen(prefix)))
			continue;
		if (!vaddr_to_off(elf, sym.st_value, &offs[n]))
			n++;
	}
	return n;
}

/* Offsets of the first @max FUNC symbols named @prefix* of @bin's .symtab. */
static long func_offsets(const char *bin, const char *prefix, uint64_t *offs,
			 long max)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	long n = 0;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(bin, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(bin, NULL, errno);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		die("elf_begin", bin, EINVAL);
	while ((scn = elf_nextscn(elf, scn)) && n < max)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			n += symtab_offsets(elf, scn, &sh, prefix, offs + n,
					    max - n);
	elf_end(elf);
	close(fd);
	return n;
}

/* Link @sp with @prog, pin the link in @dir, close it. */
static void set_link(const struct spec *sp, int prog, const char *dir)
{
	int fd = link_spec(sp, prog, sp->name);

	pin_link(fd, dir);
	close(fd);
}

static void set_uprobes(const char *dir, const char *bin, const char *prefix,
			long n)
{
	uint64_t *offs = calloc(n ? n : 1, sizeof(*offs));
	char *path = realpath(bin, NULL);
	struct spec sp = {.kind = K_UPROBE};
	int prog;
	long i;

	if (!offs || !path)
		die(bin, NULL, errno ? errno : ENOMEM);
	if (func_offsets(path, prefix, offs, n) != n)
		die("not enough PREFIX functions in BINARY", prefix, ENOENT);
	prog = load_prog(K_UPROBE, "bench_uprobe");
	sp.name = path;
	for (i = 0; i < n; i++) {
		sp.offset = offs[i];
		sp.cookie = (uint64_t)i;
		set_link(&sp, prog, dir);
	}
	close(prog);
	free(offs);
	free(path);
}

static void set_tracepoints(const char *dir, long n)
{
	struct spec sp = {.kind = K_TRACEPOINT};
	int prog = load_prog(K_TRACEPOINT, "bench_tp");
	uint64_t id;
	long made = 0;
	size_t i;

	for (i = 0; i < sizeof(quiet_tps) / sizeof(quiet_tps[0]) && made < n;
	     i++) {
		if (tracepoint_id(quiet_tps[i], &id))
			continue;
		sp.name = (char *)quiet_tps[i];
		sp.cookie = (uint64_t)made++;
		set_link(&sp, prog, dir);
	}
	close(prog);
	if (made < n)
		die("not enough tracepoints in tracefs", NULL, ENOENT);
}

static void set_software(const char *dir, long n)
{
	/* 1000 s in ns: sampling, never fires */
	struct spec sp = {.kind = K_SOFTWARE,
			  .name = "cpu-clock",
			  .config = PERF_COUNT_SW_CPU_CLOCK,
			  .period = 1000000000000ULL};
	long i, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int prog = load_prog(K_SOFTWARE, "bench_sw");

	for (i = 0; i < n; i++) {
		sp.cpu = (int)(i % ncpu);
		sp.cookie = (uint64_t)i;
		set_link(&sp, prog, dir);
	}
	close(prog);
}

static long arg_count(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s < '0' || *s > '9' || *end || v < 0 || v > 1000000)
		die("bad count", s, EINVAL);
	return v;
}

/* mklinks --set DIR BINARY PREFIX NUPROBES NTRACEPOINTS NSOFTWARE */
static int set_main(int argc, char **argv)
{
	long nu, nt, ns;

	if (argc != 6) {
		fprintf(stderr, "usage: mklinks --set DIR BINARY PREFIX "
				"NUPROBES NTRACEPOINTS NSOFTWARE\n");
		return 2;
	}
	nu = arg_count(argv[3]);
	nt = arg_count(argv[4]);
	ns = arg_count(argv[5]);
	set_uprobes(argv[0], argv[1], argv[2], nu);
	set_tracepoints(argv[0], nt);
	set_software(argv[0], ns);
	printf("made %ld\n", nu + nt + ns);
	return 0;
}

/* --fork: a child that holds every fd too; both wait for EOF */
static void fork_holder(void)
{
	pid_t child;

	fflush(stdout);
	child = fork();
	if (child < 0)
		die("fork", NULL, errno);
	if (child == 0) {
		wait_stdin_eof();
		_exit(0);
	}
	printf("child %d\n", (int)child);
}

/* mklinks [--pin DIR] [--ref-ctr 0xOFF] [--keep-perf-fd] [--pid PID]
 *         [--prog PATH] [--fork] SPEC... */
static int spec_main(int argc, char **argv)
{
	const char *pin_dir = NULL;
	uint64_t ref_ctr = 0, pid = 0;
	const char *prog = NULL;
	int fork_after = 0;
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
		if (!strcmp(argv[i], "--prog") && i + 1 < argc) {
			prog = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "--fork")) {
			fork_after = 1;
			continue;
		}
		if (!strcmp(argv[i], "--pid") && i + 1 < argc) {
			if (parse_u64(argv[++i], &pid) || !pid || pid > INT_MAX)
				die("bad --pid", argv[i], EINVAL);
			continue;
		}
		memset(&sp, 0, sizeof(sp));
		copy = strdup(argv[i]);
		sp.name = copy;
		if (!copy || parse_spec(copy, &sp))
			die("bad spec", argv[i], EINVAL);
		if (ref_ctr && sp.kind != K_UPROBE && sp.kind != K_URETPROBE)
			die("--ref-ctr needs a uprobe spec", argv[i], EINVAL);
		if (pid && sp.kind != K_UPROBE_MULTI &&
		    sp.kind != K_URETPROBE_MULTI)
			die("--pid needs a uprobe_multi spec", argv[i], EINVAL);
		sp.ref_ctr = ref_ctr;
		sp.pid = (uint32_t)pid;
		sp.prog = prog;
		ref_ctr = pid = 0;
		prog = NULL;
		fd = make_link(&sp, argv[i]);
		free(copy); /* sp points into it; make_link() keeps nothing */
		free(sp.targets);
		free(sp.cookies);
		if (pin_dir)
			pin_link(fd, pin_dir);
		nlinks++;
	}
	if (!nlinks) {
		fprintf(stderr, "usage: mklinks [--pin DIR] [--ref-ctr 0xOFF] "
				"[--keep-perf-fd] [--pid PID] [--fork] "
				"SPEC...\n");
		return 2;
	}
	if (fork_after)
		fork_holder();
	printf("ready\n");
	fflush(stdout);
	if (!pin_dir)
		wait_stdin_eof();
	return 0;
}

/*
 * mklinks --pin-prog PATH: a do-nothing kprobe program loaded for
 * uprobe_multi links (expected_attach_type BPF_TRACE_UPROBE_MULTI), pinned
 * at PATH, for a control line's prog= with a wildcard; then exits.
 */
static int pin_prog_main(const char *path)
{
	int fd = load_prog(K_UPROBE_MULTI, "mkl_umulti");

	if (bpf_obj_pin(fd, path))
		die("pin", path, errno);
	printf("ready\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--pin-prog"))
		return pin_prog_main(argv[2]);
	if (argc > 1 && !strcmp(argv[1], "--set"))
		return set_main(argc - 2, argv + 2);
	return spec_main(argc, argv);
}
