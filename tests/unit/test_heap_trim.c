// SPDX-License-Identifier: GPL-2.0-only
/*
 * fs/heap_trim.c: the trimmer gives free heap pages back (this process's
 * RSS in /proc/self/statm falls), stops at once when asked, and fails
 * cleanly (-EMFILE, nothing made, no fd left) when no fd is to be had.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "heap_trim.h"

#define BLOCK (64 << 10) /* below the mmap threshold: from the heap */
#define BLOCKS 256	 /* 16 MiB */

/* This process's resident pages (statm's second field), or -1. */
static long rss_pages(void)
{
	long size, resident = -1;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &resident) != 2)
		resident = -1;
	fclose(f);
	return resident;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The fds open now: the highest in /proc/self/fd + 1 is not enough. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* 16 MiB freed into the heap, kept there by a live block above them. */
static void *fill_heap(void)
{
	void *blocks[BLOCKS], *top;
	size_t i;

	mallopt(M_TRIM_THRESHOLD, 1 << 30); /* free() gives nothing back */
	for (i = 0; i < BLOCKS; i++) {
		blocks[i] = malloc(BLOCK);
		if (blocks[i])
			memset(blocks[i], 1, BLOCK); /* fault them in */
	}
	top = malloc(64);
	for (i = 0; i < BLOCKS; i++)
		free(blocks[i]);
	return top;
}

static void test_trims(void)
{
	struct heap_trim *t = NULL;
	void *top = fill_heap();
	long before = rss_pages(), after = before, want;
	double t0;
	int i, err;

	want = (long)(BLOCKS / 2) * BLOCK / sysconf(_SC_PAGESIZE);
	err = heap_trim_start(&t, 50, 1 << 20);
	CHECK(err == 0 && t, "heap_trim_start: %d", err);
	for (i = 0; i < 40 && before - after < want; i++) {
		usleep(50 * 1000);
		after = rss_pages();
	}
	CHECK(before - after >= want,
	      "RSS falls by half of 16 MiB of free heap within 2 s: %ld pages "
	      "before, %ld after",
	      before, after);
	t0 = now_s();
	heap_trim_stop(t);
	CHECK(now_s() - t0 < 0.5, "stop takes %.3f s with a 50 ms period",
	      now_s() - t0);
	free(top);
}

static void test_stop_wakes(void)
{
	struct heap_trim *t = NULL;
	double t0;
	int err = heap_trim_start(&t, 60 * 1000, 1);

	CHECK(err == 0, "heap_trim_start, a period of 60 s: %d", err);
	t0 = now_s();
	heap_trim_stop(t);
	CHECK(now_s() - t0 < 1.0,
	      "stop wakes the thread (%.3f s, not the 60 s period)",
	      now_s() - t0);
	heap_trim_stop(NULL);
}

static void test_no_fd(void)
{
	struct heap_trim *t = (struct heap_trim *)&t;
	struct rlimit old, lim;
	int before = open_fds(), err;

	getrlimit(RLIMIT_NOFILE, &old);
	lim = old;
	lim.rlim_cur = 0; /* every fd number is above it */
	setrlimit(RLIMIT_NOFILE, &lim);
	err = heap_trim_start(&t, 50, 1);
	setrlimit(RLIMIT_NOFILE, &old);
	CHECK(err == -EMFILE && t == (struct heap_trim *)&t,
	      "no fd: %d (want -EMFILE), out untouched", err);
	CHECK(open_fds() == before, "no fd left open: %d, was %d", open_fds(),
	      before);
}

/* ASan's allocator is not glibc's: mallinfo2() sees no free heap */
#ifdef __SANITIZE_ADDRESS__
static const bool sanitized = true;
#else
static const bool sanitized = false;
#endif

int main(void)
{
	if (sanitized)
		check_skip("a sanitizer build", "the trimmer gives heap back");
	else
		test_trims();
	test_stop_wakes();
	test_no_fd();
	return done_testing();
}
