// SPDX-License-Identifier: GPL-2.0-only
/* Filling struct bl_error's message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

void bl_errorf(struct bl_error *e, const char *fmt, ...)
{
	static const char cut[] = "...";
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(e->msg))
		memcpy(e->msg + sizeof(e->msg) - sizeof(cut), cut, sizeof(cut));
}
