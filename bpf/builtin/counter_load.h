/* SPDX-License-Identifier: GPL-2.0-only */
/* The built-in counter program: hits per link, keyed by the link's cookie. */
#ifndef BPFLINKFS_COUNTER_LOAD_H
#define BPFLINKFS_COUNTER_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "parse.h"

struct counter;

/**
 * counter_open() - load the built-in programs and their hits map
 * @out: out, the counter
 * @slots: number of counter slots, at most COUNTER_ROW_SLOTS
 *
 * Loads one program per program type (kprobe, for kprobes and uprobes;
 * tracepoint; perf_event), all sharing one map: a BPF_MAP_TYPE_ARRAY
 * (BPF_F_MMAPABLE) of u64 with a row of COUNTER_ROW_SLOTS per possible
 * CPU (counter_row.h), mapped into the daemon to read it. Thread-safe
 * after this.
 *
 * Return: 0, -E2BIG (more slots than a row, or the rows past a u32
 * index), or -errno from the kernel (EPERM without CAP_BPF ...).
 */
int counter_open(struct counter **out, uint32_t slots);

/**
 * counter_open_reuse() - like counter_open(), on an existing hits map
 * @out: out, the counter
 * @map_fd: a hits map made by an earlier counter (e.g. from its bpffs pin);
 *          the caller keeps its fd, the counter takes its own reference
 *
 * For adoption with pin_dir: the programs count into the old map, so hits
 * survive a restart. The slot count is a row of the map (its max_entries
 * over the possible CPUs); all slots start free, claim the adopted ones
 * with counter_slot_claim(). The per-CPU array (BPF_MAP_TYPE_PERCPU_ARRAY,
 * a slot per entry) that earlier versions made is taken too: the programs
 * are then loaded for that layout.
 *
 * Return: 0, or -EINVAL (neither map of u32 -> u64), or -errno.
 */
int counter_open_reuse(struct counter **out, int map_fd);

/**
 * counter_open_pinned() - counter_open() (@map_fd < 0) or
 * counter_open_reuse() (@map_fd a hits map; @slots ignored), with the
 * events maps in the pin_dir @pin_dir
 * @pin_dir: a bpffs directory, or NULL for counter_open()/_reuse()
 *
 * The events ring, switch, drop counters and .bss (progs/events_common.h)
 * are the ones pinned in @pin_dir as DIR/events_ring, events_on,
 * events_lost and events_bss when they are there and fit (libbpf's pin
 * reuse checks type, sizes and flags), else new ones pinned there: the
 * programs of links adopted from @pin_dir then record into this counter's
 * ring. A slot left switched on by a daemon that was killed is switched
 * off. When the pinned maps cannot be used (another layout), new maps not
 * pinned are used, with a log line: adopted links then have no events.
 *
 * Return: 0, or as counter_open_reuse().
 */
int counter_open_pinned(struct counter **out, uint32_t slots, int map_fd,
			const char *pin_dir);

/**
 * counter_pin_events() - pin the events maps in @dir again where they are
 * missing (a pin_dir changed by hand)
 * Return: 0, or -errno from BPF_OBJ_PIN.
 */
int counter_pin_events(struct counter *c, const char *dir);

/** counter_is_pin_name() - is @name an events map pin of a pin_dir? */
bool counter_is_pin_name(const char *name);

/** counter_close() - unload everything (links already made keep theirs). */
void counter_close(struct counter *c);

/**
 * counter_prog_fd() - the built-in program for a probe kind
 * @c: the counter
 * @kind: what the link will attach to
 * @instance: 0 for the first program of that type; tracepoints need a
 *            further loaded instance per link on the same tracepoint
 *            (the kernel answers EEXIST for the same program twice), so
 *            1, 2, ... load (once, lazily) and return further instances.
 *
 * Return: a program fd owned by @c, or -errno.
 */
int counter_prog_fd(struct counter *c, enum probe_kind kind,
		    unsigned int instance);

/**
 * counter_slot_alloc() - take a free slot and zero its counts
 * Return: the slot (used as the link's cookie), or -ENOSPC.
 */
int counter_slot_alloc(struct counter *c);

