// SPDX-License-Identifier: GPL-2.0-only
/*
 * BPF program run statistics (bpf_prog_info.run_cnt, run_time_ns,
 * recursion_misses) and the switch that turns them on with a
 * BPF_ENABLE_STATS fd.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "link_info.h"
#include "prog_stats.h"

struct stats_switch {
	pthread_mutex_t lock; /* guards every field */
	int users;	      /* holders of stats_switch_hold() */
	int stats_fd;	      /* BPF_ENABLE_STATS fd while users > 0, else -1 */
	int probe_fd;	      /* the probe program, or -1 */
	__u64 probe_runs;     /* its run_cnt at the last look */
};

int bpf_stats_enabled(void)
{
	char buf[16];
	ssize_t n;
	int fd = open("/proc/sys/kernel/bpf_stats_enabled",
		      O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	return buf[0] == '1';
}

int prog_stats_read(__u32 prog_id, struct prog_stats *out)
{
	struct bpf_prog_info info;
	int err = prog_info_read(prog_id, &info);

	if (!err) {
		out->run_cnt = info.run_cnt;
		out->run_time_ns = info.run_time_ns;
		out->recursion_misses = info.recursion_misses;
		snprintf(out->name, sizeof(out->name), "%s", info.name);
	}
	return err;
}

/* r0 = 0; exit: a socket filter the kernel runs on a test packet */
static int probe_load(void)
{
	struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "bpflinkfs_stats",
			       "GPL", insns, 2, NULL);

	return fd < 0 ? -errno : fd;
}

/* run_cnt of the probe after one more run; -errno if it cannot run */
static int probe_runs(int fd, __u64 *runs)
{
	char pkt[64] = {0}; /* at least an Ethernet header */
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt,
		    .data_size_in = sizeof(pkt), .repeat = 1);

	memset(&info, 0, sizeof(info));
	if (bpf_prog_test_run_opts(fd, &opts) ||
	    bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*runs = info.run_cnt;
	return 0;
}

int stats_switch_open(struct stats_switch **out)
{
	struct stats_switch *sw = calloc(1, sizeof(*sw));

	if (!sw)
		return -ENOMEM;
	pthread_mutex_init(&sw->lock, NULL);
	sw->stats_fd = -1;
	sw->probe_fd = probe_load();
	if (sw->probe_fd >= 0 && probe_runs(sw->probe_fd, &sw->probe_runs)) {
		close(sw->probe_fd);
		sw->probe_fd = -1;
	}
	*out = sw;
	return 0;
}

void stats_switch_close(struct stats_switch *sw)
{
	if (!sw)
		return;
	if (sw->stats_fd >= 0)
		close(sw->stats_fd);
	if (sw->probe_fd >= 0)
		close(sw->probe_fd);
	pthread_mutex_destroy(&sw->lock);
	free(sw);
}

int stats_switch_hold(struct stats_switch *sw)
{
	int err = 0;

	pthread_mutex_lock(&sw->lock);
	if (!sw->users) {
		sw->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (sw->stats_fd < 0)
			err = -errno;
		if (sw->stats_fd >= 0)
			fcntl(sw->stats_fd, F_SETFD, FD_CLOEXEC);
	}
	if (!err)
		sw->users++;
	else
		sw->stats_fd = -1;
	pthread_mutex_unlock(&sw->lock);
	return err;
}

void stats_switch_drop(struct stats_switch *sw)
{
	pthread_mutex_lock(&sw->lock);
	if (sw->users > 0 && --sw->users == 0) {
		close(sw->stats_fd);
		sw->stats_fd = -1;
	}
	pthread_mutex_unlock(&sw->lock);
}

int stats_collecting(struct stats_switch *sw)
{
	__u64 runs;
	int on = bpf_stats_enabled() == 1;

	if (!sw)
		return on;
	pthread_mutex_lock(&sw->lock);
	on = on || sw->users > 0;
	/* the probe's count moves only while statistics are on */
	if (!on && sw->probe_fd >= 0 && !probe_runs(sw->probe_fd, &runs)) {
		on = runs != sw->probe_runs;
		sw->probe_runs = runs;
	}
	pthread_mutex_unlock(&sw->lock);
	return on;
}
