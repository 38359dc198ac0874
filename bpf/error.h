/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one error value of a control line: the parser, the resolver and
 * attach fill it, and fs/control.c writes it (or, on success, its
 * warning) to error_log unchanged.
 */
#ifndef BPFLINKFS_ERROR_H
#define BPFLINKFS_ERROR_H

#include <stdarg.h>
#include <stddef.h>

/**
 * struct bl_error - what went wrong with a command, and where
 * @err: -errno (-EINVAL, -ENOENT, ...); 0 until a step fails
 * @column: 0-based byte index into the command line of the first bad
 *          character, for the caret; set by the step that knows it
 * @msg: user-facing message, e.g. "unknown option 'foo'"
 * @warning: on success, a note to log all the same (e.g. one link per
 *           match where the kernel has no multi links); "" when none
 */
struct bl_error {
	int err;
	size_t column;
	char msg[512];
	char warning[256];
};

/**
 * bl_errorf() - set @e's message from @fmt (printf), as much as fits
 * @e: the error; only its message changes. NULL: a caller that wants no
 *     message (nothing is written)
 *
 * A message can quote a line or a path longer than the buffer: its middle
 * gives way to "..." then, so that its start (what it is about) and its
 * end (the cause) both stay.
 */
void bl_errorf(struct bl_error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * bl_warnf() - set @e's warning from @fmt, cut as bl_errorf() cuts
 * @e: the error (or NULL); only its warning changes
 */
void bl_warnf(struct bl_error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * bl_fail() - @e fails with @err: its errno and message (bl_errorf())
 * @e: the error (or NULL, as for bl_errorf()); its column stays as it is
 * @err: -errno
 * Return: @err, so that a step can `return bl_fail(e, -ENOENT, ...)`.
 */
int bl_fail(struct bl_error *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * bl_fail_at() - bl_fail(), and the caret under @column of the line
 * Return: @err.
 */
int bl_fail_at(struct bl_error *e, int err, size_t column, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * bl_vfail_at() - bl_fail_at() with a va_list, for a step's own wrapper
 * (the parser's lex_fail())
 * Return: @err.
 */
int bl_vfail_at(struct bl_error *e, int err, size_t column, const char *fmt,
		va_list ap) __attribute__((format(printf, 4, 0)));

/**
 * bl_verrorf() - bl_errorf() with a va_list, for a step's own wrapper
 * (the uprobe resolver's uprobe_set_err())
 */
void bl_verrorf(struct bl_error *e, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* The room bl_path_cut() is given in messages: a few paths still leave
 * the cause and what to do in struct bl_error's message. */
#define BL_PATH_SHOWN 64

/**
 * bl_path_cut() - @path as a message quotes it: whole when it fits in @len
 * bytes, else its start and its end around "..." (the middle is what a
 * reader needs least: where it is, and what it is called)
 * @buf: room for the cut path, @len bytes (BL_PATH_SHOWN, usually; at
 *       least 6, or @path is returned whole)
 * Return: @path or @buf.
 */
const char *bl_path_cut(char *buf, size_t len, const char *path);

/*
 * bl_path_cut() to BL_PATH_SHOWN bytes, in a buffer that lives until the
 * end of the enclosing block: for the arguments of one bl_fail().
 */
#define BL_PATH(path)                                                          \
	bl_path_cut((char[BL_PATH_SHOWN]){0}, BL_PATH_SHOWN, (path))

/*
 * The kernel's internal ENOTSUPP (include/linux/errno.h), which uprobes
 * answer for an instruction they cannot step. It is no errno of the UAPI:
 * the library turns it into EOPNOTSUPP before it reaches a caller.
 */
#define ENOTSUPP_KERNEL 524

#endif
