// SPDX-License-Identifier: GPL-2.0-only
/* Who may see what: the kernel's kallsyms rule, applied per reader. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
 * Return: 1 in it, 0 in another or gone (ENOENT), or -errno.
 */
static int in_initial_userns(pid_t pid)
{
	char path[64], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return errno == ENOENT || errno == ESRCH ? 0 : -errno;
	link[n] = '\0';
	return strcmp(link, "user:[4026531837]") == 0;
}

/*
 * CapEff of @pid into *eff, counted only in the initial user namespace
 * (0 else, and for a process that is gone). capget(2) and readlink(2)
 * take no file descriptor: removing links frees descriptors, so the
 * check must work when the daemon has none left.
 * Return: 0, or -errno when the capabilities cannot be read.
 */
static int pid_caps(pid_t pid, unsigned long long *eff)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3,
					       pid};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int err;

	*eff = 0;
	if (pid <= 0)
		return 0;
	if (syscall(SYS_capget, &hdr, data))
		return errno == ESRCH ? 0 : -errno;
	err = in_initial_userns(pid);
	if (err <= 0)
		return err;
	*eff = data[0].effective | (unsigned long long)data[1].effective << 32;
	return 0;
}

static bool pid_has_cap(pid_t pid, int cap)
{
	unsigned long long caps;

	return pid_caps(pid, &caps) == 0 && caps >> cap & 1;
}

int writer_may_attach(pid_t pid)
{
	unsigned long long caps;
	int err = pid_caps(pid, &caps);

	if (err)
		return err;
	return (caps >> CAP_SYS_ADMIN_BIT & 1) ||
	       ((caps >> CAP_BPF_BIT & 1) && (caps >> CAP_PERFMON_BIT & 1));
}

int requester_may_detach(pid_t pid)
{
	unsigned long long caps;
	int err = pid_caps(pid, &caps);

	return err ? err : (int)(caps >> CAP_SYS_ADMIN_BIT & 1);
}

int reader_may_watch(pid_t pid)
{
	unsigned long long caps;
	int err = pid_caps(pid, &caps);

	if (err)
		return err;
	return (caps >> CAP_SYS_ADMIN_BIT & 1) || (caps >> CAP_PERFMON_BIT & 1);
}

int watcher_access(uid_t uid, pid_t pid)
{
	int may;

	if (uid != 0)
		return -EACCES;
	may = reader_may_watch(pid);
	return may > 0 ? 0 : may < 0 ? may : -EACCES;
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
