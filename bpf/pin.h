/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * -o pin_dir=DIR: owned links, the hits map and what adoption needs live
 * in bpffs, so a restarted daemon adopts them (DESIGN.md section 4).
 *
 * DIR/hits      the counter map (BPF_MAP_TYPE_PERCPU_ARRAY)
 * DIR/meta      a hash map: link id -> struct pin_meta (slot, spec ...)
 * DIR/link_ID   each owned link
 */
#ifndef BPFLINKFS_PIN_H
#define BPFLINKFS_PIN_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/types.h>

#include "owned.h"

struct counter;

/*
 * The registry that owns pinned links, as pin.c sees it. pin.c calls
 * nothing of owned.c by name (owned.c calls pin.c: pin_sync, pin_unlink),
 * so the two files do not call each other in a circle; owned_pin_owner()
 * hands out the registry's.
 */
struct pin_owner {
	int (*ids)(__u32 **ids); /* every owned id, malloc'd */
	int (*forget)(__u32 id); /* its pin was removed by hand */
	int (*add)(const struct owned_info *info); /* own a pinned link */
};

/**
 * pin_dir_open() - take DIR for this daemon
 * @dir: absolute path inside a BPF file system; created if missing
 *
 * @slots: the counter's size, when DIR has no hits map yet
 * @counter: out: the counter, loaded on DIR's hits map; set (to close)
 * even on failure when it was opened; must be NULL on entry
 *
 * Locks DIR (flock) so a second daemon on it is refused; opens or creates
 * the hits map (loading the counter on it) and the meta map; watches DIR
 * (inotify) so that pins removed by hand are noticed (pin_sync()).
 *
 * Return: 0 or -errno; prints a one-line message naming the cause on
 * failure (-EINVAL: a path bpffs cannot hold or not in bpffs; -ENOTDIR: a
 * pinned object or a file where a directory should be; -EBUSY: another
 * daemon has it), and nothing is made then.
 */
int pin_dir_open(const char *dir, __u32 slots, struct counter **counter);

/** pin_enabled() - true when pin_dir is in use */
bool pin_enabled(void);

/**
 * pin_link() - pin a new link, record what adoption needs, and register
 * it as owned (@owner->add: the pin holds it, not an fd)
 * @info: its record (id, slot, spec, category, dev, ino)
 * @fd: the link fd; the caller closes it afterwards
 * @owner: the registry; its add runs before a pin_sync() can see the pin
 * @msg: on failure, what happened and what to do
 * @mlen: size of @msg
 *
 * A pin_dir removed by hand (rm -r) is made again first, with the maps
 * pinned in it again (see pin_sync()).
 *
 * Return: 0 or -errno (nothing left behind on failure).
 */
int pin_link(const struct owned_info *info, int fd,
	     const struct pin_owner *owner, char *msg, size_t mlen);

/**
 * pin_sync() - act on pins removed by hand since the last call
 * @owner: the registry; @owner->forget is called for each such link
 *
 * DESIGN.md 4: removing a pin detaches the link it held, so an owned link
 * whose pin left the pin_dir (rm, rm -r, mv) is no longer owned: it goes
 * to the reaper like a removed link. The pin_dir itself, if gone, is made
 * again by the next pin_link(). Cheap (one non-blocking read) when nothing
 * happened; called before the owned list is read.
 */
void pin_sync(const struct pin_owner *owner);

/**
 * pin_drop() - remove an owned link's pin and record now, so that a removal
 * that has returned stays removed even if the daemon dies before the
 * reaper gets to it (a restart would adopt a pin left behind); fast: the
 * kernel releases the link later, from a work queue
 */
void pin_drop(__u32 id);

/**
 * pin_unlink() - pin_drop(), then wait for the release: the kernel then
 * detaches it. Waits (up to 5 s) until the kernel no longer lists @id, so
 * that its counter slot can be reused.
 */
void pin_unlink(__u32 id);

/**
 * pin_adopt() - adopt every link pinned in DIR: each perf-event link with
 * a meta record becomes owned again (spec, cookie, slot and hits intact);
 * anything else is reported in the log and left alone.
 * @owner: the registry; @owner->add owns each adopted link
 * Return: the number adopted.
 */
int pin_adopt(const struct pin_owner *owner);

#endif
