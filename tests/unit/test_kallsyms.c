// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kallsyms rule for kprobe addr (fs/access.c) against the kernel's
 * kallsyms_show_value() (kernel/ksyms_common.c, formerly kernel/kallsyms.c):
 *
 *   kptr_restrict 0: shown if perf_event_paranoid <= 1, else as for 1
 *   kptr_restrict 1: shown with CAP_SYSLOG in the initial user namespace
 *   anything else:   never
 *
 * The table below was written from that function's text, not from the
 * code under test. Then reader_may_see_addrs() is checked on real
 * processes: this one, a child that dropped CAP_SYSLOG with capset(2), a
 * child with all capabilities in a new user namespace (which do not count),
 * and pid 0; the expected answers come from the kernel's sysctls and
 * capget(2), never from fs/access.c.
 *
 * Usage: test_kallsyms [--table | --live]: the table alone (suite unit:
 * pure code), the live processes alone (suite kernel: /proc, capabilities
 * of root), or both.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>

#include "access.h"
#include "check.h"

static const struct {
	int kptr_restrict, paranoid;
	bool cap_syslog, shown;
} cases[] = {
	/* kptr_restrict 0: paranoid <= 1 shows to all */
	{ 0, -1, false, true },	 { 0, -1, true, true },
	{ 0, 0, false, true },	 { 0, 0, true, true },
	{ 0, 1, false, true },	 { 0, 1, true, true },
	/* ... else falls through to the CAP_SYSLOG check */
	{ 0, 2, false, false },	 { 0, 2, true, true },
	{ 0, 3, false, false },	 { 0, 3, true, true },
	{ 0, 4, false, false },	 { 0, 4, true, true },
	/* kptr_restrict 1: CAP_SYSLOG only, whatever paranoid says */
	{ 1, -1, false, false }, { 1, -1, true, true },
	{ 1, 0, false, false },	 { 1, 0, true, true },
	{ 1, 1, false, false },	 { 1, 1, true, true },
	{ 1, 2, false, false },	 { 1, 2, true, true },
	{ 1, 4, false, false },	 { 1, 4, true, true },
	/* kptr_restrict 2 (and any other value): never */
	{ 2, -1, false, false }, { 2, -1, true, false },
	{ 2, 0, false, false },	 { 2, 0, true, false },
	{ 2, 1, false, false },	 { 2, 1, true, false },
	{ 2, 2, false, false },	 { 2, 2, true, false },
	{ 3, -1, true, false },	 { -1, -1, true, false },
};

static const char *shown(bool yes)
{
	return yes ? "shown" : "hidden";
}

static void check_table(void)
{
	char what[128];
	size_t i;
	bool got;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(what, sizeof(what),
			 "kptr_restrict=%d perf_event_paranoid=%d cap_syslog=%d",
			 cases[i].kptr_restrict, cases[i].paranoid,
			 cases[i].cap_syslog);
		got = reader_sees_kernel_addrs(cases[i].kptr_restrict,
					       cases[i].paranoid,
					       cases[i].cap_syslog);
		CHECK(got == cases[i].shown, "%s: %s (expected %s)", what,
		      shown(got), shown(cases[i].shown));
	}
}

/* The rule as the kernel states it, for the live-process checks. */
static bool kernel_rule(int kptr, int paranoid, bool cap)
{
	if (kptr == 0 && paranoid <= 1)
		return true;
	return (kptr == 0 || kptr == 1) && cap;
}

static int read_sysctl(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = 0;

	if (!f || fscanf(f, "%d", &v) != 1) {
		bail_out("cannot read %s", path);
	}
	fclose(f);
	return v;
}

/* PROC_USER_INIT_INO (include/linux/proc_ns.h): init_user_ns's inode */
#define USER_INIT_INO 0xEFFFFFFDu

static bool self_in_initial_userns(void)
{
	struct stat st;

	return stat("/proc/self/ns/user", &st) == 0 &&
	       st.st_ino == USER_INIT_INO;
}

/* This process's capability sets, from capget(2). */
struct caps {
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[2];
};

#define SYSLOG_WORD (CAP_SYSLOG / 32)
#define SYSLOG_BIT (1u << (CAP_SYSLOG % 32))

static bool caps_get(struct caps *c)
{
	memset(c, 0, sizeof(*c));
	c->hdr.version = _LINUX_CAPABILITY_VERSION_3;
	return syscall(SYS_capget, &c->hdr, c->data) == 0;
}

/* CAP_SYSLOG in the effective set, which counts in the initial namespace */
static bool self_has_cap_syslog(void)
{
	struct caps c;

	return caps_get(&c) && (c.data[SYSLOG_WORD].effective & SYSLOG_BIT);
}

static bool drop_cap_syslog(void)
{
	struct caps c;

	if (!caps_get(&c))
		return false;
	c.data[SYSLOG_WORD].effective &= ~SYSLOG_BIT;
	return syscall(SYS_capset, &c.hdr, c.data) == 0 &&
	       !self_has_cap_syslog();
}

/*
 * A child that prepares itself (@how: 0 drop CAP_SYSLOG, 1 new user
 * namespace), reports through a pipe and waits to be killed.
 * Return: its pid, or -1 when the preparation was not possible here.
 */
static pid_t child(int how)
{
	int p[2];
	char ok = 0;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		ok = how == 0 ? drop_cap_syslog() :
				(unshare(CLONE_NEWUSER) == 0 &&
				 self_has_cap_syslog() &&
				 !self_in_initial_userns());
		if (write(p[1], &ok, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &ok, 1) != 1 || !ok) {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/* reader_may_see_addrs(@pid) against the kernel's rule for @cap. */
static void expect_pid(pid_t pid, int kptr, int paranoid, bool cap,
		       const char *what)
{
	bool got = reader_may_see_addrs(pid);
	bool want = kernel_rule(kptr, paranoid, cap);

	CHECK(got == want, "%s: %s (expected %s)", what, shown(got),
	      shown(want));
}

static void check_process(int how, int kptr, int paranoid, const char *what)
{
	pid_t pid = child(how);

	if (pid < 0) {
		skip("%s (not possible here)", what);
		return;
	}
	expect_pid(pid, kptr, paranoid, false, what);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void check_live(void)
{
	int kptr = read_sysctl("/proc/sys/kernel/kptr_restrict");
	int paranoid = read_sysctl("/proc/sys/kernel/perf_event_paranoid");
	bool cap = self_has_cap_syslog() && self_in_initial_userns();

	diag("host: kptr_restrict=%d perf_event_paranoid=%d, this process"
	     " %s CAP_SYSLOG",
	     kptr, paranoid, cap ? "has" : "lacks");
	expect_pid(getpid(), kptr, paranoid, cap, "this process");
	expect_pid(0, kptr, paranoid, false, "pid 0 (another pid namespace)");
	/* a pid that does not exist: no status to read, so unprivileged */
	expect_pid(0x3fffffff, kptr, paranoid, false,
		   "a pid that does not exist");
	if (cap) {
		check_process(0, kptr, paranoid, "a child without CAP_SYSLOG");
		check_process(1, kptr, paranoid,
			      "a child with CAP_SYSLOG in a new user namespace");
	} else {
		skip("the children that drop CAP_SYSLOG: this process lacks it");
	}
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	if (*what && strcmp(what, "--table") && strcmp(what, "--live"))
		bail_out("usage: test_kallsyms [--table | --live]");
	if (strcmp(what, "--live"))
		check_table();
	if (strcmp(what, "--table"))
		check_live();
	return done_testing();
}
