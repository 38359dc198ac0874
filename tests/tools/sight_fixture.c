// SPDX-License-Identifier: GPL-2.0-only
/*
 * sight_fixture - the fixture of test_sight.sh: `sight_fixture sleep N US`
 * calls sight_sleep() N times, each sleeping US microseconds, and prints
 * how many calls it timed itself (CLOCK_MONOTONIC around each call) in
 * each power-of-two bucket of ns, `LOG2 COUNT` a line (bucket i holds
 * [2^(i-1), 2^i) ns, as bpftrace's hist());
 * `sight_fixture hit N` calls sight_hit() N times; `sight_fixture chain N`
 * calls main -> sight_outer -> sight_middle -> sight_leaf N times (built
 * with frame pointers, for stacks=); `sight_fixture fork N` makes N
 * processes one after another, each calling sight_hit() once; `sight_fixture wait
 * FILE hit N` first waits until FILE exists (so a test knows its pid
 * before it calls). Built -O0 with noinline: each function has its own
 * entry and return.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void sight_sleep(unsigned long us)
{
	struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};

	while (nanosleep(&ts, &ts))
		;
	sink++;
}

__attribute__((noinline)) void sight_hit(unsigned long i)
{
	sink += i;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static unsigned int bucket(unsigned long long ns)
{
	unsigned int b = 0;

	while (ns) {
		ns >>= 1;
		b++;
	}
	return b;
}

__attribute__((noinline)) void sight_leaf(unsigned long i)
{
	sink += i;
}

__attribute__((noinline)) void sight_middle(unsigned long i)
{
	sight_leaf(i);
	sink++;
}

__attribute__((noinline)) void sight_outer(unsigned long i)
{
	sight_middle(i);
	sink++;
}

/* @n processes, each calling sight_hit() once; 0 when all did */
static int forks(unsigned long n)
{
	unsigned long i;
	int st;

	for (i = 0; i < n; i++) {
		pid_t p = fork();

		if (p < 0)
			return 1;
		if (!p) {
			sight_hit(i);
			_exit(0);
		}
		if (waitpid(p, &st, 0) != p || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long i, n, us, buckets[65] = {0};
	unsigned long long t;

	if (argc > 3 && !strcmp(argv[1], "wait")) {
		while (access(argv[2], F_OK))
			usleep(10000);
		argv += 2;
		argc -= 2;
	}
	if (argc < 3)
		return 2;
	n = strtoul(argv[2], NULL, 0);
	if (!strcmp(argv[1], "fork"))
		return forks(n);
	us = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;
	for (i = 0; i < n; i++) {
		if (!strcmp(argv[1], "sleep")) {
			t = now_ns();
			sight_sleep(us);
			buckets[bucket(now_ns() - t)]++;
		} else if (!strcmp(argv[1], "chain")) {
			sight_outer(i);
		} else {
			sight_hit(i);
		}
	}
	for (i = 0; i < 65; i++)
		if (buckets[i])
			printf("%lu %lu\n", i, buckets[i]);
	printf("sink %lu\n", sink);
	return 0;
}
