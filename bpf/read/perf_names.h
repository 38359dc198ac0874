/* SPDX-License-Identifier: GPL-2.0-only */
/* Names of generic perf events, spelled as bpftool and bpftrace spell them. */
#ifndef BPFLINKFS_PERF_NAMES_H
#define BPFLINKFS_PERF_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * perf_event_lookup() - find a software or hardware event by name
 * @perf_type: PERF_TYPE_SOFTWARE or PERF_TYPE_HARDWARE (linux/perf_event.h)
 * @name: event name, e.g. "cpu-clock", "cycles", "cs"; aliases accepted
 * @len: length of @name in bytes (need not be NUL-terminated)
 * @config: out, perf_event_attr.config for the event
 * @default_period: out, bpftrace's default sample period for it (may be NULL)
 *
 * Return: 0, or -ENOENT when the name is unknown.
 */
int perf_event_lookup(uint32_t perf_type, const char *name, size_t len,
		      uint64_t *config, uint64_t *default_period);

/**
 * perf_event_describe() - decode a perf event as bpftool does
 * @perf_type: perf_event_attr.type as the kernel reports it in link info
 * @config: perf_event_attr.config
 * @buf: out, e.g. "software:cpu-clock", "hw-cache:LLC-load-misses",
 *       "raw:1234", or "TYPE:CONFIG" when unknown
 * @len: size of @buf
 *
 * Types in perf_sw_aliases[] (dynamic PMUs that the kernel forwards
 * cpu-clock and task-clock to, found at start) decode as software events.
 *
 * Return: number of characters written (as snprintf).
 */
int perf_event_describe(uint32_t perf_type, uint64_t config, char *buf,
			size_t len);

/**
 * perf_sw_alias_set() - record that the kernel reports software event
 * @sw_config as perf type @perf_type with config @config (a dynamic PMU,
 * whose type is assigned at boot).
 */
void perf_sw_alias_set(uint64_t sw_config, uint32_t perf_type,
		       uint64_t config);

#endif
