/* SPDX-License-Identifier: GPL-2.0-only */
/* Who may see what, and who may make links (access.c). */
#ifndef BPFLINKFS_ACCESS_H
#define BPFLINKFS_ACCESS_H

#include <stdbool.h>
#include <sys/types.h>

/**
 * reader_sees_kernel_addrs() - the kernel's kallsyms_show_value() rule
 * @kptr_restrict: /proc/sys/kernel/kptr_restrict
 * @perf_event_paranoid: /proc/sys/kernel/perf_event_paranoid
 * @has_cap_syslog: the reader has CAP_SYSLOG (in the initial namespace)
 *
 * 0: shown if paranoid <= 1 or CAP_SYSLOG; 1: only with CAP_SYSLOG;
 * 2 (or more): never.
 * Return: true when kernel addresses may be shown to this reader.
 */
bool reader_sees_kernel_addrs(int kptr_restrict, int perf_event_paranoid,
			      bool has_cap_syslog);

/**
 * reader_may_see_addrs() - apply the rule to the process behind a request
 * @pid: from fuse_req_ctx(); 0 (another pid namespace) is unprivileged
 * Return: true when that reader may see kprobe addresses.
 */
bool reader_may_see_addrs(pid_t pid);

/**
 * writer_may_attach() - may the process behind a request create or remove
 * links? What the kernel asks of bpf(BPF_LINK_CREATE) and perf_event_open
 * for probes: CAP_SYS_ADMIN, or CAP_BPF with CAP_PERFMON, effective
 * (capget(2)) in the initial user namespace. uid 0 alone is not enough
 * (capability-less root, root of a user namespace). Takes no file
 * descriptor, so it answers when the daemon has none left.
 * @pid: from fuse_req_ctx(); 0 (another pid namespace) may not
 * Return: 1 when it may, 0 when it may not (also for a process gone),
 * -errno when its capabilities cannot be read.
 */
int writer_may_attach(pid_t pid);

/**
 * reader_may_watch() - may the process behind a request watch other
 * processes' events (the `events` streams)? What perf asks of whoever
 * does: CAP_PERFMON or CAP_SYS_ADMIN, effective in the initial user
 * namespace (capget(2), no file descriptor).
 * @pid: from fuse_req_ctx(); 0 (another pid namespace) may not
 * Return: 1 when it may, 0 when it may not, -errno when its capabilities
 * cannot be read.
 */
int reader_may_watch(pid_t pid);

/**
 * watcher_access() - may the process behind a request open a file that
 * streams other processes' events (`events`, `top`)? Root's only (mode
 * 0400, whatever allow_other, uid= and umask= say), and with
 * reader_may_watch(): uid 0 without CAP_PERFMON or CAP_SYS_ADMIN
 * (capabilities dropped, root of a user namespace) may not.
 * @uid, @pid: from fuse_req_ctx()
 * Return: 0, -EACCES, or -errno when the capabilities cannot be read.
 */
int watcher_access(uid_t uid, pid_t pid);

/**
 * requester_may_detach() - may the process behind a request detach a link
 * this mount did not create? The kernel asks CAP_SYS_ADMIN to open a link
 * by its id (BPF_LINK_GET_FD_BY_ID), so the daemon asks the same of the
 * requester, effective in the initial user namespace.
 * @pid: from fuse_req_ctx(); 0 (another pid namespace) may not
 * Return: 1 (may), 0 (may not), or -errno when the capabilities cannot be
 * read.
 */
int requester_may_detach(pid_t pid);

/** sysctl_read_int() - read an integer from /proc/sys; -errno on error */
int sysctl_read_int(const char *path, int *value);

#endif
