/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The uprobe resolver's error value (struct uprobe_err in uprobe_target.h):
 * its message and where the caret goes.
 */
#ifndef BPFLINKFS_UPROBE_ERR_H
#define BPFLINKFS_UPROBE_ERR_H

#include <stdbool.h>

#include "uprobe_target.h"

/* Fill @terr (may be NULL): the message, and the caret under SYMBOL when
 * @at_symbol, else under PATH. */
__attribute__((format(printf, 3, 4))) void
uprobe_set_err(struct uprobe_err *terr, bool at_symbol, const char *fmt, ...);

#endif
