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

#include "link_info.h"
#include "parse.h"

struct counter;
struct link_list;
struct task_files;

/*
 * The kernel library's mutable state for one daemon, passed explicitly as
 * the first argument of everything that reads or changes it: the registry
 * of owned links (and its reaper threads), the counter they count in, the
 * task-file iterator that finds who holds links, and with -o pin_dir the
 * pin_dir they are pinned in (owned_pins.c's state). Made by
 * owned_open() at start-up, freed by owned_close() at exit; the daemon
 * keeps it in its FUSE userdata (fs/daemon.h). Thread-safe.
 */
struct owned;

/**
 * owned_open() - the registry, with its counter and its task-file iterator
 * @out: out, the handle; NULL on failure
 * @pin_dir: -o pin_dir=DIR, or NULL: the counter is then loaded afresh,
 *           else pin_dir_open() opens it on DIR's hits map (and the
 *           registry pins every link it owns in DIR)
 * @slots: the counter's size (counter_open()), when made afresh
 * @e: out, with a pin_dir: the message naming the cause on failure
 *
 * The iterators' own links are hidden from every listing (link_list_hide());
 * listings go link by link until link_list_use_iterator() on owned_link_list().
 *
 * Return: 0 or -errno (from counter_open(), or pin_dir_open(), which
 * fills @e, or -ENOMEM of task_files_open() or link_list_open(), -ENOSPC of
 * link_list_hide()); nothing is left open on failure.
 */
int owned_open(struct owned **out, const char *pin_dir, __u32 slots,
	       struct bl_error *e);

/**
 * owned_close() - free the registry: stops the reaper threads (after
 * reaper_drain()), closes the counter and the pin_dir; NULL is ignored
 */
void owned_close(struct owned *o);

/**
 * owned_start_failed() - the daemon will not serve: undo what owned_open()
 * made in the pin_dir (pin_dir_undo()), so a failed start leaves it as it
 * was; nothing without a pin_dir. Before owned_close(); NULL is ignored.
 */
void owned_start_failed(struct owned *o);

/**
 * owned_counter() - the counter owned links count in (the built-in
 * program and its hits map), opened by owned_open(); never NULL
 */
struct counter *owned_counter(const struct owned *o);

/** owned_pinning() - true when owned links are pinned (-o pin_dir) */
bool owned_pinning(const struct owned *o);

/**
 * owned_task_files() - the task-file iterator (task_files.h) that every
 * reading of who holds links (holders.h) and of bare perf events
 * (bare_perf_events.h) shares, opened by owned_open(); never NULL. Loaded once:
 * each read makes its own iterator fd, so threads share it.
 */
struct task_files *owned_task_files(const struct owned *o);

/**
 * owned_link_list() - how this daemon lists the kernel's links (links.h):
 * the links it hides and its link iterator, opened by owned_open(); never
 * NULL
 */
struct link_list *owned_link_list(const struct owned *o);

/**
 * listed_link_ids() - ids of every link now (any type), ascending, but
 * none of this mount's links being removed and none of the daemon's own
 * iterator links (link_list_hidden())
 * @o: the registry whose removed links are left out
 * @ids: out, malloc'd array (caller frees)
 * Return: the count, or -errno.
 */
int listed_link_ids(struct owned *o, __u32 **ids);

struct link_prog;

/**
 * listed_links_progs() - listed_link_ids() and every link's program with
 * its run statistics, from one walk of the kernel's links (link_progs.h)
 * @ids: out, as listed_link_ids()
 * @progs: out, malloc'd, the caller frees it (NULL when none)
 * @np: out, the count of @progs (ascending link id, hidden and removed
 * links among them), or -errno: no such iterator, BPFLINKFS_NO_LINK_ITER,
 * or its read failed; the ids then come as listed_link_ids() gives them
 * Return: as listed_link_ids().
 */
int listed_links_progs(struct owned *o, __u32 **ids, struct link_prog **progs,
		       int *np);

/* A batch of listed links and their programs (@n, at most
 * LINK_PROGS_BATCH), the callee's to change; return 0 or -errno */
typedef int (*listed_batch_fn)(struct link_prog *v, int n, void *arg);

/**
 * listed_links_progs_each() - listed_links_progs() a batch at a time, as
 * the link iterator reads them: @fn(@v, @n, @arg) with the listed links of
 * each, by ascending id, so that a caller may render the first while the
 * kernel walks the rest
 * Return: how many were handed over, or -EOPNOTSUPP (no link iterator:
 * use listed_link_ids()), or -errno of the walk, or @fn's.
 */
int listed_links_progs_each(struct owned *o, listed_batch_fn fn, void *arg);

struct link_progs;

/**
 * owned_link_progs() - the iterator over every link's program and its run
 * statistics (link_progs.h), opened by owned_open(), or NULL where it
 * does not load (then read each program with prog_stats_read())
 */
struct link_progs *owned_link_progs(const struct owned *o);

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
	/* multi links: slots slot .. slot + nslots - 1, one per target
	 * (their cookies); 0 for a single-target link */
	unsigned int nslots;
	/* OPT_LATENCY, OPT_STACKS, OPT_BY of its line: which of the files
	 * latency, stacks and hits_by it has (sight.h) */
	unsigned int sight;
	/* the other link of an entry/return pair (owned_pair()), or 0 */
	__u32 partner;
};

