/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The owned-link registry: links this mount created (or adopted from a
 * pin_dir), the counter their built-in program counts in, and the reaper
 * threads that close removed links' fds in the background.
 */
#ifndef BPFLINKFS_OWNED_H
#define BPFLINKFS_OWNED_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "linkinfo.h"
#include "parse.h"

struct counter;
struct pin_owner;

/**
 * owned_counter_set() - the counter owned links count in (the built-in
 * program and its hits map); set once at start-up, before any link is made
 * @c: opened by counter_open() or pin_dir_open(); the caller closes it
 */
void owned_counter_set(struct counter *c);

/** owned_counter() - the counter set by owned_counter_set(), or NULL */
struct counter *owned_counter(void);

struct owned_info {
	__u32 id;
	int slot; /* counter slot (= cookie) for the built-in program, or -1 */
	enum probe_kind kind;
	dev_t dev; /* uprobe: the file probed */
	ino_t ino;
	/* what the daemon knows of the link without asking the kernel */
	struct link_fields f;
	char category[PROBE_NAME_MAX]; /* tracepoint */
	char spec[8192];	       /* the command that created it */
};

/**
 * owned_add() - register a link created by this mount
 * @info: copied; @info->id must be the kernel link id of @fd
 * @fd: the link fd, owned by the registry from now on
 * Return: 0 or -ENOMEM.
 */
int owned_add(const struct owned_info *info, int fd);

/**
 * owned_get() - copy an owned link's record
 * Return: 0, or -ENOENT when @id is not owned (or being removed).
 */
int owned_get(__u32 id, struct owned_info *out);

/** owned_is_dying() - @id was removed and waits for the reaper */
bool owned_is_dying(__u32 id);

/**
 * owned_dying_ids() - every id removed but maybe still listed by the
 * kernel, ascending; taken before an enumeration so that a link whose
 * release ends during it is not listed
 * Return: the count and a malloc'd array in *ids, or -ENOMEM.
 */
int owned_dying_ids(__u32 **ids);

/**
 * owned_remove() - detach an owned link: it leaves the tree at once, the
 * reaper closes its fd and frees its counter slot in the background.
 * Return: 0, -ENOENT (unknown id), -EPERM (a link this mount does not own).
 */
int owned_remove(__u32 id);

/**
 * owned_forget() - an owned link lost its pin (removed by hand): unlist it
 * and hand it to the reaper like owned_remove(); its counter slot stays
 * taken if something else still holds the link
 * Return: 0, or -ENOENT when @id is not owned.
 */
int owned_forget(__u32 id);

/**
 * owned_ids() - the ids of every owned link, ascending
 * Return: the count and a malloc'd array in *ids, or -ENOMEM.
 */
int owned_ids(__u32 **ids);

/** owned_remove_all() - owned_remove() every owned link; returns the count */
int owned_remove_all(void);

/**
 * owned_list() - "ID<TAB>COMMAND\n" for every owned link, in id order
 * Return: malloc'd string (caller frees) and its length in *len; NULL on
 * ENOMEM.
 */
char *owned_list(size_t *len);

/** owned_count() - number of owned links */
size_t owned_count(void);

/**
 * owned_pin_owner() - this registry as pin.c sees it (owned ids, forget,
 * add with no fd): for pin_link(), pin_sync() and pin_adopt()
 */
const struct pin_owner *owned_pin_owner(void);

/** reaper_start() - start the threads that close removed links' fds */
int reaper_start(void);

/** reaper_drain() - remove every owned link and wait until all are closed */
void reaper_drain(void);

#endif
