/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pin_dir path and its lock: normalizing -o pin_dir=DIR, checking that
 * it can live in bpffs, making what is missing of it, and taking it for
 * one daemon (flock).
 */
#ifndef BPFLINKFS_PIN_DIR_H
#define BPFLINKFS_PIN_DIR_H

#include <stddef.h>

#include "error.h"

/**
 * pin_dir_normalize() - @dir with single slashes and no trailing one
 * @dir: the option's value
 * @out: the result, @len bytes
 * @e: on failure, the reason (a relative path, '.' or '..' parts, too
 *     long): bl_fail()
 * Return: 0 or -errno.
 */
int pin_dir_normalize(const char *dir, char *out, size_t len,
		      struct bl_error *e);

/**
 * pin_dir_take() - check @dir, make what is missing of it, and lock it
 * @dir: a normalized absolute path
 * @kept: out: the length of the part of @dir that was there before (all
 *        of it when nothing was made), for pin_dir_unmake()
 * @e: on failure, the real cause and what to do ("pin_dir DIR ...");
 *     the paths it quotes are cut in the middle (BL_PATH()), so that a
 *     long one leaves room for the cause
 *
 * Refused before anything is made: a part that is not a directory (a
 * pinned BPF link, map or program says so), a path outside bpffs, a name
 * with a '.' that bpffs does not allow, a directory another daemon locked.
 * Refused too (-EPERM), since its owner or writers could unpin root's
 * links: a pin_dir not owned by root or that group or others may write;
 * a parent not owned by root or that group or others may write unless it
 * is sticky; a symbolic link on the way not owned by root. The pin_dir is
 * checked again through the fd it returns (a directory someone else made
 * in its place meanwhile is refused), and what it made is removed on
 * every refusal.
 *
 * Return: an O_DIRECTORY fd holding the lock, or -errno.
 */
int pin_dir_take(const char *dir, size_t *kept, struct bl_error *e);

/**
 * pin_dir_unmake() - remove the empty directories pin_dir_take() made
 * @dir: its @dir
 * @kept: its *@kept; nothing is removed at or above that length
 */
void pin_dir_unmake(const char *dir, size_t kept);

#endif
