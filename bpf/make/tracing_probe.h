/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracing (fentry/fexit) and raw tracepoint links with the built-in
 * counter: the target found in kernel BTF, a program instance loaded per
 * link with its counter slot (progs/counter_tracing.bpf.c), the link.
 */
#ifndef BPFLINKFS_TRACING_PROBE_H
#define BPFLINKFS_TRACING_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "counter_load.h"
#include "parse.h"

/**
 * tracing_link_create() - a fentry, fexit or raw tracepoint link that
 * counts into @slot of the counter @c and records its events there
 * @p: the parsed probe (PROBE_FENTRY, PROBE_FEXIT or PROBE_RAWTP); its
 *     path (MODULE) and symbol (FUNC or NAME), with their columns
 * @c: the counter: its hits map, and the events maps and .bss its
 *     programs share (counter_events_maps()), reused by the new instance
 * @slot: the counter slot the new program instance counts into
 * @e: on failure, the message and the caret (under MODULE or FUNC)
 *
 * fentry/fexit: FUNC's BTF id from /sys/kernel/btf/vmlinux, or from
 * /sys/kernel/btf/MODULE (loaded with that module's BTF object fd); the
 * program is BPF_PROG_TYPE_TRACING with expected_attach_type
 * BPF_TRACE_FENTRY/FEXIT; the link is BPF_LINK_CREATE. rawtracepoint:
 * BPF_RAW_TRACEPOINT_OPEN of NAME. Events (bpflinkfs(8), EVENTS) go into the
 * counter's ring; a fexit instance records FUNC's return value, read from
 * its context at the offset BTF gives (none for a function returning void).
 *
 * Return: a link fd, or -ENOENT (no such function in BTF, no such module
 * or raw tracepoint), -EOPNOTSUPP (the kernel or host cannot load
 * trampoline programs: EPERM at load as root, or no kernel BTF), or the
 * kernel's -errno (e.g. a function that cannot be traced).
 */
int tracing_link_create(const struct probe_spec *p, struct counter *c,
			uint32_t slot, struct bl_error *e);

#endif
