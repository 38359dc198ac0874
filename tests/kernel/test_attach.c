// SPDX-License-Identifier: GPL-2.0-only
/*
 * Real-kernel test of bpf/make/perf_event_link.c and
 * bpf/builtin/counter_load.c: builds its own fixture binary, probes it, and
 * checks the built-in counter's hits against numbers known independently (the
 * fixture's loop count, readelf's view of the binary, bpftool's view of the
 * links).
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "perf_event_link.h"
#include "check.h"
#include "counter_load.h"
#include "counter_row.h"
#include "parse.h"
#include "tracing_probe.h"

#define FIXTURE_FN "bpflinkfs_fixture_fn"

static char tmpdir[] = "/tmp/bpflinkfs-attach-XXXXXX";
static char fixture[256];

static const char fixture_src[] =
	"#include <stdlib.h>\n"
	"__attribute__((noinline)) int " FIXTURE_FN "(int x)\n"
	"{\n"
	"	__asm__ volatile(\"\" ::: \"memory\");\n"
	"	return x + 1;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	volatile int s = 0;\n"
	"	int i, n = argc > 1 ? atoi(argv[1]) : 0;\n"
	"	for (i = 0; i < n; i++)\n"
	"		s += " FIXTURE_FN "(i);\n"
	"	return 0;\n"
	"}\n";

static void build_fixture(void)
{
	char src[256], cmd[1024];
	FILE *f;

	if (!mkdtemp(tmpdir))
		skip_all("mkdtemp failed");
	snprintf(src, sizeof(src), "%s/fixture.c", tmpdir);
	snprintf(fixture, sizeof(fixture), "%s/fixture", tmpdir);
	f = fopen(src, "w");
	if (!f)
		skip_all("cannot write the fixture source");
	fputs(fixture_src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "gcc -O1 -o %s %s", fixture, src);
	if (system(cmd) != 0)
		skip_all("gcc cannot build the fixture");
}

/* FIXTURE_FN's virtual address, from readelf -sW. */
static unsigned long long fixture_sym_vaddr(void)
{
	char cmd[512], line[512], name[256];
	unsigned long long val, found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -sW %s", fixture);
	p = popen(cmd, "r");
	if (!p)
		skip_all("cannot run readelf");
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, " %*[0-9]: %llx %*s FUNC %*s %*s %*s %255s",
			   &val, name) == 2 &&
		    !strcmp(name, FIXTURE_FN))
			found = val;
	if (pclose(p) != 0 || !found)
		skip_all("readelf -sW did not show the fixture's function");
	return found;
}

/* File offset of @vaddr, from the LOAD segments of readelf -lW. */
static unsigned long long fixture_file_offset(unsigned long long vaddr)
{
	unsigned long long off, va, pa, filesz, memsz, res = 0;
	char cmd[512], line[512];
	bool found = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -lW %s", fixture);
	p = popen(cmd, "r");
	if (!p)
		skip_all("cannot run readelf");
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, " LOAD %llx %llx %llx %llx %llx", &off, &va,
			   &pa, &filesz, &memsz) != 5)
			continue;
		if (vaddr >= va && vaddr < va + filesz) {
			res = vaddr - va + off;
			found = true;
		}
	}
	if (pclose(p) != 0 || !found)
		skip_all("readelf -lW has no LOAD segment for the function");
	return res;
}

