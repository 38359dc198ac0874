// SPDX-License-Identifier: GPL-2.0-only
/*
 * hit_fixture MODE N: the probed side of cost_per_hit.sh. Calls the probe
 * target N times in a loop and prints the calling thread's CPU time per
 * call in nanoseconds (CLOCK_THREAD_CPUTIME_ID: what a BPF program run in
 * the thread's context costs it, kernel entry included).
 *
 *   uprobe   hot_fn(), an empty function that starts with `push %rbp`,
 *            an instruction the kernel emulates: a uprobe on one it must
 *            single-step (a bare `ret`, `endbr64`) costs ~11 us and drowns
 *            every program's cost
 *   getpid   syscall(SYS_getpid), for tracepoint:syscalls:sys_enter_getpid
 *
 * hit_fixture MODE N CHUNKS times the loop in CHUNKS parts too, with
 * CLOCK_MONOTONIC, and adds the fastest part's ns per call: in a guest the
 * thread's CPU clock runs on while the host has its vCPU descheduled, and a
 * part that saw no such gap shows the cost alone. (Not the thread clock
 * for the parts: under qemu's TCG its parts of a few milliseconds gave an
 * empty program's loop faster than the unprobed one's, as if it moved in
 * coarse steps.)
 *
 * Prints `NS_PER_CALL CALLS` (with CHUNKS: `NS_PER_CALL CALLS FASTEST`).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * Written in assembly: gcc drops the frame pointer of a leaf function even
 * with -fno-omit-frame-pointer, and its first instruction would then be
 * one the kernel single-steps.
 */
int hot_fn(int x);
#if defined(__x86_64__)
__asm__(".text\n"
	".globl hot_fn\n"
	".type hot_fn, @function\n"
	"hot_fn:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	lea 1(%rdi), %eax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size hot_fn, .-hot_fn\n");
#else
#error "hit_fixture: hot_fn is written for x86_64"
#endif

static double clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double thread_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* @n calls of the probe target; returns hot_fn's result, to keep it live */
static int run(int uprobe, long n, int acc)
{
	long i;

	if (uprobe)
		for (i = 0; i < n; i++)
			acc = hot_fn(acc);
	else
		for (i = 0; i < n; i++)
			syscall(SYS_getpid);
	return acc;
}

int main(int argc, char **argv)
{
	long n, chunks = 1, part, c;
	int acc = 0, uprobe;
	double t0, t1, tc, fastest = 0;

	if ((argc != 3 && argc != 4) ||
	    (strcmp(argv[1], "uprobe") && strcmp(argv[1], "getpid"))) {
		fprintf(stderr,
			"usage: hit_fixture uprobe|getpid N [CHUNKS]\n");
		return 2;
	}
	uprobe = argv[1][0] == 'u';
	n = atol(argv[2]);
	if (argc == 4)
		chunks = atol(argv[3]);
	if (n < 1 || chunks < 1 || chunks > n) {
		fprintf(stderr, "hit_fixture: need 1 <= CHUNKS <= N\n");
		return 2;
	}
	part = n / chunks;
	t0 = thread_ns();
	tc = clock_ns(CLOCK_MONOTONIC);
	for (c = 0; c < chunks; c++) {
		acc = run(uprobe, c == chunks - 1 ? n - part * c : part, acc);
		t1 = clock_ns(CLOCK_MONOTONIC);
		if (c < chunks - 1 && (!fastest || (t1 - tc) / part < fastest))
			fastest = (t1 - tc) / part;
		tc = t1;
	}
	t1 = thread_ns();
	if (argc == 4)
		printf("%.3f %ld %.3f\n", (t1 - t0) / n, n,
		       chunks > 1 ? fastest : (t1 - t0) / n);
	else
		printf("%.3f %ld\n", (t1 - t0) / n, n);
	return acc == -1;
}
