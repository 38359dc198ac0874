// SPDX-License-Identifier: GPL-2.0-only
/* One probe line to its link(s): resolve, open perf events, link, own. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach.h"
#include "log.h"
#include "owned.h"
#include "counter.h"
#include "create.h"
#include "pin.h"
#include "uprobe_target.h"

#define MAX_CPUS 1024

/* The built-in program, or the pinned prog=; *prog_fd is ours to close
 * only when *pinned. */
static int program_for(const struct probe_spec *p, unsigned int instance,
		       int *prog_fd, struct create_error *ce)
{
	int fd;

	if (p->opts & OPT_PROG) {
		fd = prog_open_pinned(p->prog, p->kind, ce->msg,
				      sizeof(ce->msg));
	} else {
		fd = counter_prog_fd(owned_counter(), p->kind, instance);
		if (fd < 0)
			snprintf(ce->msg, sizeof(ce->msg),
				 "cannot load the built-in program: %s",
				 strerror(-fd));
	}
	if (fd < 0)
		return fd;
	*prog_fd = fd;
	return 0;
}

static void perf_probe_fill(const struct probe_spec *p,
			    const struct uprobe_target *ut,
			    struct perf_probe *pp, int cpu)
{
	memset(pp, 0, sizeof(*pp));
	pp->kind = p->kind;
	pp->pid = p->opts & OPT_PID ? p->pid : -1;
	pp->cpu = cpu;
	switch (p->kind) {
	case PROBE_UPROBE:
	case PROBE_URETPROBE:
		pp->target = ut->path;
		pp->offset = ut->offset;
		break;
	case PROBE_KPROBE:
	case PROBE_KRETPROBE:
		pp->target = p->symbol;
		pp->offset = p->offset;
		break;
	case PROBE_TRACEPOINT:
		pp->tp_category = p->path;
		pp->tp_name = p->symbol;
		break;
	default:
		pp->perf_type = p->perf_type;
		pp->config = p->perf_config;
		pp->period = p->opts & OPT_FREQ ? 0 : p->period;
		pp->freq = p->opts & OPT_FREQ ? p->freq : 0;
	}
}

/* kprobe MODULE:FUNC goes to the kernel as one string */
static void kprobe_target(const struct probe_spec *p, char *buf, size_t len)
{
	if (p->path[0])
		snprintf(buf, len, "%s:%s", p->path, p->symbol);
	else
		snprintf(buf, len, "%s", p->symbol);
}

/*
 * A kprobe's address as the kernel resolves it: FUNC's address in
 * /proc/kallsyms (the daemon, as root, sees it), plus the offset.
 * Return: 0, or -ENOENT when FUNC is missing or not unique.
 */
static int kallsyms_addr(const char *module, const char *func, __u64 *addr)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], mod[128];
	unsigned long long a;
	int found = 0;
	char type;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && found < 2) {
		mod[0] = '\0';
		if (sscanf(line, "%llx %c %255s [%127[^]]]", &a, &type, name,
			   mod) < 3 ||
		    strcmp(name, func) || (module[0] && strcmp(mod, module)))
			continue;
		*addr = a;
		found++;
	}
	fclose(f);
	return found == 1 && *addr ? 0 : -ENOENT;
}

/* Where the kernel has no perf link info (before 6.6), what we asked for. */
static void fields_from_probe(const struct probe_spec *p,
			      const struct perf_probe *pp, __u64 cookie,
			      struct link_fields *f)
{
	static const enum perf_link_kind kinds[] = {
		[PROBE_KPROBE] = PERF_LINK_KPROBE,
		[PROBE_KRETPROBE] = PERF_LINK_KRETPROBE,
		[PROBE_UPROBE] = PERF_LINK_UPROBE,
		[PROBE_URETPROBE] = PERF_LINK_URETPROBE,
		[PROBE_TRACEPOINT] = PERF_LINK_TRACEPOINT,
		[PROBE_SOFTWARE] = PERF_LINK_EVENT,
		[PROBE_HARDWARE] = PERF_LINK_EVENT,
	};

	f->kind = kinds[p->kind];
	f->cookie = cookie;
	f->offset = pp->offset;
	f->config = pp->config;
	f->event_type = pp->perf_type;
	snprintf(f->name, sizeof(f->name), "%s",
		 pp->target    ? pp->target
		 : pp->tp_name ? pp->tp_name
			       : "");
	/* only where the kernel cannot say: reading kallsyms takes a while */
	if ((p->kind == PROBE_KPROBE || p->kind == PROBE_KRETPROBE) &&
	    !link_features()->perf_link_info &&
	    kallsyms_addr(p->path, p->symbol, &f->addr) == 0)
		f->addr += p->offset;
}

