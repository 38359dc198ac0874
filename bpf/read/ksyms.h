/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel addresses to function names, from /proc/kallsyms (ksyms.c). */
#ifndef BPFLINKFS_KSYMS_H
#define BPFLINKFS_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksyms;

/**
 * ksyms_load() - read /proc/kallsyms (as the daemon, root, sees it: real
 * addresses) into a table sorted by address; text symbols only
 * Return: the table, or NULL with errno set (ENOMEM, or from fopen).
 */
struct ksyms *ksyms_load(void);

/**
 * ksyms_name() - the function at @addr: "func", "func [module]" for a
 * module's, or "func+0xOFF" inside a function
 * @buf: out, @len bytes
 * Return: 0, or -ENOENT (no text symbol at or below @addr, or @addr 0).
 */
int ksyms_name(const struct ksyms *ks, uint64_t addr, char *buf, size_t len);

/** ksyms_free() - free what ksyms_load() made (NULL is fine) */
void ksyms_free(struct ksyms *ks);

#endif
