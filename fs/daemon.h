/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's state: made in main(), the FUSE userdata of every request
 * (fuse_req_userdata(req), as libfuse's passthrough_ll reaches its own).
 */
#ifndef BPFLINKFS_DAEMON_H
#define BPFLINKFS_DAEMON_H

#include <stdbool.h>
#include <sys/types.h>

#include "handoff.h"

struct counter;
struct attached_set;
struct event_hub;
struct fuse_session;

struct daemon {
	struct counter *counter; /* the built-in program and its hits map */
	struct attached_set *attached; /* bare perf events (attached/) */
	char *pin_dir;		       /* -o pin_dir=, or NULL */
	/* the events streams (fs/events.c), or NULL */
	struct event_hub *events;
	bool allow_other;
	/* -o uid=, gid=, umask=: owner and mode bits of the tree */
	uid_t uid;
	gid_t gid;
	mode_t umask;
	struct fuse_session *se; /* for notifications (tree.c) */
	struct handoff handoff;	 /* one render per open (handoff.h) */
};

#endif
