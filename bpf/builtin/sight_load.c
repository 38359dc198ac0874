// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loading the per-link program (progs/sight.bpf.c): one instance per link
 * that asks for by= or latency, with its options in .rodata and its own
 * by= and latency maps, on the counter's hits and events maps.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "array_size.h"
#include "sight.h"
#include "sight.skel.h"

int sight_check(const struct probe_spec *p, struct bl_error *e)
{
	bool tracing = p->kind == PROBE_FENTRY || p->kind == PROBE_FEXIT ||
		       p->kind == PROBE_RAWTP;

	if (tracing && p->opts & OPT_STACKS)
		return bl_fail_at(e, -EOPNOTSUPP, p->stacks_col,
				  "stacks= on fentry, fexit and rawtracepoint "
				  "links is not supported by this build");
	if (tracing && p->opts & OPT_LATENCY)
		return bl_fail_at(e, -EOPNOTSUPP, p->latency_col,
				  "latency on fentry is not supported by this "
				  "build (it times calls of user code only)");
	if (tracing && p->opts & OPT_BY)
		return bl_fail_at(
			e, -EOPNOTSUPP, p->by_col,
			"by= on fentry, fexit and rawtracepoint links is "
			"not supported by this build");
	if (p->opts & OPT_LATENCY && p->kind == PROBE_KPROBE)
		return bl_fail_at(e, -EOPNOTSUPP, p->latency_col,
				  "latency on kprobes is not supported by this "
				  "build (it times calls of user code only)");
	return 0;
}

/* The value of enumerator @name in the kernel's BTF, or -ENOENT. */
static int btf_enum_value(const char *name)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int ret = -ENOENT;
	__u32 i, n;

	if (!btf)
		return -ENOENT;
	n = btf__type_cnt(btf);
	for (i = 1; i < n && ret < 0; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const struct btf_enum *en;
		__u16 j;

		if (!btf_is_enum(t))
			continue;
		en = btf_enum(t);
		for (j = 0; j < btf_vlen(t); j++)
			if (!strcmp(btf__name_by_offset(btf, en[j].name_off),
				    name)) {
				ret = en[j].val;
				break;
			}
	}
	btf__free(btf);
	return ret;
}

int sight_session_attach_type(void)
{
	int v = btf_enum_value("BPF_TRACE_UPROBE_SESSION");

	return v < 0 ? -EOPNOTSUPP : v;
}

/*
 * The programs that run for @p into @run (the second only for a pair:
 * sight_entry and sight_return); the others are not loaded.
 */
static void pick(struct sight_bpf *skel, const struct probe_spec *p, bool pair,
		 struct bpf_program *run[2])
{
	struct bpf_program *all[] = {
		skel->progs.sight_kprobe, skel->progs.sight_tp,
		skel->progs.sight_perf,	  skel->progs.sight_session,
		skel->progs.sight_entry,  skel->progs.sight_return};
	size_t i;

	run[1] = NULL;
	if (pair) {
		run[0] = skel->progs.sight_entry;
		run[1] = skel->progs.sight_return;
	} else if (p->opts & OPT_LATENCY) {
		run[0] = skel->progs.sight_session;
	} else if (p->kind == PROBE_TRACEPOINT) {
		run[0] = skel->progs.sight_tp;
	} else if (p->kind == PROBE_SOFTWARE || p->kind == PROBE_HARDWARE) {
		run[0] = skel->progs.sight_perf;
	} else {
		run[0] = skel->progs.sight_kprobe;
	}
	for (i = 0; i < ARRAY_SIZE(all); i++)
		bpf_program__set_autoload(all[i],
					  all[i] == run[0] || all[i] == run[1]);
}

/* The counter's maps in place of the object's own (events_common.h). */
static int reuse_counter_maps(struct sight_bpf *skel,
			      const struct counter_events *ev)
{
	int err = bpf_map__reuse_fd(skel->maps.hits, ev->hits_fd);

	if (!err)
		err = bpf_map__reuse_fd(skel->maps.events_on, ev->on_fd);
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.events_lost, ev->lost_fd);
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.events_ring, ev->ring_fd);
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.bss, ev->bss_fd);
	return err;
}

