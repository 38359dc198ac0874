// SPDX-License-Identifier: GPL-2.0-only
/*
 * fentry/fexit and raw tracepoint links with the built-in counter
 * (tracing.h). Each link runs its own instance of counter_rawtp with its
 * slot in .rodata (see progs/counter_tracing.bpf.c for why not a cookie).
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "tracing.h"
#include "counter_tracing.skel.h"

#define VERIFIER_LOG_BYTES 4096

/* a pure memo private to this file (the kernel's BTF, loaded once) */
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

static void set_err(struct bl_error *e, size_t column, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(struct bl_error *e, size_t column, const char *fmt, ...)
{
	va_list ap;

	e->column = column;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
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
 * FUNC's BTF id in vmlinux or in MODULE's BTF, and with a module the fd
 * of its BTF object (else -1 in *obj_fd).
 */
static int btf_target(const struct probe_spec *p, __u32 *type_id, int *obj_fd,
		      struct bl_error *e)
{
	struct btf *base = vmlinux(), *btf = base;
	char mod[PROBE_NAME_MAX];
	int id;

	*obj_fd = -1;
	if (!base) {
		set_err(e, p->symbol_col,
			"no kernel BTF (/sys/kernel/btf/vmlinux): %s needs it",
			probe_kind_name(p->kind));
		return -EOPNOTSUPP;
	}
	if (p->path[0]) {
		module_name(p->path, mod, sizeof(mod));
		btf = btf__load_module_btf(mod, base);
		*obj_fd = libbpf_get_error(btf) ? -ENOENT : module_btf_fd(mod);
		if (*obj_fd < 0) {
			if (!libbpf_get_error(btf))
				btf__free(btf);
			set_err(e, p->path_col,
				"no module '%s' with BTF (/sys/kernel/btf/%s)",
				p->path, mod);
			return -ENOENT;
		}
	}
	id = btf__find_by_name_kind(btf, p->symbol, BTF_KIND_FUNC);
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
		set_err(e, p->symbol_col,
			"no function '%s' in the BTF of %s (not a kernel "
			"function, or inlined)",
			p->symbol, p->path);
	else
		set_err(e, p->symbol_col,
			"no function '%s' in the BTF of vmlinux (not a kernel "
			"function, or inlined; in a module: %s:MODULE:%s)",
			p->symbol, probe_kind_name(p->kind), p->symbol);
	return -ENOENT;
}

/* counter_rawtp with @slot in .rodata, loaded; @hits_fd < 0: its own map */
static int instance_open(int hits_fd, uint32_t slot,
			 struct counter_tracing_bpf **out)
{
	struct counter_tracing_bpf *skel = counter_tracing_bpf__open();
	int err;

	if (!skel)
		return errno ? -errno : -ENOMEM;
	skel->rodata->slot = slot;
	err = hits_fd >= 0 ? bpf_map__reuse_fd(skel->maps.hits, hits_fd) : 0;
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
	const struct bpf_program *prog = skel->progs.counter_rawtp;
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

static int fentry_link(const struct probe_spec *p,
		       const struct counter_tracing_bpf *skel,
		       struct bl_error *e)
{
	enum bpf_attach_type type =
		p->kind == PROBE_FENTRY ? BPF_TRACE_FENTRY : BPF_TRACE_FEXIT;
	char *log = calloc(1, VERIFIER_LOG_BYTES);
	int obj_fd, prog_fd, lfd;
	__u32 btf_id;

	lfd = log ? btf_target(p, &btf_id, &obj_fd, e) : -ENOMEM;
	if (lfd) {
		free(log);
		return lfd;
	}
	prog_fd = tracing_load(skel, type, btf_id, obj_fd, log,
			       VERIFIER_LOG_BYTES);
	if (obj_fd >= 0)
		close(obj_fd);
	if (prog_fd == -EPERM)
		set_err(e, p->symbol_col,
			"this kernel or host refuses to load %s programs "
			"(EPERM at load as root: no BPF trampolines, or a "
			"lockdown/LSM policy)",
			probe_kind_name(p->kind));
	else if (prog_fd < 0)
		set_err(e, p->symbol_col,
			"the kernel refused %s on '%s': %s%s%s",
			probe_kind_name(p->kind), p->symbol, strerror(-prog_fd),
			log[0] ? ": " : "", log_tail(log));
	free(log);
	if (prog_fd == -EPERM)
		return -EOPNOTSUPP;
	if (prog_fd < 0)
		return prog_fd;
	lfd = bpf_raw_tracepoint_open(NULL, prog_fd);
	lfd = lfd < 0 ? -errno : lfd;
	close(prog_fd);
	if (lfd < 0)
		set_err(e, p->symbol_col, "cannot attach %s to '%s': %s",
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
		if (access(path, F_OK)) {
			set_err(e, p->path_col, "no module '%s' loaded",
				p->path);
			return -ENOENT;
		}
	}
	lfd = bpf_raw_tracepoint_open(
		p->symbol, bpf_program__fd(skel->progs.counter_rawtp));
	lfd = lfd < 0 ? -errno : lfd;
	if (lfd == -ENOENT)
		set_err(e, p->symbol_col, "no raw tracepoint '%s'", p->symbol);
	else if (lfd < 0)
		set_err(e, p->symbol_col,
			"cannot attach to raw tracepoint "
			"'%s': %s",
			p->symbol, strerror(-lfd));
	return lfd;
}

int tracing_link_create(const struct probe_spec *p, int hits_fd, uint32_t slot,
			struct bl_error *e)
{
	struct counter_tracing_bpf *skel;
	int lfd;

	lfd = instance_open(hits_fd, slot, &skel);
	if (lfd) {
		set_err(e, 0, "cannot load the built-in program: %s",
			strerror(-lfd));
		return lfd;
	}
	if (p->kind == PROBE_RAWTP)
		lfd = rawtp_link(p, skel, e);
	else
		lfd = fentry_link(p, skel, e);
	counter_tracing_bpf__destroy(skel); /* the link holds its program */
	return lfd;
}