static int run_fixture(int n)
{
	char arg[32];
	pid_t pid;
	int st;

	snprintf(arg, sizeof(arg), "%d", n);
	pid = fork();
	if (pid == 0) {
		execl(fixture, fixture, arg, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static uint32_t obj_id(int fd)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

static uint32_t link_prog_id(int link_fd, uint32_t *link_id)
{
	struct bpf_link_info info = {};
	uint32_t len = sizeof(info);

	if (bpf_obj_get_info_by_fd(link_fd, &info, &len))
		return 0;
	*link_id = info.id;
	return info.prog_id;
}

/*
 * `bpftool link show -j`: how many links run program @prog_id. The whole
 * output is read: other processes' links may come first, thousands of them.
 */
static int bpftool_links_of_prog(uint32_t prog_id, bool *perf_type)
{
	char *buf = NULL, key[40], *s;
	size_t n = 0, cap = 0, klen;
	int count = 0;
	FILE *p;

	p = popen("bpftool link show -j 2>/dev/null", "r");
	if (!p)
		return -1;
	do {
		if (n + 1 >= cap) {
			s = realloc(buf, cap = cap ? 2 * cap : 1 << 16);
			if (!s) {
				free(buf);
				pclose(p);
				return -1;
			}
			buf = s;
		}
		s = buf + n;
		n += fread(s, 1, cap - n - 1, p);
	} while (!feof(p) && !ferror(p));
	pclose(p);
	buf[n] = '\0';
	klen = snprintf(key, sizeof(key), "\"prog_id\":%u", prog_id);
	for (s = buf; (s = strstr(s, key)); s += klen) {
		if (s[klen] >= '0' && s[klen] <= '9')
			continue;
		count++;
	}
	*perf_type = strstr(buf, "\"type\":\"perf_event\"") != NULL;
	free(buf);
	return count;
}

/* A uprobe or uretprobe on the fixture, then exactly @n hits. */
/*
 * counter_hits_range() (one batch look-up) over the slots around @slot
 * agrees with counter_hits() of each, @slot holding the @n calls the
 * fixture made; a range past the map's end is -EINVAL.
 */
static void check_hits_range(struct counter *c, uint32_t slot, uint64_t n)
{
	uint64_t got[3] = {0}, one;
	uint32_t i;
	int err = counter_hits_range(c, slot - 1, 3, got);

	EXPECT(err == 0 && got[1] == n, "hits_range: %d, slot %u has %llu",
	       err, slot, (unsigned long long)got[1]);
	for (i = 0; !err && i < 3; i++)
		EXPECT(counter_hits(c, slot - 1 + i, &one) == 0 && one == got[i],
		       "hits_range slot %u: %llu, counter_hits %llu",
		       slot - 1 + i, (unsigned long long)got[i],
		       (unsigned long long)one);
	EXPECT(counter_hits_range(c, 1000, 25, got) == -EINVAL,
	       "a range past the map's 1024 slots is not -EINVAL");
}

static void test_uprobe(struct counter *c, enum probe_kind kind,
			unsigned long long off, int n)
{
	struct perf_probe p = {
		.kind = kind,
		.target = fixture,
		.offset = off,
		.pid = -1,
		.cpu = -1,
	};
	int pfd, lfd, prog, slot, cnt;
	uint32_t link_id = 0, prog_id;
	uint64_t hits = 1;
	struct bl_error be = {0};
	const char *msg = be.msg;
	bool perf;

	pfd = perf_probe_open(&p, &be);
	EXPECT(pfd >= 0, "perf_probe_open: %d %s", pfd, msg);
	prog = counter_prog_fd(c, kind, 0);
	slot = counter_slot_alloc(c);
	EXPECT(prog >= 0 && slot > 0, "prog %d slot %d", prog, slot);
	if (pfd < 0 || prog < 0 || slot <= 0)
		return;
	lfd = perf_link_create(prog, pfd, slot);
	close(pfd);
	EXPECT(lfd >= 0, "perf_link_create: %d", lfd);
	if (lfd < 0)
		return;
	prog_id = link_prog_id(lfd, &link_id);
	EXPECT(prog_id && prog_id == obj_id(prog), "prog id %u", prog_id);
	cnt = bpftool_links_of_prog(prog_id, &perf);
	EXPECT(cnt == 1 && perf, "bpftool: %d links of prog %u", cnt, prog_id);
	EXPECT(run_fixture(n) == 0, "fixture failed");
	EXPECT(counter_hits(c, slot, &hits) == 0 && hits == (uint64_t)n,
	       "%s hits %llu, want %d",
	       kind == PROBE_UPROBE ? "uprobe" : "uretprobe",
	       (unsigned long long)hits, n);
	check_hits_range(c, (uint32_t)slot, (uint64_t)n);
	close(lfd);
	/* A freed slot comes back zeroed. */
	counter_slot_free(c, slot);
	EXPECT(counter_slot_alloc(c) == slot, "slot not reused");
	EXPECT(counter_hits(c, slot, &hits) == 0 && hits == 0,
	       "reused slot has %llu hits", (unsigned long long)hits);
	counter_slot_free(c, slot);
}

static int tp_link(struct counter *c, unsigned int instance, int slot, int *err)
{
	struct perf_probe p = {
		.kind = PROBE_TRACEPOINT,
		.tp_category = "syscalls",
		.tp_name = "sys_enter_getpid",
		.pid = -1,
		.cpu = -1,
	};
	int pfd, prog, lfd;
	struct bl_error be = {0};
	const char *msg = be.msg;

	pfd = perf_probe_open(&p, &be);
	EXPECT(pfd >= 0, "tracepoint open: %d %s", pfd, msg);
	if (pfd < 0)
		return *err = pfd;
	prog = counter_prog_fd(c, PROBE_TRACEPOINT, instance);
	EXPECT(prog >= 0, "tracepoint instance %u: %d", instance, prog);
	lfd = prog < 0 ? prog : perf_link_create(prog, pfd, slot);
	close(pfd);
	*err = lfd < 0 ? lfd : 0;
	return lfd;
}

/* Two links on one tracepoint: instance 0 twice is EEXIST, 1 works. */
static void test_tracepoint(struct counter *c)
{
	int s1 = counter_slot_alloc(c), s2 = counter_slot_alloc(c);
	int l1, l2, l3, err, i, cnt1, cnt2;
	uint32_t lid, p1, p2;
	uint64_t h1 = 0, h2 = 0;
	bool perf;

	l1 = tp_link(c, 0, s1, &err);
	EXPECT(l1 >= 0, "first tracepoint link: %d", err);
	l2 = tp_link(c, 0, s2, &err);
	EXPECT(l2 == -EEXIST, "same program twice: %d, want -EEXIST", l2);
	if (l2 >= 0)
		close(l2);
	l3 = tp_link(c, 1, s2, &err);
	EXPECT(l3 >= 0, "second instance link: %d", err);
	EXPECT(counter_prog_fd(c, PROBE_TRACEPOINT, 1) ==
		       counter_prog_fd(c, PROBE_TRACEPOINT, 1),
	       "instance not cached");
	if (l1 < 0 || l3 < 0)
		goto out;
	p1 = link_prog_id(l1, &lid);
	p2 = link_prog_id(l3, &lid);
	EXPECT(p1 && p2 && p1 != p2, "instances share a program: %u %u", p1,
	       p2);
	cnt1 = bpftool_links_of_prog(p1, &perf);
	cnt2 = bpftool_links_of_prog(p2, &perf);
	EXPECT(cnt1 == 1 && cnt2 == 1, "bpftool link counts %d %d", cnt1, cnt2);
	for (i = 0; i < 100; i++)
		syscall(SYS_getpid);
	counter_hits(c, s1, &h1);
	counter_hits(c, s2, &h2);
	/* Other processes may call getpid too: at least ours count. */
	EXPECT(h1 >= 100 && h2 >= 100, "tracepoint hits %llu %llu",
	       (unsigned long long)h1, (unsigned long long)h2);
out:
	if (l1 >= 0)
		close(l1);
	if (l3 >= 0)
		close(l3);
	counter_slot_free(c, s1);
	counter_slot_free(c, s2);
}

static void busy_ms(long ms)
{
	struct timespec a, b;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 10000; i++)
			x++;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 +
			 (b.tv_nsec - a.tv_nsec) / 1000000 <
		 ms);
}

/* cpu-clock every 100 us on CPU 0 while this process spins there. */
static void test_software(struct counter *c)
{
	struct perf_probe p = {
		.kind = PROBE_SOFTWARE,
		.perf_type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.period = 100000,
		.pid = -1,
		.cpu = 0,
	};
	int pfd, lfd, slot = counter_slot_alloc(c);
	uint64_t before = 0, after = 0;
	cpu_set_t set, old;
	struct bl_error be = {0};
	const char *msg = be.msg;

	pfd = perf_probe_open(&p, &be);
	EXPECT(pfd >= 0, "cpu-clock open: %d %s", pfd, msg);
	if (pfd < 0)
		return;
	lfd = perf_link_create(counter_prog_fd(c, PROBE_SOFTWARE, 0), pfd,
			       slot);
	close(pfd);
	EXPECT(lfd >= 0, "cpu-clock link: %d", lfd);
	sched_getaffinity(0, sizeof(old), &old);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	counter_hits(c, slot, &before);
	busy_ms(200);
	counter_hits(c, slot, &after);
	sched_setaffinity(0, sizeof(old), &old);
	/* 200 ms at one sample per 0.1 ms is ~2000; allow a loaded host. */
	EXPECT(after >= before + 100, "cpu-clock hits %llu -> %llu",
	       (unsigned long long)before, (unsigned long long)after);
	if (lfd >= 0)
		close(lfd);
	counter_slot_free(c, slot);
}

static void expect_fail(const struct perf_probe *p, int want, const char *msg)
{
	struct bl_error be = {0};
	const char *buf = be.msg;
	int fd;

	fd = perf_probe_open(p, &be);
	if (fd >= 0)
		close(fd);
	EXPECT(fd == want, "got %d, want %d (%s)", fd, want, buf);
	EXPECT(strstr(buf, msg), "message \"%s\", want \"%s\"", buf, msg);
}

static void test_failures(void)
{
	struct perf_probe k = {.kind = PROBE_KPROBE,
			       .target = "do_sys_open",
			       .pid = -1,
			       .cpu = -1};
	struct perf_probe h = {.kind = PROBE_HARDWARE,
			       .perf_type = PERF_TYPE_HARDWARE,
			       .config = PERF_COUNT_HW_CPU_CYCLES,
			       .period = 1000000,
			       .pid = -1,
			       .cpu = 0};
	struct perf_probe t = {.kind = PROBE_TRACEPOINT,
			       .tp_category = "sched",
			       .tp_name = "no_such_event",
			       .pid = -1,
			       .cpu = -1};
	struct perf_probe u = {.kind = PROBE_UPROBE,
			       .target = "/nonexistent/bpflinkfs",
			       .pid = -1,
			       .cpu = -1};
	struct stat st;

	if (stat("/sys/bus/event_source/devices/kprobe", &st) != 0)
		expect_fail(&k, -EOPNOTSUPP,
			    "this kernel has no kprobe "
			    "support (CONFIG_KPROBES)");
	else
		diag("this kernel has kprobes, kprobe case skipped");
	expect_fail(&h, -ENOENT, "no hardware PMU");
	expect_fail(&t, -ENOENT, "no tracepoint sched:no_such_event");
	t.tp_category = "..";
	t.tp_name = "id";
	expect_fail(&t, -ENOENT, "no tracepoint ..:id");
	expect_fail(&u, -ENOENT, "/nonexistent/bpflinkfs");
	k.kind = 99;
	expect_fail(&k, -EINVAL, "unknown probe kind");
}

/*
 * Without tracefs the message says how to mount it. Unmounting is done in
 * a private mount namespace, so the host keeps its tracefs.
 */
static void test_no_tracefs(void)
{
	struct perf_probe t = {.kind = PROBE_TRACEPOINT,
			       .tp_category = "sched",
			       .tp_name = "sched_switch",
			       .pid = -1,
			       .cpu = -1};
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		check_st.grp_failed = 0; /* count only the child's own */
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			_exit(77);
		umount2("/sys/kernel/debug/tracing", MNT_DETACH);
		umount2("/sys/kernel/tracing", MNT_DETACH);
		umount2("/sys/kernel/debug", MNT_DETACH);
		expect_fail(&t, -ENOENT,
			    "tracefs is not mounted: mount -t "
			    "tracefs nodev /sys/kernel/tracing");
		_exit(check_st.grp_failed ? 1 : 0);
	}
	EXPECT(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		       WEXITSTATUS(st) != 1,
	       "no-tracefs case failed");
}

