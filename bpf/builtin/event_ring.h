/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The event ring of the built-in program: a thread that reads it, the
 * per-slot switch that makes the program record, its drop counters, and the
 * text line of one record (bpflinkfs(8), EVENTS).
 */
#ifndef BPFLINKFS_EVENT_RING_H
#define BPFLINKFS_EVENT_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events_record.h"

struct counter;
struct events_reader;

/* idle wake-up of the reader thread, so late drop counts get reported */
#define EVENTS_TICK_MS 100

struct events_ops {
	/* each record, in ring order, on the reader thread */
	void (*record)(void *ctx, const struct events_record *r);
	/* after each batch of records, and every EVENTS_TICK_MS when idle */
	void (*batch_end)(void *ctx);
};

/**
 * events_reader_start() - read @c's event ring in a thread of its own
 * @out: out, the reader
 * @c: the counter whose program records (counter_events_maps())
 * @ops: called on the reader thread; @ctx is passed to them
 *
 * Return: 0, or -errno (ENOMEM, or from ring_buffer__new, pthread_create).
 */
int events_reader_start(struct events_reader **out, struct counter *c,
			const struct events_ops *ops, void *ctx);

/** events_reader_stop() - stop and join the thread, switch every slot off,
 * free the reader; no callback runs after it returns. NULL is ignored. */
void events_reader_stop(struct events_reader *er);

/**
 * events_switch() - make the program record hits of @slot, or stop it
 * @flags: EVENTS_ON, with EVENTS_RETVAL for return probes; 0 for off
 *
 * Not thread-safe for one slot: the caller serialises switches.
 * Return: 0, or -errno from BPF_MAP_UPDATE_ELEM (EINVAL: no such slot).
 */
int events_switch(struct events_reader *er, uint32_t slot, uint32_t flags);

/**
 * events_lost() - records of @slot the ring had no room for, since the
 * counter was loaded (sum over CPUs of the per-CPU map events_lost)
 * Return: 0 and *lost, or -errno from BPF_MAP_LOOKUP_ELEM.
 */
int events_lost(struct events_reader *er, uint32_t slot, uint64_t *lost);

/**
 * events_line() - the text line of a record
 * @target: the TARGET column (multi links), or NULL for none
 * @retval: write the RETVAL column (return probes)
 *
 * `TIME CPU PID TID COMM [TARGET] [RETVAL]\n`, tab-separated: TIME in
 * seconds of CLOCK_BOOTTIME with 9 decimals, PID the thread group, TID the
 * thread, COMM and TARGET with tab, newline and backslash as \t \n \\,
 * RETVAL 0x hex, or `-` where the record has none (EVENTS_REC_RETVAL
 * unset: a fexit of a function returning void).
 * Return: the length written (NUL-terminated), or -ENOSPC.
 */
int events_line(const struct events_record *r, const char *target, bool retval,
		char *buf, size_t len);

#endif
