// SPDX-License-Identifier: GPL-2.0-only
/* Who may see what: the kernel's kallsyms rule, applied per reader. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access.h"

/* capability numbers, linux/capability.h */
#define CAP_SYS_ADMIN_BIT 21
#define CAP_SYSLOG_BIT 34
#define CAP_PERFMON_BIT 38
#define CAP_BPF_BIT 39

bool reader_sees_kernel_addrs(int kptr_restrict, int perf_event_paranoid,
			      bool has_cap_syslog)
{
	switch (kptr_restrict) {
	case 0:
		return perf_event_paranoid <= 1 || has_cap_syslog;
	case 1:
		return has_cap_syslog;
	default:
		return false;
	}
}

int sysctl_read_int(const char *path, int *value)
{
	FILE *f = fopen(path, "re");
	int n;

	if (!f)
		return -errno;
	n = fscanf(f, "%d", value);
	fclose(f);
	return n == 1 ? 0 : -EINVAL;
}

/*
 * Capabilities count only in the initial user namespace, whose inode
 * number is fixed (PROC_USER_INIT_INO, include/linux/proc_ns.h). readlink
 * works where stat of another process's /proc/PID/ns/user may not.
 */
static bool in_initial_userns(pid_t pid)
{
	char path[64], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	return strcmp(link, "user:[4026531837]") == 0;
}

/* CapEff of @pid, counted only in the initial user namespace: 0 else. */
static unsigned long long pid_caps(pid_t pid)
{
	char path[64], line[256];
	unsigned long long eff = 0;
	bool found = false;
	FILE *f;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			found = true;
			break;
		}
	fclose(f);
	return found && in_initial_userns(pid) ? eff : 0;
}

static bool pid_has_cap(pid_t pid, int cap)
{
	return pid_caps(pid) >> cap & 1;
}

bool writer_may_attach(pid_t pid)
{
	unsigned long long caps = pid_caps(pid);

	return (caps >> CAP_SYS_ADMIN_BIT & 1) ||
	       ((caps >> CAP_BPF_BIT & 1) && (caps >> CAP_PERFMON_BIT & 1));
}

bool reader_may_watch(pid_t pid)
{
	unsigned long long caps = pid_caps(pid);

	return (caps >> CAP_SYS_ADMIN_BIT & 1) || (caps >> CAP_PERFMON_BIT & 1);
}

bool reader_may_see_addrs(pid_t pid)
{
	int kptr = 2, paranoid = 2;

	if (sysctl_read_int("/proc/sys/kernel/kptr_restrict", &kptr) ||
	    sysctl_read_int("/proc/sys/kernel/perf_event_paranoid", &paranoid))
		return false;
	if (kptr >= 2)
		return false;
	if (pid <= 0)
		return reader_sees_kernel_addrs(kptr, paranoid, false);
	return reader_sees_kernel_addrs(kptr, paranoid,
					pid_has_cap(pid, CAP_SYSLOG_BIT));
}
