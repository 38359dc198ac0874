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

/*
 * @fmt formatted, its control bytes written \n, \t or \xNN (malloc'd), or
 * NULL. A backslash stays as it is: a path quoted for a shell ($'...')
 * keeps its meaning.
 */
static char *one_line(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

static char *one_line(const char *fmt, va_list ap)
{
	char *text = NULL, *out, *o;
	const unsigned char *s;

	if (vasprintf(&text, fmt, ap) < 0)
		return NULL;
	out = malloc(strlen(text) * 4 + 1);
	if (!out) {
		free(text);
		return NULL;
	}
	for (s = (const unsigned char *)text, o = out; *s; s++) {
		if (*s == '\n')
			o += sprintf(o, "\\n");
		else if (*s == '\t')
			o += sprintf(o, "\\t");
		else if (*s < 0x20 || *s == 0x7f)
			o += sprintf(o, "\\x%02x", *s);
		else
			*o++ = (char)*s;
	}
	*o = '\0';
	free(text);
	return out;
}

void log_msg(int priority, const char *fmt, ...)
{
	va_list ap;
	char *line;

	va_start(ap, fmt);
	line = one_line(fmt, ap);
	va_end(ap);
	if (!line)
		return;
	if (to_stderr)
		fprintf(stderr, "bpflinkfs: %s\n", line);
	else
		syslog(priority, "%s", line);
	free(line);
}

void log_stderr(const char *fmt, ...)
{
	va_list ap;
	char *line;

	va_start(ap, fmt);
	line = one_line(fmt, ap);
	va_end(ap);
	if (line)
		fprintf(stderr, "bpflinkfs: %s\n", line);
	free(line);
}

/* libbpf's print hook: its message ("libbpf: ...", its own prefix) as one
 * log line, without its closing newline; a newline inside (a path's) is
 * escaped as in every log line */
__attribute__((format(printf, 2, 0))) static int
libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	int priority = level == LIBBPF_WARN ? LOG_WARNING : LOG_INFO;
	char *text = NULL;
	size_t n;

	if (level == LIBBPF_DEBUG && !libbpf_debug)
		return 0;
	if (vasprintf(&text, fmt, ap) < 0)
		return 0;
	n = strlen(text);
	while (n && text[n - 1] == '\n')
		text[--n] = '\0';
	if (n)
		log_msg(level == LIBBPF_DEBUG ? LOG_DEBUG : priority, "%s",
			text);
	free(text);
	return 0;
}

void log_route_libbpf(bool debug)
{
	libbpf_debug = debug;
	libbpf_set_print(libbpf_print);
}