static void test_slots(void)
{
	struct counter *c;
	int a, b, d, e;

	EXPECT(counter_open(&c, 4) == 0, "counter_open(4)");
	a = counter_slot_alloc(c);
	b = counter_slot_alloc(c);
	d = counter_slot_alloc(c);
	e = counter_slot_alloc(c);
	EXPECT(a == 1 && b == 2 && d == 3 && e == -ENOSPC, "slots %d %d %d %d",
	       a, b, d, e);
	EXPECT(counter_slot_claim(c, 2) == -EBUSY, "claim of a taken slot");
	EXPECT(counter_slot_claim(c, 0) == -EINVAL, "claim of slot 0");
	EXPECT(counter_slot_claim(c, 4) == -EINVAL, "claim past the end");
	counter_slot_free(c, 2);
	EXPECT(counter_slot_claim(c, 2) == 0, "claim of a free slot");
	EXPECT(counter_slot_alloc(c) == -ENOSPC, "slot 2 handed out twice");
	EXPECT(counter_prog_fd(c, PROBE_UPROBE, 1) == -EINVAL, "instance 1");
	EXPECT(counter_prog_fd(c, PROBE_TRACEPOINT, 64) == -E2BIG,
	       "instance 64");
	counter_close(c);
	EXPECT(counter_open(&c, COUNTER_ROW_SLOTS + 1) == -E2BIG,
	       "more slots than a row of the hits map");
}

