/* SPDX-License-Identifier: GPL-2.0-only */
/* Giving the heap's free pages back while the daemon idles (heap_trim.c). */
#ifndef BPFLINKFS_HEAP_TRIM_H
#define BPFLINKFS_HEAP_TRIM_H

#include <stddef.h>

struct heap_trim;

/**
 * heap_trim_start() - every @period_ms milliseconds, from a thread of its
 * own, give the heap's free pages back to the kernel (malloc_trim(3))
 * when at least @min_free bytes of the heap are free (mallinfo2(3)
 * fordblks)
 * @out: out, the trimmer
 *
 * main.c keeps freed buffers in the heap, so that the next table read
 * reuses their pages instead of faulting in new ones; this bounds what
 * that keeps to the time between trims.
 *
 * Return: 0, -ENOMEM, or -errno of stop_thread_start() (no eventfd, no
 * thread).
 */
int heap_trim_start(struct heap_trim **out, unsigned int period_ms,
		    size_t min_free);

/** heap_trim_stop() - stop the thread and free @t; NULL is a no-op */
void heap_trim_stop(struct heap_trim *t);

#endif
