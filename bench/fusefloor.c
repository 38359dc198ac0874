// SPDX-License-Identifier: GPL-2.0-only
/*
 * fusefloor - the FUSE floor of the listing benchmark: a trivial,
 * read-only, in-memory libfuse3 low-level filesystem shaped like a
 * bpflinkfs mount with N links, so that the same shell commands run on
 * both and the difference is what bpflinkfs itself costs.
 *
 * Usage: fusefloor [FUSE options] MOUNTPOINT
 *	-o ndirs=N        directories named 1 .. N (default 1000)
 *	-o nfiles=K       files in each (default 8, at most 24): named as a
 *	                  uprobe link's, then spare0, spare1, ...; the
 *	                  benchmarks give as many as the link they read shows
 *	-o table=BYTES    size of the root files links and links.json
 *	-o timeout=SEC    entry and attribute timeout (default 0, the same
 *	                  "always current" contract as bpflinkfs)
 * Standard FUSE options (-f, -s, -d, -o ...) work as usual.
 *
 * Like bpflinkfs, attribute files report their exact size, are neither
 * direct_io nor kept in the page cache across opens, and the root tables
 * are direct_io with size 0. Contents are fixed strings: the floor does
 * no work per request beyond answering it.
 */
/* as bpflinkfs: the fuse_cmdline_opts that has max_threads */
#define FUSE_USE_VERSION 312
#include <errno.h>
#include <limits.h>
#include <fuse_lowlevel.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define INO_DIR(d) ((fuse_ino_t)(d) << 8)
#define INO_FILE(d, f) (INO_DIR(d) | (fuse_ino_t)((f) + 1))
#define ROOT_TABLES 2 /* inodes 2 and 3: links, links.json */

static const char *const file_names[] = {
	"type",		  "name",   "offset", "cookie", "prog_id", "prog_name",
	"ref_ctr_offset", "symbol", "spare0", "spare1", "spare2",  "spare3",
	"spare4",	  "spare5", "spare6", "spare7", "spare8",  "spare9",
	"spare10",	  "spare11", "spare12", "spare13", "spare14", "spare15",
};
#define MAX_FILES (sizeof(file_names) / sizeof(file_names[0]))
static const char *const table_names[] = {"links", "links.json"};
static const char value[] = "/tmp/bench/fixture-1000/fixture\n";

struct opts {
	unsigned long ndirs, nfiles, table;
	double timeout;
};
static struct opts opt = {.ndirs = 1000, .nfiles = 8, .table = 200000};
static char *table;

static const struct fuse_opt opt_spec[] = {
	{"ndirs=%lu", offsetof(struct opts, ndirs), 0},
	{"nfiles=%lu", offsetof(struct opts, nfiles), 0},
	{"table=%lu", offsetof(struct opts, table), 0},
	{"timeout=%lf", offsetof(struct opts, timeout), 0},
	FUSE_OPT_END};

/* Fill st for ino; return 0 or -ENOENT. */
static int stat_ino(fuse_ino_t ino, struct stat *st)
{
	unsigned long d = ino >> 8, f = ino & 0xff;

	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	if (ino == FUSE_ROOT_ID || (d >= 1 && d <= opt.ndirs && !f)) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
	} else if (!d && f >= 2 && f < 2 + ROOT_TABLES) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
	} else if (d >= 1 && d <= opt.ndirs && f <= opt.nfiles) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = sizeof(value) - 1;
	} else {
		return -ENOENT;
	}
	return 0;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e = {.attr_timeout = opt.timeout,
				     .entry_timeout = opt.timeout};
	unsigned long i;
	char *end;

	if (parent == FUSE_ROOT_ID) {
		for (i = 0; i < ROOT_TABLES; i++)
			if (!strcmp(name, table_names[i]))
				e.ino = 2 + i;
		if (!e.ino) {
			i = strtoul(name, &end, 10);
			if (!*end && i >= 1 && i <= opt.ndirs)
				e.ino = INO_DIR(i);
		}
	} else {
		for (i = 0; i < opt.nfiles; i++)
			if (!strcmp(name, file_names[i]))
				e.ino = INO_FILE(parent >> 8, i);
	}
	if (!e.ino || stat_ino(e.ino, &e.attr)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fuse_reply_entry(req, &e);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct stat st;

	if (stat_ino(ino, &st))
		fuse_reply_err(req, ENOENT);
	else
		fuse_reply_attr(req, &st, opt.timeout);
}

