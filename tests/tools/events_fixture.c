// SPDX-License-Identifier: GPL-2.0-only
/*
 * events_fixture - a known caller for the events tests:
 * `events_fixture COMM N [WAIT_FILE]` sets its comm to COMM (prctl), prints
 * "PID TID CLOCK_BOOTTIME_BEFORE" and, after WAIT_FILE exists (when given),
 * calls bpflinkfs_events_hit(i) for i = 0..N-1 from one thread, then prints
 * "done CLOCK_BOOTTIME_AFTER". bpflinkfs_events_hit returns i * 3 + 7, so
 * a uretprobe sees a return value the test can compute itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long bpflinkfs_events_hit(unsigned long i)
{
	sink += i;
	return i * 3 + 7;
}

static double boottime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long i, n;
	struct stat st;

	if (argc < 3) {
		fprintf(stderr, "usage: events_fixture COMM N [WAIT_FILE]\n");
		return 2;
	}
	n = strtoul(argv[2], NULL, 0);
	if (prctl(PR_SET_NAME, argv[1], 0, 0, 0))
		return 1;
	printf("%d %d %.9f\n", getpid(), gettid(), boottime());
	fflush(stdout);
	while (argc > 3 && stat(argv[3], &st))
		usleep(10000);
	for (i = 0; i < n; i++)
		sink += bpflinkfs_events_hit(i);
	printf("done %.9f\n", boottime());
	return 0;
}
