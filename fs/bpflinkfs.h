/* SPDX-License-Identifier: GPL-2.0-only */
/* Internal interfaces of the daemon: the tree, owned links, control. */
#ifndef BPFLINKFS_H
#define BPFLINKFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "link_ids.h"
#include "linkinfo.h"
#include "log.h"
#include "owned.h"
#include "parse.h"

struct counter;

/* Daemon-wide state, set up once in main() */
struct daemon {
	struct counter *counter;
	bool allow_other;
	/* -o uid=, gid=, umask=: owner and mode bits of the tree */
	uid_t uid;
	gid_t gid;
	mode_t umask;
};

extern struct daemon daemon_state;

/* --- access.c: who is reading ------------------------------------------ */

/**
 * reader_sees_kernel_addrs() - the kernel's kallsyms_show_value() rule
 * @kptr_restrict: /proc/sys/kernel/kptr_restrict
 * @perf_event_paranoid: /proc/sys/kernel/perf_event_paranoid
 * @has_cap_syslog: the reader has CAP_SYSLOG (in the initial namespace)
 *
 * 0: shown if paranoid <= 1 or CAP_SYSLOG; 1: only with CAP_SYSLOG;
 * 2 (or more): never.
 * Return: true when kernel addresses may be shown to this reader.
 */
bool reader_sees_kernel_addrs(int kptr_restrict, int perf_event_paranoid,
			      bool has_cap_syslog);

/**
 * reader_may_see_addrs() - apply the rule to the process behind a request
 * @pid: from fuse_req_ctx(); 0 (another pid namespace) is unprivileged
 * Return: true when that reader may see kprobe addresses.
 */
bool reader_may_see_addrs(pid_t pid);

/**
 * writer_may_attach() - may the process behind a request create or remove
 * links? What the kernel asks of bpf(BPF_LINK_CREATE) and perf_event_open
 * for probes: CAP_SYS_ADMIN, or CAP_BPF with CAP_PERFMON, effective
 * (CapEff in /proc/PID/status) in the initial user namespace. uid 0 alone
 * is not enough (capability-less root, root of a user namespace).
 * @pid: from fuse_req_ctx(); 0 (another pid namespace) may not
 * Return: true when it may.
 */
bool writer_may_attach(pid_t pid);

/** sysctl_read_int() - read an integer from /proc/sys; -errno on error */
int sysctl_read_int(const char *path, int *value);

/* --- control.c ---------------------------------------------------------- */

struct control_handle;

struct control_handle *control_open(void);
void control_release(struct control_handle *h);

/**
 * control_write() - one FUSE write request on control (DESIGN.md 3.2)
 * @h: the handle
 * @data: bytes written
 * @len: their count
 * @pid: the writer (relative uprobe paths resolve against its cwd)
 * Return: @len, or -errno of the first failing line (all links made by
 * this request are removed again).
 */
ssize_t control_write(struct control_handle *h, const char *data, size_t len,
		      pid_t pid);

/**
 * control_flush() - run a last line without a newline (DESIGN.md 3.2)
 * @h: the handle
 * @pid: the process closing it; only the last writer's close runs the line
 * @last: the handle's release: run it whoever wrote it
 * Return: 0, or -errno of the line.
 */
int control_flush(struct control_handle *h, pid_t pid, bool last);

/**
 * control_read() - read-back (DESIGN.md 3.4)
 * Return: bytes copied into @buf, 0 at end-of-file, or -errno.
 */
ssize_t control_read(struct control_handle *h, char *buf, size_t size,
		     off_t off);

/**
 * error_log_render() - the error_log contents
 * Return: malloc'd text (caller frees), length in *len; NULL on ENOMEM.
 */
char *error_log_render(size_t *len);

/** error_log_clear() - forget every entry */
void error_log_clear(void);

/**
 * error_log_add() - record an error or warning
 * @err: -errno, or 0 for a warning
 * @line_no: 1-based line number on the handle
 * @msg: message
 * @line: the command as written, @line_len bytes
 * @column: 0-based column of the first bad character
 */
void error_log_add(int err, unsigned int line_no, const char *msg,
		   const char *line, size_t line_len, size_t column);

/* --- render.c ----------------------------------------------------------- */

struct reader {
	bool sees_addrs;
};

/* What a per-link file is rendered from */
struct link_view {
	struct link_fields f;
	bool owned;
	struct owned_info own;
	const struct reader *reader;
};

/**
 * link_view_load() - read a perf-event link from the kernel
 * Return: 0, -ENOENT (gone, being removed, or not a perf-event link).
 */
int link_view_load(__u32 id, struct link_view *v);

/** link_view_load_listed() - the same for an id just enumerated */
int link_view_load_listed(__u32 id, struct link_view *v);

enum json_kind { JSON_STRING, JSON_NUMBER, JSON_NONE };

struct link_file {
	const char *name;
	unsigned int kinds; /* 1 << enum perf_link_kind it applies to */
	unsigned int flags; /* LF_* */
	enum json_kind json;
	/* value with its newline into buf; -ENODATA: not known for this link */
	int (*render)(const struct link_view *v, char *buf, size_t len);
};

#define LF_COOKIE (1u << 0) /* only if the kernel reports cookies */
#define LF_MISSED (1u << 1)
#define LF_REFCTR (1u << 2)
#define LF_OWNED (1u << 3)   /* only on links this mount created */
#define LF_LIVE (1u << 4)    /* a counter: direct_io, size 0 */
#define LF_READER (1u << 5)  /* depends on the reader: direct_io, size 0 */
#define LF_BUILTIN (1u << 6) /* owned and running the built-in program */

extern const struct link_file link_files[];
extern const size_t link_file_count;

/**
 * link_file_applies() - does file @i exist for this link?
 * Return: true when it applies to the kind, the kernel reports it and the
 * value is known.
 */
bool link_file_applies(size_t i, const struct link_view *v);

/**
 * link_file_render() - render file @i of a link
 * Return: length (< @len, NUL-terminated), or -ENODATA / -errno.
 */
int link_file_render(size_t i, const struct link_view *v, char *buf,
		     size_t len);

/**
 * render_links_table() / render_links_json() / render_features()
 * Return: malloc'd text (caller frees), length in *len; NULL with errno.
 */
char *render_links_table(const struct reader *r, size_t *len);
char *render_links_json(const struct reader *r, size_t *len);
char *render_features(size_t *len);

#endif
