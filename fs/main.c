// SPDX-License-Identifier: GPL-2.0-only
/* bpflinkfs: the BPF links of the host as a file system. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <fuse_lowlevel.h>

#include "host_pins.h"
#include "perf_event_link.h"
#include "bare_perf_events.h"
#include "control.h"
#include "daemon.h"
#include "events.h"
#include "heap_trim.h"
#include "log.h"
#include "mountinfo.h"
#include "owned.h"
#include "link_list.h"
#include "kernel_offers.h"
#include "counter_load.h"
#include "counter_row.h"
#include "perf_names.h"
#include "prog_stats.h"
#include "top.h"
#include "tree.h"
#include "uprobe_target.h"

/*
 * Free heap pages go back to the kernel every 2 s, when 256 KiB or more
 * are free (heap_trim.c): a burst of reads reuses them, an idle daemon
 * does not keep them.
 */
#define HEAP_TRIM_MS 2000
#define HEAP_TRIM_MIN_FREE (256 << 10)

/* counter slots: a whole row of the hits map (counter_row.h) */
#define COUNTER_SLOTS COUNTER_ROW_SLOTS

static void usage(const char *prog)
{
	printf("usage: %s [SOURCE] MOUNTPOINT [options]\n\n"
	       "Shows every BPF link of the host as a directory of text files\n"
	       "and creates links from probe specs written to MOUNTPOINT/control.\n\n"
	       "    -h, --help          print this help and exit\n"
	       "    -V, --version       print the version and exit\n"
	       "    -f                  stay in the foreground, log to stderr\n"
	       "    -d                  debug output, FUSE's and libbpf's (implies -f)\n"
	       "    -s                  single-threaded\n"
	       "    -o allow_other      let every user read (adds default_permissions)\n"
	       "    -o pin_dir=DIR      pin owned links in bpffs DIR (root's alone); a\n"
	       "                        restart adopts them\n"
	       "    -o bpf_stats        keep the kernel's BPF run statistics on while mounted\n"
	       "    -o top_interval=MS  time between the blocks of MOUNTPOINT/top (1000)\n"
	       "    -o latency_pairs    time calls with entry and return links, not sessions\n"
	       "    -o uid=N,gid=N      owner of the files (control stays root's)\n"
	       "    -o umask=M          mode bits to clear, octal\n"
	       "    -o detach           root may rmdir a link it did not make: the kernel\n"
	       "                        detaches it (BPF_LINK_DETACH)\n"
	       "    -o OPT[,OPT...]     other FUSE mount options, see fuse(8)\n\n"
	       "SOURCE (from fstab via mount.fuse3) is ignored. See bpflinkfs(8).\n",
	       prog);
}

/*
 * mount.fuse3 passes "SOURCE MOUNTPOINT": drop SOURCE when two remain.
 * Return: the mountpoint argument, or NULL; *wants_info when -h or -V.
 */
static const char *drop_source(int *argc, char **argv, bool *wants_info)
{
	int i, first = -1, plain = 0, last = -1;

	*wants_info = false;
	for (i = 1; i < *argc; i++) {
		if (strcmp(argv[i], "-o") == 0) {
			i++;
			continue;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") ||
		    !strcmp(argv[i], "-V") || !strcmp(argv[i], "--version"))
			*wants_info = true;
		if (argv[i][0] == '-')
			continue;
		if (plain++ == 0)
			first = i;
		last = i;
	}
	if (plain == 2) {
		memmove(&argv[first], &argv[first + 1],
			(*argc - first) * sizeof(*argv));
		(*argc)--;
		last--;
	}
	return plain >= 1 && plain <= 2 ? argv[last] : NULL;
}

/* "uid=N", "gid=N", "umask=OCTAL": 0 (consumed) or -1 (bad value) */
static int parse_id_opt(const char *arg, unsigned int *out, int base)
{
	const char *v = strchr(arg, '=') + 1;
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(v, &end, base);
	if (!*v || *end || errno || n > UINT32_MAX - 1) {
		log_stderr("bad option %s", arg);
		return -1;
	}
	*out = n;
	return 0;
}

/* -o top_interval=MS: from 10 ms to a day */
#define TOP_INTERVAL_DEFAULT_MS 1000
#define TOP_INTERVAL_MIN_MS 10
#define TOP_INTERVAL_MAX_MS 86400000

