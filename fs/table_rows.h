/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rows of a whole-table read (links, links.json), built in two threads
 * where the daemon may run on two CPUs (table_rows.c).
 */
#ifndef BPFLINKFS_TABLE_ROWS_H
#define BPFLINKFS_TABLE_ROWS_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>

#include "render.h"
#include "sbuf.h"

/* The room a row function has for one value's render */
#define TABLE_VALUE_MAX (2 * PATH_MAX)

/*
 * Append one link's row to @s. @plan: what the table handed table_read(),
 * read-only (two threads render rows at once); @buf: this thread's own
 * TABLE_VALUE_MAX bytes for a value.
 */
typedef void (*row_fn)(struct sbuf *s, const struct link_view *v,
		       const void *plan, char *buf);

struct table_read {
	struct owned *reg;
	const struct reader *reader;
	row_fn row;
	const void *plan;
	const char *sep; /* between two rows */
	/* read every link's pins, holders and run statistics once for the
	 * whole table (links.json); else each row reads what it shows */
	bool lists;
};

/**
 * table_read() - append every link the tree shows to @s, a row each by
 * @t->row in link id order, with @t->sep between rows; links gone
 * meanwhile are left out
 * Return: 0, or -ENOMEM, or -errno of reading the kernel's links, pins or
 * holders (then @s holds a part, for the caller to drop).
 */
int table_read(const struct table_read *t, struct sbuf *s);

/**
 * may_run_on_two_cpus() - the daemon's affinity (sched_getaffinity(2))
 * holds two CPUs or more: a second thread would run beside this one
 */
bool may_run_on_two_cpus(void);

/**
 * start_beside() - pthread_create(3) of @fn(@arg) into @th, started on a
 * CPU other than the caller's where the daemon's affinity allows one.
 * Left to itself, the scheduler put a new thread on its maker's CPU in
 * three reads of links.json out of four (2 CPUs), where it ran only once
 * its maker waited for it. Once placed, the thread may run on every CPU
 * of the daemon again: one kept waiting behind a real-time task on the
 * other CPU is pulled to an idle one.
 * Return: 0, or the errno of pthread_create().
 */
int start_beside(pthread_t *th, void *(*fn)(void *), void *arg);

#endif
