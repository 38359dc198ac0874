// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf/mountinfo.c: lines written as the kernel writes them (show_mountinfo()
 * escapes a blank, tab, newline and backslash in a path as \ooo), with and
 * without optional fields, and broken lines; then, as root, a real tmpfs
 * mounted on a directory whose name has all four, in a mount namespace of
 * its own, found by mountinfo_each() under the name mkdir(2) was given.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"
#include "mountinfo.h"

static void test_lines(void)
{
	char line[512];
	struct mountinfo_entry m;

	snprintf(line, sizeof(line),
		 "36 35 98:0 /mnt\\0401 /a\\040b\\011c\\012d\\134e "
		 "rw,noatime master:1 shared:2 - ext3 /dev/r\\040oot "
		 "rw,errors=continue\n");
	CHECK(mountinfo_parse(line, &m) == 0, "a line with optional fields");
	CHECK(m.id == 36 && m.parent == 35 && m.major == 98 && m.minor == 0,
	      "its ids and device");
	CHECK(!strcmp(m.mount_point, "/a b\tc\nd\\e"),
	      "blank, tab, newline, backslash in the mount point");
	CHECK(!strcmp(m.root, "/mnt 1") && !strcmp(m.source, "/dev/r oot"),
	      "root and source unescaped");
	CHECK(!strcmp(m.fstype, "ext3"), "the type after ' - '");

	snprintf(line, sizeof(line),
		 "25 1 0:22 / /sys/fs/bpf rw - bpf bpf rw,mode=700");
	CHECK(mountinfo_parse(line, &m) == 0 && !strcmp(m.fstype, "bpf") &&
		      !strcmp(m.mount_point, "/sys/fs/bpf"),
	      "a line without optional fields nor newline");

	snprintf(line, sizeof(line), "\\999 /x\\04");
	mountinfo_unescape(line);
	CHECK(!strcmp(line, "\\999 /x\\04"), "no escape: left as it is");

	snprintf(line, sizeof(line), "25 1 0:22 / /x rw bpf bpf rw");
	CHECK(mountinfo_parse(line, &m) == -EINVAL, "no ' - ': -EINVAL");
	snprintf(line, sizeof(line), "25 1 0:22 / - bpf bpf rw");
	CHECK(mountinfo_parse(line, &m) == -EINVAL, "no mount point: -EINVAL");
	snprintf(line, sizeof(line), "25 1 0:22 / /x rw - bpf");
	CHECK(mountinfo_parse(line, &m) == -EINVAL, "no source: -EINVAL");
	snprintf(line, sizeof(line), "x 1 0:22 / /x rw - bpf bpf rw");
	CHECK(mountinfo_parse(line, &m) == -EINVAL, "no mount id: -EINVAL");
}

struct find {
	const char *point;
	int id;
	unsigned int major, minor;
};

static int find_point(const struct mountinfo_entry *m, void *arg)
{
	struct find *f = arg;

	if (strcmp(m->mount_point, f->point))
		return 0;
	f->id = m->id;
	f->major = m->major;
	f->minor = m->minor;
	return 1;
}

static int count_lines(const struct mountinfo_entry *m, void *arg)
{
	(*(int *)arg)++;
	return 0;
}

/* A tmpfs on "DIR/a b<TAB>c<NL>d\e", in a namespace of our own. */
static void test_mount(void)
{
	char dir[] = "/tmp/bpflinkfs-mountinfo.XXXXXX", point[128];
	struct find f = {point, -1, 0, 0};
	struct stat st;
	int fd, n = 0;

	if (geteuid() || unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		skip("a mount namespace of our own needs root");
		return;
	}
	if (!mkdtemp(dir))
		bail_out("mkdtemp: %s", strerror(errno));
	snprintf(point, sizeof(point), "%s/a b\tc\nd\\e", dir);
	if (mkdir(point, 0700) || mount("tmpfs", point, "tmpfs", 0, NULL))
		bail_out("tmpfs on %s: %s", point, strerror(errno));
	CHECK(stat(point, &st) == 0, "stat of the mount point");
	CHECK(mountinfo_each(-1, find_point, &f) == 1,
	      "mountinfo_each() finds the mount under its own name");
	CHECK(f.major == major(st.st_dev) && f.minor == minor(st.st_dev),
	      "with the device stat(2) gives");
	fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	CHECK(mountinfo_each(fd, count_lines, &n) == 0 && n > 1,
	      "through an fd: every line, %d", n);
	n = 0;
	CHECK(mountinfo_each(fd, count_lines, &n) == 0 && n > 1,
	      "again through the same fd: from its start, %d", n);
	close(fd);
	umount2(point, MNT_DETACH);
	rmdir(point);
	rmdir(dir);
}

int main(void)
{
	test_lines();
	test_mount();
	return done_testing();
}
