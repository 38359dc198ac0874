/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Handing the kernel a uprobe's file as an open descriptor, while the path
 * it records (and link info reports) stays the file's own.
 */
#ifndef BPFLINKFS_UPROBE_FDROOT_H
#define BPFLINKFS_UPROBE_FDROOT_H

/* What uprobe_fd_call() runs: @kpath is the path to hand the kernel. */
typedef int (*uprobe_fd_fn)(void *arg, const char *kpath);

/**
 * uprobe_fd_call() - run @fn where the absolute @path leads to the file
 * open on @fd, whatever happens to @path meanwhile
 * @fd: the file (any open mode, O_PATH too), open in this process
 * @path: the absolute path the kernel is to record (at most PATH_MAX - 1)
 * @fn: called once, with @arg and the path to give the kernel
 * @arg: for @fn
 *
 * The kernel looks a uprobe's path up when the probe is made and keeps the
 * string it was given: handing it @path would probe whatever file @path
 * names at that moment, which a rename or a symlink swap can change after
 * the daemon read the file. @fn runs in a worker thread (one for the
 * process; calls wait their turn) whose root is a private tmpfs in which
 * @path is, for that call, a symlink to the descriptor (through a procfs
 * mounted there), so the kernel reaches exactly the file on @fd and
 * records @path. Where that root cannot be made (no mount namespace, not
 * permitted), @fn gets "/proc/self/fd/N" in the calling thread: the same
 * file, recorded under that name. @fn must look nothing else up by path.
 *
 * Return: what @fn returns, or -errno when no thread could run it.
 */
int uprobe_fd_call(int fd, const char *path, uprobe_fd_fn fn, void *arg);

#endif