/**
 * counter_slot_alloc_range() - take @n free slots in a row and zero them:
 * one per target of a multi link, so that the link's record keeps only
 * the first and the count
 * Return: the first slot, or -ENOSPC (no run of @n free slots).
 */
int counter_slot_alloc_range(struct counter *c, uint32_t n);

/* enum bpf_attach_type values of the multi links (include/uapi/linux/bpf.h) */
#define COUNTER_ATTACH_KPROBE_MULTI 42
#define COUNTER_ATTACH_UPROBE_MULTI 48

/**
 * counter_multi_prog_fd() - the built-in kprobe program as loaded for
 * kprobe_multi (@uprobe false) or uprobe_multi links: once, lazily, with
 * that expected_attach_type; shares the hits map
 * Return: a program fd owned by @c, or -errno from the kernel (EINVAL on a
 * kernel without that link type).
 */
int counter_multi_prog_fd(struct counter *c, bool uprobe);

/** counter_slot_claim() - take a given slot (adoption); -EBUSY if taken. */
int counter_slot_claim(struct counter *c, uint32_t slot);

/** counter_slot_free() - give a slot back. */
void counter_slot_free(struct counter *c, uint32_t slot);

/**
 * counter_slots_release() - give back @n slots from @first of a link the
 * kernel has let go (no program counts into them any more): they are
 * zeroed now, with one BPF_MAP_UPDATE_BATCH, so that the next
 * counter_slot_alloc() or counter_slot_alloc_range() that takes them needs
 * no map update (that was ~5% of making a 1,000-target multi link). When
 * the zeroing fails they are given back as counter_slot_free() does, and
 * zeroed when taken.
 */
void counter_slots_release(struct counter *c, uint32_t first, uint32_t n);

/**
 * counter_hits() - sum a slot over all possible CPUs
 * Return: 0 and *hits, -EINVAL (no such slot), or -errno from
 * BPF_MAP_LOOKUP_ELEM (a per-CPU map; the rows are read from memory).
 */
int counter_hits(struct counter *c, uint32_t slot, uint64_t *hits);

/**
 * counter_hits_range() - counter_hits() of @n slots in a row (from the
 * mapped rows; for a per-CPU map with BPF_MAP_LOOKUP_BATCH, one bpf(2)
 * call for many slots, per slot when the kernel has no batch look-up)
 * @first: first slot
 * @n: number of slots
 * @hits: out, @n sums over all possible CPUs
 *
 * Return: 0, -EINVAL (range outside the map), or -errno from bpf(2).
 */
int counter_hits_range(struct counter *c, uint32_t first, uint32_t n,
		       uint64_t *hits);

/** counter_map_fd() - fd of the hits map (for pinning). */
int counter_map_fd(struct counter *c);

/**
 * counter_runs_prog() - does program @prog_id record into this counter's
 * events ring?
 *
 * True for the programs the counter loaded, the per-link instances of
 * tracing_probe.c (which share its maps), and the programs of links adopted
 * from a pin_dir whose events maps the counter reuses (counter_open_pinned());
 * false for an adopted link whose program records into another ring. From
 * the program's map ids (BPF_OBJ_GET_INFO_BY_FD), remembered per id.
 * Return: true or false.
 */
bool counter_runs_prog(struct counter *c, uint32_t prog_id);

/* The event maps of the built-in program, for events.c. */
struct counter_events {
	int hits_fd; /* the hits map (counter_map_fd()) */
	/* hits_fd is an earlier version's per-CPU map (counter_common.h) */
	bool hits_percpu;
	int bss_fd;  /* the programs' .bss: events_active */
	int ring_fd; /* BPF_MAP_TYPE_RINGBUF of struct events_record */
	int on_fd;   /* array: slot -> EVENTS_ON | EVENTS_RETVAL, or 0 */
	int lost_fd; /* per-CPU array: slot -> records the ring dropped */
	volatile uint32_t *active; /* slots switched on (the program's .bss) */
	uint32_t slots;
	int ncpus;
};

/**
 * counter_events_maps() - the maps event_ring.c reads and switches, and
 * tracing_probe.c's instances reuse
 * Return: 0, or -EBADF when the program was not loaded.
 */
int counter_events_maps(struct counter *c, struct counter_events *out);

#endif
