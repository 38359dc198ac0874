// SPDX-License-Identifier: GPL-2.0-only
/* rmdir of a link directory (foreign.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "access.h"
#include "control.h"
#include "daemon.h"
#include "detach.h"
#include "foreign.h"
#include "holders.h"
#include "link_info.h"
#include "log.h"
#include "owned.h"
#include "host_pins.h"
#include "sbuf.h"

#define MSG_MAX 900 /* of an error_log message */

/* The comm of @pid, unprintable bytes as '?'; "?" when unknown */
static void comm_of(pid_t pid, char *out, size_t len)
{
	char path[64];
	ssize_t n = -1;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = pid > 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0) {
		n = read(fd, out, len - 1);
		close(fd);
	}
	if (n <= 0)
		n = snprintf(out, len, "?");
	out[n] = '\0';
	if (n && out[n - 1] == '\n')
		out[--n] = '\0';
	for (i = 0; i < n; i++)
		if ((unsigned char)out[i] < 0x20 ||
		    (unsigned char)out[i] >= 0x7f)
			out[i] = '?';
}

/* The link's type as its `type` file names it, or "unknown" */
static const char *type_of(__u32 id, char *buf, size_t len)
{
	struct link_fields *f = malloc(sizeof(*f));
	const char *name = NULL;

	if (f && !link_info_read(id, f))
		name = link_view_name(f, buf, len);
	if (name && name != buf)
		snprintf(buf, len, "%s", name);
	free(f);
	return name ? buf : "unknown";
}

/* "held by PID COMM (CONTAINER), ...; pinned at PATH, ..." into @s */
static void who_holds(struct owned *reg, __u32 id, struct sbuf *s)
{
	struct holder_index h = {0};
	struct pin_index p = {0};
	size_t first = 0, n = 0, i, shown = 0;

	if (!holder_index_build_link(&h, owned_task_files(reg), id))
		n = holder_index_find(&h, id, &first);
	for (i = first; i < first + n; i++) {
		const struct link_holder *x = &h.v[i];
		const struct cgroup_place *pl;

		if (x->pid == h.self)
			continue; /* the daemon opened it to ask */
		pl = holder_place(&h, x->pid);
		sbuf_printf(s, "%s%u %.16s (%s)", shown++ ? ", " : "held by ",
			    x->pid, x->comm,
			    pl && pl->container ? pl->container : "-");
	}
	if (!shown)
		sbuf_printf(s, "held by no process");
	n = pin_index_build(&p) ? 0 : pin_index_find(&p, id, &first);
	for (i = first; i < first + n; i++)
		sbuf_printf(s, "%s%s", i == first ? "; pinned at " : ", ",
			    p.v[i].path);
	if (!n)
		sbuf_printf(s, "; not pinned");
	pin_index_free(&p);
	holder_index_free(&h);
}

/* error_log: the kernel cannot detach link @id; whom to stop instead */
static void log_undetachable(const struct daemon *d, __u32 id, const char *type)
{
	struct sbuf s = {0};
	char line[32];
	size_t len;
	char *msg;

	sbuf_printf(&s, "the kernel cannot detach links of type %s: ", type);
	who_holds(d->owned, id, &s);
	msg = sbuf_finish(&s, &len);
	if (!msg)
		return;
	if (len > MSG_MAX)
		memcpy(msg + MSG_MAX - 3, "...", 4);
	snprintf(line, sizeof(line), "rmdir %u", id);
	error_log_add(d->errors, -EOPNOTSUPP, 1, msg, line, strlen(line), 6);
	free(msg);
}

/* Detach foreign link @id if the mount and the requester may; logged */
static int detach_foreign(fuse_req_t req, __u32 id)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	const struct daemon *d = fuse_req_userdata(req);
	char comm[64], type[32];
	const char *why = NULL;
	int err = -EPERM;

	comm_of(ctx->pid, comm, sizeof(comm));
	type_of(id, type, sizeof(type));
	if (ctx->uid != 0) {
		why = "the requester is not root";
		err = -EACCES;
	} else if (!d->detach) {
		why = "the mount has no -o detach";
	} else if ((err = requester_may_detach(ctx->pid)) <= 0) {
		why = err ? "its capabilities cannot be read"
			  : "the requester lacks CAP_SYS_ADMIN";
		err = err ? err : -EPERM;
	} else {
		err = link_detach_id(id);
		if (err == -EOPNOTSUPP)
			why = "the kernel cannot detach this link type";
	}
	if (err)
		log_msg(LOG_WARNING,
			"detach of link %u (%s) asked by uid %u pid %d comm %s: "
			"refused, %s: %s",
			id, type, (unsigned)ctx->uid, (int)ctx->pid, comm,
			strerrorname_np(-err), why ? why : strerror(-err));
	else
		log_msg(LOG_NOTICE,
			"detach of link %u (%s) asked by uid %u pid %d comm %s: "
			"done",
			id, type, (unsigned)ctx->uid, (int)ctx->pid, comm);
	if (err == -EOPNOTSUPP)
		log_undetachable(d, id, type);
	return err;
}

int link_rmdir(fuse_req_t req, __u32 id)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct owned *reg = req_owned(req);

	int may;

	if (owned_is_foreign(reg, id))
		return detach_foreign(req, id);
	if (ctx->uid != 0)
		return -EACCES;
	/* a check that cannot read the capabilities says why, not EPERM */
	may = writer_may_attach(ctx->pid);
	if (may <= 0)
		return may ? may : -EPERM;
	return owned_remove(reg, id);
}
