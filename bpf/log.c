// SPDX-License-Identifier: GPL-2.0-only
/* The daemon's log: stderr in the foreground, syslog otherwise. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <bpf/libbpf.h>

#include "log.h"

/*
 * Process-wide, as libbpf's own print hook is: set once at start-up,
 * before any thread, and read by every thread that logs.
 */
static bool to_stderr;
static bool libbpf_debug;

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

/* libbpf's print hook: each line of its message ("libbpf: ...", its own
 * prefix) as one log line */
__attribute__((format(printf, 2, 0))) static int
libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	int priority = level == LIBBPF_WARN ? LOG_WARNING : LOG_INFO;
	char *text = NULL, *line, *save = NULL;

	if (level == LIBBPF_DEBUG && !libbpf_debug)
		return 0;
	if (vasprintf(&text, fmt, ap) < 0)
		return 0;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		log_msg(level == LIBBPF_DEBUG ? LOG_DEBUG : priority, "%s",
			line);
	free(text);
	return 0;
}

void log_route_libbpf(bool debug)
{
	libbpf_debug = debug;
	libbpf_set_print(libbpf_print);
}
