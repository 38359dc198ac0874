// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every link and its program in one read(2): per link its id and type,
 * its program's id and name and the program's run statistics (what
 * BPF_OBJ_GET_INFO_BY_FD answers as run_cnt, run_time_ns and
 * recursion_misses), instead of a walk of the link ids and then a
 * BPF_PROG_GET_FD_BY_ID, an info call and a close per link. The
 * statistics are per-CPU counters (struct bpf_prog_stats); the kernel's
 * own info call sums them over the possible CPUs the same way
 * (kernel/bpf/syscall.c, bpf_prog_get_stats()).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "iter_types.h"

#define LINK_TYPE_PERF_EVENT 7 /* BPF_LINK_TYPE_PERF_EVENT */
#define MAX_CPUS 1024 /* loaded only where the possible CPUs are fewer */

/* u64_stats_t, whatever its inside: only its offset is relocated */
struct u64_stats_opaque {
	long v;
};

struct bpf_prog_stats {
	struct u64_stats_opaque cnt;
	struct u64_stats_opaque nsecs;
	struct u64_stats_opaque misses;
} __attribute__((preserve_access_index));

/* what link_progs.h reads, one record a link */
struct link_prog_rec {
	__u32 link_id;
	__u32 prog_id;
	__u32 type;  /* BPF_LINK_TYPE_* */
	__u32 flags; /* REC_STATS: the run statistics were read */
	__u64 run_cnt;
	__u64 run_time_ns;
	__u64 recursion_misses;
	char name[16];
	__u64 perf_key; /* a perf link's perf event file, else 0 */
};

#define REC_STATS 1

const volatile __u32 ncpus = 1; /* possible CPUs, set before load */

/*
 * A per-CPU array of one element: where its element lies on a CPU, less
 * its per-CPU address (struct bpf_array's pptrs[0]), is that CPU's
 * offset, which locates the program's statistics of that CPU as well.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} cpu_probe SEC(".maps");

struct bpf_array {
	union {
		char value[0];
		void *ptrs[0];
		void *pptrs[0];
	};
} __attribute__((preserve_access_index));

static __u64 read_u64(const void *p)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), p);
	return v;
}

/* A pointer's address as a number: the verifier allows no arithmetic on
 * a map's pointer, and only bounded arithmetic on a map value's. */
static __always_inline __u64 addr_of(const void *p)
{
	__u64 a = 0;

	bpf_probe_read_kernel(&a, sizeof(a), &p);
	return a;
}

/*
 * Each possible CPU's per-CPU offset, found at the first run (they never
 * change): where the probe array's element lies on the CPU, less its
 * per-CPU address. Two readers at once may both find them: the same
 * values.
 */
__u64 cpu_off[MAX_CPUS];
__u32 have_offsets;

static __always_inline int find_offsets(void)
{
	__u64 base = (__u64)BPF_CORE_READ(
		(struct bpf_array *)addr_of(&cpu_probe), pptrs[0]);
	__u32 cpu, zero = 0;

	for (cpu = 0; cpu < MAX_CPUS && cpu < ncpus; cpu++) {
		void *mine = bpf_map_lookup_percpu_elem(&cpu_probe, &zero, cpu);

		if (!mine)
			return -1;
		cpu_off[cpu] = addr_of(mine) - base;
	}
	have_offsets = 1;
	return 0;
}

/* the three counters of one CPU, in one read where they lie in a row */
static __always_inline void add_cpu(struct link_prog_rec *rec,
				    const struct bpf_prog_stats *s)
{
	__u64 v[3] = {};

	if (bpf_core_field_offset(struct bpf_prog_stats, nsecs) ==
		    bpf_core_field_offset(struct bpf_prog_stats, cnt) + 8 &&
	    bpf_core_field_offset(struct bpf_prog_stats, misses) ==
		    bpf_core_field_offset(struct bpf_prog_stats, cnt) + 16) {
		bpf_probe_read_kernel(v, sizeof(v), &s->cnt);
	} else {
		v[0] = read_u64(&s->cnt);
		v[1] = read_u64(&s->nsecs);
		v[2] = read_u64(&s->misses);
	}
	rec->run_cnt += v[0];
	rec->run_time_ns += v[1];
	rec->recursion_misses += v[2];
}

SEC("iter/bpf_link")
int link_progs(struct bpf_iter__bpf_link *ctx)
{
	struct bpf_link *link = ctx->link;
	struct link_prog_rec rec = {};
	struct bpf_prog_aux *aux;
	struct bpf_prog *prog;
	char *stats;
	__u32 cpu;

	/* no link: the end of the walk; id 0: allocated, not yet settled */
	if (!link || !link->id)
		return 0;
	/* every link gets its record, as it is the tables' list of ids */
	rec.link_id = link->id;
	rec.type = link->type;
	if (rec.type == LINK_TYPE_PERF_EVENT)
		rec.perf_key = (__u64)(unsigned long)BPF_CORE_READ(
			(struct bpf_perf_link *)link, perf_file);
	/* the kernel's pointers read directly (faulting loads), the
	 * statistics' per-CPU address as a number to add offsets to */
	prog = link->prog;
	aux = prog ? prog->aux : NULL;
	if (aux) {
		rec.prog_id = aux->id;
		bpf_probe_read_kernel_str(rec.name, sizeof(rec.name),
					  aux->name);
	}
	stats = aux ? (char *)BPF_CORE_READ(prog, stats) : NULL;
	if (stats && (have_offsets || !find_offsets())) {
		for (cpu = 0; cpu < MAX_CPUS && cpu < ncpus; cpu++)
			add_cpu(&rec, (void *)(stats + cpu_off[cpu]));
		rec.flags = REC_STATS;
	}
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