/* Name and inode of directory entry i of ino; return 0 past the end. */
static int dir_entry(fuse_ino_t ino, unsigned long i, char *name, size_t size,
		     struct stat *st)
{
	memset(st, 0, sizeof(*st));
	if (ino == FUSE_ROOT_ID) {
		if (i < ROOT_TABLES) {
			snprintf(name, size, "%s", table_names[i]);
			return stat_ino(2 + i, st) ? 0 : 1;
		}
		if (i - ROOT_TABLES >= opt.ndirs)
			return 0;
		snprintf(name, size, "%lu", i - ROOT_TABLES + 1);
		return stat_ino(INO_DIR(i - ROOT_TABLES + 1), st) ? 0 : 1;
	}
	if (i >= opt.nfiles)
		return 0;
	snprintf(name, size, "%s", file_names[i]);
	return stat_ino(INO_FILE(ino >> 8, i), st) ? 0 : 1;
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	char *buf = malloc(size), name[64];
	size_t used = 0, n;
	struct stat st;
	unsigned long i;

	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (i = (unsigned long)off; dir_entry(ino, i, name, sizeof(name), &st);
	     i++) {
		n = fuse_add_direntry(req, buf + used, size - used, name, &st,
				      (off_t)i + 1);
		if (n > size - used)
			break;
		used += n;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	if (stat_ino(ino, &st) || !S_ISREG(st.st_mode)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fi->keep_cache = 0;
	fi->direct_io = !(ino >> 8);
	fuse_reply_open(req, fi);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	const char *data = ino >> 8 ? value : table;
	size_t len = ino >> 8 ? sizeof(value) - 1 : opt.table;

	if ((size_t)off >= len) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	if (size > len - (size_t)off)
		size = len - (size_t)off;
	fuse_reply_buf(req, data + off, size);
}

static const struct fuse_lowlevel_ops ops = {
	.lookup = op_lookup,
	.getattr = op_getattr,
	.readdir = op_readdir,
	.open = op_open,
	.read = op_read,
};

static int serve(struct fuse_args *args, struct fuse_cmdline_opts *o)
{
	struct fuse_session *se =
		fuse_session_new(args, &ops, sizeof(ops), NULL);
	struct fuse_loop_config *cfg;
	int err = 1;

	if (!se)
		return 1;
	if (fuse_set_signal_handlers(se) ||
	    fuse_session_mount(se, o->mountpoint))
		goto out;
	fuse_daemonize(o->foreground);
	if (o->singlethread) {
		err = fuse_session_loop(se);
	} else {
		/* configured as bpflinkfs does, so both loops behave alike */
		cfg = fuse_loop_cfg_create();
		fuse_loop_cfg_set_clone_fd(cfg, o->clone_fd);
		if (o->max_threads != UINT_MAX)
			fuse_loop_cfg_set_max_threads(cfg, o->max_threads);
		if (o->max_idle_threads != UINT_MAX)
			fuse_loop_cfg_set_idle_threads(cfg,
						       o->max_idle_threads);
		err = fuse_session_loop_mt(se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
	fuse_session_unmount(se);
out:
	fuse_remove_signal_handlers(se);
	fuse_session_destroy(se);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts o;
	unsigned long i;
	int err;

	if (fuse_parse_cmdline(&args, &o) || !o.mountpoint ||
	    fuse_opt_parse(&args, &opt, opt_spec, NULL)) {
		fprintf(stderr, "usage: fusefloor [-f] [-s] [-o ndirs=N,"
				"nfiles=K,table=BYTES,timeout=SEC] MNT\n");
		return 2;
	}
	if (opt.nfiles > MAX_FILES || opt.ndirs > (1UL << 24)) {
		fprintf(stderr, "fusefloor: nfiles <= %zu, ndirs <= 2^24\n",
			MAX_FILES);
		return 2;
	}
	table = malloc(opt.table + 1);
	if (!table)
		return 1;
	for (i = 0; i < opt.table; i++)
		table[i] = (i % 64 == 63) ? '\n' : 'x';
	err = serve(&args, &o);
	free(o.mountpoint);
	fuse_opt_free_args(&args);
	free(table);
	return err;
}
