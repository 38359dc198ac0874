/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A helper program the C tests run (mklinks, setbpf): its stdin is a pipe
 * the test holds (closing it tells the helper to exit), its stdout one
 * the test reads line by line.
 */
#ifndef BPFLINKFS_TEST_CHILD_H
#define BPFLINKFS_TEST_CHILD_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>

struct test_child {
	pid_t pid;
	int in;	   /* the helper's stdin: close to end it */
	FILE *out; /* its stdout */
};

/* Start argv[0] with @argv. Return: 0, or -errno. */
static inline int child_start(struct test_child *c, char *const argv[])
{
	int in[2], out[2];

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (!c->pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	c->out = fdopen(out[0], "r");
	return c->out ? 0 : -errno;
}

/* Close its stdin (the helper exits at EOF) and wait for it. */
static inline void child_stop(struct test_child *c)
{
	close(c->in);
	fclose(c->out);
	waitpid(c->pid, NULL, 0);
}

#endif
