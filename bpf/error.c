// SPDX-License-Identifier: GPL-2.0-only
/*
 * Filling struct bl_error: its errno, caret, message and warning, cut
 * with "..." when too long; paths quoted short.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

/* @fmt into @buf of @len bytes; too long, it ends with "..." */
static void vcut(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void vcut(char *buf, size_t len, const char *fmt, va_list ap)
{
	static const char cut[] = "...";
	int n = vsnprintf(buf, len, fmt, ap);

	if (n >= (int)len)
		memcpy(buf + len - sizeof(cut), cut, sizeof(cut));
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
