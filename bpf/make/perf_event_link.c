// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf_event_open(2) for every probe kind, and BPF_LINK_CREATE on the
 * result. Kprobes and uprobes use the kprobe/uprobe PMUs (kernel 4.17+),
 * so no tracefs probe definitions are ever created or left behind.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/magic.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "perf_event_link.h"
#include "tracefs.h"
#include "array_size.h"
#include "link_info.h"
#include "uprobe_fdroot.h"
#include "uprobe_view.h"

#define PMU_DIR "/sys/bus/event_source/devices"

/* Read a small sysfs/tracefs file into @buf, NUL-terminated. */
static int read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	return 0;
}

/* A file holding one decimal number (PMU type, tracepoint id). */
static int read_uint(const char *path, unsigned long *val)
{
	char buf[32], *end;
	int err;

	err = read_small(path, buf, sizeof(buf));
	if (err)
		return err;
	errno = 0;
	*val = strtoul(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return -EINVAL;
	return 0;
}

/*
 * The PMU's type and the config bit that makes a return probe, as the
 * PMU describes itself ("config:0" in format/retprobe).
 */
static int probe_pmu_read(const char *pmu, unsigned long *type, int *ret_bit)
{
	char path[128], buf[64];
	int err, bit;

	snprintf(path, sizeof(path), PMU_DIR "/%s/type", pmu);
	err = read_uint(path, type);
	if (err)
		return err;
	snprintf(path, sizeof(path), PMU_DIR "/%s/format/retprobe", pmu);
	err = read_small(path, buf, sizeof(buf));
	if (err)
		return err;
	if (sscanf(buf, "config:%d", &bit) != 1 || bit < 0 || bit > 63)
		return -EINVAL;
	*ret_bit = bit;
	return 0;
}

/* A PMU's type is fixed while the system runs: read sysfs once per PMU,
 * process-wide (the same for every mount). */
static int probe_pmu(const char *pmu, unsigned long *type, int *ret_bit)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct {
		bool known;
		unsigned long type;
		int ret_bit;
	} seen[2];
	int i = strcmp(pmu, "uprobe") == 0, err = 0;

	pthread_mutex_lock(&lock);
	if (!seen[i].known) {
		err = probe_pmu_read(pmu, &seen[i].type, &seen[i].ret_bit);
		seen[i].known = err == 0;
	}
	*type = seen[i].type;
	*ret_bit = seen[i].ret_bit;
	pthread_mutex_unlock(&lock);
	return err;
}

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	long fd = syscall(__NR_perf_event_open, attr, pid, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

/*
 * A kprobe, uprobe or tracepoint runs its programs on every CPU whatever
 * CPU its event was opened on; pid -1 needs a CPU. libbpf takes CPU 0; the
 * CPU this thread runs on saves the cross-CPU call that installs the event
 * elsewhere (~70 us here), and spreads the events over the CPUs.
 */
static int open_any_cpu(struct perf_event_attr *attr,
			const struct perf_probe *p)
{
	pid_t pid = p->pid < 0 ? -1 : p->pid;
	int here = sched_getcpu();
	int cpu = p->cpu >= 0 ? p->cpu : pid != -1 ? -1 : here >= 0 ? here : 0;

	return sys_perf_event_open(attr, pid, cpu);
}

/*
 * The uprobe PMU's field for a semaphore's file offset ("config:32-63" in
 * format/ref_ctr_offset, kernel 4.20+): its first bit.
 */
static int ref_ctr_shift(struct bl_error *e)
{
	char buf[64];
	int lo, hi;

	if (read_small(PMU_DIR "/uprobe/format/ref_ctr_offset", buf,
		       sizeof(buf)) ||
	    sscanf(buf, "config:%d-%d", &lo, &hi) != 2 || lo < 1 || hi > 63 ||
	    lo > hi)
		return bl_fail(
			e, -EOPNOTSUPP,
			"this kernel cannot raise a USDT semaphore (no "
			"ref_ctr_offset in the uprobe PMU, kernel 4.20+)");
	return lo;
}

struct held_open {
	struct perf_event_attr *attr;
	const struct perf_probe *p;
};

/* uprobe_fd_call()'s function: the event, with the path it is given. */
static int held_open(void *arg, const char *kpath)
{
	struct held_open *h = arg;

	h->attr->config1 = (uintptr_t)kpath;
	return open_any_cpu(h->attr, h->p);
}

static int open_kuprobe(const struct perf_probe *p, struct bl_error *e)
{
	bool is_k = p->kind == PROBE_KPROBE || p->kind == PROBE_KRETPROBE;
	bool is_ret = p->kind == PROBE_KRETPROBE || p->kind == PROBE_URETPROBE;
	struct perf_event_attr attr;
	unsigned long type;
	int bit, fd, err;

	err = probe_pmu(is_k ? "kprobe" : "uprobe", &type, &bit);
	if (err == -ENOENT)
		return bl_fail(
			e, -EOPNOTSUPP,
			is_k ? "this kernel has no kprobe support (CONFIG_KPROBES)"
			     : "this kernel has no uprobe support (CONFIG_UPROBE_EVENTS)");
	if (err)
		return bl_fail(e, err,
			       "cannot read the %s PMU in " PMU_DIR ": %s",
			       is_k ? "kprobe" : "uprobe", strerror(-err));
	if (!p->target || !*p->target)
		return bl_fail(e, -EINVAL, "no %s given",
			       is_k ? "function" : "file");
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	if (is_ret)
		attr.config = 1ULL << bit;
	attr.config1 = (uintptr_t)p->target; /* kprobe_func / uprobe_path */
	attr.config2 = p->offset;	     /* probe_offset */
	if (p->ref_ctr_offset) {
		int shift = ref_ctr_shift(e);

		if (shift < 0)
			return shift;
		attr.config |= p->ref_ctr_offset << shift;
	}
	/*
	 * Opened disabled: the probe's handler runs the event's BPF programs
	 * whether or not the perf event is enabled (the probe is armed when
	 * the event is created), and installing an enabled event reschedules
	 * every event of its PMU on that CPU, a cost that grows with each
	 * link (about half of creating 1,000 uprobes). We read no perf
	 * samples, the only thing that needs it enabled.
	 */
	attr.disabled = 1;
	if (!is_k && p->target_held)
		fd = uprobe_fd_call(p->target_fd, p->target, held_open,
				    &(struct held_open){&attr, p});
	else
		fd = open_any_cpu(&attr, p);
	/*
	 * uprobes refuse an instruction they cannot step with the kernel's
	 * internal ENOTSUPP (524), which no reply may carry (FUSE refuses an
	 * errno past 511 and the writer would wait for ever): say so with
	 * the errno users know.
	 */
	if (fd == -ENOTSUPP_KERNEL)
		return bl_fail(e, -EOPNOTSUPP,
			       "%s %s+0x%llx: an instruction the kernel cannot "
			       "probe",
			       probe_kind_name(p->kind), p->target,
			       (unsigned long long)p->offset);
	if (fd < 0)
		bl_errorf(e, "%s %s+0x%llx: %s", probe_kind_name(p->kind),
			  p->target, (unsigned long long)p->offset,
			  strerror(-fd));
	return fd;
}

/* A name that cannot leave its tracefs directory. */
static bool tp_name_ok(const char *s)
{
	return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

bool pmu_present(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), PMU_DIR "/%s", name);
	return access(path, F_OK) == 0;
}