/* The maps' sizes for what @p asks, before load */
static int size_maps(struct sight_bpf *skel, const struct probe_spec *p,
		     uint32_t ntargets, bool pair)
{
	int err = 0;

	if (!(p->opts & OPT_BY))
		err = bpf_map__set_max_entries(skel->maps.sight_by, 1);
	if (!err && p->opts & OPT_LATENCY)
		err = bpf_map__set_max_entries(skel->maps.sight_lat,
					       ntargets * SIGHT_LAT_STRIDE);
	if (!err && pair)
		err = bpf_map__set_max_entries(skel->maps.sight_start,
					       SIGHT_PAIR_THREADS);
	/* stack maps are allocated whole at load: 1 KiB a stack of
	 * addresses, 4 KiB one of build ids (fewer: user_frame() names the
	 * rest through the process while it runs) */
	if (!err && p->opts & OPT_STACKS && p->stacks & STACKS_USER)
		err = bpf_map__set_max_entries(skel->maps.sight_ustackmap,
					       SIGHT_STACKS);
	if (!err && p->opts & OPT_STACKS && p->stacks & STACKS_USER)
		err = bpf_map__set_max_entries(skel->maps.sight_ubidmap,
					       SIGHT_BID_STACKS);
	if (!err && p->opts & OPT_STACKS && p->stacks & STACKS_USER)
		err = bpf_map__set_max_entries(skel->maps.sight_ubid,
					       SIGHT_BID_STACKS);
	if (!err && p->opts & OPT_STACKS && p->stacks & STACKS_KERNEL)
		err = bpf_map__set_max_entries(skel->maps.sight_kstackmap,
					       SIGHT_STACKS);
	if (!err && p->opts & OPT_STACKS)
		err = bpf_map__set_max_entries(skel->maps.sight_stacks,
					       SIGHT_STACKS);
	return err;
}

/* fds[0] (and fds[1] for a pair) of the programs of one loaded object */
static int load(struct counter *c, const struct probe_spec *p,
		uint32_t first_slot, uint32_t ntargets, int attach_type,
		bool pair, int fds[2])
{
	struct bpf_program *run[2];
	struct counter_events ev;
	struct sight_bpf *skel;
	int err = counter_events_maps(c, &ev), i;

	fds[0] = fds[1] = -1;
	if (err)
		return err;
	if (ev.hits_percpu)
		return -EOPNOTSUPP;
	skel = sight_bpf__open();
	if (!skel)
		return errno ? -errno : -ENOMEM;
	skel->rodata->by_mode = p->opts & OPT_BY ? (__u32)p->by : 0;
	skel->rodata->first_slot = first_slot;
	skel->rodata->stack_flags = (p->opts & OPT_STACKS ? p->stacks : 0) &
				    (SIGHT_STACK_USER | SIGHT_STACK_KERNEL);
	pick(skel, p, pair, run);
	for (i = 0; i < 2 && run[i] && !err; i++)
		err = bpf_program__set_expected_attach_type(run[i],
							    attach_type);
	if (!err)
		err = size_maps(skel, p, ntargets, pair);
	if (!err)
		err = reuse_counter_maps(skel, &ev);
	if (!err)
		err = sight_bpf__load(skel);
	for (i = 0; i < 2 && run[i] && !err; i++) {
		fds[i] = fcntl(bpf_program__fd(run[i]), F_DUPFD_CLOEXEC, 0);
		err = fds[i] < 0 ? -errno : 0;
	}
	sight_bpf__destroy(skel); /* the programs hold their maps */
	if (err) {
		for (i = 0; i < 2; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		return err < 0 ? err : -EINVAL;
	}
	return 0;
}

int sight_prog_load(struct counter *c, const struct probe_spec *p,
		    uint32_t first_slot, uint32_t ntargets, int attach_type)
{
	int fds[2], err;

	err = load(c, p, first_slot, ntargets, attach_type, false, fds);
	return err ? err : fds[0];
}

int sight_pair_load(struct counter *c, const struct probe_spec *p,
		    uint32_t first_slot, uint32_t ntargets, int attach_type,
		    int *entry_fd, int *ret_fd)
{
	int fds[2], err;

	err = load(c, p, first_slot, ntargets, attach_type, true, fds);
	if (!err) {
		*entry_fd = fds[0];
		*ret_fd = fds[1];
	}
	return err;
}
