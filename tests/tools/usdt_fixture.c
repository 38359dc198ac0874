// SPDX-License-Identifier: GPL-2.0-only
/*
 * A USDT fixture (<sys/sdt.h>) for the qemu lanes: kt:twice sits in two
 * functions (two locations of one probe), kt:guarded is fired only while
 * its semaphore is raised. One file: with _SDT_HAS_SEMAPHORES every probe
 * has a semaphore, so kt:twice has one too (both locations share it).
 * `usdt_fixture N` fires each N times.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#include <stdlib.h>

unsigned short kt_guarded_semaphore __attribute__((unused, section(".probes")));
unsigned short kt_twice_semaphore __attribute__((unused, section(".probes")));
static volatile unsigned long sink;

__attribute__((noinline)) static void twice_a(unsigned long i)
{
	DTRACE_PROBE1(kt, twice, i);
	sink += i;
}

__attribute__((noinline)) static void twice_b(unsigned long i)
{
	DTRACE_PROBE1(kt, twice, i);
	sink ^= i;
}

int main(int argc, char **argv)
{
	unsigned long i, n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1;

	for (i = 0; i < n; i++) {
		if (kt_guarded_semaphore)
			DTRACE_PROBE1(kt, guarded, i);
		twice_a(i);
		twice_b(i);
	}
	return 0;
}
