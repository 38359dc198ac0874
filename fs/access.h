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
 * (CapEff in /proc/PID/status) in the initial user namespace. uid 0 alone
 * is not enough (capability-less root, root of a user namespace).
 * @pid: from fuse_req_ctx(); 0 (another pid namespace) may not
 * Return: true when it may.
 */
bool writer_may_attach(pid_t pid);

/**
 * reader_may_watch() - may the process behind a request open a stream of
 * other processes' events (events, top)? What perf asks of whoever
 * watches other processes: CAP_PERFMON or CAP_SYS_ADMIN, effective in the
 * initial user namespace (uid 0 alone is not enough).
 * @pid: from fuse_req_ctx(); 0 (another pid namespace) may not
 * Return: true when it may.
 */
bool reader_may_watch(pid_t pid);

/** sysctl_read_int() - read an integer from /proc/sys; -errno on error */
int sysctl_read_int(const char *path, int *value);

#endif
