/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Open file and directory handles. The kernel may send RELEASE while a
 * READ on the same handle is still being answered by another thread (a
 * reader killed mid-read, say): handles are counted, and freed only when
 * the last request using one is done.
 */
#ifndef BPFLINKFS_HANDLES_H
#define BPFLINKFS_HANDLES_H

#include <stdint.h>

#include <fuse_lowlevel.h>

/**
 * handle_new() - register @obj; @destroy frees it when the last user goes
 * Return: the value for fuse_file_info.fh, or 0 on ENOMEM (then @obj is
 * not registered and the caller still owns it).
 */
uint64_t handle_new(void *obj, void (*destroy)(void *obj));

/** handle_get() - the object behind @fh, counted; NULL if released */
void *handle_get(uint64_t fh);

/** handle_put() - done with an object from handle_get() */
void handle_put(uint64_t fh);

/** handle_close() - RELEASE: no new users; freed when the last is done */
void handle_close(uint64_t fh);

/**
 * reply_open() - reply to an OPEN or OPENDIR: @err (-errno) when it
 * failed, else register @obj as its handle (@destroy frees @obj, also when
 * that fails)
 */
void reply_open(fuse_req_t req, struct fuse_file_info *fi, int err, void *obj,
		void (*destroy)(void *obj));

#endif
