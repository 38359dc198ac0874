/* SPDX-License-Identifier: GPL-2.0-only */
/* The symbolizer's cache of symbol tables (uprobe_symcache.c). */
#ifndef BPFLINKFS_UPROBE_SYMCACHE_H
#define BPFLINKFS_UPROBE_SYMCACHE_H

/* Drop every cached symbol table (tests: a cold cache). */
void uprobe_symcache_flush(void);

#endif
