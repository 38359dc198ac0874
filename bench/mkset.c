// SPDX-License-Identifier: GPL-2.0-only
/*
 * mkset - make the foreign link set of the listing benchmark: many BPF
 * perf-event links made without bpflinkfs, pinned in a private bpffs
 * directory so that no process holds their fds and the set outlives this
 * program (the kernel needs ~0.1 s to release one uprobe link, so the set
 * is made once per run and reused by every measurement).
 *
 * Usage: mkset DIR BINARY PREFIX NUPROBES NTRACEPOINTS NSOFTWARE
 *
 * Makes NUPROBES uprobes on the FUNC symbols of BINARY's .symtab whose
 * names start with PREFIX (in symbol table order), NTRACEPOINTS links on
 * distinct, rarely firing tracepoints and NSOFTWARE cpu-clock events
 * spread over the online CPUs with a period long enough never to fire.
 * Each link is pinned as DIR/link_ID and its fd closed at once, as is
 * each perf event fd once the link holds the event (the fd limit).
 * Prints "made N" and exits 0 when every link was made; 1 otherwise
 * (the links made so far stay pinned: remove DIR to release them).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
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

/* Tracepoints that an idle VM hardly ever hits. */
static const char *const quiet_tps[] = {
	"sched/sched_process_exec", "sched/sched_process_fork",
	"sched/sched_process_exit", "signal/signal_deliver",
	"signal/signal_generate",   "module/module_load",
	"module/module_free",	    "oom/mark_victim",
	"power/cpu_idle_miss",	    "task/task_rename",
};
#define NQUIET (sizeof(quiet_tps) / sizeof(quiet_tps[0]))

static void __attribute__((noreturn)) die(const char *what, int err)
{
	fprintf(stderr, "mkset: %s: %s\n", what, strerror(err));
	exit(1);
}

static int read_u64(const char *path, uint64_t *out)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	buf[n] = '\0';
	*out = strtoull(buf, NULL, 0);
	return 0;
}

static int load_prog(enum bpf_prog_type type, const char *name)
{
	static const struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	int fd = bpf_prog_load(type, name, "GPL", insns, 2, NULL);

	if (fd < 0)
		die("bpf_prog_load", -fd);
	return fd;
}

/* Link prog to the perf event, pin the link in dir, close both fds. */
static void link_pin(int prog_fd, int perf_fd, uint64_t cookie, const char *dir)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo, .perf_event.bpf_cookie = cookie);
	struct bpf_link_info info;
	uint32_t len = sizeof(info);
	char path[PATH_MAX];
	int fd, err;

	if (perf_fd < 0)
		die("perf_event_open", errno);
	fd = bpf_link_create(prog_fd, perf_fd, BPF_PERF_EVENT, &lo);
	if (fd < 0)
		die("bpf_link_create", -fd);
	close(perf_fd);
	memset(&info, 0, sizeof(info));
	err = bpf_obj_get_info_by_fd(fd, &info, &len);
	if (err)
		die("link info", -err);
	snprintf(path, sizeof(path), "%s/link_%u", dir, info.id);
	err = bpf_obj_pin(fd, path);
	if (err)
		die(path, -err);
	close(fd);
}

static int perf_open(struct perf_event_attr *attr, int pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

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

/* Offsets of the first max FUNC symbols named PREFIX*; return the count. */
static long func_offsets(const char *bin, const char *prefix, uint64_t *offs,
			 long max)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;
	long n = 0;
	size_t i;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(bin, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(bin, errno);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		die("elf_begin", EINVAL);
	while ((scn = elf_nextscn(elf, scn)) && n < max) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize && n < max;
		     i++) {
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || strncmp(name, prefix, strlen(prefix)))
				continue;
			if (!vaddr_to_off(elf, sym.st_value, &offs[n]))
				n++;
		}
	}
	elf_end(elf);
	close(fd);
	return n;
}

static void make_uprobes(const char *dir, const char *bin, const char *prefix,
			 long n)
{
	struct perf_event_attr a = {.size = sizeof(a)};
	uint64_t type, *offs = calloc(n ? n : 1, sizeof(*offs));
	char *path = realpath(bin, NULL);
	int prog;
	long i;

	if (!offs || !path)
		die(bin, errno ? errno : ENOMEM);
	if (func_offsets(path, prefix, offs, n) != n)
		die("not enough PREFIX functions in BINARY", ENOENT);
	if (read_u64("/sys/bus/event_source/devices/uprobe/type", &type))
		die("uprobe PMU", ENOENT);
	prog = load_prog(BPF_PROG_TYPE_KPROBE, "bench_uprobe");
	a.type = (uint32_t)type;
	a.config1 = (uint64_t)(uintptr_t)path;
	for (i = 0; i < n; i++) {
		a.config2 = offs[i];
		link_pin(prog, perf_open(&a, -1, 0), (uint64_t)i, dir);
	}
	close(prog);
	free(offs);
	free(path);
}

static void make_tracepoints(const char *dir, long n)
{
	struct perf_event_attr a = {.size = sizeof(a),
				    .type = PERF_TYPE_TRACEPOINT};
	char path[PATH_MAX];
	uint64_t config;
	long made = 0;
	size_t i;
	int prog = load_prog(BPF_PROG_TYPE_TRACEPOINT, "bench_tp");

	for (i = 0; i < NQUIET && made < n; i++) {
		snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/id",
			 quiet_tps[i]);
		if (read_u64(path, &config))
			continue;
		a.config = config;
		link_pin(prog, perf_open(&a, -1, 0), (uint64_t)made, dir);
		made++;
	}
	close(prog);
	if (made < n)
		die("not enough tracepoints in /sys/kernel/tracing", ENOENT);
}

static void make_software(const char *dir, long n)
{
	struct perf_event_attr a = {.size = sizeof(a),
				    .type = PERF_TYPE_SOFTWARE,
				    .config = PERF_COUNT_SW_CPU_CLOCK,
				    /* 1000 s in ns: sampling, never fires */
				    .sample_period = 1000000000000ULL};
	long i, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int prog = load_prog(BPF_PROG_TYPE_PERF_EVENT, "bench_sw");

	for (i = 0; i < n; i++)
		link_pin(prog, perf_open(&a, -1, (int)(i % ncpu)), (uint64_t)i,
			 dir);
	close(prog);
}

static long arg_count(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s < '0' || *s > '9' || *end || v < 0 || v > 1000000)
		die(s, EINVAL);
	return v;
}

int main(int argc, char **argv)
{
	long nu, nt, ns;

	if (argc != 7) {
		fprintf(stderr, "usage: mkset DIR BINARY PREFIX NUPROBES "
				"NTRACEPOINTS NSOFTWARE\n");
		return 2;
	}
	nu = arg_count(argv[4]);
	nt = arg_count(argv[5]);
	ns = arg_count(argv[6]);
	make_uprobes(argv[1], argv[2], argv[3], nu);
	make_tracepoints(argv[1], nt);
	make_software(argv[1], ns);
	printf("made %ld\n", nu + nt + ns);
	return 0;
}
