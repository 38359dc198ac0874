// SPDX-License-Identifier: GPL-2.0-only
/* Attaching an iterator, and reading its fixed-size records whole
 * (iter_records.h). */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "iter_records.h"

/* Read @fd to its end into a growing array of @size-byte records. */
static int read_whole(int fd, size_t size, void **out)
{
	char *v = NULL, *p;
	size_t n = 0, cap = 0;
	ssize_t got;

	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 512;
			p = realloc(v, cap * size);
			if (!p) {
				free(v);
				return -ENOMEM;
			}
			v = p;
		}
		got = read(fd, v + n * size, (cap - n) * size);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(v);
			return -errno;
		}
		if (got == 0)
			break;
		n += (size_t)got / size;
	}
	*out = v;
	return (int)n;
}

int iter_records_read(int iter_link_fd, size_t size, void **out)
{
	int fd = bpf_iter_create(iter_link_fd), n;

	*out = NULL;
	if (fd < 0)
		return -errno;
	n = read_whole(fd, size, out);
	close(fd);
	return n;
}

__u32 iter_attach(struct bpf_program *prog, struct bpf_link **link)
{
	struct bpf_link_info info = {0};
	__u32 len = sizeof(info);
	int err;

	*link = bpf_program__attach_iter(prog, NULL);
	if (*link &&
	    !bpf_obj_get_info_by_fd(bpf_link__fd(*link), &info, &len) &&
	    info.id)
		return info.id;
	err = errno;
	bpf_link__destroy(*link);
	*link = NULL;
	errno = err;
	return 0;
}
