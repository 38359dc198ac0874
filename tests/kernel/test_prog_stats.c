// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf/read/prog_stats.c on a real program: a socket filter loaded here with
 * libbpf and run with BPF_PROG_TEST_RUN. While kernel.bpf_stats_enabled
 * is 1 each run counts, while 0 none does; bpf_stats_enabled() says what
 * /proc says; a program that is gone is -ENOENT. The sysctl is restored.
 * The stats switch: its held fd makes runs count and dropping the last
 * hold stops them, with the sysctl left at 0; stats_collecting() sees
 * another process's BPF_ENABLE_STATS fd, and its end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "check.h"
#include "prog_stats.h"

#define SYSCTL "/proc/sys/kernel/bpf_stats_enabled"
#define RUNS 100

static int saved = -1;

static int sysctl_get(void)
{
	FILE *f = fopen(SYSCTL, "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static bool sysctl_set(int v)
{
	FILE *f = fopen(SYSCTL, "w");
	bool good = f && fprintf(f, "%d\n", v) > 0;

	return f && !fclose(f) && good;
}

static void restore(void)
{
	if (saved >= 0)
		sysctl_set(saved);
}

/* r0 = 0; exit: a socket filter that drops everything */
static int load_prog(__u32 *id)
{
	struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	struct bpf_prog_info info = {0};
	__u32 len = sizeof(info);
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "ps_test", "GPL",
			       insns, 2, NULL);

	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		close(fd);
		return -errno;
	}
	*id = info.id;
	return fd;
}

static int test_run(int fd)
{
	char pkt[64] = {0};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt,
		    .data_size_in = sizeof(pkt), .repeat = RUNS);

	return bpf_prog_test_run_opts(fd, &opts) ? -errno : 0;
}

/* Does a run count now, with the sysctl at 0 (someone holds an fd)? */
static bool stats_counting_now(int fd, __u32 id)
{
	struct prog_stats a, b;

	return prog_stats_read(id, &a) == 0 && test_run(fd) == 0 &&
	       prog_stats_read(id, &b) == 0 && b.run_cnt != a.run_cnt;
}

static void stats_on_and_off(int fd, __u32 id)
{
	struct prog_stats a, b, c;

	CHECK(sysctl_set(1) && bpf_stats_enabled() == 1 && sysctl_get() == 1,
	      "bpf_stats_enabled() is 1 with the sysctl at 1");
	CHECK(prog_stats_read(id, &a) == 0 && strcmp(a.name, "ps_test") == 0,
	      "prog_stats_read: the program's name (%s)", a.name);
	CHECK(test_run(fd) == 0, "BPF_PROG_TEST_RUN, %d runs", RUNS);
	CHECK(prog_stats_read(id, &b) == 0 && b.run_cnt - a.run_cnt == RUNS,
	      "run_cnt grew by the %d runs (%llu -> %llu)", RUNS,
	      (unsigned long long)a.run_cnt, (unsigned long long)b.run_cnt);
	CHECK(b.run_time_ns > a.run_time_ns, "run_time_ns grew (%llu -> %llu)",
	      (unsigned long long)a.run_time_ns,
	      (unsigned long long)b.run_time_ns);
	CHECK(sysctl_set(0) && bpf_stats_enabled() == 0 && sysctl_get() == 0,
	      "bpf_stats_enabled() is 0 with the sysctl at 0");
	CHECK(test_run(fd) == 0, "BPF_PROG_TEST_RUN with statistics off");
	CHECK(prog_stats_read(id, &c) == 0 && c.run_cnt == b.run_cnt &&
		      c.run_time_ns == b.run_time_ns,
	      "nothing counted while off; the counts are kept (%llu)",
	      (unsigned long long)c.run_cnt);
}

/* runs of @fd counted by the kernel over one test_run() */
static long long counted(int fd, __u32 id)
{
	struct prog_stats a, b;

	if (prog_stats_read(id, &a) || test_run(fd) || prog_stats_read(id, &b))
		return -1;
	return (long long)(b.run_cnt - a.run_cnt);
}

/* a child that holds a BPF_ENABLE_STATS fd until killed */
static pid_t other_holder(void)
{
	int p[2];
	char c = 0;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

		c = fd >= 0;
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	if (pid < 0 || read(p[0], &c, 1) != 1 || !c) {
		if (pid > 0)
			kill(pid, SIGKILL);
		pid = -1;
	}
	close(p[0]);
	close(p[1]);
	return pid;
}

static void stats_switch_checks(int fd, __u32 id)
{
	struct stats_switch *sw = NULL;
	pid_t other;

	CHECK(stats_switch_open(&sw) == 0 && sw, "stats_switch_open");
	if (!sw)
		return;
	CHECK(stats_collecting(sw) == 0 && counted(fd, id) == 0,
	      "off: stats_collecting() 0, nothing counted");
	CHECK(stats_switch_hold(sw) == 0 && stats_switch_hold(sw) == 0,
	      "two holds");
	CHECK(counted(fd, id) == RUNS && stats_collecting(sw) == 1,
	      "held: every run counted, stats_collecting() 1");
	CHECK(sysctl_get() == 0, "the sysctl stays 0");
	stats_switch_drop(sw);
	CHECK(counted(fd, id) == RUNS, "one hold left: still counted");
	stats_switch_drop(sw);
	CHECK(counted(fd, id) == 0 && stats_collecting(sw) == 0,
	      "last hold dropped: nothing counted, stats_collecting() 0");
	other = other_holder();
	CHECK(other > 0, "another process holds BPF_ENABLE_STATS");
	CHECK(other > 0 && stats_collecting(sw) == 1 && sysctl_get() == 0,
	      "stats_collecting() sees the other holder; the sysctl is 0");
	if (other > 0) {
		kill(other, SIGKILL);
		waitpid(other, NULL, 0);
	}
	CHECK(stats_collecting(sw) == 0 && counted(fd, id) == 0,
	      "the other holder gone: off again");
	stats_switch_close(sw);
}

int main(void)
{
	struct prog_stats st;
	__u32 id = 0;
	int fd, err = 0, i;

	if (geteuid() != 0)
		skip_all("needs root");
	saved = sysctl_get();
	if (saved < 0)
		skip_all("no %s (a kernel before 5.1)", SYSCTL);
	atexit(restore);
	CHECK(bpf_stats_enabled() == saved, "bpf_stats_enabled() is /proc's %d",
	      saved);
	fd = load_prog(&id);
	if (fd < 0)
		skip_all("cannot load a socket filter: %s", strerror(-fd));
	/*
	 * Statistics that someone on the host turned on (the sysctl, or a
	 * BPF_ENABLE_STATS fd such as bpftop's) are theirs: turning them off
	 * would disturb them, and "nothing counts while off" cannot be seen.
	 */
	if (saved != 0 || stats_counting_now(fd, id))
		skip("statistics are on for someone else on this host: "
		     "the on/off checks would turn them off");
	else {
		stats_on_and_off(fd, id);
		stats_switch_checks(fd, id);
	}
	close(fd);
	/* the program is freed after an RCU grace period */
	for (i = 0; i < 100; i++) {
		err = prog_stats_read(id, &st);
		if (err == -ENOENT)
			break;
		usleep(10000);
	}
	CHECK(err == -ENOENT, "a program gone is -ENOENT (%d)", err);
	restore();
	CHECK(sysctl_get() == saved, "the sysctl is back at %d", saved);
	return done_testing();
}
