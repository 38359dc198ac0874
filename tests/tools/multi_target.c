// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpflinkfs_multi_target - a fixture for wildcard uprobes (test_multi.sh).
 * Functions fn_one, fn_two, fn_three (global), fn_local (static) and
 * fn_alias (a second name at fn_one's entry: one target per offset); other
 * names (other_fn) must not match fn_*. `bpflinkfs_multi_target A B C D`
 * calls fn_one A times, fn_two B, fn_three C and fn_local D times.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) void fn_one(unsigned long i)
{
	sink += i;
}

void fn_alias(unsigned long i) __attribute__((alias("fn_one")));

__attribute__((noinline)) void fn_two(unsigned long i)
{
	sink ^= i;
}

__attribute__((noinline)) void fn_three(unsigned long i)
{
	sink -= i;
}

__attribute__((noinline)) static void fn_local(unsigned long i)
{
	sink |= i;
}

__attribute__((noinline)) void other_fn(unsigned long i)
{
	sink &= i;
}

static unsigned long arg(int argc, char **argv, int i)
{
	return argc > i ? strtoul(argv[i], NULL, 0) : 0;
}

int main(int argc, char **argv)
{
	unsigned long i;

	for (i = 0; i < arg(argc, argv, 1); i++)
		fn_one(i);
	for (i = 0; i < arg(argc, argv, 2); i++)
		fn_two(i);
	for (i = 0; i < arg(argc, argv, 3); i++)
		fn_three(i);
	for (i = 0; i < arg(argc, argv, 4); i++)
		fn_local(i);
	other_fn(1);
	printf("%lu\n", sink);
	return 0;
}
