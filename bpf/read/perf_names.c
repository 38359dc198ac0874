// SPDX-License-Identifier: GPL-2.0-only
#include "perf_names.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "array_size.h"

#define SW_CGROUP_SWITCHES 11 /* PERF_COUNT_SW_CGROUP_SWITCHES, 5.13 */
#define SOFTWARE_CANONICAL (SW_CGROUP_SWITCHES + 1)
#define HARDWARE_CANONICAL (PERF_COUNT_HW_REF_CPU_CYCLES + 1)

struct event_name {
	const char *name;
	uint64_t config;
	uint64_t period; /* bpftrace's default */
};

/* Indexed by config up to SOFTWARE_CANONICAL (PERF_COUNT_SW_*, and
 * PERF_COUNT_HW_* below): perf_event_describe() names a config by its
 * entry; the aliases after them only parse. */
static const struct event_name software_events[] = {
	[PERF_COUNT_SW_CPU_CLOCK] = {"cpu-clock", PERF_COUNT_SW_CPU_CLOCK,
				     1000000},
	[PERF_COUNT_SW_TASK_CLOCK] = {"task-clock", PERF_COUNT_SW_TASK_CLOCK,
				      1000000},
	[PERF_COUNT_SW_PAGE_FAULTS] = {"page-faults", PERF_COUNT_SW_PAGE_FAULTS,
				       100},
	[PERF_COUNT_SW_CONTEXT_SWITCHES] = {"context-switches",
					    PERF_COUNT_SW_CONTEXT_SWITCHES,
					    1000},
	[PERF_COUNT_SW_CPU_MIGRATIONS] = {"cpu-migrations",
					  PERF_COUNT_SW_CPU_MIGRATIONS,
					  1000000},
	[PERF_COUNT_SW_PAGE_FAULTS_MIN] = {"minor-faults",
					   PERF_COUNT_SW_PAGE_FAULTS_MIN,
					   1000000},
	[PERF_COUNT_SW_PAGE_FAULTS_MAJ] = {"major-faults",
					   PERF_COUNT_SW_PAGE_FAULTS_MAJ,
					   1000000},
	[PERF_COUNT_SW_ALIGNMENT_FAULTS] = {"alignment-faults",
					    PERF_COUNT_SW_ALIGNMENT_FAULTS,
					    1000000},
	[PERF_COUNT_SW_EMULATION_FAULTS] = {"emulation-faults",
					    PERF_COUNT_SW_EMULATION_FAULTS,
					    1000000},
	[PERF_COUNT_SW_DUMMY] = {"dummy", PERF_COUNT_SW_DUMMY, 1000000},
	[PERF_COUNT_SW_BPF_OUTPUT] = {"bpf-output", PERF_COUNT_SW_BPF_OUTPUT,
				      1000000},
	[SW_CGROUP_SWITCHES] = {"cgroup-switches", SW_CGROUP_SWITCHES, 1000000},
	/* aliases, as perf(1) and bpftrace accept them; decoding stops above */
	[SOFTWARE_CANONICAL] = {"cpu", PERF_COUNT_SW_CPU_CLOCK, 1000000},
	{"faults", PERF_COUNT_SW_PAGE_FAULTS, 100},
	{"cs", PERF_COUNT_SW_CONTEXT_SWITCHES, 1000},
	{"migrations", PERF_COUNT_SW_CPU_MIGRATIONS, 1000000},
};

static const struct event_name hardware_events[] = {
	[PERF_COUNT_HW_CPU_CYCLES] = {"cpu-cycles", PERF_COUNT_HW_CPU_CYCLES,
				      1000000},
	[PERF_COUNT_HW_INSTRUCTIONS] = {"instructions",
					PERF_COUNT_HW_INSTRUCTIONS, 1000000},
	[PERF_COUNT_HW_CACHE_REFERENCES] = {"cache-references",
					    PERF_COUNT_HW_CACHE_REFERENCES,
					    1000000},
	[PERF_COUNT_HW_CACHE_MISSES] = {"cache-misses",
					PERF_COUNT_HW_CACHE_MISSES, 1000000},
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] =
		{"branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		 1000000},
	[PERF_COUNT_HW_BRANCH_MISSES] = {"branch-misses",
					 PERF_COUNT_HW_BRANCH_MISSES, 1000000},
	[PERF_COUNT_HW_BUS_CYCLES] = {"bus-cycles", PERF_COUNT_HW_BUS_CYCLES,
				      1000000},
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] =
		{"stalled-cycles-frontend",
		 PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 1000000},
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] =
		{"stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
		 1000000},
	[PERF_COUNT_HW_REF_CPU_CYCLES] = {"ref-cycles",
					  PERF_COUNT_HW_REF_CPU_CYCLES,
					  1000000},
	/* aliases; decoding stops above */
	[HARDWARE_CANONICAL] = {"cycles", PERF_COUNT_HW_CPU_CYCLES, 1000000},
	{"branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 10000000},
	{"cache-refs", PERF_COUNT_HW_CACHE_REFERENCES, 1000000},
};

