/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The layout of the counter's hits map, shared by its programs
 * (progs/counter_common.h) and by counter_load.c: a BPF_MAP_TYPE_ARRAY of u64
 * with a row of COUNTER_ROW_SLOTS slots per possible CPU; slot S of CPU C
 * is entry C * COUNTER_ROW_SLOTS + S.
 *
 * A constant, not a value set at load: a program that loads the row size
 * from its maps waits for that load before it can compute the entry, one
 * memory access more a hit, ~10-25 ns here (bench/README.md, "Cost per
 * hit"). It is the daemon's slot count (fs/main.c), a whole number of
 * cache lines, so no two CPUs' rows share one.
 */
#ifndef BPFLINKFS_COUNTER_ROW_H
#define BPFLINKFS_COUNTER_ROW_H

#define COUNTER_ROW_SLOTS 65536

#endif
