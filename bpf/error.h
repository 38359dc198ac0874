/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one error value of a control line: the parser, the resolver and
 * attach fill it, and fs/control.c writes it to error_log unchanged.
 */
#ifndef BPFLINKFS_ERROR_H
#define BPFLINKFS_ERROR_H

#include <stddef.h>

/**
 * struct bl_error - what went wrong with a command, and where
 * @err: -errno (-EINVAL, -ENOENT, ...); 0 until a step fails
 * @column: 0-based byte index into the command line of the first bad
 *          character, for the caret; set by the step that knows it
 * @msg: user-facing message, e.g. "unknown option 'foo'"
 */
struct bl_error {
	int err;
	size_t column;
	char msg[256];
};

/**
 * bl_errorf() - set @e's message from @fmt (printf), as much as fits
 * @e: the error; only its message changes
 *
 * A message can quote a line or a path longer than the buffer: it is cut
 * and ends with "..." then, instead of ending mid-word without a sign.
 */
void bl_errorf(struct bl_error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The kernel's internal ENOTSUPP (include/linux/errno.h), which uprobes
 * answer for an instruction they cannot step. It is no errno of the UAPI:
 * the library turns it into EOPNOTSUPP before it reaches a caller.
 */
#define ENOTSUPP_KERNEL 524

#endif
