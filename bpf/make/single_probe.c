// SPDX-License-Identifier: GPL-2.0-only
/*
 * One probe line to its link(s), in three steps: resolve (resolve.c: the
 * uprobe target, the CPUs), attach (here: a counter slot, the perf event,
 * the program, the link), register (register.c: the owned registry, the
 * pin).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf_event_link.h"
#include "log.h"
#include "multi_targets.h"
#include "owned.h"
#include "counter_load.h"
#include "single_probe.h"
#include "register.h"
#include "resolve.h"
#include "sight.h"
#include "tracing_probe.h"
#include "uprobe_target.h"

#define MAX_CPUS 1024

/* The built-in program, or the pinned prog=; *prog_fd is ours to close
 * only when *pinned. */
static int program_for(struct owned *o, const struct probe_spec *p,
		       unsigned int instance, int *prog_fd, struct bl_error *e)
{
	int fd;

	if (p->opts & OPT_PROG) {
		fd = prog_open_pinned(p->prog, p->kind, e);
		if (fd < 0)
			e->column = p->prog_col; /* the caret under prog= */
	} else {
		fd = counter_prog_fd(owned_counter(o), p->kind, instance);
		if (fd < 0)
			bl_errorf(e, "cannot load the built-in program: %s",
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
	case PROBE_USDT:
		pp->target = ut->path;
		pp->target_held = ut->fd >= 0;
		pp->target_fd = ut->fd;
		pp->offset = ut->offset;
		pp->ref_ctr_offset = ut->ref_ctr_offset;
		break;
	case PROBE_KPROBE:
	case PROBE_KRETPROBE:
		pp->target = p->symbol;
		pp->offset = p->offset;
		break;
	case PROBE_TRACEPOINT:
		pp->tp_category = p->path;
		pp->tp_name = p->symbol;
		pp->tp_category_col = p->path_col;
		pp->tp_name_col = p->symbol_col;
		break;
	default:
		pp->perf_type = p->perf_type;
		pp->config = p->perf_config;
		pp->period = p->opts & OPT_FREQ ? 0 : p->period;
		pp->freq = p->opts & OPT_FREQ ? p->freq : 0;
	}
}

/* kprobe MODULE:FUNC goes to the kernel as one string; 0 or -ENAMETOOLONG */
static int kprobe_target(const struct probe_spec *p, char *buf, size_t len,
			 struct bl_error *e)
{
	int n;

	if (p->path[0])
		n = snprintf(buf, len, "%s:%s", p->path, p->symbol);
	else
		n = snprintf(buf, len, "%s", p->symbol);
	if (n >= 0 && (size_t)n < len)
		return 0;
	e->column = p->path[0] ? p->path_col : p->symbol_col;
	bl_errorf(e,
		  "MODULE:FUNCTION is longer than the kernel takes (%zu "
		  "bytes)",
		  len - 1);
	return -ENAMETOOLONG;
}

/* by=, stacks=: a program instance of the link's own (sight.h) on @pfd */
static int link_attach_sight(struct owned *o, const struct probe_spec *p,
			     int pfd, __u64 cookie, struct bl_error *e,
			     int *lfd)
{
	int prog = sight_prog_load(owned_counter(o), p, (__u32)cookie, 1, 0);

	if (prog < 0)
		return bl_fail(
			e, prog,
			"cannot load the built-in program with its options: "
			"%s",
			strerror(-prog));
	*lfd = perf_link_create(prog, pfd, cookie);
	close(prog);
	if (*lfd < 0)
		bl_errorf(e, "cannot create the link: %s", strerror(-*lfd));
	return *lfd < 0 ? *lfd : 0;
}

/*
 * The link on perf event @pfd, running the program; a tracepoint already
 * running the built-in program gets another instance of it (up to 64).
 */
static int link_attach(struct owned *o, const struct probe_spec *p, int pfd,
		       __u64 cookie, struct bl_error *e, int *lfd)
{
	unsigned int instance = 0;
	int prog = -1, err = 0;

	if (sight_needed(p) && !(p->opts & OPT_PROG))
		return link_attach_sight(o, p, pfd, cookie, e, lfd);
	while (!err) {
		err = program_for(o, p, instance, &prog, e);
		if (err)
			break;
		*lfd = perf_link_create(prog, pfd, cookie);
		if (p->opts & OPT_PROG)
			close(prog);
		if (*lfd == -EEXIST && p->kind == PROBE_TRACEPOINT &&
		    !(p->opts & OPT_PROG) && instance < 64) {
			instance++;
			continue;
		}
		err = *lfd < 0 ? *lfd : 0;
		if (err == -EEXIST)
			err = -E2BIG;
		if (err == -E2BIG && p->kind == PROBE_TRACEPOINT)
			bl_errorf(e,
				  "64 programs run on this tracepoint, the "
				  "kernel's limit (removed links count until "
				  "the kernel has released them)");
		else if (err)
			bl_errorf(e, "cannot create the link: %s",
				  strerror(-err));
		break;
	}
	return err;
}

/* A perf link of @pp running @prog with @cookie; -errno with @e set */
static int perf_prog_link(int prog, const struct perf_probe *pp, __u64 cookie,
			  struct bl_error *e)
{
	int pfd = perf_probe_open(pp, e), lfd;

	if (pfd < 0)
		return pfd;
	lfd = perf_link_create(prog, pfd, cookie);
	close(pfd);
	if (lfd < 0)
		bl_errorf(e, "cannot create the link: %s", strerror(-lfd));
	return lfd;
}

/*
 * The return half of a latency pair: a uretprobe link on the entry's
 * target running @rfd with the entry's @slot as cookie, registered with
 * the same spec and paired with @entry_id (it has no hits of its own).
 */
static int pair_return(struct owned *o, const struct probe_spec *p,
		       const struct uprobe_target *ut, int rfd, int slot,
		       const char *spec, __u32 entry_id, struct bl_error *e)
{
	struct probe_spec *ret = malloc(sizeof(*ret));
	struct perf_probe pp;
	int lfd, err = ret ? 0 : -ENOMEM;
	__u32 rid;

	if (err)
		return err;
	*ret = *p;
	ret->kind = PROBE_URETPROBE;
	ret->opts &= ~OPT_SIGHT; /* latency shows on the entry link */
	perf_probe_fill(ret, ut, &pp, -1);
	lfd = perf_prog_link(rfd, &pp, slot, e);
	err = lfd < 0 ? lfd
		      : link_register(o, ret, ut, &pp, slot, -1, spec, &lfd, e,
				      &rid);
	if (lfd >= 0 && err) /* else the registry holds it */
		close(lfd);
	if (!err)
		err = owned_pair(o, entry_id, rid);
	free(ret);
	return err;
}

/*
 * latency without uprobe session links: an entry link counting and
 * keeping the time per thread, and a return link filing the time
 * (sight_pair_load()); on failure nothing is left made.
 */
static int perf_pair_make(struct owned *o, const struct probe_spec *p,
			  const struct uprobe_target *ut, const char *spec,
			  struct bl_error *e, __u32 *id)
{
	struct counter *c = owned_counter(o);
	int slot = counter_slot_alloc(c), efd = -1, rfd = -1, lfd = -1, err;
	struct perf_probe pp;

	if (slot < 0)
		return bl_fail(e, slot, "out of counter slots");
	err = sight_pair_load(c, p, slot, 1, 0, &efd, &rfd);
	if (err)
		bl_errorf(e,
			  "cannot load the built-in program with latency: %s",
			  strerror(-err));
	perf_probe_fill(p, ut, &pp, -1);
	if (!err) {
		lfd = perf_prog_link(efd, &pp, slot, e);
		err = lfd < 0 ? lfd : 0;
	}
	if (!err)
		err = link_register(o, p, ut, &pp, slot, slot, spec, &lfd, e,
				    id);
	if (lfd >= 0 && err) /* else the registry holds it */
		close(lfd);
	if (err)
		counter_slot_free(c, slot);
	else if ((err = pair_return(o, p, ut, rfd, slot, spec, *id, e)))
		owned_remove(o, *id); /* the reaper frees the slot */
	if (efd >= 0)
		close(efd);
	if (rfd >= 0)
		close(rfd);
	return err;
}

int perf_probe_link_make(struct owned *o, const struct probe_spec *p,
			 const struct uprobe_target *ut, int cpu,
			 const char *spec, struct bl_error *e, __u32 *id)
{
	char kfunc[2 * PROBE_NAME_MAX];
	struct perf_probe pp;
	int slot = -1, pfd = -1, lfd = -1, err = 0;
	__u64 cookie = p->cookie;

	if (sight_use_pair(p, owned_latency_pairs(o)))
		return perf_pair_make(o, p, ut, spec, e, id);
	if (!(p->opts & OPT_PROG)) {
		slot = counter_slot_alloc(owned_counter(o));
		if (slot < 0) {
			err = slot;
			bl_errorf(e, "out of counter slots");
		}
		cookie = slot;
	}
	perf_probe_fill(p, ut, &pp, cpu);
	if (!err && (p->kind == PROBE_KPROBE || p->kind == PROBE_KRETPROBE)) {
		err = kprobe_target(p, kfunc, sizeof(kfunc), e);
		pp.target = kfunc;
	}
	if (!err) {
		pfd = perf_probe_open(&pp, e);
		err = pfd < 0 ? pfd : 0;
	}
	if (!err)
		err = link_attach(o, p, pfd, cookie, e, &lfd);
	if (pfd >= 0)
		close(pfd);
	if (!err)
		err = link_register(o, p, ut, &pp, cookie, slot, spec, &lfd, e,
				    id);
	if (err == -ENOENT && pfd >= 0 && p->kind == PROBE_TRACEPOINT)
		e->column = p->symbol_col; /* it exists: under its name */
	if (err) {
		if (lfd >= 0)
			close(lfd);
		if (slot > 0)
			counter_slot_free(owned_counter(o), slot);
	}
	return err;
}

/*
 * fentry/fexit/rawtracepoint: one link running its own instance of the
 * built-in program, which counts into the link's slot (tracing_probe.h).
 */
static int link_tracing(struct owned *o, const struct probe_spec *p,
			const char *spec, struct request_ids *made,
			struct bl_error *e)
{
	struct counter *c = owned_counter(o);
	char target[2 * PROBE_NAME_MAX];
	struct perf_probe pp = {
		.kind = p->kind, .target = target, .pid = -1, .cpu = -1};
	int slot, lfd = -1, err = request_ids_reserve(made, 1);

	if (!err) /* [MODULE:]FUNC */
		err = kprobe_target(p, target, sizeof(target), e);
	if (err)
		return err;
	slot = counter_slot_alloc(c);
	if (slot < 0)
		return bl_fail(e, slot, "out of counter slots");
	lfd = tracing_link_create(p, c, slot, e);
	err = lfd < 0 ? lfd
		      : link_register(o, p, NULL, &pp, 0, slot, spec, &lfd, e,
				      &made->ids[made->len]);
	if (!err)
		made->len++;
	if (err) {
		if (lfd >= 0)
			close(lfd);
		counter_slot_free(c, slot);
	}
	return err;
}

static bool probe_is_tracing(const struct probe_spec *p)
{
	return p->kind == PROBE_FENTRY || p->kind == PROBE_FEXIT ||
	       p->kind == PROBE_RAWTP;
}

/* The column of option @key ("cpu=") in @line, for the caret; 0 if absent */
static size_t option_column(const char *line, size_t len, const char *key)
{
	const char *opt = memmem(line, len, key, strlen(key));

	return opt ? (size_t)(opt - line) : 0;
}

/* probe_cpus() failed with @n: the error, under cpu= when it is offline */
static int cpus_error(const struct probe_spec *p, const char *line, size_t len,
		      int n, struct bl_error *e)
{
	if (n != -ENXIO)
		return bl_fail(e, n, "cannot read online CPUs");
	return bl_fail_at(
		e, -EINVAL, option_column(line, len, "cpu="),
		"cpu %d is not online (see /sys/devices/system/cpu/online)",
		p->cpu);
}

int single_probe_create(struct owned *o, const struct probe_spec *p,
			const char *line, size_t len, pid_t pid,
			struct request_ids *made, struct path_memo *memo,
			struct bl_error *e)
{
	struct uprobe_target *ut = NULL;
	bool per_cpu = false;
	char *spec = malloc(len + 32);
	int cpus[MAX_CPUS], n, i, err = 0;

	e->err = 0;
	e->column = 0;
	e->msg[0] = e->warning[0] = '\0';
	if (!spec)
		return -ENOMEM;
	if (probe_is_tracing(p)) {
		snprintf(spec, len + 32, "%.*s", (int)len, line);
		err = link_tracing(o, p, spec, made, e);
		goto out;
	}
	if (p->kind == PROBE_UPROBE || p->kind == PROBE_URETPROBE) {
		ut = calloc(1, sizeof(*ut));
		if (ut)
			ut->fd = -1;
		err = ut ? resolve_uprobe(p, pid, memo, ut, e) : -ENOMEM;
		if (!err && ut->warning[0])
			bl_warnf(e, "%s", ut->warning);
	}
	n = err ? 0 : probe_cpus(p, cpus, MAX_CPUS);
	if (n < 0)
		err = cpus_error(p, line, len, n, e);
	per_cpu = n > 0 && cpus[0] >= 0 && !(p->opts & OPT_CPU);
	for (i = 0; !err && i < n; i++) {
		size_t before = made->len;

		if (per_cpu)
			snprintf(spec, len + 32, "%.*s cpu=%d", (int)len, line,
				 cpus[i]);
		else
			snprintf(spec, len + 32, "%.*s", (int)len, line);
		err = request_ids_reserve(made, 1);
		if (!err)
			err = perf_probe_link_make(o, p, ut, cpus[i], spec, e,
						   &made->ids[made->len]);
		if (!err)
			made->len = before + 1;
	}
	/* perf_event_open(2): no such process */
	if (err == -ESRCH && !e->column)
		e->column = option_column(line, len, "pid=");
out:
	free(spec);
	if (ut && ut->fd >= 0)
		close(ut->fd);
	free(ut);
	e->err = err;
	return err;
}
