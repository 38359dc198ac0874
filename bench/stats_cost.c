// SPDX-License-Identifier: GPL-2.0-only
/*
 * stats_cost - what the kernel's run statistics add to one program run:
 * the empty program (r0 = 0; exit, a socket filter) run N times by
 * BPF_PROG_TEST_RUN, in paired rounds with statistics off and on (this
 * process holding a BPF_ENABLE_STATS fd, as bpflinkfs's top and -o
 * bpf_stats do), the order alternating from round to round. The kernel
 * times the runs itself (test_run's duration: ns per run, the loop
 * only). With statistics on, the program's run_cnt must grow by N (a run
 * that was not counted would make a cheap, false figure); with them off,
 * by 0 (someone else holding them on would make the "off" figure false).
 *
 * Usage: stats_cost [N [ROUNDS]]  (default 10,000,000 runs, 7 rounds)
 * Prints one line per round, then "median_off_ns median_on_ns added_ns
 * ratio" (ratio = on / off, medians of the paired values).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

static int load(void)
{
	struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
		{.code = BPF_JMP | BPF_EXIT},
	};

	return bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "stats_cost", "GPL",
			     insns, 2, NULL);
}

static unsigned long long run_cnt(int fd)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.run_cnt;
}

/* ns per run of @n runs; -1 when the count says the figure is false */
static double timed(int fd, unsigned int n, int stats_on)
{
	char pkt[64] = {0};
	unsigned long long before = run_cnt(fd), after;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt,
		    .data_size_in = sizeof(pkt), .repeat = n);

	if (bpf_prog_test_run_opts(fd, &opts))
		return -1;
	after = run_cnt(fd);
	if (after - before != (stats_on ? n : 0)) {
		fprintf(stderr, "stats_cost: run_cnt moved by %llu, not %u\n",
			after - before, stats_on ? n : 0);
		return -1;
	}
	return opts.duration; /* the kernel's average per run, ns */
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	unsigned int n = argc > 1 ? strtoul(argv[1], NULL, 0) : 10000000;
	int rounds = argc > 2 ? atoi(argv[2]) : 7, fd = load(), r, k;
	double off[64], on[64], ratio[64];

	if (fd < 0 || rounds < 1 || rounds > 64) {
		fprintf(stderr, "stats_cost: %s\n",
			fd < 0 ? strerror(errno) : "1 to 64 rounds");
		return 1;
	}
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < 2; k++) {
			int want_on = (r + k) % 2, sfd = -1;

			if (want_on && (sfd = bpf_enable_stats(
						BPF_STATS_RUN_TIME)) < 0) {
				perror("stats_cost: BPF_ENABLE_STATS");
				return 1;
			}
			*(want_on ? &on[r] : &off[r]) = timed(fd, n, want_on);
			if (sfd >= 0)
				close(sfd);
		}
		if (off[r] <= 0 || on[r] <= 0)
			return 1;
		ratio[r] = on[r] / off[r];
		printf("round %d: off %.2f ns, on %.2f ns\n", r + 1, off[r],
		       on[r]);
	}
	qsort(off, rounds, sizeof(double), cmp);
	qsort(on, rounds, sizeof(double), cmp);
	qsort(ratio, rounds, sizeof(double), cmp);
	printf("%.2f %.2f %.2f %.2f\n", off[rounds / 2], on[rounds / 2],
	       on[rounds / 2] - off[rounds / 2], ratio[rounds / 2]);
	return 0;
}
