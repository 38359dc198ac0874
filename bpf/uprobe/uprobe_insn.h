/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Is a uprobe's file offset where an instruction starts? The kernel cannot
 * know: it decodes whatever bytes are there, and a uprobe in the middle of
 * an instruction corrupts the code of every process that runs it (SIGILL,
 * or worse). bpftrace refuses such offsets the same way, with a
 * disassembler (binutils' libopcodes).
 */
#ifndef BPFLINKFS_UPROBE_INSN_H
#define BPFLINKFS_UPROBE_INSN_H

#include <stdbool.h>
#include <stdint.h>

#include "uprobe_target.h"

/**
 * uprobe_insn_check() - refuse a uprobe offset that is not where an
 * instruction of its function starts, and a return probe that is not at a
 * function's entry
 * @path: the file (canonical)
 * @offset: the file offset to probe
 * @retprobe: a uretprobe
 * @terr: out, the message (caret under SYMBOL or the offset) on refusal
 *
 * The function is the symbol containing @offset (uprobe_symbolize()); its
 * instructions are decoded from its entry up to @offset. An offset in no
 * function symbol, or too far into one (over 1 MiB), is not checked.
 *
 * Return: 0, -EINVAL (inside an instruction; a return probe not at an
 * entry), or -errno of reading the file.
 */
int uprobe_insn_check(const char *path, uint64_t offset, bool retprobe,
		      struct uprobe_err *terr);

#endif
