// SPDX-License-Identifier: GPL-2.0-only
/*
 * Filling struct bl_error: its errno, caret, message and warning, cut
 * with "..." when too long; paths quoted short.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/*
 * @fmt into @buf of @len bytes. Too long, its middle gives way to "...":
 * a message names what it is about first and the cause last ("line 1:
 * PATH: No such file or directory"), and a long path in between must not
 * push the cause out.
 */
static void vcut(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void vcut(char *buf, size_t len, const char *fmt, va_list ap)
{
	char *whole = NULL;
	size_t n, head, tail;
	va_list copy;

	va_copy(copy, ap);
	n = (size_t)vsnprintf(buf, len, fmt, ap);
	if (n < len || len < sizeof("a...b")) {
		va_end(copy);
		return;
	}
	if (vasprintf(&whole, fmt, copy) < 0) {
		va_end(copy);
		memcpy(buf + len - sizeof("..."), "...", sizeof("..."));
		return;
	}
	va_end(copy);
	head = (len - sizeof("...")) / 3;
	tail = len - sizeof("...") - head;
	snprintf(buf, len, "%.*s...%s", (int)head, whole, whole + n - tail);
	free(whole);
}

void bl_verrorf(struct bl_error *e, const char *fmt, va_list ap)
{
	if (e)
		vcut(e->msg, sizeof(e->msg), fmt, ap);
}

void bl_errorf(struct bl_error *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bl_verrorf(e, fmt, ap);
	va_end(ap);
}

void bl_warnf(struct bl_error *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vcut(e->warning, sizeof(e->warning), fmt, ap);
	va_end(ap);
}

int bl_vfail_at(struct bl_error *e, int err, size_t column, const char *fmt,
		va_list ap)
{
	if (e) {
		e->err = err;
		e->column = column;
	}
	bl_verrorf(e, fmt, ap);
	return err;
}

int bl_fail_at(struct bl_error *e, int err, size_t column, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bl_vfail_at(e, err, column, fmt, ap);
	va_end(ap);
	return err;
}

int bl_fail(struct bl_error *e, int err, const char *fmt, ...)
{
	va_list ap;

	if (e)
		e->err = err;
	va_start(ap, fmt);
	bl_verrorf(e, fmt, ap);
	va_end(ap);
	return err;
}

const char *bl_path_cut(char *buf, size_t len, const char *path)
{
	size_t n = strlen(path), room, head;

	if (n < len || len < sizeof("a...b"))
		return path;
	room = len - sizeof("...");
	head = room / 3;
	snprintf(buf, len, "%.*s...%s", (int)head, path,
		 path + n - (room - head));
	return buf;
}