/* The caret of a missing tracepoint: under its name when its category is
 * in tracefs (@cat_fd open), else under the category. */
static void tracepoint_missing(const struct perf_probe *p, int cat_fd,
			       struct bl_error *e)
{
	bl_errorf(e, "no tracepoint %s:%s",
		  p->tp_category ? p->tp_category : "",
		  p->tp_name ? p->tp_name : "");
	if (e)
		e->column = cat_fd >= 0 ? p->tp_name_col : p->tp_category_col;
}

static int tracepoint_id(const struct perf_probe *p, unsigned long *id,
			 struct bl_error *e)
{
	const char *root = tracefs_root();
	char path[PATH_MAX];
	int cat_fd, err;

	if (!root) {
		bl_errorf(e, "tracefs is not mounted: "
			     "mount -t tracefs nodev /sys/kernel/tracing");
		if (e)
			e->column = p->tp_category_col;
		return -ENOENT;
	}
	snprintf(path, sizeof(path), "%s/events/%s", root,
		 p->tp_category ? p->tp_category : "");
	cat_fd = open(path, O_PATH | O_CLOEXEC);
	if (!tp_name_ok(p->tp_category) || !tp_name_ok(p->tp_name) ||
	    snprintf(path, sizeof(path), "%s/events/%s/%s/id", root,
		     p->tp_category, p->tp_name) >= (int)sizeof(path)) {
		err = -ENOENT;
	} else {
		err = read_uint(path, id);
		if (err == -ENOTDIR)
			err = -ENOENT;
		else if (err && err != -ENOENT)
			bl_errorf(e, "cannot read %s: %s", path,
				  strerror(-err));
	}
	if (err == -ENOENT)
		tracepoint_missing(p, cat_fd, e);
	if (cat_fd >= 0)
		close(cat_fd);
	return err;
}

