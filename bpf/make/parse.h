/* SPDX-License-Identifier: GPL-2.0-only */
/* The control language (bpflinkfs(8), CONTROL LANGUAGE): one line to one
 * command. */
#ifndef BPFLINKFS_PARSE_H
#define BPFLINKFS_PARSE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The longest command (a probe line without the blanks around it) that
 * makes links: every link keeps its command whole as its spec, in the
 * tree, links.json, control's listing and a pin_dir's meta map (whose
 * records have room for 8031 bytes). Longer ones are refused (EINVAL).
 */
#define COMMAND_MAX_BYTES 8000u

#include "error.h"

enum cmd_kind {
	CMD_NONE,	/* blank line or comment */
	CMD_PROBE,	/* create link(s) */
	CMD_REMOVE,	/* -ID */
	CMD_REMOVE_ALL, /* -* */
};

enum probe_kind {
	PROBE_KPROBE,
	PROBE_KRETPROBE,
	PROBE_UPROBE,
	PROBE_URETPROBE,
	PROBE_TRACEPOINT,
	PROBE_SOFTWARE,
	PROBE_HARDWARE,
	PROBE_FENTRY,
	PROBE_FEXIT,
	PROBE_RAWTP,
	PROBE_USDT,
};

/* Bits of probe_spec.opts: which OPTIONs the line gave. */
#define OPT_COOKIE (1u << 0)
#define OPT_PID (1u << 1)
#define OPT_CPU (1u << 2)
#define OPT_PERIOD (1u << 3) /* period= or s:EVENT:PERIOD */
#define OPT_FREQ (1u << 4)
#define OPT_PROG (1u << 5)
#define OPT_LATENCY (1u << 6) /* bare word: time each call */
#define OPT_STACKS (1u << 7)  /* stacks=user|kernel|both */
#define OPT_BY (1u << 8)      /* by=pid|comm|cgroup */
/* The options that need the built-in program's per-link extras */
#define OPT_SIGHT (OPT_LATENCY | OPT_STACKS | OPT_BY)

/* Bits of probe_spec.stacks */
#define STACKS_USER (1u << 0)
#define STACKS_KERNEL (1u << 1)

/* probe_spec.by: what hits_by counts hits per */
enum hits_by {
	BY_NONE,
	BY_PID,
	BY_COMM,
	BY_CGROUP,
};

#define PROBE_NAME_MAX 512 /* kprobe function names, tracepoint parts */

struct probe_spec {
	enum probe_kind kind;
	/*
	 * uprobe/uretprobe: path as written, quotes removed, not resolved.
	 * kprobe: MODULE when given as MODULE:FUNC, else empty.
	 * tracepoint: CATEGORY.
	 * fentry/fexit/rawtracepoint: MODULE when given, else empty.
	 * usdt: PATH as for uprobes.
	 */
	char path[PATH_MAX];
	/*
	 * kprobe: FUNC; uprobe: SYMBOL (empty when by_offset);
	 * tracepoint: NAME; software/hardware: event name as written;
	 * fentry/fexit: FUNC; rawtracepoint: NAME; usdt: the probe's NAME.
	 */
	char symbol[PROBE_NAME_MAX];
	/* usdt: PROVIDER when given, else empty; its column */
	char provider[PROBE_NAME_MAX];
	size_t provider_col;
	/* 0-based columns of path and symbol in the line (for a caret) */
	size_t path_col;
	size_t symbol_col;
	/* uprobe PATH:0xFILEOFFSET: offset is a file offset, no symbol */
	bool by_offset;
	/* +OFFSET after a symbol or function, or the FILEOFFSET; 0 if none */
	uint64_t offset;
	/* software/hardware: PERF_TYPE_* and perf_event_attr.config */
	uint32_t perf_type;
	uint64_t perf_config;
	unsigned int opts; /* OPT_* bits */
	uint64_t cookie;
	int pid;	     /* -1 unless OPT_PID */
	int cpu;	     /* -1 unless OPT_CPU */
	uint64_t period;     /* events: the given or the default period */
	uint64_t freq;	     /* events: when OPT_FREQ */
	char prog[PATH_MAX]; /* OPT_PROG: bpffs path of the pinned program */
	size_t prog_col;     /* OPT_PROG: where prog= starts, for the caret */
	unsigned int stacks; /* OPT_STACKS: STACKS_* bits */
	enum hits_by by;     /* OPT_BY */
	/* where latency, stacks= and by= start, for the caret */
	size_t latency_col, stacks_col, by_col;
	/* SYMBOL or FUNC holds `*`, `?` or `[...]`: one multi link (a uprobe
	 * SYMBOL only if the file has no symbol of exactly that name) */
	bool wildcard;
	/* uprobe: SYMBOL was double-quoted, so never a pattern */
	bool quoted;
	/* uprobe: where +OFFSET starts after a wildcard SYMBOL, 0 if none:
	 * refused unless SYMBOL names a symbol exactly */
	size_t pattern_plus_col;
};

struct parsed_cmd {
	enum cmd_kind kind;
	uint32_t link_id;	 /* CMD_REMOVE */
	struct probe_spec probe; /* CMD_PROBE */
};

/**
 * parse_line() - parse one control line
 * @line: the line, without its newline; need not be NUL-terminated and may
 *        contain any bytes (NUL included)
 * @len: its length in bytes
 * @cmd: out, the command (valid when 0 is returned)
 * @perr: out, the error (valid when a negative value is returned)
 *
 * A pure function: no file system, no kernel. Symbols, paths and
 * tracepoint names are checked for syntax only.
 *
 * Return: 0, or -EINVAL (syntax, bad number, bad option, option that does
 * not apply to the probe kind), -ENOENT (unknown software/hardware event
 * name). @perr->column points at the first bad character.
 */
int parse_line(const char *line, size_t len, struct parsed_cmd *cmd,
	       struct bl_error *perr);

/**
 * probe_kind_name() - "uprobe", "kretprobe", "tracepoint", "software", ...
 */
const char *probe_kind_name(enum probe_kind kind);

#endif
