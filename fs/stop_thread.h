/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A thread that a caller stops at any time: it waits on an eventfd beside
 * its own work (poll(2) or epoll), and stop_thread_stop() writes it.
 */
#ifndef BPFLINKFS_STOP_THREAD_H
#define BPFLINKFS_STOP_THREAD_H

#include <pthread.h>

struct stop_thread {
	int stop_fd; /* eventfd: readable once stop_thread_stop() wrote it */
	pthread_t thread;
};

/**
 * stop_thread_start() - make @st's eventfd and start fn(@arg) on a thread
 * @st: out; fn() waits on @st->stop_fd (POLLIN) and returns when it is
 *      readable
 *
 * Return: 0, or -errno of eventfd(2) or of pthread_create(3) (-EAGAIN);
 * nothing is left open on failure.
 */
int stop_thread_start(struct stop_thread *st, void *(*fn)(void *), void *arg);

/** stop_thread_stop() - wake the thread, wait for it to end, close the fd */
void stop_thread_stop(struct stop_thread *st);

#endif