static void test_online_cpus(void)
{
	int cpus[1024], n, i;

	n = online_cpus(cpus, 1024);
	EXPECT(n == sysconf(_SC_NPROCESSORS_ONLN), "online_cpus %d", n);
	for (i = 1; i < n; i++)
		EXPECT(cpus[i] > cpus[i - 1], "cpu list not ascending");
	if (n > 1)
		EXPECT(online_cpus(cpus, 1) == -E2BIG, "overflow not reported");
}

static void test_pinned(struct counter *c)
{
	char tp[128], map[128];
	struct bl_error be = {0};
	const char *msg = be.msg;
	struct stat st;
	int fd;

	if (stat("/sys/fs/bpf", &st) ||
	    bpf_obj_pin(counter_prog_fd(c, PROBE_TRACEPOINT, 0),
			"/sys/fs/bpf/bpflinkfs_test_tp")) {
		diag("no bpffs at /sys/fs/bpf, prog= cases skipped");
		return;
	}
	snprintf(tp, sizeof(tp), "/sys/fs/bpf/bpflinkfs_test_tp");
	snprintf(map, sizeof(map), "/sys/fs/bpf/bpflinkfs_test_map");
	bpf_obj_pin(counter_map_fd(c), map);
	fd = prog_open_pinned(tp, PROBE_TRACEPOINT, &be);
	EXPECT(fd >= 0 && obj_id(fd) == obj_id(counter_prog_fd(
						c, PROBE_TRACEPOINT, 0)),
	       "pinned tracepoint prog: %d %s", fd, msg);
	if (fd >= 0)
		close(fd);
	fd = prog_open_pinned(tp, PROBE_UPROBE, &be);
	EXPECT(fd == -EINVAL && strstr(msg, "needs a kprobe program"),
	       "wrong type: %d %s", fd, msg);
	fd = prog_open_pinned(map, PROBE_UPROBE, &be);
	EXPECT(fd == -EINVAL && strstr(msg, "is not a BPF program"),
	       "map: %d %s", fd, msg);
	fd = prog_open_pinned("/sys/fs/bpf/bpflinkfs_none", PROBE_UPROBE, &be);
	EXPECT(fd == -ENOENT, "missing pin: %d %s", fd, msg);
	fd = prog_open_pinned(fixture, PROBE_UPROBE, &be);
	EXPECT(fd == -EINVAL && strstr(msg, "not in a BPF filesystem"),
	       "not bpffs: %d %s", fd, msg);
	unlink(tp);
	unlink(map);
}

