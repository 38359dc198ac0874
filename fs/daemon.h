/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's state: made in main(), the FUSE userdata of every request
 * (fuse_req_userdata(req), as libfuse's passthrough_ll reaches its own).
 */
#ifndef BPFLINKFS_DAEMON_H
#define BPFLINKFS_DAEMON_H

#include <stdbool.h>
#include <sys/types.h>

#include <fuse_lowlevel.h>

#include "handles.h"
#include "handoff.h"

struct owned;
struct bare_perf_set;
struct event_hub;
struct top_hub;
struct stats_switch;
struct error_log;

struct daemon {
	/* the kernel library's state (bpf/make/owned.h): owned links, their
	 * counter, the pin_dir, how links are listed (bpf/read/link_list.h);
	 * passed to every bpf/ call that needs it */
	struct owned *owned;
	struct bare_perf_set *attached; /* bare perf events (attached/) */
	char *pin_dir;		       /* -o pin_dir=, or NULL */
	bool latency_pairs;	       /* -o latency_pairs */
	/* the events streams (fs/events.c), or NULL */
	struct event_hub *events;
	/* the kernel's run statistics, on while someone looks
	 * (bpf/read/prog_stats.h), and `top` (fs/top.c), or NULL */
	struct stats_switch *stats;
	struct top_hub *top;
	unsigned int top_interval_ms; /* -o top_interval= */
	bool hold_stats; /* -o bpf_stats: on for the mount's life */
	bool allow_other;
	bool detach; /* -o detach: root may detach links it did not make */
	/* -o uid=, gid=, umask=: owner and mode bits of the tree */
	uid_t uid;
	gid_t gid;
	mode_t umask;
	/* the control file's failed lines (control.h), one log a mount */
	struct error_log *errors;
	struct fuse_session *se; /* for notifications (tree.c) */
	time_t mount_time;	 /* every file's times: when FUSE_INIT came */
	struct handoff handoff;	 /* one render per open (handoff.h) */
	struct handle_table handles; /* open files and dirs (handles.h) */
};

/* The registry of the daemon serving @req (as passthrough_ll's lo_data()) */
static inline struct owned *req_owned(fuse_req_t req)
{
	const struct daemon *d = fuse_req_userdata(req);

	return d->owned;
}

/* The open handles of the mount serving @req; take it before replying */
static inline struct handle_table *req_handles(fuse_req_t req)
{
	struct daemon *d = fuse_req_userdata(req);

	return &d->handles;
}

#endif
