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
 * Prints `NS_PER_CALL CALLS`.
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

static double thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n, i;
	int acc = 0;
	double t0, t1;

	if (argc != 3 || (strcmp(argv[1], "uprobe") && strcmp(argv[1], "getpid"))) {
		fprintf(stderr, "usage: hit_fixture uprobe|getpid N\n");
		return 2;
	}
	n = atol(argv[2]);
	t0 = thread_ns();
	if (argv[1][0] == 'u')
		for (i = 0; i < n; i++)
			acc = hot_fn(acc);
	else
		for (i = 0; i < n; i++)
			syscall(SYS_getpid);
	t1 = thread_ns();
	printf("%.3f %ld\n", (t1 - t0) / n, n);
	return acc == -1;
}
