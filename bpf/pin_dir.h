/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pin_dir path and its lock: normalizing -o pin_dir=DIR, checking that
 * it can live in bpffs, making what is missing of it, and taking it for
 * one daemon (flock).
 */
#ifndef BPFLINKFS_PIN_DIR_H
#define BPFLINKFS_PIN_DIR_H

#include <stddef.h>

/**
 * pin_dir_normalize() - @dir with single slashes and no trailing one
 * @dir: the option's value
 * @out: the result, @len bytes
 * @msg: on failure, the reason (a relative path, '.' or '..' parts)
 * @mlen: size of @msg
 * Return: 0 or -errno.
 */
int pin_dir_normalize(const char *dir, char *out, size_t len, char *msg,
		      size_t mlen);

/**
 * pin_dir_take() - check @dir, make what is missing of it, and lock it
 * @dir: a normalized absolute path
 * @msg: on failure, the real cause and what to do ("pin_dir DIR ...")
 * @mlen: size of @msg
 *
 * Refused before anything is made: a part that is not a directory (a
 * pinned BPF link, map or program says so), a path outside bpffs, a name
 * with a '.' that bpffs does not allow, a directory another daemon locked.
 *
 * Return: an O_DIRECTORY fd holding the lock, or -errno.
 */
int pin_dir_take(const char *dir, char *msg, size_t mlen);

#endif
