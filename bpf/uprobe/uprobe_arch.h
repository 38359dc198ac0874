/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The host's ELF machine and its ld.so cache entries' arch flag, for
 * uprobe_elf.c and uprobe_ldcache.c (bpf/uprobe/ is internal to bpf/).
 */
#ifndef BPFLINKFS_UPROBE_ARCH_H
#define BPFLINKFS_UPROBE_ARCH_H


/* the host's ELF machine, and its ld.so cache entries' arch flag */
#if defined(__x86_64__)
#define UPROBE_HOST_MACHINE EM_X86_64
#define UPROBE_LDCACHE_ARCH 0x0300
#elif defined(__aarch64__)
#define UPROBE_HOST_MACHINE EM_AARCH64
#define UPROBE_LDCACHE_ARCH 0x0a00
#else
#error "bpf/uprobe: add this architecture's EM_ and ld.so cache flag"
#endif

#endif
