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

/** log_msg() - log one message with syslog priority @priority */
void log_msg(int priority, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
