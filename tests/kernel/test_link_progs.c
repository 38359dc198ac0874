// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf/read/link_progs.c against the kernel's info calls. A raw tracepoint link
 * made here on a tracepoint that does not fire (sched_kthread_stop), its
 * program run RUNS times with BPF_PROG_TEST_RUN while this test holds a
 * BPF_ENABLE_STATS fd: the iterator must give the link its program's id
 * and name, and run_cnt and run_time_ns equal to what
 * BPF_OBJ_GET_INFO_BY_FD says (the program does not run otherwise), and
 * RUNS more after RUNS more runs. Every other link of the host: its
 * program id as its link info says, its counts no higher than the
 * program's info read just after (they only grow), its type as its link
 * info says. The read lists the links as the tables take them: ascending,
 * and every link a BPF_LINK_GET_NEXT_ID walk finds before it and that
 * still exists after it. The handle's own link is left out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "check.h"
#include "link_progs.h"
#include "task_files.h"

#define RUNS 50

/* r0 = 0; exit, as a raw tracepoint program named lp_test */
static int load_prog(void)
{
	struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "lp_test", "GPL",
			       insns, 2, NULL);

	return fd < 0 ? -errno : fd;
}

static int test_run(int fd)
{
	__u64 args[1] = {0};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args,
		    .ctx_size_in = sizeof(args));
	int i;

	for (i = 0; i < RUNS; i++)
		if (bpf_prog_test_run_opts(fd, &opts))
			return -errno;
	return 0;
}

static const struct link_prog *
read_one(struct link_progs *lp, struct link_prog **v, int *n, __u32 link_id)
{
	free(*v);
	*v = NULL;
	*n = link_progs_read(lp, v);
	return *n > 0 ? link_prog_find(*v, *n, link_id) : NULL;
}

/* every link: its program as link info says, counts not past the info's */
static void every_link(const struct link_prog *v, int n)
{
	int i, checked = 0;

	for (i = 0; i < n; i++) {
		struct bpf_link_info li = {0};
		struct bpf_prog_info pi = {0};
		__u32 len = sizeof(li);
		int fd = bpf_link_get_fd_by_id(v[i].link_id);

		if (fd < 0)
			continue; /* gone meanwhile */
		if (bpf_obj_get_info_by_fd(fd, &li, &len)) {
			close(fd);
			continue;
		}
		close(fd);
		fd = bpf_prog_get_fd_by_id(v[i].prog_id);
		len = sizeof(pi);
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &pi, &len)) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		close(fd);
		checked++;
		EXPECT(li.prog_id == v[i].prog_id && li.type == v[i].type &&
			       v[i].has_stats &&
			       !strncmp(pi.name, v[i].stats.name, 16) &&
			       v[i].stats.run_cnt <= pi.run_cnt &&
			       v[i].stats.run_time_ns <= pi.run_time_ns &&
			       v[i].stats.recursion_misses <=
				       pi.recursion_misses,
		       "link %u: type %u (info %u), prog %u (info %u), run_cnt "
		       "%llu (info %llu)",
		       v[i].link_id, v[i].type, li.type, v[i].prog_id,
		       li.prog_id, (unsigned long long)v[i].stats.run_cnt,
		       (unsigned long long)pi.run_cnt);
	}
	group_end("every link's program and counts agree with the info calls "
		  "(%d links)",
		  checked);
}

/*
 * A perf link's perf_key is the key the task-file programs give its perf
 * event (task_files_perf_link_keys()), while the link lives; other links
 * have none. Links of other processes come and go: one not found is
 * checked to be gone.
 */
static void perf_keys(const struct link_prog *v, int n)
{
	struct task_files *tf = NULL;
	__u64 *keys = NULL;
	int nk, i, j, checked = 0, fd;

	if (task_files_open(&tf) ||
	    (nk = task_files_perf_link_keys(tf, &keys)) < 0) {
		skip("no link iterator in the task-file programs here");
		task_files_close(tf);
		return;
	}
	for (i = 0; i < n; i++) {
		if (v[i].type != BPF_LINK_TYPE_PERF_EVENT) {
			EXPECT(!v[i].perf_key, "link %u (type %u): perf_key",
			       v[i].link_id, v[i].type);
			continue;
		}
		for (j = 0; j < nk && keys[j] != v[i].perf_key; j++)
			;
		if (j < nk) {
			checked++;
			continue;
		}
		fd = bpf_link_get_fd_by_id(v[i].link_id);
		EXPECT(fd < 0, "perf link %u: its perf_key is not its perf "
		       "event's", v[i].link_id);
		if (fd >= 0)
			close(fd);
	}
	group_end("perf links' perf_key as the task-file programs read it "
		  "(%d perf links)", checked);
	free(keys);
	task_files_close(tf);
}

