// SPDX-License-Identifier: GPL-2.0-only
/*
 * A perf_event program whose function name is longer than the 15 bytes
 * the kernel keeps of a program's name (test_prog_name.sh): its whole name
 * is only in the program's BTF.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("perf_event")
int bpflinkfs_a_program_name_past_fifteen_bytes(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
