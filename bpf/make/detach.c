// SPDX-License-Identifier: GPL-2.0-only
/* BPF_LINK_DETACH by link id (detach.h). */
#include "detach.h"

#include <errno.h>
#include <unistd.h>
#include <bpf/bpf.h>

int link_detach_id(__u32 id)
{
	int fd = bpf_link_get_fd_by_id(id), err;

	/* EAGAIN: an id not yet settled, as good as none */
	if (fd < 0)
		return errno == EAGAIN ? -ENOENT : -errno;
	err = bpf_link_detach(fd) ? -errno : 0;
	close(fd);
	return err;
}
