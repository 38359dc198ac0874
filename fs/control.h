/* SPDX-License-Identifier: GPL-2.0-only */
/* The control file: line assembly, replies, read-back and error_log
 * (control.c, bpflinkfs(8), What a write does and Reading control). */
#ifndef BPFLINKFS_CONTROL_H
#define BPFLINKFS_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct control_handle;
struct error_log;

struct owned;

/**
 * control_open() - a handle on control; the lines written to it make and
 * remove links in @reg (bpf/make/owned.h), and it reads back @reg's list
 * @log: where its failing lines are recorded (the mount's error_log)
 * Return: the handle, or NULL (ENOMEM).
 */
struct control_handle *control_open(struct owned *reg, struct error_log *log);
void control_release(struct control_handle *h);

/**
 * control_write() - one FUSE write request on control (bpflinkfs(8), What a
 * write does)
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
 * control_flush() - run a last line without a newline (bpflinkfs(8), What a
 * write does)
 * @h: the handle
 * @pid: the process closing it; only the last writer's close runs the line
 * @last: the handle's release: run it whoever wrote it
 * Return: 0, or -errno of the line.
 */
int control_flush(struct control_handle *h, pid_t pid, bool last);

/**
 * control_read() - read-back (bpflinkfs(8), Reading control)
 * Return: bytes copied into @buf, 0 at end-of-file, or -errno.
 */
ssize_t control_read(struct control_handle *h, char *buf, size_t size,
		     off_t off);

/**
 * error_log_new() - an empty error_log: one per mount, made at start and
 * kept in the daemon's state (daemon.h); thread-safe
 * Return: the log, or NULL (ENOMEM).
 */
struct error_log *error_log_new(void);

/** error_log_free() - free @log and its entries; NULL is ignored */
void error_log_free(struct error_log *log);

/**
 * error_log_render() - the error_log contents
 * Return: malloc'd text (caller frees), length in *len; NULL on ENOMEM.
 */
char *error_log_render(struct error_log *log, size_t *len);

/** error_log_clear() - forget every entry */
void error_log_clear(struct error_log *log);

/**
 * error_log_add() - record an error or warning in @log
 * @err: -errno, or 0 for a warning
 * @line_no: 1-based line number on the handle
 * @msg: message
 * @line: the command as written, @line_len bytes
 * @column: 0-based column of the first bad character
 */
void error_log_add(struct error_log *log, int err, unsigned int line_no,
		   const char *msg, const char *line, size_t line_len,
		   size_t column);

#endif