/*
 * Slot @slot of the hits map @fd summed over its CPU rows, read with
 * BPF_MAP_LOOKUP_ELEM from the map's size alone (a row per possible CPU,
 * progs/counter_common.h), not through the counter's own reading.
 */
static unsigned long long map_rows_sum(int fd, uint32_t slot)
{
	struct bpf_map_info info = {0};
	uint32_t len = sizeof(info), ncpus = libbpf_num_possible_cpus(), key;
	unsigned long long sum = 0;
	uint64_t v;
	uint32_t cpu;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	for (cpu = 0; cpu < ncpus; cpu++) {
		key = cpu * (info.max_entries / ncpus) + slot;
		if (bpf_map_lookup_elem(fd, &key, &v) == 0)
			sum += v;
	}
	return sum;
}

/*
 * A raw tracepoint instance (tracing_probe.c) of a counter on the per-CPU map
 * @map counts there: task_rename fires once per prctl(PR_SET_NAME) of any
 * task, so the slot holds at least our 50 and, on a quiet host, not many
 * more.
 */
static void rawtp_on_percpu(struct counter *c, int map)
{
	const char *line = "raw_tracepoint:task_rename";
	int ncpus = libbpf_num_possible_cpus(), lfd, i;
	uint64_t *vals = calloc(ncpus > 0 ? ncpus : 1, sizeof(*vals)), sum = 0;
	struct parsed_cmd cmd;
	struct bl_error be = {0};
	uint32_t slot = 6;
	char name[16];

	EXPECT(vals && parse_line(line, strlen(line), &cmd, &be) == 0,
	       "parse %s", line);
	EXPECT(counter_slot_claim(c, slot) == 0, "claim %u", slot);
	lfd = tracing_link_create(&cmd.probe, c, slot, &be);
	EXPECT(lfd >= 0, "raw tracepoint on the per-CPU map: %d", lfd);
	if (lfd < 0 || !vals) {
		free(vals);
		return;
	}
	prctl(PR_GET_NAME, name);
	for (i = 0; i < 50; i++)
		prctl(PR_SET_NAME, name);
	close(lfd);
	EXPECT(bpf_map_lookup_elem(map, &slot, vals) == 0, "look-up %u", slot);
	for (i = 0; i < ncpus; i++)
		sum += vals[i];
	EXPECT(sum >= 50 && sum < 1050,
	       "raw tracepoint slot holds %llu, want 50 and the host's renames",
	       (unsigned long long)sum);
	free(vals);
}

