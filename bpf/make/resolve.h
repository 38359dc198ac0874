/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Creating a link, step one: what a probe line names, before anything is
 * attached (single_probe.c runs the steps).
 */
#ifndef BPFLINKFS_RESOLVE_H
#define BPFLINKFS_RESOLVE_H

#include <stddef.h>
#include <sys/types.h>

#include "single_probe.h"
#include "error.h"
#include "parse.h"
#include "uprobe_target.h"
#include "uprobe_usdt.h"

/**
 * probe_cpus() - the CPUs a probe goes on: -1 (any) for probes, the cpu=
 * CPU, or every online CPU for a software/hardware event without pid=
 * @cpus: out, @max entries
 * Return: the count, -ENXIO when cpu= is not online, or -errno.
 */
int probe_cpus(const struct probe_spec *p, int *cpus, size_t max);

/**
 * resolve_uprobe_file() - only the PATH of a uprobe line (through @memo)
 * @canon: out, PATH_MAX bytes: the daemon's path to the file
 * @te: out, the error (its columns set by the caller)
 * Return: 0 or -errno.
 */
int resolve_uprobe_file(const struct probe_spec *p, pid_t pid,
			struct path_memo *memo, char *canon,
			struct uprobe_err *te);

/*
 * locate_uprobe_file() - as resolve_uprobe_file(), but the file is not
 * checked to be a probe-able ELF file: for a caller whose next step opens
 * it that way (uprobe_glob()), with the same errors. A request stops at
 * its first failing line, so @memo never hands a later line a file that
 * was not checked.
 */
int locate_uprobe_file(const struct probe_spec *p, pid_t pid,
		       struct path_memo *memo, char *canon,
		       struct uprobe_err *te);

/**
 * uprobe_file_hold() - open the file at @canon (O_PATH) before it is read
 * @fd: out, the descriptor (the caller closes it)
 * Return: 0 or the -errno of open().
 */
int uprobe_file_hold(const char *canon, int *fd);

/**
 * uprobe_file_check() - the file held on @fd (uprobe_file_hold(), before
 * the reading) is the one that was read, of device @dev and inode @ino
 * Return: 0, -EAGAIN (a file put in its place was read), or -errno.
 */
int uprobe_file_check(int fd, dev_t dev, ino_t ino);

/**
 * resolve_uprobe() - a uprobe's PATH (in the writer's view, through
 * @memo) and SYMBOL to the file and offset the kernel probes
 * @pid: the writer; 0 when it is not seen from here
 * @ut: out, the target, with @ut->fd open on the file that was read
 *      (the caller closes it; -1 on failure)
 * @e: on failure, the error, its caret under PATH or SYMBOL
 * Return: 0 or -errno.
 */
int resolve_uprobe(const struct probe_spec *p, pid_t pid,
		   struct path_memo *memo, struct uprobe_target *ut,
		   struct bl_error *e);

/**
 * resolve_usdt() - a USDT probe's PATH (as for uprobes) and
 * [PROVIDER:]NAME to its locations (uprobe_usdt_resolve())
 * @ut: out, the file (path, device, inode, and @ut->fd as for
 *      resolve_uprobe())
 * @locs: out, malloc'd, @n entries: file offsets and semaphore offsets
 * @e: on failure, the error, its caret under PATH or [PROVIDER:]NAME
 * Return: 0 or -errno.
 */
int resolve_usdt(const struct probe_spec *p, pid_t pid, struct path_memo *memo,
		 struct uprobe_target *ut, struct usdt_location **locs,
		 size_t *n, struct bl_error *e);

#endif
