// SPDX-License-Identifier: GPL-2.0-only
/*
 * fentry/fexit and raw tracepoint links with the built-in counter
 * (tracing_probe.h). Each link runs its own instance of counter_rawtp with its
 * slot in .rodata (see progs/counter_tracing.bpf.c for why not a cookie).
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "counter_load.h"
#include "events_record.h"
#include "tracing_probe.h"
#include "counter_tracing.skel.h"

/* a whole level-1 log of the program (a smaller buffer fails ENOSPC) */
#define VERIFIER_LOG_BYTES (256 << 10)

/* Process-wide on purpose: the running kernel's BTF, the same for every
 * mount, loaded once (pthread_once) and read-only afterwards */
static struct btf *vmlinux_btf;
static pthread_once_t vmlinux_once = PTHREAD_ONCE_INIT;

/* Kernel BTF never changes while the system runs: parse it once. */
static void vmlinux_load(void)
{
	struct btf *btf = btf__load_vmlinux_btf();

	vmlinux_btf = libbpf_get_error(btf) ? NULL : btf;
}

static struct btf *vmlinux(void)
{
	pthread_once(&vmlinux_once, vmlinux_load);
	return vmlinux_btf;
}

/*
 * The fd of a module's BTF object, found by name among the kernel's BTF
 * objects (BPF_BTF_GET_NEXT_ID, bpf_btf_info.name).
 * Return: an fd, or -ENOENT.
 */
static int module_btf_fd(const char *module)
{
	struct bpf_btf_info info;
	__u32 id = 0, len;
	char name[64];
	int fd;

	while (!bpf_btf_get_next_id(id, &id)) {
		fd = bpf_btf_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		info.name = (__u64)(uintptr_t)name;
		info.name_len = sizeof(name);
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    info.kernel_btf && !strcmp(name, module))
			return fd;
		close(fd);
	}
	return -ENOENT;
}

/* modprobe accepts '-' for '_'; the kernel names modules with '_' */
static void module_name(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < len; i++)
		out[i] = in[i] == '-' ? '_' : in[i];
	out[i] = '\0';
}

/*
 * Where a fexit program finds the return value of FUNC in its context: after
 * the arguments, each in as many u64 as its size takes (a pointer one), as
 * the kernel's get_ctx_arg_idx() counts them. EVENTS_NO_RET for a function
 * returning void (the verifier refuses that read) or one past the slots a
 * raw tracepoint program may read (the instance is loaded as one first).
 */
static __u32 ret_offset(const struct btf *btf, __u32 func_id)
{
	const struct btf_type *fn = btf__type_by_id(btf, func_id);
	const struct btf_type *proto =
		fn ? btf__type_by_id(btf, fn->type) : NULL;
	const struct btf_param *arg;
	const struct btf_type *t;
	__u32 off = 0, i;
	__s64 size;

	if (!proto || !btf_is_func_proto(proto) || !proto->type)
		return EVENTS_NO_RET;
	arg = btf_params(proto);
	for (i = 0; i < btf_vlen(proto); i++, arg++) {
		t = btf__type_by_id(btf, btf__resolve_type(btf, arg->type));
		size = t && btf_is_ptr(t) ? 8
					  : btf__resolve_size(btf, arg->type);
		if (size <= 0)
			return EVENTS_NO_RET;
		off += (size + 7) / 8 * 8;
	}
	return off < EVENTS_CTX_SLOTS * 8 ? off : EVENTS_NO_RET;
}

/*
 * FUNC's BTF id in vmlinux or in MODULE's BTF, with a module the fd of its
 * BTF object (else -1 in *obj_fd), and where its return value is
 * (ret_offset()).
 */