/*
 * A per-CPU hits map, as pin_dirs of earlier versions keep it: a counter
 * adopts it and its programs count there (per CPU value, summed here with
 * BPF_MAP_LOOKUP_ELEM).
 */
static void test_reuse_percpu(unsigned long long off)
{
	struct perf_probe p = {.kind = PROBE_UPROBE,
			       .target = fixture,
			       .offset = off,
			       .pid = -1,
			       .cpu = -1};
	int ncpus = libbpf_num_possible_cpus(), map, pfd, lfd, i, err;
	uint64_t *vals = calloc(ncpus > 0 ? ncpus : 1, sizeof(*vals)),
		 hits = 0, sum = 0;
	struct bl_error be = {0};
	struct counter *c2;
	uint32_t slot = 5;

	map = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, NULL, 4, 8, 16, NULL);
	EXPECT(map >= 0 && vals, "per-CPU map: %d", map);
	err = map < 0 ? map : counter_open_reuse(&c2, map);
	EXPECT(err == 0, "counter_open_reuse of a per-CPU map: %d", err);
	if (!err) {
		EXPECT(counter_slot_claim(c2, slot) == 0, "claim %u", slot);
		pfd = perf_probe_open(&p, &be);
		lfd = perf_link_create(counter_prog_fd(c2, PROBE_UPROBE, 0),
				       pfd, slot);
		close(pfd);
		EXPECT(lfd >= 0, "link on the per-CPU map: %d", lfd);
		EXPECT(run_fixture(123) == 0, "fixture failed");
		if (lfd >= 0)
			close(lfd);
		EXPECT(bpf_map_lookup_elem(map, &slot, vals) == 0,
		       "look-up of slot %u", slot);
		for (i = 0; i < ncpus; i++)
			sum += vals[i];
		EXPECT(sum == 123 && counter_hits(c2, slot, &hits) == 0 &&
			       hits == 123,
		       "per-CPU map holds %llu, counter_hits %llu, want 123",
		       (unsigned long long)sum, (unsigned long long)hits);
		rawtp_on_percpu(c2, map);
		counter_close(c2);
	}
	if (map >= 0)
		close(map);
	free(vals);
}

