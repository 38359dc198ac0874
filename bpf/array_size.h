/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ARRAY_SIZE(): how many elements an array has, as the kernel's and
 * libbpf's own (an array, not a pointer: sizeof of a pointer would give a
 * wrong count). The one definition for bpf/ and fs/.
 */
#ifndef BPFLINKFS_ARRAY_SIZE_H
#define BPFLINKFS_ARRAY_SIZE_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