/* Register a new link; with pin_dir its pin holds it and the fd goes. */
static int own_link(const struct owned_info *own, int *lfd,
		    struct create_error *ce)
{
	int err;

	if (!pin_enabled())
		return owned_add(own, *lfd);
	err = pin_link(own, *lfd, ce->msg, sizeof(ce->msg));
	if (!err) {
		close(*lfd);
		*lfd = -1;
	}
	return err;
}

/* One link on one CPU (-1: all); its id goes into *id. */
static int link_one(const struct probe_spec *p, const struct uprobe_target *ut,
		    int cpu, const char *spec, struct create_error *ce,
		    __u32 *id)
{
	struct owned_info *own = calloc(1, sizeof(*own));
	char kfunc[2 * PROBE_NAME_MAX];
	struct perf_probe pp;
	struct link_fields *f = calloc(1, sizeof(*f));
	int slot = -1, pfd = -1, lfd = -1, prog = -1, err;
	unsigned int instance = 0;
	__u64 cookie = p->cookie;

	err = own && f ? 0 : -ENOMEM;
	if (!err && !(p->opts & OPT_PROG)) {
		slot = counter_slot_alloc(owned_counter());
		if (slot < 0) {
			err = slot;
			snprintf(ce->msg, sizeof(ce->msg),
				 "out of counter slots");
		}
		cookie = slot;
	}
	perf_probe_fill(p, ut, &pp, cpu);
	if (p->kind == PROBE_KPROBE || p->kind == PROBE_KRETPROBE) {
		kprobe_target(p, kfunc, sizeof(kfunc));
		pp.target = kfunc;
	}
	if (!err) {
		pfd = perf_probe_open(&pp, ce->msg, sizeof(ce->msg));
		err = pfd < 0 ? pfd : 0;
	}
	while (!err) {
		err = program_for(p, instance, &prog, ce);
		if (err)
			break;
		lfd = perf_link_create(prog, pfd, cookie);
		if (p->opts & OPT_PROG)
			close(prog);
		if (lfd == -EEXIST && p->kind == PROBE_TRACEPOINT &&
		    !(p->opts & OPT_PROG) && instance < 64) {
			instance++;
			continue;
		}
		err = lfd < 0 ? lfd : 0;
		if (err == -EEXIST)
			err = -E2BIG;
		if (err == -E2BIG && p->kind == PROBE_TRACEPOINT)
			snprintf(ce->msg, sizeof(ce->msg),
				 "64 programs run on this tracepoint, the "
				 "kernel's limit (removed links count until "
				 "the kernel has released them)");
		else if (err)
			snprintf(ce->msg, sizeof(ce->msg),
				 "cannot create the link: %s", strerror(-err));
		break;
	}
	if (pfd >= 0)
		close(pfd);
	/* only the id: the tree reads the rest from the kernel, where it can */
	if (!err)
		err = link_id_read_fd(lfd, &f->id);
	if (!err)
		fields_from_probe(p, &pp, cookie, f);
	if (!err) {
		own->f = *f;
		own->id = f->id;
		own->slot = slot;
		own->kind = p->kind;
		if (p->kind == PROBE_TRACEPOINT)
			snprintf(own->category, sizeof(own->category), "%s",
				 p->path);
		if (ut) {
			own->dev = ut->dev;
			own->ino = ut->ino;
		}
		snprintf(own->spec, sizeof(own->spec), "%s", spec);
		err = own_link(own, &lfd, ce);
		if (!err)
			*id = f->id;
	}
	if (err) {
		if (lfd >= 0)
			close(lfd);
		if (slot > 0)
			counter_slot_free(owned_counter(), slot);
	}
	free(own);
	free(f);
	return err;
}

static int cpus_for(const struct probe_spec *p, int *cpus)
{
	bool event = p->kind == PROBE_SOFTWARE || p->kind == PROBE_HARDWARE;

	if (!event) {
		cpus[0] = -1;
		return 1;
	}
	if (p->opts & OPT_CPU) {
		int n = online_cpus(cpus, MAX_CPUS), i;

		for (i = 0; i < n; i++)
			if (cpus[i] == p->cpu)
				break;
		if (n > 0 && i == n)
			return -ENXIO; /* told apart by the caller */
		cpus[0] = p->cpu;
		return 1;
	}
	if (p->opts & OPT_PID) {
		cpus[0] = -1;
		return 1;
	}
	return online_cpus(cpus, MAX_CPUS);
}

