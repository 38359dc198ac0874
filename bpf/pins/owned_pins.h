/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * -o pin_dir=DIR: owned links, the hits map and what adoption needs live
 * in bpffs, so a restarted daemon adopts them (bpflinkfs(8), OWNERSHIP AND
 * LIFETIME).
 *
 * DIR/hits      the counter map (BPF_MAP_TYPE_PERCPU_ARRAY)
 * DIR/meta      a hash map: link id -> struct pin_meta (slot, spec ...)
 * DIR/link_ID   each owned link
 */
#ifndef BPFLINKFS_OWNED_PINS_H
#define BPFLINKFS_OWNED_PINS_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/types.h>

#include "owned.h"

struct counter;

/*
 * One daemon's pin_dir: DIR's path, its lock, the meta map, the inotify
 * watch and the locks around them; made by pin_dir_open(), kept in the
 * registry's handle (struct owned, owned.c), which passes it to every
 * call below.
 */
struct pin_dir;

/*
 * The registry that owns pinned links, as owned_pins.c sees it. owned_pins.c
 * calls nothing of owned.c by name (owned.c calls owned_pins.c: pin_sync,
 * pin_unlink), so the two files do not call each other in a circle; owned.c
 * hands its own in (with itself as @registry, the callbacks' first argument).
 */
struct pin_owner {
	struct owned *registry;
	int (*ids)(struct owned *o, __u32 **ids); /* every owned id, malloc'd */
	int (*forget)(struct owned *o, __u32 id); /* pin removed by hand */
	/* own a pinned link */
	int (*add)(struct owned *o, const struct owned_info *info);
};

/**
 * pin_dir_open() - take DIR for this daemon
 * @out: out, the pin_dir; NULL on failure; free with pin_dir_close()
 * @dir: absolute path inside a BPF file system; created if missing
 *
 * @slots: the counter's size, when DIR has no hits map yet
 * @counter: out: the counter, loaded on DIR's hits map (returned to the
 * caller, who owns and closes it; the pin_dir keeps a pointer to pin it
 * again); set (to close) even on failure when it was opened; must be NULL
 * on entry
 * @e: out, the message naming the cause on failure
 *
 * Locks DIR (flock) so a second daemon on it is refused; opens or creates
 * the hits map (loading the counter on it) and the meta map; watches DIR
 * (inotify) so that pins removed by hand are noticed (pin_sync()).
 *
 * Return: 0 or -errno, with @e's message naming the cause (-EINVAL: a
 * path bpffs cannot hold or not in bpffs; -ENAMETOOLONG: DIR leaves no
 * room under PATH_MAX for its pins' names; -ENOTDIR: a pinned object or a
 * file where a directory should be; -EBUSY: another daemon has it), and
 * nothing is made then.
 */
int pin_dir_open(struct pin_dir **out, const char *dir, __u32 slots,
		 struct counter **counter, struct bl_error *e);

/** pin_dir_close() - close what pin_dir_open() opened (not the counter);
 * the pins stay. NULL is ignored. */

/**
 * pin_dir_undo() - a start that failed: remove the map pins (hits, meta,
 * the events maps) and the directories that pin_dir_open() made, so that
 * DIR is as it was before (gone if it was not there; what it held before,
 * adopted links included, stays). Call before pin_dir_close(), before any
 * link was made. NULL is ignored.
 */
void pin_dir_undo(struct pin_dir *pd);
void pin_dir_close(struct pin_dir *pd);

/**
 * pin_link() - pin a new link, record what adoption needs, and register
 * it as owned (@owner->add: the pin holds it, not an fd)
 * @info: its record (id, slot, spec, category, dev, ino)
 * @fd: the link fd; the caller closes it afterwards
 * @owner: the registry; its add runs before a pin_sync() can see the pin
 * @e: on failure, what happened and what to do (bl_fail())
 *
 * A pin_dir removed by hand (rm -r) is made again first, with the maps
 * pinned in it again (see pin_sync()).
 *
 * Return: 0 or -errno (nothing left behind on failure).
 */
int pin_link(struct pin_dir *pd, const struct owned_info *info, int fd,
	     const struct pin_owner *owner, struct bl_error *e);

/**
 * pin_sync() - act on pins removed by hand since the last call
 * @pd: the pin_dir; NULL (no pin_dir): nothing to do
 * @owner: the registry; @owner->forget is called for each such link
 *
 * bpflinkfs(8), OWNERSHIP AND LIFETIME: removing a pin detaches the link it
 * held, so an owned link whose pin left the pin_dir (rm, rm -r, mv) is no
 * longer owned: it goes to the reaper like a removed link. The pin_dir itself,
 * if gone, is made again by the next pin_link(). Cheap (one non-blocking read)
 * when nothing happened; called before the owned list is read.
 */
void pin_sync(struct pin_dir *pd, const struct pin_owner *owner);

/**
 * pin_drop() - remove an owned link's pin and record now, so that a removal
 * that has returned stays removed even if the daemon dies before the
 * reaper gets to it (a restart would adopt a pin left behind); fast: the
 * kernel releases the link later, from a work queue
 */
void pin_drop(struct pin_dir *pd, __u32 id);

/**
 * pin_unlink() - pin_drop(), then wait for the release: the kernel then
 * detaches it. Waits (up to 5 s) until the kernel no longer lists @id, so
 * that its counter slot can be reused.
 */
void pin_unlink(struct pin_dir *pd, __u32 id);

/**
 * pin_adopt() - adopt every link pinned in DIR: each perf-event link with
 * a meta record becomes owned again (spec, cookie, slot and hits intact);
 * anything else is reported in the log and left alone.
 * @owner: the registry; @owner->add owns each adopted link
 * Return: the number adopted.
 */
int pin_adopt(struct pin_dir *pd, const struct pin_owner *owner);

#endif
