/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check.h - the one test harness of every C test: TAP on stdout, as meson
 * reads it with `protocol : 'tap'`.
 *
 *   ok N - description          a test point that passed
 *   not ok N - description      one that failed, then "# ..." lines that
 *                               say where (file:line) and what
 *   ok N - description # SKIP why
 *   1..N                        the plan, last (or first, with plan())
 *   1..0 # SKIP why             the whole program skipped (exit 0:
 *                               meson counts any other exit of a TAP test
 *                               as an error)
 *
 * Two ways to check:
 *   CHECK(cond, fmt, ...)  one test point of its own;
 *   EXPECT(cond, fmt, ...) a quiet check, silent when it holds: it adds to
 *                          the group that the next group_end(fmt, ...)
 *                          closes as one test point, so a loop of 10,000
 *                          comparisons is one line ("... (10000 checks)").
 * Both print file:line, the condition and the message as "# " lines when
 * the check fails, and return whether it held.
 *
 * done_testing() closes the last group, prints the trailing plan and
 * returns the exit status: 0, or 1 when anything failed. Every line is
 * flushed at once, so a forked child never prints the parent's lines
 * again. Diagnostics go to stdout as "# " lines, never bare text (meson
 * warns about lines that are not TAP).
 */
#ifndef BPFLINKFS_TESTS_CHECK_H
#define BPFLINKFS_TESTS_CHECK_H

#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_FMT(a, b) __attribute__((format(printf, a, b)))

static struct {
	int points, failed, planned;
	int grp_checks, grp_failed; /* EXPECTs since the last group_end() */
} check_st;

/* "# " before every line of @text, to stdout. */
static inline void check_comment(const char *text)
{
	const char *nl;

	do {
		nl = strchr(text, '\n');
		printf("# %.*s\n", nl ? (int)(nl - text) : (int)strlen(text),
		       text);
		text = nl ? nl + 1 : NULL;
	} while (text && *text);
	fflush(stdout);
}

static inline CHECK_FMT(1, 0) void vdiag(const char *fmt, va_list ap)
{
	char buf[2048];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	check_comment(buf);
}

/* diag() - a "# " comment line (or lines) */
static inline CHECK_FMT(1, 2) void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(fmt, ap);
	va_end(ap);
}

/*
 * One test point; @skip is NULL or why it was skipped. A '#' in the
 * description would start a directive for meson's TAP reader: it is
 * written as '%'.
 */
static inline CHECK_FMT(3, 0) void check_point(bool good, const char *skip,
					       const char *fmt, va_list ap)
{
	char desc[1024], *p;

	vsnprintf(desc, sizeof(desc), fmt, ap);
	for (p = desc; *p; p++)
		if (*p == '\n' || *p == '#')
			*p = *p == '#' ? '%' : ' ';
	check_st.points++;
	if (!good)
		check_st.failed++;
	printf("%s %d%s%s%s%s\n", good ? "ok" : "not ok", check_st.points,
	       *desc ? " - " : "", desc, skip ? " # SKIP " : "",
	       skip ? skip : "");
	fflush(stdout);
}

/* ok() - one test point, described by @fmt; returns @good */
static inline CHECK_FMT(2, 3) bool ok(bool good, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_point(good, NULL, fmt, ap);
	va_end(ap);
	return good;
}

static inline CHECK_FMT(2, 3) void check_skip(const char *why, const char *fmt,
					      ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_point(true, why, fmt, ap);
	va_end(ap);
}

/* skip() - a test point that could not run here, and why */
static inline CHECK_FMT(1, 2) void skip(const char *fmt, ...)
{
	char why[512], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	for (p = why; *p; p++)
		if (*p == '\n')
			*p = ' ';
	check_skip(why, "%s", "");
}

/* plan() - announce @n test points up front (else done_testing() does) */
static inline void plan(int n)
{
	check_st.planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

/* skip_all() - nothing can run here: say why and exit (0, as TAP wants) */
static inline CHECK_FMT(1, 2)
	__attribute__((noreturn)) void skip_all(const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (check_st.points) { /* too late for a skip plan */
		skip("%s", why);
		printf("1..%d\n", check_st.points);
		exit(check_st.failed ? 1 : 0);
	}
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

/* bail_out() - stop the whole test: the setup it needs failed */
static inline CHECK_FMT(1, 2)
	__attribute__((noreturn)) void bail_out(const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

static inline CHECK_FMT(5, 6) bool check_failed(bool point, const char *file,
						int line, const char *cond,
						const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (point)
		ok(false, "%s", msg);
	diag("%s:%d: failed: %s%s%s", file, line, cond, point ? "" : ": ",
	     point ? "" : msg);
	return false;
}

/* CHECK() - one test point: @cond, described by the printf arguments */
#define CHECK(cond, ...)                                                       \
	({                                                                     \
		bool check_c_ = (cond);                                        \
		if (check_c_)                                                  \
			ok(true, __VA_ARGS__);                                 \
		else                                                           \
			check_failed(true, __FILE__, __LINE__, #cond,          \
				     __VA_ARGS__);                             \
		check_c_;                                                      \
	})

/* EXPECT() - a quiet check in the group that group_end() closes */
#define EXPECT(cond, ...)                                                      \
	({                                                                     \
		bool check_c_ = (cond);                                        \
		check_st.grp_checks++;                                         \
		if (!check_c_) {                                               \
			check_st.grp_failed++;                                 \
			check_failed(false, __FILE__, __LINE__, #cond,         \
				     __VA_ARGS__);                             \
		}                                                              \
		check_c_;                                                      \
	})

/* group_end() - the EXPECTs since the last group_end() as one test point */
static inline CHECK_FMT(1, 2) bool group_end(const char *fmt, ...)
{
	int n = check_st.grp_checks, bad = check_st.grp_failed;
	char desc[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	check_st.grp_checks = check_st.grp_failed = 0;
	if (bad)
		return ok(false, "%s (%d of %d checks failed)", desc, bad, n);
	return ok(true, "%s (%d check%s)", desc, n, n == 1 ? "" : "s");
}

/* done_testing() - the trailing plan; returns the exit status */
static inline int done_testing(void)
{
	if (check_st.grp_checks)
		group_end("the checks after the last group");
	if (!check_st.planned)
		printf("1..%d\n", check_st.points);
	if (check_st.failed)
		printf("# %d of %d test points failed\n", check_st.failed,
		       check_st.points);
	fflush(stdout);
	return check_st.failed ? 1 : 0;
}

/* The number of open fds of this process (a leak check), -1 on error. */
static inline int check_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

#endif /* BPFLINKFS_TESTS_CHECK_H */
