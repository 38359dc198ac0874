/* SPDX-License-Identifier: GPL-2.0-only */
/* Every process in /proc, for the walks that fall back on /proc. */
#ifndef BPFLINKFS_PROC_PIDS_H
#define BPFLINKFS_PROC_PIDS_H

/**
 * proc_pids_each() - call @fn for each process directory of /proc (its
 * numeric names, in readdir order) until @fn returns non-zero
 * @fn: gets @ctx and the pid
 * Return: 0, the first non-zero value of @fn, or -errno of opendir(3).
 */
int proc_pids_each(int (*fn)(void *ctx, int pid), void *ctx);

/**
 * proc_fds_each() - call @fn for each open fd of process @pid (the numeric
 * names of /proc/PID/fd) until @fn returns non-zero
 * Return: 0 (also when the process is gone or not ours to look at), or
 * the first non-zero value of @fn.
 */
int proc_fds_each(int pid, int (*fn)(void *ctx, int pid, int fd), void *ctx);

#endif