/* A second counter on the first one's map: its programs count there. */
static void test_reuse(struct counter *c, unsigned long long off)
{
	struct perf_probe p = {.kind = PROBE_UPROBE,
			       .target = fixture,
			       .offset = off,
			       .pid = -1,
			       .cpu = -1};
	int slot = counter_slot_alloc(c), pfd, lfd, bad, err;
	struct counter *c2;
	uint64_t hits = 0;
	struct bl_error be = {0};
	LIBBPF_OPTS(bpf_map_create_opts, mmapable,
		    .map_flags = BPF_F_MMAPABLE);

	err = counter_open_reuse(&c2, counter_map_fd(c));
	EXPECT(err == 0, "counter_open_reuse: %d", err);
	if (err)
		return;
	EXPECT(obj_id(counter_map_fd(c2)) == obj_id(counter_map_fd(c)),
	       "not the same map");
	EXPECT(counter_slot_claim(c2, slot) == 0, "claim %d", slot);
	pfd = perf_probe_open(&p, &be);
	lfd = perf_link_create(counter_prog_fd(c2, PROBE_UPROBE, 0), pfd, slot);
	close(pfd);
	EXPECT(lfd >= 0, "link with the second counter: %d", lfd);
	EXPECT(run_fixture(321) == 0, "fixture failed");
	EXPECT(counter_hits(c, slot, &hits) == 0 && hits == 321,
	       "shared map hits %llu, want 321", (unsigned long long)hits);
	EXPECT(map_rows_sum(counter_map_fd(c), slot) == 321,
	       "the map's rows hold %llu, want 321",
	       (unsigned long long)map_rows_sum(counter_map_fd(c), slot));
	if (lfd >= 0)
		close(lfd);
	counter_close(c2);
	counter_slot_free(c, slot);
	bad = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 8, 4, NULL);
	EXPECT(counter_open_reuse(&c2, bad) == -EINVAL, "array map accepted");
	close(bad);
	bad = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 8,
			     (uint32_t)libbpf_num_possible_cpus() * 8 + 1,
			     &mmapable);
	EXPECT(bad < 0 || counter_open_reuse(&c2, bad) == -EINVAL,
	       "rows of a partial CPU accepted");
	if (bad >= 0)
		close(bad);
	EXPECT(counter_open_reuse(&c2, counter_prog_fd(c, PROBE_UPROBE, 0)) ==
		       -EINVAL,
	       "program accepted as a map");
}

static void cleanup(void)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/fixture.c", tmpdir);
	unlink(path);
	unlink(fixture);
	rmdir(tmpdir);
}

int main(void)
{
	unsigned long long vaddr, off;
	struct counter *c;
	int fds, err;

	if (geteuid() != 0)
		skip_all("needs root (BPF, perf events)");
	if (system("command -v gcc >/dev/null && command -v readelf "
		   ">/dev/null && command -v bpftool >/dev/null") != 0)
		skip_all("needs gcc, readelf and bpftool");
	if (access("/sys/kernel/tracing/events", F_OK) &&
	    mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL))
		skip_all("tracefs is not mounted and cannot be mounted");
	build_fixture();
	vaddr = fixture_sym_vaddr();
	off = fixture_file_offset(vaddr);
	fds = check_open_fds();
	err = counter_open(&c, 1024);
	if (err) {
		cleanup();
		bail_out("counter_open: %s", strerror(-err));
	}
	test_uprobe(c, PROBE_UPROBE, off, 1234);
	group_end("uprobe: 1234 hits, one link in bpftool, slot reused zeroed");
	test_uprobe(c, PROBE_URETPROBE, off, 777);
	group_end("uretprobe: 777 hits, one link in bpftool, slot reused");
	test_tracepoint(c);
	group_end("tracepoint: instance 0 twice is EEXIST, instance 1 counts");
	test_software(c);
	group_end("cpu-clock on CPU 0 counts");
	test_failures();
	group_end("perf_probe_open() errors and their messages");
	test_pinned(c);
	group_end("prog_open_pinned()");
	test_reuse(c, off);
	test_reuse_percpu(off);
	group_end("a second counter on the first one's map");
	counter_close(c);
	test_slots();
	group_end("counter slots: alloc, claim, free, limits");
	test_online_cpus();
	group_end("online_cpus()");
	CHECK(check_open_fds() == fds, "no fd leaked: %d before, %d after", fds,
	      check_open_fds());
	test_no_tracefs();
	group_end("without tracefs the message says how to mount it");
	cleanup();
	return done_testing();
}
