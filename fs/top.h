/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `top`: every link's cost, one block per interval, as a stream like
 * `events` (stream.h). A thread samples every link's program statistics
 * while at least one reader is open; the first reader turns the kernel's
 * run statistics on (a BPF_ENABLE_STATS fd, bpf/read/prog_stats.h), the last
 * one to close turns them off.
 */
#ifndef BPFLINKFS_TOP_H
#define BPFLINKFS_TOP_H

#include <stdbool.h>
#include <sys/types.h>

#include <fuse_lowlevel.h>

struct owned;
struct stats_switch;
struct top_hub;
struct top_stream;

/**
 * top_hub_start() - the sampler of @reg's view of the host (its thread
 * sleeps while nobody reads)
 * @sw: the statistics switch the readers hold
 * @interval_ms: time between blocks
 * Return: 0, -ENOMEM, or -errno of pthread_create().
 */
int top_hub_start(struct top_hub **out, struct owned *reg,
		  struct stats_switch *sw, unsigned int interval_ms);

/**
 * top_hub_watch_mount() - end every stream when @mountpoint is unmounted
 * (lazily included). Return: 0, or -errno of mount_watch_start().
 */
int top_hub_watch_mount(struct top_hub *hub, const char *mountpoint);

/** top_hub_stop() - end every stream, stop the thread; NULL is ignored */
void top_hub_stop(struct top_hub *hub);

/** top_hub_free() - stop and free, after the session loop; NULL ignored */
void top_hub_free(struct top_hub *hub);

/**
 * top_stream_open() - a new reader: its first block comes one interval
 * after the first reader's open (the rates need two samples)
 * Return: 0, -ENOENT (the hub ended), -ENOMEM, or -errno of turning
 * statistics on (stats_switch_hold()).
 */
int top_stream_open(struct top_hub *hub, struct top_stream **out);

/**
 * top_file_open() - OPEN of `top`: read-only, by root with CAP_PERFMON or
 * CAP_SYS_ADMIN (it shows every program's cost, and turns statistics on
 * for all of them), then top_stream_open() on @hub
 * Return: 0, -EACCES, -EOPNOTSUPP (no hub: its thread did not start), or
 * top_stream_open()'s -errno.
 */
int top_file_open(fuse_req_t req, struct fuse_file_info *fi,
		  struct top_hub *hub, struct top_stream **out);

/** top_stream_read() / top_stream_poll(): as stream_read(), stream_poll() */
void top_stream_read(struct top_stream *s, fuse_req_t req, size_t size,
		     off_t off, bool nonblock);
void top_stream_poll(struct top_stream *s, fuse_req_t req,
		     struct fuse_pollhandle *ph);

/** top_stream_close() - RELEASE; the last reader turns statistics off */
void top_stream_close(struct top_stream *s);

#endif
