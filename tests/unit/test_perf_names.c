// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf/read/perf_names.c's perf_event_describe() against snprintf(3): the
 * name of a software and a hardware event (by its canonical config and by
 * an alias type), cut at every buffer length from 0 up, gives what
 * snprintf gives for the same text: the whole length, what fits, a NUL.
 */
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>

#include "check.h"
#include "perf_names.h"

struct sample {
	__u32 type;
	__u64 config;
	const char *want;
};

static const struct sample samples[] = {
	{PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "software:cpu-clock"},
	{PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "software:page-faults"},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "hardware:cpu-cycles"},
	{PERF_TYPE_RAW, 42, "raw:42"},
};

int main(void)
{
	char got[64], want[64];
	size_t i, len;

	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		const struct sample *s = &samples[i];

		for (len = 0; len <= strlen(s->want) + 2; len++) {
			int r, w;

			memset(got, 'Z', sizeof(got));
			memset(want, 'Z', sizeof(want));
			r = perf_event_describe(s->type, s->config, got, len);
			w = snprintf(want, len, "%s", s->want);
			EXPECT(r == w && !memcmp(got, want, sizeof(got)),
			       "%s in %zu bytes: got %d '%.*s', want %d",
			       s->want, len, r,
			       len ? (int)strnlen(got, len) : 0, got, w);
		}
		group_end("%s at every length, as snprintf", s->want);
	}
	return done_testing();
}
