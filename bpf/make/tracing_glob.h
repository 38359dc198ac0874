/* SPDX-License-Identifier: GPL-2.0-only */
/* fentry/fexit patterns: one tracing link per match (tracing_glob.c). */
#ifndef BPFLINKFS_TRACING_GLOB_H
#define BPFLINKFS_TRACING_GLOB_H

#include "single_probe.h"

/*
 * The most functions one fentry/fexit pattern may match: each match is a
 * program load and a trampoline of its own (the kernel has no multi link
 * for tracing programs), so a broad pattern is refused, not made slowly.
 */
#define TRACING_GLOB_MAX 64

/**
 * tracing_glob_create() - the links of a fentry/fexit line whose FUNC is a
 * pattern (p->wildcard)
 *
 * The functions are the BTF_KIND_FUNC names of the kernel's BTF
 * (/sys/kernel/btf/vmlinux, or /sys/kernel/btf/MODULE's own types with
 * MODULE:) that FUNC matches (fnmatch(3)), each once, sorted. One tracing
 * link per match through single_probe_create(), each with the line as its
 * spec; if one fails, those made stay in @made for the caller to remove
 * (the line is all-or-nothing).
 *
 * Arguments as single_probe_create().
 * Return: 0, -ENOENT (nothing matches, no such module, no kernel BTF:
 * EOPNOTSUPP), -E2BIG (more than TRACING_GLOB_MAX matches), with the
 * caret under FUNC (MODULE for a module), or the first failing link's
 * -errno (EOPNOTSUPP where the host refuses trampoline programs).
 */
int tracing_glob_create(struct owned *o, const struct probe_spec *p,
			const char *line, size_t len, pid_t pid,
			struct request_ids *made, struct path_memo *memo,
			struct bl_error *e);

#endif