/**
 * owned_pair() - links @a and @b are one line's entry and return links:
 * removing either (owned_remove(), owned_forget(), -*) removes both
 * Return: 0, or -ENOENT when either is not owned.
 */
int owned_pair(struct owned *o, __u32 a, __u32 b);

/**
 * owned_set_latency_pairs() - time calls (latency) with an entry link and
 * a return link even where the kernel has uprobe session links (the
 * daemon's -o latency_pairs); call before links are made
 */
void owned_set_latency_pairs(struct owned *o, bool on);

/** owned_latency_pairs() - as set by owned_set_latency_pairs() */
bool owned_latency_pairs(const struct owned *o);

/**
 * owned_add() - register a link created by this mount
 * @info: copied; @info->id must be the kernel link id of @fd
 * @fd: the link fd, owned by the registry from now on
 * Return: 0 or -ENOMEM.
 */
int owned_add(struct owned *o, const struct owned_info *info, int fd);

/**
 * owned_get() - copy an owned link's record
 * Return: 0, or -ENOENT when @id is not owned (or being removed).
 */
int owned_get(struct owned *o, __u32 id, struct owned_info *out);

/**
 * owned_look() - owned_is_dying() and owned_get() in one look, for a
 * listing that asks both of every link
 * @out: filled when this mount made link @id
 * Return: 1 when this mount made it (@out filled), 0 when not, -ENOENT
 * when it is being removed.
 */
int owned_look(struct owned *o, __u32 id, struct owned_info *out);

/** owned_is_dying() - @id was removed and waits for the reaper */
bool owned_is_dying(struct owned *o, __u32 id);

/**
 * owned_dying_ids() - every id removed but maybe still listed by the
 * kernel, ascending; taken before an enumeration so that a link whose
 * release ends during it is not listed
 * Return: the count and a malloc'd array in *ids, or -ENOMEM.
 */
int owned_dying_ids(struct owned *o, __u32 **ids);

/**
 * owned_remove() - detach an owned link: it leaves the tree at once, the
 * reaper closes its fd and frees its counter slot in the background.
 * Return: 0, -ENOENT (unknown id), -EPERM (a link this mount does not
 * own), or -errno of looking an id that is not owned up in the kernel.
 */
int owned_remove(struct owned *o, __u32 id);

/**
 * owned_is_foreign() - is @id a live link that this mount did not create?
 * (not one of its own, nor being removed, nor the daemon's own iterator
 * links, which no listing shows)
 */
bool owned_is_foreign(struct owned *o, __u32 id);

/**
 * owned_may_remove() - would owned_remove() remove @id now? Changes
 * nothing: a request checks its removals line by line and makes them
 * with owned_remove_ids() once all its lines have succeeded.
 * Return: 0 (owned), -ENOENT (unknown or being removed), -EPERM (a link
 * this mount does not own), or -errno of looking it up in the kernel
 * (-EMFILE when no fd is left).
 */
int owned_may_remove(struct owned *o, __u32 id);

/**
 * owned_remove_ids() - owned_remove() each owned link of @ids at once
 * @ids: ascending; ids not owned (any more) are skipped
 * @n: how many
 * Return: the number removed.
 */
int owned_remove_ids(struct owned *o, const __u32 *ids, size_t n);

/**
 * owned_forget() - an owned link lost its pin (removed by hand): unlist it
 * and hand it to the reaper like owned_remove(); its counter slot stays
 * taken if something else still holds the link
 * Return: 0, or -ENOENT when @id is not owned.
 */
int owned_forget(struct owned *o, __u32 id);

/**
 * owned_ids() - the ids of every owned link, ascending
 * Return: the count and a malloc'd array in *ids, or -ENOMEM.
 */
int owned_ids(struct owned *o, __u32 **ids);

/** owned_remove_all() - owned_remove() every owned link; returns the count */
int owned_remove_all(struct owned *o);

/**
 * owned_list() - "ID<TAB>COMMAND\n" for every owned link, in id order
 * Return: malloc'd string (caller frees) and its length in *len; NULL on
 * ENOMEM.
 */
char *owned_list(struct owned *o, size_t *len);

/** owned_count() - number of owned links */
size_t owned_count(struct owned *o);

/**
 * owned_add_pinned() - with pin_dir: pin a link just made in DIR, record
 * what adoption needs and register it, held by its pin (pin_link())
 * @fd: the link fd; the caller closes it afterwards
 * @e: on failure, what happened and what to do (bl_fail())
 * Return: 0 or -errno (nothing left behind on failure).
 */
int owned_add_pinned(struct owned *o, const struct owned_info *info, int fd,
		     struct bl_error *e);

/**
 * owned_adopt() - with pin_dir: own again every link pinned in DIR by an
 * earlier daemon (pin_adopt()); without, nothing
 * Return: the number adopted.
 */
int owned_adopt(struct owned *o);

/** reaper_start() - start the threads that close removed links' fds */
int reaper_start(struct owned *o);

/** reaper_drain() - remove every owned link and wait until all are closed */
void reaper_drain(struct owned *o);

#endif