/* the kernel's link ids now, one BPF_LINK_GET_NEXT_ID at a time */
static int walk_ids(__u32 *ids, int max)
{
	__u32 id = 0;
	int n = 0;

	while (n < max && !bpf_link_get_next_id(id, &id))
		ids[n++] = id;
	return n;
}

/* the read as a list of links: ascending, none missing that lived through */
static void same_ids(struct link_progs *lp)
{
	static __u32 before[1 << 16];
	struct link_prog *v = NULL;
	int nb = walk_ids(before, 1 << 16), n, i, missing = 0, up = 1;
	__u32 own = link_progs_own(lp);

	n = link_progs_read(lp, &v);
	for (i = 1; i < n; i++)
		up &= v[i - 1].link_id < v[i].link_id;
	for (i = 0; n > 0 && i < nb; i++) {
		int fd;

		if (before[i] == own || link_prog_find(v, n, before[i]))
			continue;
		fd = bpf_link_get_fd_by_id(before[i]);
		if (fd >= 0) { /* listed before and after, not in between */
			missing++;
			close(fd);
		}
	}
	CHECK(n > 0 && up && !missing,
	      "the read lists every link, ascending: %d links, %d of the "
	      "walk's %d missing",
	      n, missing, nb);
	free(v);
}

int main(void)
{
	struct link_progs *lp = NULL;
	struct link_prog *v = NULL;
	const struct link_prog *r;
	struct bpf_link_info li = {0};
	struct bpf_prog_info pi = {0};
	__u32 len = sizeof(li);
	int prog, link, stats, n, err;
	__u64 cnt0;

	if (geteuid() != 0)
		skip_all("needs root");
	err = link_progs_open(&lp);
	if (err)
		skip_all("the link-program iterator does not load here (%s)",
			 strerror(-err));
	prog = load_prog();
	link = prog >= 0 ? bpf_raw_tracepoint_open("sched_kthread_stop", prog)
			 : -1;
	stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (prog < 0 || link < 0 || stats < 0)
		skip_all("no raw tracepoint link or BPF_ENABLE_STATS (%s)",
			 strerror(errno));
	CHECK(!bpf_obj_get_info_by_fd(link, &li, &len),
	      "the test's link: id %u", li.id);
	CHECK(test_run(prog) == 0, "%d runs of its program", RUNS);
	r = read_one(lp, &v, &n, li.id);
	len = sizeof(pi);
	bpf_obj_get_info_by_fd(prog, &pi, &len);
	CHECK(r && r->prog_id == li.prog_id && r->has_stats &&
		      r->type == BPF_LINK_TYPE_RAW_TRACEPOINT &&
		      !strcmp(r->stats.name, "lp_test"),
	      "the link's program: id %u, name %s", r ? r->prog_id : 0,
	      r ? r->stats.name : "-");
	CHECK(r && r->stats.run_cnt == pi.run_cnt && pi.run_cnt >= RUNS &&
		      r->stats.run_time_ns == pi.run_time_ns &&
		      r->stats.recursion_misses == pi.recursion_misses,
	      "run_cnt %llu, run_time_ns %llu as the info call (%llu, %llu)",
	      r ? (unsigned long long)r->stats.run_cnt : 0ULL,
	      r ? (unsigned long long)r->stats.run_time_ns : 0ULL,
	      (unsigned long long)pi.run_cnt,
	      (unsigned long long)pi.run_time_ns);
	cnt0 = r ? r->stats.run_cnt : 0;
	CHECK(test_run(prog) == 0, "%d more runs", RUNS);
	r = read_one(lp, &v, &n, li.id);
	CHECK(r && r->stats.run_cnt == cnt0 + RUNS,
	      "the next read counts them: %llu -> %llu",
	      (unsigned long long)cnt0,
	      r ? (unsigned long long)r->stats.run_cnt : 0ULL);
	CHECK(n > 0 && !link_prog_find(v, n, link_progs_own(lp)),
	      "the handle's own link %u is left out", link_progs_own(lp));
	if (n > 0)
		every_link(v, n);
	if (n > 0)
		perf_keys(v, n);
	same_ids(lp);
	close(link);
	r = read_one(lp, &v, &n, li.id);
	CHECK(n >= 0 && !r, "the link closed: gone from the next read");
	free(v);
	close(stats);
	close(prog);
	link_progs_close(lp);
	link_progs_close(NULL);
	return done_testing();
}