static int btf_target(const struct probe_spec *p, __u32 *type_id, int *obj_fd,
		      __u32 *ret_off, struct bl_error *e)
{
	struct btf *base = vmlinux(), *btf = base;
	char mod[PROBE_NAME_MAX];
	int id;

	*obj_fd = -1;
	if (!base)
		return bl_fail_at(
			e, -EOPNOTSUPP, p->symbol_col,
			"no kernel BTF (/sys/kernel/btf/vmlinux): %s needs it",
			probe_kind_name(p->kind));
	if (p->path[0]) {
		module_name(p->path, mod, sizeof(mod));
		btf = btf__load_module_btf(mod, base);
		*obj_fd = libbpf_get_error(btf) ? -ENOENT : module_btf_fd(mod);
		if (*obj_fd < 0) {
			if (!libbpf_get_error(btf))
				btf__free(btf);
			return bl_fail_at(
				e, -ENOENT, p->path_col,
				"no module '%s' with BTF (/sys/kernel/btf/%s)",
				p->path, mod);
		}
	}
	id = btf__find_by_name_kind(btf, p->symbol, BTF_KIND_FUNC);
	if (id > 0)
		*ret_off = ret_offset(btf, id);
	if (btf != base)
		btf__free(btf);
	if (id > 0) {
		*type_id = id;
		return 0;
	}
	if (*obj_fd >= 0)
		close(*obj_fd);
	*obj_fd = -1;
	if (p->path[0])
		bl_fail_at(e, -ENOENT, p->symbol_col,
			   "no function '%s' in the BTF of %s (not a kernel "
			   "function, or inlined)",
			   p->symbol, p->path);
	else
		bl_fail_at(
			e, -ENOENT, p->symbol_col,
			"no function '%s' in the BTF of vmlinux (not a kernel "
			"function, or inlined; in a module: %s:MODULE:%s)",
			p->symbol, probe_kind_name(p->kind), p->symbol);
	return -ENOENT;
}

/* The instance's program: counter_rawtp, or its per-CPU map twin. */
static struct bpf_program *instance_prog(const struct counter_tracing_bpf *skel)
{
	return bpf_program__autoload(skel->progs.counter_rawtp)
		       ? skel->progs.counter_rawtp
		       : skel->progs.counter_rawtp_percpu;
}

/*
 * Only the program for the counter's hits map (progs/counter_common.h),
 * on that map; the other map is not made.
 */
static int instance_layout(struct counter_tracing_bpf *skel,
			   const struct counter_events *ev)
{
	bool percpu = ev->hits_percpu;
	int err;

	bpf_program__set_autoload(skel->progs.counter_rawtp, !percpu);
	bpf_program__set_autoload(skel->progs.counter_rawtp_percpu, percpu);
	err = bpf_map__set_autocreate(
		percpu ? skel->maps.hits : skel->maps.hits_percpu, false);
	return err ? err
		   : bpf_map__reuse_fd(percpu ? skel->maps.hits_percpu
					      : skel->maps.hits,
				       ev->hits_fd);
}

/*
 * counter_rawtp with @slot and @ret_off in .rodata, loaded on the maps of
 * the counter @c (hits, the events maps and .bss: progs/events_common.h).
 */
static int instance_open(struct counter *c, uint32_t slot, __u32 ret_off,
			 struct counter_tracing_bpf **out)
{
	struct counter_tracing_bpf *skel;
	struct counter_events ev;
	int err = counter_events_maps(c, &ev);

	if (err)
		return err;
	skel = counter_tracing_bpf__open();
	if (!skel)
		return errno ? -errno : -ENOMEM;
	skel->rodata->slot = slot;
	skel->rodata->ret_off = ret_off;
	err = instance_layout(skel, &ev);
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.events_on, ev.on_fd);
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.events_lost, ev.lost_fd);
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.events_ring, ev.ring_fd);
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.bss, ev.bss_fd);
	if (!err)
		err = counter_tracing_bpf__load(skel);
	if (err) {
		counter_tracing_bpf__destroy(skel);
		return err < 0 ? err : -EINVAL;
	}
	*out = skel;
	return 0;
}

/* The last line of a verifier log: what it refused. */
static const char *log_tail(char *log)
{
	size_t n = strlen(log);
	char *nl;

	while (n && log[n - 1] == '\n')
		log[--n] = '\0';
	nl = strrchr(log, '\n');
	return nl ? nl + 1 : log;
}

/*
 * The instance's final instructions (the hits map and .rodata already in
 * place) loaded again as a tracing program for the target.
 */
static int tracing_load(const struct counter_tracing_bpf *skel,
			enum bpf_attach_type type, __u32 btf_id, int obj_fd,
			char *log, size_t log_len)
{
	const struct bpf_program *prog = instance_prog(skel);
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type,
		    .attach_btf_id = btf_id,
		    .attach_btf_obj_fd = obj_fd > 0 ? obj_fd : 0,
		    .log_buf = log, .log_size = log_len,
		    .log_level = log ? 1 : 0);
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING,
			   type == BPF_TRACE_FENTRY ? "counter_fentry"
						    : "counter_fexit",
			   "GPL", bpf_program__insns(prog),
			   bpf_program__insn_cnt(prog), &opts);
	return fd < 0 ? -errno : fd;
}

