/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Creating a link, step three: register it as owned (single_probe.c runs the
 * steps).
 */
#ifndef BPFLINKFS_REGISTER_H
#define BPFLINKFS_REGISTER_H

#include <linux/types.h>

#include "perf_event_link.h"
#include "single_probe.h"
#include "parse.h"
#include "uprobe_target.h"

struct owned;
struct owned_info;

/**
 * link_register() - own a link just made: its record (id, what was asked
 * for where the kernel cannot say, slot, spec, the file probed) goes to
 * the registry @o, and with pin_dir its pin holds it
 * @pp: the perf event it was made on; @cookie, @slot: as made
 * @lfd: the link fd; taken (set to -1) when the pin holds the link
 * @id: out, the link's id
 * Return: 0 or -errno, with @e->msg set where there is more to say.
 */
int link_register(struct owned *o, const struct probe_spec *p,
		  const struct uprobe_target *ut, const struct perf_probe *pp,
		  __u64 cookie, int slot, const char *spec, int *lfd,
		  struct bl_error *e, __u32 *id);

/**
 * own_link() - register a link record made by a creation step in @o; with
 * pin_dir its pin holds the link and *@lfd is closed and set to -1
 * Return: 0 or -errno, @e->msg says why.
 */
int own_link(struct owned *o, const struct owned_info *own, int *lfd,
	     struct bl_error *e);

#endif
