// SPDX-License-Identifier: GPL-2.0-only
/*
 * rate_fixture - calls bpflinkfs_rate_hit() at a steady rate, for the
 * tests that check a rate read elsewhere (`top`'s RUNS/S):
 * `rate_fixture RATE SECONDS` calls it RATE/1000 times every millisecond
 * (clock_nanosleep to absolute CLOCK_MONOTONIC times) for SECONDS (a
 * decimal), then
 * prints "CALLS START END RATE": the calls made, CLOCK_BOOTTIME before
 * the first and after the last, and the rate it made, calls per second of
 * its own clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void bpflinkfs_rate_hit(unsigned long i)
{
	sink += i;
}

static double boottime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long rate, per_ms, ms, i, calls = 0;
	struct timespec next;
	double start, end;

	if (argc != 3) {
		fprintf(stderr, "usage: rate_fixture RATE SECONDS\n");
		return 2;
	}
	rate = strtoul(argv[1], NULL, 0);
	per_ms = rate / 1000 ? rate / 1000 : 1;
	ms = (unsigned long)(strtod(argv[2], NULL) * 1000);
	clock_gettime(CLOCK_MONOTONIC, &next);
	start = boottime();
	for (; ms; ms--) {
		for (i = 0; i < per_ms; i++)
			bpflinkfs_rate_hit(calls++);
		next.tv_nsec += 1000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	end = boottime();
	printf("%lu %.6f %.6f %.1f\n", calls, start, end,
	       calls / (end - start));
	return 0;
}
