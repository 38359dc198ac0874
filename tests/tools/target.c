// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpflinkfs_target - a fixture for uprobe tests. Its functions are noinline
 * and it is built with -O0 so each has its own symbol and entry, which the
 * tests find with readelf. `bpflinkfs_target N` calls function a N times.
 */
#include <stdio.h>
#include <stdlib.h>

/*
 * A USDT-style semaphore: a uprobe's reference counter must live in a
 * file-backed (PROGBITS) mapping, so it gets its own section, not .bss.
 */
volatile unsigned short bpflinkfs_target_sema
	__attribute__((used, section(".probes"))) = 0;

static volatile unsigned long sink;

__attribute__((noinline)) void bpflinkfs_target_a(unsigned long i)
{
	sink += i;
}

__attribute__((noinline)) void bpflinkfs_target_b(unsigned long i)
{
	sink ^= i;
}

__attribute__((noinline)) void bpflinkfs_target_c(unsigned long i)
{
	sink -= i;
}

int main(int argc, char **argv)
{
	unsigned long i, n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1;

	for (i = 0; i < n; i++)
		bpflinkfs_target_a(i);
	if (argc > 2) {
		bpflinkfs_target_b(n);
		bpflinkfs_target_c(n);
	}
	printf("%lu\n", sink);
	return 0;
}
