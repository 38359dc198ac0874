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

/** log_msg() - log one message with syslog priority @priority */
void log_msg(int priority, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