/* The target of a fentry/fexit line, found in BTF (btf_target()). */
struct tracing_target {
	__u32 btf_id;
	int obj_fd;
	__u32 ret_off;
};

static int fentry_link(const struct probe_spec *p,
		       const struct counter_tracing_bpf *skel,
		       const struct tracing_target *tt, struct bl_error *e)
{
	enum bpf_attach_type type =
		p->kind == PROBE_FENTRY ? BPF_TRACE_FENTRY : BPF_TRACE_FEXIT;
	char *log = calloc(1, VERIFIER_LOG_BYTES);
	int prog_fd, lfd;

	if (!log)
		return -ENOMEM;
	/* the log only to say why: a load that succeeds needs none */
	prog_fd = tracing_load(skel, type, tt->btf_id, tt->obj_fd, NULL, 0);
	if (prog_fd < 0 && prog_fd != -EPERM)
		prog_fd = tracing_load(skel, type, tt->btf_id, tt->obj_fd, log,
				       VERIFIER_LOG_BYTES);
	if (prog_fd == -EPERM)
		bl_fail_at(e, -EOPNOTSUPP, p->symbol_col,
			   "this kernel or host refuses to load %s programs "
			   "(EPERM at load as root: no BPF trampolines, or a "
			   "lockdown/LSM policy)",
			   probe_kind_name(p->kind));
	else if (prog_fd < 0)
		bl_fail_at(e, prog_fd, p->symbol_col,
			   "the kernel refused %s on '%s': %s%s%s",
			   probe_kind_name(p->kind), p->symbol,
			   strerror(-prog_fd), log[0] ? ": " : "",
			   log_tail(log));
	free(log);
	if (prog_fd == -EPERM)
		return -EOPNOTSUPP;
	if (prog_fd < 0)
		return prog_fd;
	lfd = bpf_raw_tracepoint_open(NULL, prog_fd);
	lfd = lfd < 0 ? -errno : lfd;
	close(prog_fd);
	if (lfd < 0)
		bl_fail_at(e, lfd, p->symbol_col,
			   "cannot attach %s to '%s': %s",
			   probe_kind_name(p->kind), p->symbol, strerror(-lfd));
	return lfd;
}

static int rawtp_link(const struct probe_spec *p,
		      const struct counter_tracing_bpf *skel,
		      struct bl_error *e)
{
	char mod[PROBE_NAME_MAX], path[PROBE_NAME_MAX + 16];
	int lfd;

	if (p->path[0]) {
		module_name(p->path, mod, sizeof(mod));
		snprintf(path, sizeof(path), "/sys/module/%s", mod);
		if (access(path, F_OK))
			return bl_fail_at(e, -ENOENT, p->path_col,
					  "no module '%s' loaded", p->path);
	}
	lfd = bpf_raw_tracepoint_open(p->symbol,
				      bpf_program__fd(instance_prog(skel)));
	lfd = lfd < 0 ? -errno : lfd;
	if (lfd == -ENOENT)
		bl_fail_at(e, lfd, p->symbol_col, "no raw tracepoint '%s'",
			   p->symbol);
	else if (lfd < 0)
		bl_fail_at(e, lfd, p->symbol_col,
			   "cannot attach to raw tracepoint "
			   "'%s': %s",
			   p->symbol, strerror(-lfd));
	return lfd;
}

int tracing_link_create(const struct probe_spec *p, struct counter *c,
			uint32_t slot, struct bl_error *e)
{
	struct tracing_target tt = {.obj_fd = -1, .ret_off = EVENTS_NO_RET};
	struct counter_tracing_bpf *skel;
	int lfd = 0;

	if (p->kind != PROBE_RAWTP)
		lfd = btf_target(p, &tt.btf_id, &tt.obj_fd, &tt.ret_off, e);
	if (lfd)
		return lfd;
	if (p->kind != PROBE_FEXIT)
		tt.ret_off = EVENTS_NO_RET;
	lfd = instance_open(c, slot, tt.ret_off, &skel);
	if (lfd) {
		bl_fail_at(e, lfd, 0, "cannot load the built-in program: %s",
			   strerror(-lfd));
	} else {
		if (p->kind == PROBE_RAWTP)
			lfd = rawtp_link(p, skel, e);
		else
			lfd = fentry_link(p, skel, &tt, e);
		counter_tracing_bpf__destroy(skel); /* the link holds it */
	}
	if (tt.obj_fd >= 0)
		close(tt.obj_fd);
	return lfd;
}
