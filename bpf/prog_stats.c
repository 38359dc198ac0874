// SPDX-License-Identifier: GPL-2.0-only
/* BPF program run statistics (bpf_prog_info.run_cnt, run_time_ns). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "linkinfo.h"
#include "prog_stats.h"

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
		snprintf(out->name, sizeof(out->name), "%s", info.name);
	}
	return err;
}
