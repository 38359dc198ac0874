// SPDX-License-Identifier: GPL-2.0-only
/*
 * xdp_link - put an XDP program that drops every packet on an interface
 * with a BPF link (BPF_LINK_CREATE, BPF_XDP; bpftool 7.1 attaches XDP
 * without one), using no bpflinkfs code: for the detach tests, on a veth
 * of a network namespace the test made (run it there: ip netns exec).
 *
 * Usage: xdp_link IFNAME
 *
 * Output: a line LINK_ID<TAB>PROG_ID, then "ready"; it then waits for EOF
 * on stdin and exits, which detaches the link. The program's drop counter
 * is its own: the test asks the network whether it still drops.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

static int die(const char *what)
{
	fprintf(stderr, "xdp_link: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	/* r0 = XDP_DROP; exit */
	const struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0,
		 .imm = XDP_DROP},
		{.code = BPF_JMP | BPF_EXIT},
	};
	struct bpf_link_info info = {0};
	__u32 len = sizeof(info);
	unsigned int ifindex;
	int prog, link;
	char c;

	if (argc != 2) {
		fprintf(stderr, "usage: xdp_link IFNAME\n");
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex)
		return die(argv[1]);
	prog = bpf_prog_load(BPF_PROG_TYPE_XDP, "xdp_drop_all", "GPL", insns,
			     2, NULL);
	if (prog < 0)
		return die("load");
	link = bpf_link_create(prog, (int)ifindex, BPF_XDP, NULL);
	if (link < 0)
		return die("link");
	if (bpf_obj_get_info_by_fd(link, &info, &len))
		return die("link info");
	printf("%u\t%u\nready\n", info.id, info.prog_id);
	fflush(stdout);
	for (;;) {
		ssize_t r = read(0, &c, 1);

		if (r == 0 || (r < 0 && errno != EINTR))
			return 0;
	}
}