static int parse_interval_opt(const char *arg, unsigned int *out)
{
	unsigned int ms;

	if (parse_id_opt(arg, &ms, 10))
		return -1;
	if (ms < TOP_INTERVAL_MIN_MS || ms > TOP_INTERVAL_MAX_MS) {
		log_stderr("bad option %s: from %d to %d "
			   "milliseconds",
			   arg, TOP_INTERVAL_MIN_MS, TOP_INTERVAL_MAX_MS);
		return -1;
	}
	*out = ms;
	return 0;
}

enum {
	KEY_ALLOW_OTHER,
	KEY_PIN_DIR,
	KEY_UID,
	KEY_GID,
	KEY_UMASK,
	KEY_BPF_STATS,
	KEY_TOP_INTERVAL,
	KEY_DETACH,
	KEY_LATENCY_PAIRS,
};

static int opt_proc(void *data, const char *arg, int key,
		    struct fuse_args *outargs)
{
	struct daemon *d = data;

	switch (key) {
	case KEY_ALLOW_OTHER:
		d->allow_other = true;
		return 1;
	case KEY_PIN_DIR:
		free(d->pin_dir);
		d->pin_dir = strdup(arg + strlen("pin_dir="));
		return 0; /* ours, not FUSE's */
	case KEY_UID:
		return parse_id_opt(arg, &d->uid, 10);
	case KEY_GID:
		return parse_id_opt(arg, &d->gid, 10);
	case KEY_UMASK:
		return parse_id_opt(arg, &d->umask, 8);
	case KEY_DETACH:
		d->detach = true;
		return 0; /* ours, not FUSE's */
	case KEY_BPF_STATS:
		d->hold_stats = true;
		return 0;
	case KEY_TOP_INTERVAL:
		return parse_interval_opt(arg, &d->top_interval_ms);
	case KEY_LATENCY_PAIRS:
		d->latency_pairs = true;
		return 0;
	default:
		return 1;
	}
}

/* mountinfo_each()'s callback: 1 for a bpflinkfs mount on @arg */
static int is_ours_on(const struct mountinfo_entry *m, void *arg)
{
	return !strcmp(m->fstype, "fuse.bpflinkfs") &&
	       !strcmp(m->mount_point, arg);
}

/* Is a bpflinkfs already mounted on @mnt? (/proc/self/mountinfo) */
static bool already_mounted(const char *mnt)
{
	char real[PATH_MAX];

	return realpath(mnt, real) && mountinfo_each(-1, is_ours_on, real) == 1;
}

/*
 * @path as a shell word for a command a message suggests: as it is when
 * every byte is plain, else in single quotes, or as $'...' with \n, \t,
 * \xNN, \\ and \' where it holds a control byte. Returns @buf, or @path
 * when @buf is too small.
 */
static const char *shell_word(const char *path, char *buf, size_t len)
{
	const unsigned char *s = (const unsigned char *)path;
	bool plain = *s, ctl = false;
	size_t o = 0;

	for (; *s; s++) {
		plain &= isalnum(*s) || strchr("/._-+:@%,=", *s);
		ctl |= *s < 0x20 || *s == 0x7f;
	}
	if (plain || len < 4 * strlen(path) + 4)
		return path;
	buf[o++] = ctl ? '$' : '\'';
	if (ctl)
		buf[o++] = '\'';
	for (s = (const unsigned char *)path; *s; s++) {
		if (!ctl && *s == '\'')
			o += (size_t)snprintf(buf + o, len - o, "'\\''");
		else if (ctl && (*s == '\'' || *s == '\\'))
			o += (size_t)snprintf(buf + o, len - o, "\\%c", *s);
		else if (ctl && (*s == '\n' || *s == '\t'))
			o += (size_t)snprintf(buf + o, len - o, "%s",
					      *s == '\n' ? "\\n" : "\\t");
		else if (ctl && (*s < 0x20 || *s == 0x7f))
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", *s);
		else
			buf[o++] = (char)*s;
	}
	snprintf(buf + o, len - o, "'");
	return buf;
}

