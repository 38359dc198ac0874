// SPDX-License-Identifier: GPL-2.0-only
/* The daemon's log: stderr in the foreground, syslog otherwise. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <syslog.h>

#include "log.h"

static bool to_stderr;

void log_set_foreground(bool foreground)
{
	to_stderr = foreground;
}

void log_msg(int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (to_stderr) {
		fprintf(stderr, "bpflinkfs: ");
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	} else {
		vsyslog(priority, fmt, ap);
	}
	va_end(ap);
}
