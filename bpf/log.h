/* SPDX-License-Identifier: GPL-2.0-only */
/* The daemon's log: stderr in the foreground, syslog otherwise. */
#ifndef BPFLINKFS_LOG_H
#define BPFLINKFS_LOG_H

#include <stdbool.h>

/**
 * log_set_foreground() - where log_msg() writes: stderr ("bpflinkfs: "
 * prefixed lines) when @foreground, else syslog; set once at start-up
 */
void log_set_foreground(bool foreground);

/**
 * log_route_libbpf() - send libbpf's messages to log_msg(), one log line
 * per line of theirs (libbpf starts them "libbpf: "): warnings at LOG_WARNING, info at
 * LOG_INFO, debug (LOG_DEBUG) only when @debug (the daemon's -d). Call once
 * at start-up, before libbpf is used; without it libbpf prints to stderr,
 * which a daemon in the background has closed.
 */
void log_route_libbpf(bool debug);

/**
 * log_msg() - log one message with syslog priority @priority, as one line:
 * a newline, tab or other control byte in it (a path may hold any byte) is
 * written \n, \t or \xNN, so that no message reads as two
 */
void log_msg(int priority, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * log_stderr() - a start-up message to the terminal of whoever started the
 * daemon ("bpflinkfs: " and one line, escaped as log_msg() does), in the
 * foreground or not: start-up errors are for the person at the shell
 */
void log_stderr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
