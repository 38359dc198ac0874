/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One render per open. An open(2) of a file whose dentry has expired asks
 * LOOKUP (which must report the size of the value: bpflinkfs(8), THE TREE) and
 * then OPEN, and the reader's fstat() asks GETATTR: three renders of one value,
 * each a walk of every task for pids, attached/ and the tables. The
 * handoff carries the LOOKUP's render to the OPEN of the same thread
 * (the same open(2) call), and the OPEN's length to that thread's next
 * GETATTR, within HANDOFF_MAX_AGE_NS; anything older is rendered anew.
 */
#ifndef BPFLINKFS_HANDOFF_H
#define BPFLINKFS_HANDOFF_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#define HANDOFF_SLOTS 32
/* the LOOKUP and OPEN of one open(2) are microseconds apart */
#define HANDOFF_MAX_AGE_NS 200000000ull

struct handoff_slot {
	unsigned long long ino; /* 0: free */
	pid_t tid;
	unsigned long long at_ns; /* CLOCK_MONOTONIC */
	char *buf; /* a LOOKUP's render, or NULL (an OPEN's size) */
	size_t len;
	struct timespec made; /* an OPEN's: when its value was made */
};

struct handoff {
	pthread_mutex_t lock;
	struct handoff_slot slot[HANDOFF_SLOTS];
};

/** handoff_init() - an empty handoff. */
void handoff_init(struct handoff *h);

/** handoff_free() - frees every render still held. */
void handoff_free(struct handoff *h);

/**
 * handoff_put_render() - keeps @buf (@len bytes, malloc'd: the handoff
 * takes it) that LOOKUP of @ino rendered for thread @tid, for its OPEN.
 */
void handoff_put_render(struct handoff *h, unsigned long long ino, pid_t tid,
			char *buf, size_t len);

/**
 * handoff_take_render() - the render a LOOKUP of @ino by @tid kept, if
 * it is fresh. Return: the buffer (the caller frees it) with *@len, or
 * NULL when there is none.
 */
char *handoff_take_render(struct handoff *h, unsigned long long ino, pid_t tid,
			  size_t *len);

/**
 * handoff_put_size() - records that @tid just opened @ino with a handle
 * of @len bytes whose value was made at @made (CLOCK_REALTIME; zero when
 * the file's mtime does not say it), for that thread's fstat().
 */
void handoff_put_size(struct handoff *h, unsigned long long ino, pid_t tid,
		      size_t len, struct timespec made);

/**
 * handoff_size() - the length of the handle @tid just opened on @ino.
 * Return: true with *@len and *@made if there is a fresh one.
 */
bool handoff_size(struct handoff *h, unsigned long long ino, pid_t tid,
		  size_t *len, struct timespec *made);

#endif