static int open_tracepoint(const struct perf_probe *p, struct bl_error *e)
{
	struct perf_event_attr attr;
	unsigned long id;
	int fd, err;

	err = tracepoint_id(p, &id, e);
	if (err)
		return err;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.sample_period = 1;
	fd = open_any_cpu(&attr, p);
	if (fd == -ENOENT && e)
		e->column = p->tp_name_col; /* it exists: under its name */
	if (fd < 0)
		bl_errorf(e, "tracepoint %s:%s: %s", p->tp_category, p->tp_name,
			  strerror(-fd));
	return fd;
}

static int open_event(const struct perf_probe *p, struct bl_error *e)
{
	bool hw = p->kind == PROBE_HARDWARE;
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = hw ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
	attr.config = p->config;
	if (p->freq) {
		attr.freq = 1;
		attr.sample_freq = p->freq;
	} else {
		attr.sample_period = p->period;
	}
	fd = sys_perf_event_open(&attr, p->pid, p->cpu);
	if (fd >= 0)
		return fd;
	if (hw && (fd == -ENOENT || fd == -EOPNOTSUPP))
		return bl_fail(e, -ENOENT,
			       "no hardware PMU (typical in virtual machines)");
	return bl_fail(e, fd, "%s event %llu on cpu %d pid %d: %s",
		       hw ? "hardware" : "software",
		       (unsigned long long)p->config, p->cpu, (int)p->pid,
		       strerror(-fd));
}

int perf_probe_open(const struct perf_probe *p, struct bl_error *e)
{
	bl_errorf(e, "%s", "");
	switch (p->kind) {
	case PROBE_KPROBE:
	case PROBE_KRETPROBE:
	case PROBE_UPROBE:
	case PROBE_URETPROBE:
	case PROBE_USDT:
		return open_kuprobe(p, e);
	case PROBE_TRACEPOINT:
		return open_tracepoint(p, e);
	case PROBE_SOFTWARE:
	case PROBE_HARDWARE:
		return open_event(p, e);
	default:
		break;
	}
	return bl_fail(e, -EINVAL, "unknown probe kind %d", (int)p->kind);
}

int perf_link_create(int prog_fd, int perf_fd, uint64_t cookie)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts,
		    .perf_event.bpf_cookie = cookie);
	int fd;

	fd = bpf_link_create(prog_fd, perf_fd, BPF_PERF_EVENT, &opts);
	return fd < 0 ? -errno : fd;
}

/* One "N" or "N-M" item of a CPU list; appends to @cpus. */
static int cpu_range(const char *s, char **end, int *cpus, size_t max,
		     size_t *n)
{
	unsigned long lo, hi;
	char *e;

	errno = 0;
	lo = strtoul(s, &e, 10);
	if (errno || e == s || lo > INT_MAX)
		return -EINVAL;
	hi = lo;
	if (*e == '-') {
		s = e + 1;
		hi = strtoul(s, &e, 10);
		if (errno || e == s || hi > INT_MAX || hi < lo)
			return -EINVAL;
	}
	for (; lo <= hi; lo++) {
		if (*n >= max)
			return -E2BIG;
		cpus[(*n)++] = (int)lo;
	}
	*end = e;
	return 0;
}

