/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `<ID>/events`: the live streams of own links' hits (bpflinkfs(8), EVENTS).
 * One hub per daemon fans each record of the ring (bpf/builtin/event_ring.c)
 * out to every open stream of its link; each stream has a bounded queue,
 * blocked reads wait as deferred FUSE requests (no worker thread waits), poll
 * handles are notified when lines arrive.
 */
#ifndef BPFLINKFS_EVENTS_FS_H
#define BPFLINKFS_EVENTS_FS_H

#include <stdbool.h>
#include <sys/types.h>

#include <fuse_lowlevel.h>

#include "link_info.h"

struct owned;
struct event_hub;
struct event_stream;

/**
 * event_hub_start() - start the ring reader of @reg's counter; streams
 * are of @reg's links (bpf/make/owned.h)
 * Return: 0, or -errno from events_reader_start().
 */
int event_hub_start(struct event_hub **out, struct owned *reg);

/**
 * event_hub_watch_mount() - end every stream when @mountpoint is unmounted
 * (also lazily, while readers still hold the files): a thread waits for
 * changes of /proc/self/mountinfo. Call once, after the mount.
 * Return: 0, or -errno (ENOENT: the mount is not in mountinfo).
 */
int event_hub_watch_mount(struct event_hub *hub, const char *mountpoint);

/**
 * event_hub_stop() - stop the threads and end every stream: blocked reads
 * return what is queued, or end of file. Streams stay valid (as ended)
 * until released. NULL is ignored.
 */
void event_hub_stop(struct event_hub *hub);

/**
 * event_hub_free() - stop (if not yet) and free the hub; only when no FUSE
 * request can come any more (after the session loop). NULL is ignored.
 */
void event_hub_free(struct event_hub *hub);

/**
 * event_stream_open() - a new stream of link @id's hits from now on
 * Return: 0, -ENOENT (not an own link of the built-in program), -ENOMEM,
 * or -errno from switching recording on.
 */
int event_stream_open(struct event_hub *hub, __u32 id,
		      struct event_stream **out);

/**
 * event_stream_read() - answer a READ at offset @off: queued whole lines
 * up to @size, or wait for them (the request is answered later by the ring
 * thread, or with EINTR when the kernel interrupts it); EAGAIN when
 * @nonblock and nothing is queued; end of file once the stream ended. An
 * @off before the bytes given so far (the reader sought back over its
 * last read) gets those bytes again at once; another offset the stream
 * cannot give is ESPIPE.
 */
void event_stream_read(struct event_stream *s, fuse_req_t req, size_t size,
		       off_t off, bool nonblock);

/** event_stream_poll() - answer a POLL; keeps @ph to notify later */
void event_stream_poll(struct event_stream *s, fuse_req_t req,
		       struct fuse_pollhandle *ph);

/** event_stream_close() - RELEASE: recording stops with the last stream */
void event_stream_close(struct event_stream *s);

#endif
