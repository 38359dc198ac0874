// SPDX-License-Identifier: GPL-2.0-only
/* The resolver's error value: message and caret column (struct uprobe_err). */
#include <stdarg.h>
#include <stdbool.h>

#include "uprobe_err.h"
#include "uprobe_target.h"

void uprobe_set_err(struct uprobe_err *terr, bool at_symbol, const char *fmt,
		    ...)
{
	va_list ap;

	if (!terr)
		return;
	terr->e.column = at_symbol ? terr->symbol_col : terr->path_col;
	va_start(ap, fmt);
	bl_verrorf(&terr->e, fmt, ap);
	va_end(ap);
}
