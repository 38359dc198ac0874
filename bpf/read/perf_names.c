// SPDX-License-Identifier: GPL-2.0-only
#include "perf_names.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

struct event_name {
	const char *name;
	uint64_t config;
	uint64_t period; /* bpftrace's default */
};

static const struct event_name software_events[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 1000000 },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK, 1000000 },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS, 100 },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, 1000 },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, 1000000 },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN, 1000000 },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1000000 },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS, 1000000 },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS, 1000000 },
	{ "dummy", PERF_COUNT_SW_DUMMY, 1000000 },
	{ "bpf-output", PERF_COUNT_SW_BPF_OUTPUT, 1000000 },
	{ "cgroup-switches", 11 /* PERF_COUNT_SW_CGROUP_SWITCHES, 5.13 */,
	  1000000 },
	/* aliases, as perf(1) and bpftrace accept them; decoding stops above */
	{ "cpu", PERF_COUNT_SW_CPU_CLOCK, 1000000 },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS, 100 },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES, 1000 },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS, 1000000 },
};
#define SOFTWARE_CANONICAL 12

static const struct event_name hardware_events[] = {
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES, 1000000 },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS, 1000000 },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES, 1000000 },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES, 1000000 },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1000000 },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES, 1000000 },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES, 1000000 },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
	  1000000 },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
	  1000000 },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES, 1000000 },
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES, 1000000 },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 10000000 },
	{ "cache-refs", PERF_COUNT_HW_CACHE_REFERENCES, 1000000 },
};
#define HARDWARE_CANONICAL 10

static const char *const hw_cache_names[] = { "L1-dcache", "L1-icache", "LLC",
					      "dTLB",	   "iTLB",	"branch",
					      "node" };
static const char *const hw_cache_ops[] = { "load", "store", "prefetch" };
static const char *const hw_cache_results[] = { "refs", "misses" };

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* cpu-clock and task-clock may be forwarded to dynamic PMUs (6.x): facts
 * of the running kernel, set once at start (perf_sw_alias_set()), read-only
 * afterwards. */
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
	if (sw_config < ARRAY_LEN(sw_aliases) &&
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
		n = ARRAY_LEN(software_events);
	} else if (perf_type == PERF_TYPE_HARDWARE) {
		table = hardware_events;
		n = ARRAY_LEN(hardware_events);
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

static int describe_hw_cache(uint64_t config, char *buf, size_t len)
{
	uint64_t id = config & 0xff, op = (config >> 8) & 0xff,
		 result = (config >> 16) & 0xff;

	if (config >> 24 || id >= ARRAY_LEN(hw_cache_names) ||
	    op >= ARRAY_LEN(hw_cache_ops) ||
	    result >= ARRAY_LEN(hw_cache_results))
		return snprintf(buf, len, "hw-cache:%llu",
				(unsigned long long)config);
	return snprintf(buf, len, "hw-cache:%s-%s-%s", hw_cache_names[id],
			hw_cache_ops[op], hw_cache_results[result]);
}

int perf_event_describe(uint32_t perf_type, uint64_t config, char *buf,
			size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(sw_aliases); i++)
		if (perf_type == sw_aliases[i].type &&
		    config == sw_aliases[i].config)
			return snprintf(buf, len, "software:%s",
					software_events[i].name);
	switch (perf_type) {
	case PERF_TYPE_SOFTWARE:
		if (config < SOFTWARE_CANONICAL)
			return snprintf(buf, len, "software:%s",
					software_events[config].name);
		break;
	case PERF_TYPE_HARDWARE:
		if (config < HARDWARE_CANONICAL)
			return snprintf(buf, len, "hardware:%s",
					hardware_events[config].name);
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