/* Each failure: one line naming the fix. */
static int check_prerequisites(const char *mnt)
{
	char word[4 * PATH_MAX + 4];
	const char *w = shell_word(mnt, word, sizeof(word));
	struct stat st;

	if (geteuid() != 0) {
		log_stderr(
			"must run as root (BPF link "
			"enumeration needs CAP_SYS_ADMIN): sudo bpflinkfs %s",
			w);
		return -EPERM;
	}
	if (access("/dev/fuse", R_OK | W_OK)) {
		log_stderr("no /dev/fuse: install fuse3 and "
			   "run 'modprobe fuse'");
		return -ENOENT;
	}
	if (!kernel_btf_present()) {
		log_stderr("no kernel BTF at /sys/kernel/btf/vmlinux: "
			   "boot a kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return -ENOENT;
	}
	if (stat(mnt, &st) && errno == ENOTCONN) {
		/* a killed daemon left its mount behind */
		if (umount2(mnt, MNT_DETACH)) {
			log_stderr("%s is a stale mount "
				   "(Transport endpoint is not connected): "
				   "run fusermount3 -uz %s",
				   mnt, w);
			return -ENOTCONN;
		}
		log_stderr("cleared a stale mount on %s", mnt);
	}
	if (stat(mnt, &st)) {
		log_stderr("mountpoint %s does not exist: "
			   "mkdir -p %s",
			   mnt, w);
		return -ENOENT;
	}
	if (S_ISDIR(st.st_mode) && already_mounted(mnt)) {
		log_stderr("%s is already a bpflinkfs mount: "
			   "fusermount3 -u %s first",
			   mnt, w);
		return -EBUSY;
	}
	if (!S_ISDIR(st.st_mode)) {
		log_stderr("mountpoint %s is not a directory: "
			   "mount on a directory (mkdir -p DIR)",
			   mnt);
		return -ENOTDIR;
	}
	return 0;
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * cpu-clock and task-clock may be forwarded to dynamic PMUs whose type is
 * assigned at boot: make one link on each and see what the kernel reports.
 */
static void detect_sw_aliases(struct counter *counter)
{
	static const __u64 configs[] = {0 /* cpu-clock */, 1 /* task-clock */};
	struct link_fields *f = malloc(sizeof(*f));
	size_t i;

	for (i = 0; f && link_features()->perf_link_info && i < 2; i++) {
		struct perf_probe p = {.kind = PROBE_SOFTWARE,
				       .perf_type = 1 /* PERF_TYPE_SOFTWARE */,
				       .config = configs[i],
				       .period = 1ull << 40,
				       .pid = -1,
				       .cpu = 0};
		int prog = counter_prog_fd(counter, p.kind, 0);
		int pfd = perf_probe_open(&p, NULL), lfd = -1;

		if (pfd >= 0 && prog >= 0)
			lfd = perf_link_create(prog, pfd, 0);
		if (lfd >= 0 && link_info_read_fd(lfd, f, sizeof(f->name)) == 0)
			perf_sw_alias_set(configs[i], f->event_type, f->config);
		if (lfd >= 0)
			close(lfd);
		if (pfd >= 0)
			close(pfd);
	}
	free(f);
}

/*
 * The pin walk keeps an fd of mountinfo to poll for mount changes: one
 * walk at start opens it, so the daemon holds as many fds before its
 * first listing as after (a failure here only leaves the walk to later).
 */
static void prime_pin_walk(void)
{
	struct pin_index pins;

	if (!pin_index_build(&pins))
		pin_index_free(&pins);
}

static int daemon_setup(struct daemon *d)
{
	struct bl_error e = {0};
	int err = link_features_detect();

	if (err) {
		log_stderr("cannot read kernel BTF: %s", strerror(-err));
		return err;
	}
	raise_fd_limit();
	d->errors = error_log_new();
	if (!d->errors)
		return -ENOMEM;
	err = owned_open(&d->owned, d->pin_dir, COUNTER_SLOTS, &e);
	if (err && d->pin_dir && e.msg[0]) {
		log_stderr("%s", e.msg);
		return err;
	}
	if (err) {
		log_stderr("cannot load the built-in BPF "
			   "program: %s",
			   strerror(-err));
		return err;
	}
	owned_set_latency_pairs(d->owned, d->latency_pairs);
	detect_sw_aliases(owned_counter(d->owned));
	err = stats_switch_open(&d->stats);
	if (!err && d->hold_stats && (err = stats_switch_hold(d->stats)))
		log_stderr("-o bpf_stats: the kernel does not turn run "
			   "statistics on (BPF_ENABLE_STATS: %s); it needs "
			   "Linux 5.8 or later",
			   strerror(-err));
	if (err)
		return err;
	kernel_offers_detect(); /* loads: at start, not in a reader's open */
	prime_pin_walk();
	/* without it, listings enumerate with one syscall per link; the
	 * variable forces that walk (tests compare the two) */
	err = getenv("BPFLINKFS_NO_LINK_ITER")
		      ? -EOPNOTSUPP
		      : link_list_use_iterator(owned_link_list(d->owned));
	if (err)
		log_stderr("no BPF link iterator (%s): listing "
			   "link by link",
			   strerror(-err));
	owned_adopt(d->owned); /* with pin_dir: its pinned links */
	err = bare_perf_open(&d->attached, d->owned);
	if (err)
		log_stderr("attached/ unavailable: %s", strerror(-err));
	return 0;
}

/* After daemonizing (a fork keeps no threads): the events streams. */
static void events_start(struct daemon *d, const char *mountpoint)
{
	int err = event_hub_start(&d->events, d->owned);

	if (!err && event_hub_watch_mount(d->events, mountpoint))
		log_msg(LOG_WARNING, "events: cannot watch the mount; a lazy "
				     "unmount leaves events readers blocked");
	if (err)
		log_msg(LOG_WARNING, "events: cannot read the event ring: %s",
			strerror(-err));
}

/* After daemonizing: `top`'s sampler, asleep until a reader comes. */
static void top_start(struct daemon *d, const char *mountpoint)
{
	int err =
		top_hub_start(&d->top, d->owned, d->stats, d->top_interval_ms);

	if (!err && top_hub_watch_mount(d->top, mountpoint))
		log_msg(LOG_WARNING, "top: cannot watch the mount; a lazy "
				     "unmount leaves top readers blocked");
	if (err)
		log_msg(LOG_WARNING, "top: cannot start its thread: %s",
			strerror(-err));
}

static int run_session(struct fuse_cmdline_opts *o, struct daemon *d)
{
	struct fuse_session *se = d->se;
	struct heap_trim *trim = NULL;
	struct fuse_loop_config *cfg;
	bool served = false;
	int err = -1; /* not 1: the loop's SIGHUP is a clean stop */

	if (fuse_set_signal_handlers(se))
		goto out_destroy;
	if (fuse_session_mount(se, o->mountpoint))
		goto out_signals;
	if (fuse_daemonize(o->foreground))
		goto out_unmount;
	if (reaper_start(d->owned)) {
		log_msg(LOG_ERR, "cannot start the reaper threads");
		goto out_unmount;
	}
	served = true;
	events_start(d, o->mountpoint);
	top_start(d, o->mountpoint);
	/* after fuse_daemonize(): a fork keeps no thread */
	if (heap_trim_start(&trim, HEAP_TRIM_MS, HEAP_TRIM_MIN_FREE))
		log_msg(LOG_WARNING, "cannot start the heap trimmer: the "
				     "largest table's pages stay with the "
				     "daemon");
	if (o->singlethread) {
		err = fuse_session_loop(se);
	} else {
		cfg = fuse_loop_cfg_create();
		if (o->max_threads != UINT_MAX)
			fuse_loop_cfg_set_max_threads(cfg, o->max_threads);
		if (o->max_idle_threads != UINT_MAX)
			fuse_loop_cfg_set_idle_threads(cfg,
						       o->max_idle_threads);
		err = fuse_session_loop_mt(se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
	/* blocked events readers return now, not after the reaper */
	event_hub_stop(d->events);
	top_hub_stop(d->top);
	heap_trim_stop(trim);
out_unmount:
	fuse_session_unmount(se);
	reaper_drain(d->owned); /* detach every owned link before exiting */
out_signals:
	fuse_remove_signal_handlers(se);
out_destroy:
	/* a start that fails leaves the pin_dir as it found it */
	if (!served)
		owned_start_failed(d->owned);
	fuse_session_destroy(se);
	d->se = NULL;
	/* the loop returns the signal that stopped it: a clean stop */
	if (err == SIGTERM || err == SIGINT || err == SIGHUP)
		err = 0;
	return err ? 1 : 0;
}

/*
 * The FUSE session, not mounted yet. FUSE checks its options here: a bad
 * one fails the start before anything is made (a pin_dir).
 */
static struct fuse_session *session_new(struct fuse_args *args,
					struct daemon *d)
{
	fuse_opt_add_arg(args, "-osubtype=bpflinkfs,fsname=bpflinkfs");
	if (d->allow_other)
		fuse_opt_add_arg(args, "-odefault_permissions");
	return fuse_session_new(args, &tree_ops, sizeof(tree_ops), d);
}

/* Free what the daemon's state holds (after run_session(), or instead). */
static void daemon_free(struct daemon *d)
{
	if (d->se)
		fuse_session_destroy(d->se);
	/* before the hubs: an open stream's close needs its hub */
	handle_table_free(&d->handles);
	event_hub_free(d->events);
	top_hub_free(d->top);
	stats_switch_close(d->stats);
	bare_perf_close(d->attached);
	owned_close(d->owned);
	handoff_free(&d->handoff);
	error_log_free(d->errors);
	free(d->pin_dir);
}

/* -h, -V, or no mountpoint: say so; the exit status */
static int info_exit(const struct fuse_cmdline_opts *o)
{
	if (o->show_help) {
		usage("bpflinkfs");
		return 0;
	}
	if (o->show_version) {
		printf("bpflinkfs %s\n", BPFLINKFS_VERSION);
		return 0;
	}
	log_stderr("no mountpoint; usage: bpflinkfs MOUNTPOINT [-f] [-o opts]");
	return 2;
}

int main(int argc, char **argv)
{
	/* the daemon's state: the FUSE userdata of every request */
	struct daemon daemon_state = {0};
	struct fuse_cmdline_opts o = {0};
	struct fuse_args args;
	static const struct fuse_opt opts[] = {
		FUSE_OPT_KEY("allow_other", KEY_ALLOW_OTHER),
		FUSE_OPT_KEY("pin_dir=", KEY_PIN_DIR),
		FUSE_OPT_KEY("uid=", KEY_UID),
		FUSE_OPT_KEY("gid=", KEY_GID),
		FUSE_OPT_KEY("umask=", KEY_UMASK),
		FUSE_OPT_KEY("detach", KEY_DETACH),
		FUSE_OPT_KEY("bpf_stats", KEY_BPF_STATS),
		FUSE_OPT_KEY("top_interval=", KEY_TOP_INTERVAL),
		FUSE_OPT_KEY("latency_pairs", KEY_LATENCY_PAIRS),
		FUSE_OPT_END};
	const char *mnt;
	bool wants_info;
	int ret;

	/*
	 * One heap for all worker threads, so RSS does not grow per thread;
	 * while starting, buffers from 64 KiB up from mmap, so that what the
	 * start-up frees (the kernel's BTF, parsed by libbpf) gives its pages
	 * back (a fixed threshold also stops glibc from raising it).
	 */
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, 64 << 10);
	mallopt(M_TRIM_THRESHOLD, 64 << 10);
	handoff_init(&daemon_state.handoff);
	handle_table_init(&daemon_state.handles);
	daemon_state.top_interval_ms = TOP_INTERVAL_DEFAULT_MS;
	mnt = drop_source(&argc, argv, &wants_info);
	/* before libfuse, which only says "bad mount point" */
	if (!wants_info && mnt && check_prerequisites(mnt))
		return 1;
	args = (struct fuse_args)FUSE_ARGS_INIT(argc, argv);
	if (fuse_opt_parse(&args, &daemon_state, opts, opt_proc) ||
	    fuse_parse_cmdline(&args, &o)) {
		log_stderr("bad arguments; see --help");
		ret = 2;
		goto out;
	}
	if (o.show_help || o.show_version || !o.mountpoint) {
		ret = info_exit(&o);
		goto out;
	}
	log_set_foreground(o.foreground);
	log_route_libbpf(o.debug);
	uprobe_exclude_dir(o.mountpoint);
	daemon_state.se = session_new(&args, &daemon_state);
	if (!daemon_state.se || daemon_setup(&daemon_state)) {
		ret = 1;
		goto out;
	}
	/*
	 * Then table buffers (links.json is ~200 B a link, the holder records
	 * 24 B a link fd) come from the heap and stay with it when freed, to
	 * be reused by the next read: from mmap, each read faulted in fresh
	 * pages, ~800 faults and half of the time of a links.json of 10,000
	 * links on a paravirtualised VM (bench/README.md). The heap trimmer
	 * (run_session()) gives them back within HEAP_TRIM_MS of the reads.
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 32 << 20);
	if (!o.foreground)
		openlog("bpflinkfs", LOG_PID, LOG_DAEMON);
	ret = run_session(&o, &daemon_state);
out:
	daemon_free(&daemon_state);
	free(o.mountpoint);
	fuse_opt_free_args(&args);
	return ret;
}
