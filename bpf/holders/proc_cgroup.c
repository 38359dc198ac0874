// SPDX-License-Identifier: GPL-2.0-only
/* Where a process runs (proc_cgroup.h). */
#include "proc_cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "container.h"

#define CGROUP_FILE_MAX (1u << 20) /* a dozen hierarchies of PATH_MAX */

/* The whole of @path into a malloc'd, NUL-terminated buffer */
static int read_whole(const char *path, char **out, size_t *len)
{
	size_t cap = 512, n = 0;
	char *buf = malloc(cap), *p;
	ssize_t r;
	int fd = buf ? open(path, O_RDONLY | O_CLOEXEC) : -1, err = 0;

	if (fd < 0) {
		err = !buf ? -ENOMEM : errno == ESRCH ? -ENOENT : -errno;
		free(buf);
		return err;
	}
	for (;;) {
		if (n + 1 == cap) {
			p = cap < CGROUP_FILE_MAX ? realloc(buf, 2 * cap)
						  : NULL;
			if (!p) {
				err = cap < CGROUP_FILE_MAX ? -ENOMEM : -EFBIG;
				break;
			}
			buf = p;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r <= 0) {
			err = r < 0 ? (errno == ESRCH ? -ENOENT : -errno) : 0;
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int proc_cgroup_v2(__u32 pid, char **out)
{
	char path[64], *text = NULL, *line;
	size_t n = 0, k;
	int err;

	snprintf(path, sizeof(path), "/proc/%u/cgroup", pid);
	err = read_whole(path, &text, &n);
	if (err)
		return err;
	for (line = text; line && strncmp(line, "0::", 3);) {
		line = memchr(line, '\n', n - (size_t)(line - text));
		line = line && line + 1 < text + n ? line + 1 : NULL;
	}
	if (!line) {
		free(text);
		return -ENOENT;
	}
	k = n - (size_t)(line - text) - 3;
	if (k && line[3 + k - 1] == '\n')
		k--;
	memmove(text, line + 3, k);
	text[k] = '\0';
	*out = text;
	return 0;
}

static size_t slot_of(const struct cgroup_cache *c, __u32 pid)
{
	size_t i = (pid * 2654435761u) & (c->cap - 1);

	while (c->v[i].known && c->v[i].pid != pid)
		i = (i + 1) & (c->cap - 1);
	return i;
}

/* Twice the room, every place moved over. Return: 0, -ENOMEM */
static int grow(struct cgroup_cache *c)
{
	struct cgroup_cache g = {.cap = c->cap ? 2 * c->cap : 64, .n = c->n};
	size_t i;

	g.v = calloc(g.cap, sizeof(*g.v));
	if (!g.v)
		return -ENOMEM;
	for (i = 0; i < c->cap; i++)
		if (c->v[i].known)
			g.v[slot_of(&g, c->v[i].pid)] = c->v[i];
	free(c->v);
	*c = g;
	return 0;
}

const struct cgroup_place *cgroup_cache_get(struct cgroup_cache *c, __u32 pid)
{
	struct cgroup_place *p;
	char name[256];
	size_t i;

	if (c->cap && c->v[i = slot_of(c, pid)].known)
		return &c->v[i];
	if (2 * (c->n + 1) > c->cap && grow(c))
		return NULL;
	p = &c->v[slot_of(c, pid)];
	p->pid = pid;
	p->known = true;
	c->n++;
	if (proc_cgroup_v2(pid, &p->path))
		p->path = NULL;
	if (p->path && cgroup_container(p->path, name, sizeof(name)) > 0)
		p->container = strdup(name);
	return p;
}

void cgroup_cache_free(struct cgroup_cache *c)
{
	size_t i;

	for (i = 0; i < c->cap; i++) {
		free(c->v[i].path);
		free(c->v[i].container);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}
