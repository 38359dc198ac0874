// SPDX-License-Identifier: GPL-2.0-only
/*
 * recurse - a BPF program that the kernel must keep from recursing, for
 * the recursion-miss tests: a raw tracepoint program on bpf_trace_printk
 * that itself calls bpf_trace_printk. Each run fires its own tracepoint
 * again on the same CPU, where the kernel skips the nested run and counts
 * it in the program's recursion_misses.
 *
 * Usage: recurse. Prints "LINK_ID PROG_ID" of the raw tracepoint link,
 * then "ready". Each line N on stdin runs a socket filter that calls
 * bpf_trace_printk N times (BPF_PROG_TEST_RUN, repeat N), which starts
 * the chain once a run; it answers "done N". Exits at EOF (which
 * detaches the link).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#define INSN(c, d, s, o, i)                                                    \
	((struct bpf_insn){.code = (c),                                        \
			   .dst_reg = (d),                                     \
			   .src_reg = (s),                                     \
			   .off = (o),                                         \
			   .imm = (i)})

/* bpf_trace_printk("hi\n"); return 0; */
static const struct bpf_insn printk_prog[] = {
	INSN(BPF_ALU | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 0x000a6968),
	INSN(BPF_STX | BPF_MEM | BPF_W, BPF_REG_10, BPF_REG_1, -8, 0),
	INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_10, 0, 0),
	INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, -8),
	INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 4),
	INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_trace_printk),
	INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
	INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
};

static int load(enum bpf_prog_type type, const char *name)
{
	char log[4096] = "";
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log,
		    .log_size = sizeof(log), .log_level = 1);
	int fd = bpf_prog_load(type, name, "GPL", printk_prog,
			       sizeof(printk_prog) / sizeof(printk_prog[0]),
			       &opts);

	if (fd < 0)
		fprintf(stderr, "recurse: load %s: %s\n%s", name,
			strerror(errno), log);
	return fd;
}

static int ids(int link_fd, int prog_fd, __u32 *link_id, __u32 *prog_id)
{
	struct bpf_link_info li = {0};
	struct bpf_prog_info pi = {0};
	__u32 ll = sizeof(li), pl = sizeof(pi);

	if (bpf_obj_get_info_by_fd(link_fd, &li, &ll) ||
	    bpf_obj_get_info_by_fd(prog_fd, &pi, &pl))
		return -errno;
	*link_id = li.id;
	*prog_id = pi.id;
	return 0;
}

int main(void)
{
	int prog = load(BPF_PROG_TYPE_RAW_TRACEPOINT, "recurse_tp");
	int trigger = load(BPF_PROG_TYPE_SOCKET_FILTER, "recurse_trig");
	char pkt[64] = {0}, line[64];
	__u32 link_id = 0, prog_id = 0;
	int link;

	if (prog < 0 || trigger < 0)
		return 1;
	link = bpf_raw_tracepoint_open("bpf_trace_printk", prog);
	if (link < 0 || ids(link, prog, &link_id, &prog_id)) {
		fprintf(stderr, "recurse: attach: %s\n", strerror(errno));
		return 1;
	}
	printf("%u %u\nready\n", link_id, prog_id);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt,
			    .data_size_in = sizeof(pkt),
			    .repeat = strtoul(line, NULL, 10));

		if (bpf_prog_test_run_opts(trigger, &opts)) {
			fprintf(stderr, "recurse: run: %s\n", strerror(errno));
			return 1;
		}
		printf("done %u\n", opts.repeat);
		fflush(stdout);
	}
	return 0;
}
