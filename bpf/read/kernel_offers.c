// SPDX-License-Identifier: GPL-2.0-only
/* What the kernel lets the daemon create, tried once (kernel_offers.h). */
#include "kernel_offers.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* enum bpf_attach_type values newer than the 6.1 header */
#define ATTACH_TRACE_KPROBE_MULTI 42
#define ATTACH_TRACE_UPROBE_MULTI 48

/* A function every kernel with BPF networking has, made to be traced
 * (net/bpf/test_run.c); libbpf's and bpftool's probes use it too. */
#define PROBE_FUNC "bpf_fentry_test1"

/*
 * Process-wide on purpose: what the running kernel lets a program create
 * is the same for every mount this process serves, and probing it loads
 * programs, so it is asked once (pthread_once, kernel_offers_detect() at
 * start) and read-only afterwards, as libbpf probes kernel features once.
 */
static struct kernel_offers found;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* r0 = 0; exit */
static int prog_load(enum bpf_prog_type type, __u32 attach_type,
		     __u32 attach_btf_id)
{
	static const struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = attach_type,
		    .attach_btf_id = attach_btf_id);
	int fd = bpf_prog_load(type, "bpflinkfs_can", "GPL", insns, 2, &opts);

	return fd < 0 ? -errno : fd;
}

static bool fentry_loads(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	__s32 id = btf ? btf__find_by_name_kind(btf, PROBE_FUNC, BTF_KIND_FUNC)
		       : -ENOENT;
	int fd;

	btf__free(btf);
	if (id <= 0)
		return false;
	fd = prog_load(BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY, id);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static bool raw_tp_loads(void)
{
	int fd = prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, 0, 0);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* A real kprobe_multi link on one function, closed at once. */
static bool kprobe_multi_attaches(void)
{
	const char *syms[] = {PROBE_FUNC};
	LIBBPF_OPTS(bpf_link_create_opts, lopts, .kprobe_multi.syms = syms,
		    .kprobe_multi.cnt = 1);
	int prog =
		prog_load(BPF_PROG_TYPE_KPROBE, ATTACH_TRACE_KPROBE_MULTI, 0);
	int link;

	if (prog < 0)
		return false;
	link = bpf_link_create(prog, 0, ATTACH_TRACE_KPROBE_MULTI, &lopts);
	close(prog);
	if (link < 0)
		return false;
	close(link);
	return true;
}

/* BPF_LINK_CREATE for uprobe_multi (the 6.1 header and libbpf 1.1 lack it),
 * laid out as union bpf_attr's link_create in kernel BTF */
struct uprobe_multi_create {
	__u32 prog_fd, target_fd, attach_type, flags;
	__u64 path, offsets, ref_ctr_offsets, cookies;
	__u32 cnt, multi_flags, pid, pad;
};

/* On "/" (not a regular file) a kernel with uprobe_multi answers EBADF. */
static bool uprobe_multi_exists(void)
{
	__u64 offset = 0;
	struct uprobe_multi_create a;
	int prog =
		prog_load(BPF_PROG_TYPE_KPROBE, ATTACH_TRACE_UPROBE_MULTI, 0);
	int link, err;

	if (prog < 0)
		return false;
	memset(&a, 0, sizeof(a));
	a.prog_fd = prog;
	a.attach_type = ATTACH_TRACE_UPROBE_MULTI;
	a.path = (__u64)(unsigned long)"/";
	a.offsets = (__u64)(unsigned long)&offset;
	a.cnt = 1;
	link = syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	err = link < 0 ? errno : 0;
	if (link >= 0)
		close(link);
	close(prog);
	return err == EBADF;
}

static void detect(void)
{
	found.fentry = fentry_loads();
	found.raw_tp = raw_tp_loads();
	found.kprobe_multi = kprobe_multi_attaches();
	found.uprobe_multi = uprobe_multi_exists();
	found.usdt = access("/sys/bus/event_source/devices/uprobe/format/"
			    "ref_ctr_offset",
			    F_OK) == 0;
}

void kernel_offers_detect(void)
{
	pthread_once(&once, detect);
}

const struct kernel_offers *kernel_offers(void)
{
	pthread_once(&once, detect);
	return &found;
}
