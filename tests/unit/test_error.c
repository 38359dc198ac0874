// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf/error.c: how the library fills struct bl_error (a message too long
 * for it loses its middle to "...", so that what it is about, first, and
 * the cause, last, both stay; bl_fail() sets the errno and returns
 * it, bl_fail_at() the caret too, bl_warnf() only the warning, a NULL
 * error is left alone), how a path is quoted short (bl_path_cut(): its
 * start and end kept), and what that buys: pin_dir_take() (bpf/pins/pin_dir.c)
 * refusing a pin_dir path of thousands of bytes still says why in the message.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "error.h"
#include "pin_dir.h"

static void test_errorf(void)
{
	struct bl_error e = {0};
	char big[1000];

	bl_errorf(&e, "no module '%s'", "foo");
	CHECK(!strcmp(e.msg, "no module 'foo'") && !e.err && !e.column,
	      "bl_errorf: the message, nothing else");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	bl_errorf(&e, "line 1: /%s/nonexist: %s", big, strerror(ENOENT));
	CHECK(strlen(e.msg) == sizeof(e.msg) - 1 &&
		      !strncmp(e.msg, "line 1: /xxx", 12) && strstr(e.msg, "...") &&
		      strstr(e.msg, "xxx/nonexist: No such file or directory"),
	      "bl_errorf: too long, cut to %zu bytes in the middle; the "
	      "start and the cause at the end stay",
	      sizeof(e.msg) - 1);
	bl_errorf(&e, "%.*s", (int)sizeof(e.msg) - 1, big);
	CHECK(strlen(e.msg) == sizeof(e.msg) - 1 && !strchr(e.msg, '.'),
	      "bl_errorf: exactly as long as fits, not cut");
}

static void test_fail(void)
{
	struct bl_error e = {.column = 7};

	CHECK(bl_fail(&e, -ENOENT, "no %s", "thing") == -ENOENT &&
		      e.err == -ENOENT && e.column == 7 &&
		      !strcmp(e.msg, "no thing"),
	      "bl_fail: returns and sets the errno, keeps the column");
	CHECK(bl_fail_at(&e, -EINVAL, 12, "bad %d", 3) == -EINVAL &&
		      e.err == -EINVAL && e.column == 12 &&
		      !strcmp(e.msg, "bad 3"),
	      "bl_fail_at: the errno, the column and the message");
	CHECK(bl_fail(NULL, -EPERM, "nobody reads %s", "this") == -EPERM,
	      "bl_fail: a NULL error is left alone, the errno returned");
	bl_warnf(&e, "one link per match: %0300d", 0);
	CHECK(e.err == -EINVAL && !strcmp(e.msg, "bad 3") &&
		      strlen(e.warning) == sizeof(e.warning) - 1 &&
		      !strncmp(e.warning, "one link per match: 000", 23) &&
		      strstr(e.warning, "000...000"),
	      "bl_warnf: only the warning, cut with '...'");
}

static void test_path_cut(void)
{
	char buf[BL_PATH_SHOWN], path[PATH_MAX];
	const char *shown;
	size_t n;

	CHECK(!strcmp(bl_path_cut(buf, sizeof(buf), "/sys/fs/bpf/x"),
		      "/sys/fs/bpf/x"),
	      "bl_path_cut: a short path whole");
	snprintf(path, sizeof(path), "/sys/fs/bpf/");
	n = strlen(path);
	memset(path + n, 'm', sizeof(path) - n - 20);
	snprintf(path + sizeof(path) - 20, 20, "/the_end");
	shown = bl_path_cut(buf, sizeof(buf), path);
	CHECK(strlen(shown) == sizeof(buf) - 1 &&
		      !strncmp(shown, "/sys/fs/bpf/", 12) &&
		      strstr(shown, "...") &&
		      !strcmp(shown + strlen(shown) - 8, "/the_end"),
	      "bl_path_cut: %zu bytes cut to %zu, start and end kept: %s",
	      strlen(path), strlen(shown), shown);
	memset(path, 'p', BL_PATH_SHOWN - 1);
	path[BL_PATH_SHOWN - 1] = '\0';
	CHECK(bl_path_cut(buf, sizeof(buf), path) == path,
	      "bl_path_cut: a path of %d bytes fits whole", BL_PATH_SHOWN - 1);
}

/*
 * A pin_dir of about 3,000 bytes whose first part does not exist: the
 * nearest existing part is "/", not bpffs. The quoted paths must not push
 * the cause out of the message.
 */
static void test_long_pin_dir(void)
{
	struct bl_error e = {0};
	char dir[3000], norm[PATH_MAX], top[64];
	size_t kept, n;
	int ret;

	snprintf(top, sizeof(top), "/bpflinkfs-test-error-%d", (int)getpid());
	n = snprintf(dir, sizeof(dir), "%s", top);
	while (n + 201 < sizeof(dir)) {
		dir[n++] = '/';
		memset(dir + n, 'd', 199);
		n += 199;
	}
	dir[n] = '\0';
	ret = pin_dir_normalize(dir, norm, sizeof(norm), &e);
	CHECK(ret == 0, "pin_dir_normalize: %zu bytes fit: %s", n, e.msg);
	ret = pin_dir_take(norm, &kept, &e);
	CHECK(ret == -EINVAL && e.err == -EINVAL &&
		      strstr(e.msg, "is not in a BPF file system") &&
		      strstr(e.msg, "mount -t bpf"),
	      "pin_dir_take: a pin_dir of %zu bytes outside bpffs: the "
	      "cause and what to do are in the message: %s",
	      n, e.msg);
	CHECK(access(top, F_OK) && errno == ENOENT,
	      "pin_dir_take: nothing made (no %s)", top);
	ret = pin_dir_normalize(dir, norm, 100, &e);
	CHECK(ret == -ENAMETOOLONG && strstr(e.msg, "path too long") &&
		      strstr(e.msg, "..."),
	      "pin_dir_normalize: too long for its room, said first, the path "
	      "cut: %s",
	      e.msg);
	ret = pin_dir_normalize(dir + 1, norm, sizeof(norm), &e);
	CHECK(ret == -EINVAL && strstr(e.msg, "must be an absolute path"),
	      "pin_dir_normalize: a long relative path: %s", e.msg);
}

int main(void)
{
	test_errorf();
	test_fail();
	test_path_cut();
	test_long_pin_dir();
	return done_testing();
}