/* Not a relative path: those depend on the writer's cwd of the moment. */
static bool memo_hit(const struct path_memo *m, const char *path)
{
	return m && m->path && !strcmp(m->path, path);
}

static void memo_set(struct path_memo *m, const char *path, const char *canon)
{
	if (!m || (path[0] != '/' && strchr(path, '/')))
		return;
	path_memo_clear(m);
	m->path = strdup(path);
	m->canon = strdup(canon);
	if (!m->path || !m->canon)
		path_memo_clear(m);
}

static int resolve_uprobe(const struct probe_spec *p, pid_t pid,
			  struct path_memo *memo, struct uprobe_target *ut,
			  struct create_error *ce)
{
	struct target_error te = {0};
	char *canon = malloc(PATH_MAX);
	int err = 0;

	if (!canon)
		return -ENOMEM;
	if (memo_hit(memo, p->path))
		snprintf(canon, PATH_MAX, "%s", memo->canon);
	else if (!(err = uprobe_resolve_path(
			   p->path, pid ? pid : UPROBE_PID_UNSEEN, canon, &te)))
		memo_set(memo, p->path, canon);
	if (!err)
		err = uprobe_resolve(canon, p->by_offset ? NULL : p->symbol,
				     p->offset, p->by_offset,
				     p->kind == PROBE_URETPROBE, ut, &te);
	free(canon);
	if (err) {
		snprintf(ce->msg, sizeof(ce->msg), "%s", te.msg);
		ce->column = te.column_hint ? p->symbol_col : p->path_col;
	}
	return err;
}

/* ENOENT for a tracepoint: caret under the category, or under the name
 * when the category exists in tracefs. */
static void tracepoint_column(const struct probe_spec *p,
			      struct create_error *ce)
{
	const char *root = tracefs_root();
	char path[PATH_MAX + 64];

	if (!root) {
		ce->column = p->path_col;
		return;
	}
	snprintf(path, sizeof(path), "%s/events/%s", root, p->path);
	ce->column = access(path, F_OK) ? p->path_col : p->symbol_col;
}

int probe_create(const struct probe_spec *p, const char *line, size_t len,
		 pid_t pid, struct id_list *made, struct path_memo *memo,
		 struct create_error *ce)
{
	struct uprobe_target *ut = NULL;
	bool per_cpu = false;
	char *spec = malloc(len + 32);
	int cpus[MAX_CPUS], n, i, err = 0;

	ce->column = 0;
	ce->msg[0] = ce->warning[0] = '\0';
	if (!spec)
		return -ENOMEM;
	if (p->kind == PROBE_UPROBE || p->kind == PROBE_URETPROBE) {
		ut = calloc(1, sizeof(*ut));
		err = ut ? resolve_uprobe(p, pid, memo, ut, ce) : -ENOMEM;
		if (!err && ut->warning[0])
			snprintf(ce->warning, sizeof(ce->warning), "%s",
				 ut->warning);
	}
	n = err ? 0 : cpus_for(p, cpus);
	if (n == -ENXIO) {
		const char *opt = memmem(line, len, "cpu=", 4);

		err = -EINVAL;
		snprintf(
			ce->msg, sizeof(ce->msg),
			"cpu %d is not online (see /sys/devices/system/cpu/online)",
			p->cpu);
		ce->column = opt ? (size_t)(opt - line) : 0;
	} else if (n < 0) {
		err = n;
		snprintf(ce->msg, sizeof(ce->msg), "cannot read online CPUs");
	}
	per_cpu = cpus[0] >= 0 && !(p->opts & OPT_CPU);
	for (i = 0; !err && i < n; i++) {
		size_t before = made->len;

		if (per_cpu)
			snprintf(spec, len + 32, "%.*s cpu=%d", (int)len, line,
				 cpus[i]);
		else
			snprintf(spec, len + 32, "%.*s", (int)len, line);
		err = id_list_reserve(made, 1);
		if (!err)
			err = link_one(p, ut, cpus[i], spec, ce,
				       &made->ids[made->len]);
		if (err == -ENOENT && p->kind == PROBE_TRACEPOINT)
			tracepoint_column(p, ce);
		if (!err)
			made->len = before + 1;
	}
	free(spec);
	free(ut);
	return err;
}