int online_cpus(int *cpus, size_t max)
{
	char buf[4096], *s;
	size_t n = 0;
	int err;

	err = read_small("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (err)
		return err;
	s = buf;
	for (;;) {
		err = cpu_range(s, &s, cpus, max, &n);
		if (err)
			return err;
		if (*s != ',')
			break;
		s++;
	}
	if (*s && *s != '\n')
		return -EINVAL;
	return n > INT_MAX ? -E2BIG : (int)n;
}

/* The program type a perf-event link of this kind accepts. */
static int prog_type_for(enum probe_kind kind, const char **name)
{
	switch (kind) {
	case PROBE_KPROBE:
	case PROBE_KRETPROBE:
	case PROBE_UPROBE:
	case PROBE_URETPROBE:
	case PROBE_USDT:
		*name = "kprobe";
		return BPF_PROG_TYPE_KPROBE;
	case PROBE_TRACEPOINT:
		*name = "tracepoint";
		return BPF_PROG_TYPE_TRACEPOINT;
	case PROBE_SOFTWARE:
	case PROBE_HARDWARE:
		*name = "perf_event";
		return BPF_PROG_TYPE_PERF_EVENT;
	default:
		break;
	}
	return -EINVAL;
}

static int check_prog(int fd, const char *path, enum probe_kind kind,
		      struct bl_error *e)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	const char *want_name = "";
	int want, err;

	want = prog_type_for(kind, &want_name);
	if (want < 0)
		return bl_fail(e, want, "unknown probe kind %d", (int)kind);
	if (!bpf_fd_is("bpf-prog", fd))
		return bl_fail(e, -EINVAL, "%s is not a BPF program", path);
	memset(&info, 0, sizeof(info));
	err = bpf_obj_get_info_by_fd(fd, &info, &len);
	if (err) {
		err = -errno;
		return bl_fail(e, err, "%s: %s", path, strerror(errno));
	}
	if (info.type != (uint32_t)want) {
		const char *have = libbpf_bpf_prog_type_str(info.type);

		return bl_fail(e, -EINVAL,
			       "%s is a %s program; a %s needs a %s program",
			       path, have ? have : "unknown",
			       probe_kind_name(kind), want_name);
	}
	return 0;
}

static bool on_bpffs(const char *path)
{
	struct statfs st;

	return statfs(path, &st) == 0 && st.f_type == BPF_FS_MAGIC;
}

/*
 * -EINVAL when @path leads into the daemon's own mount: BPF_OBJ_GET would
 * look it up there, a request to the daemon itself, which a single-threaded
 * daemon never answers. The walk of the uprobe paths tells it by the device
 * of each directory on the way, before anything inside is looked up.
 */
static int outside_own_mount(const char *path, struct bl_error *e)
{
	struct uprobe_err te = {0};
	int err = uprobe_view_outside_mount(path, &te);

	if (err == -EINVAL)
		bl_errorf(e, "prog=%s", te.e.msg);
	return err;
}

int prog_open_pinned(const char *path, enum probe_kind kind, struct bl_error *e)
{
	int fd, err;

	bl_errorf(e, "%s", "");
	if (!path || !*path)
		return bl_fail(e, -EINVAL, "no program path given");
	err = outside_own_mount(path, e);
	if (err)
		return err;
	fd = bpf_obj_get(path);
	if (fd < 0) {
		err = errno;
		/* The kernel answers EACCES for a file outside bpffs. */
		if (err != ENOENT && !on_bpffs(path))
			return bl_fail(e, -EINVAL,
				       "%s is not in a BPF filesystem", path);
		return bl_fail(e, -err, "%s: %s", path, strerror(err));
	}
	err = check_prog(fd, path, kind, e);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}
