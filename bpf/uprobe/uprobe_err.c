// SPDX-License-Identifier: GPL-2.0-only
/* The resolver's error value: message and caret column (target_error). */
#include <stdarg.h>
#include <stdio.h>

#include "uprobe_internal.h"
#include "uprobe_target.h"

void uprobe_set_err(struct target_error *terr, size_t column, const char *fmt,
		    ...)
{
	va_list ap;

	if (!terr)
		return;
	terr->column_hint = column;
	va_start(ap, fmt);
	vsnprintf(terr->msg, sizeof(terr->msg), fmt, ap);
	va_end(ap);
}