/* PERF_TYPE_HW_CACHE's config: id | op << 8 | result << 16 */
static const char *const hw_cache_names[] = {
	[PERF_COUNT_HW_CACHE_L1D] = "L1-dcache",
	[PERF_COUNT_HW_CACHE_L1I] = "L1-icache",
	[PERF_COUNT_HW_CACHE_LL] = "LLC",
	[PERF_COUNT_HW_CACHE_DTLB] = "dTLB",
	[PERF_COUNT_HW_CACHE_ITLB] = "iTLB",
	[PERF_COUNT_HW_CACHE_BPU] = "branch",
	[PERF_COUNT_HW_CACHE_NODE] = "node",
};
static const char *const hw_cache_ops[] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = "load",
	[PERF_COUNT_HW_CACHE_OP_WRITE] = "store",
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = "prefetch",
};
static const char *const hw_cache_results[] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS] = "refs",
	[PERF_COUNT_HW_CACHE_RESULT_MISS] = "misses",
};

/* cpu-clock and task-clock may be forwarded to dynamic PMUs (6.x).
 * Process-wide on purpose: facts of the running kernel, the same for
 * every mount, set once at start before any thread reads them
 * (perf_sw_alias_set()), read-only afterwards. */
struct sw_alias {
	uint32_t type;
	uint64_t config;
};
static struct sw_alias sw_aliases[2] = { { UINT32_MAX, 0 },
					 { UINT32_MAX, 0 } };

void perf_sw_alias_set(uint64_t sw_config, uint32_t perf_type,
		       uint64_t config)
{
	/* the plain software type needs no alias */
	if (sw_config < ARRAY_SIZE(sw_aliases) &&
	    perf_type != PERF_TYPE_SOFTWARE)
		sw_aliases[sw_config] = (struct sw_alias){ perf_type, config };
}

int perf_event_lookup(uint32_t perf_type, const char *name, size_t len,
		      uint64_t *config, uint64_t *default_period)
{
	const struct event_name *table;
	size_t n, i;

	if (perf_type == PERF_TYPE_SOFTWARE) {
		table = software_events;
		n = ARRAY_SIZE(software_events);
	} else if (perf_type == PERF_TYPE_HARDWARE) {
		table = hardware_events;
		n = ARRAY_SIZE(hardware_events);
	} else {
		return -ENOENT;
	}
	for (i = 0; i < n; i++) {
		if (strlen(table[i].name) == len &&
		    memcmp(table[i].name, name, len) == 0) {
			*config = table[i].config;
			if (default_period)
				*default_period = table[i].period;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * "@kind:@name" into @buf as snprintf() would put it (the length of the
 * whole, what fits NUL-ended), without its set-up: a listing names every
 * perf event link this way.
 */
static int kind_name(const char *kind, const char *name, char *buf, size_t len)
{
	size_t k = strlen(kind), n = strlen(name), at = 0;

	if (len) {
		at = k < len - 1 ? k : len - 1;
		memcpy(buf, kind, at);
		if (at < len - 1)
			buf[at++] = ':';
		n = n < len - 1 - at ? n : len - 1 - at;
		memcpy(buf + at, name, n);
		buf[at + n] = '\0';
	}
	return (int)(k + 1 + strlen(name));
}

static int describe_hw_cache(uint64_t config, char *buf, size_t len)
{
	uint64_t id = config & 0xff, op = (config >> 8) & 0xff,
		 result = (config >> 16) & 0xff;

	if (config >> 24 || id >= ARRAY_SIZE(hw_cache_names) ||
	    op >= ARRAY_SIZE(hw_cache_ops) ||
	    result >= ARRAY_SIZE(hw_cache_results))
		return snprintf(buf, len, "hw-cache:%llu",
				(unsigned long long)config);
	return snprintf(buf, len, "hw-cache:%s-%s-%s", hw_cache_names[id],
			hw_cache_ops[op], hw_cache_results[result]);
}

int perf_event_describe(uint32_t perf_type, uint64_t config, char *buf,
			size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sw_aliases); i++)
		if (perf_type == sw_aliases[i].type &&
		    config == sw_aliases[i].config)
			return kind_name("software", software_events[i].name,
					 buf, len);
	switch (perf_type) {
	case PERF_TYPE_SOFTWARE:
		if (config < SOFTWARE_CANONICAL)
			return kind_name("software",
					 software_events[config].name, buf,
					 len);
		break;
	case PERF_TYPE_HARDWARE:
		if (config < HARDWARE_CANONICAL)
			return kind_name("hardware",
					 hardware_events[config].name, buf,
					 len);
		break;
	case PERF_TYPE_HW_CACHE:
		return describe_hw_cache(config, buf, len);
	case PERF_TYPE_RAW:
		return snprintf(buf, len, "raw:%llu",
				(unsigned long long)config);
	}
	return snprintf(buf, len, "%u:%llu", perf_type,
			(unsigned long long)config);
}
