// SPDX-License-Identifier: GPL-2.0-only
/*
 * attached/ (bpflinkfs(8), Probes attached without a link): one directory per
 * bare perf event, named PID-FD, with the files of a perf link that
 * BPF_TASK_FD_QUERY can tell, plus pid and comm; and the tables attached and
 * attached.json. Read-only; every answer asks bpf/read/bare_perf_events.c
 * again, so a closed fd is gone at once.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_size.h"
#include "bare_perf_events.h"
#include "attached_fs.h"
#include "sbuf.h"
#include "fmt.h"
#include "link_info.h"
#include "perf_names.h"
#include "prog_names.h"
#include "proc_cgroup.h"
#include "render_holders.h"

#define PID_SHIFT 40
#define FD_SHIFT 8
#define IDX_MASK 0x7fu
#define SEES_BIT 0x80u
#define INO_PID(ino) ((__u32)(((ino) & ~ATTACHED_INO_BIT) >> PID_SHIFT))
#define INO_FD(ino) ((__u32)((ino) >> FD_SHIFT))
#define INO_IDX(ino) ((unsigned int)((ino)&IDX_MASK))
#define ENTRY_INO(pid, fd, idx)                                                \
	(ATTACHED_INO_BIT | (fuse_ino_t)(pid) << PID_SHIFT |                   \
	 (fuse_ino_t)(fd) << FD_SHIFT | (idx))
#define PID_MAX (1u << 22) /* PID_MAX_LIMIT */

enum { T_TABLE = 1, T_JSON = 2 };
static const char *const table_names[] = {
	[T_TABLE] = "attached", [T_JSON] = "attached.json"};

#define K_UPROBE (1u << PERF_LINK_UPROBE | 1u << PERF_LINK_URETPROBE)
#define K_KPROBE (1u << PERF_LINK_KPROBE | 1u << PERF_LINK_KRETPROBE)
#define K_EVENT (1u << PERF_LINK_EVENT)
#define K_ALL 0xffffu

struct att_file {
	const char *name;
	unsigned int kinds;
	bool json_number;
	int (*render)(const struct bare_perf_event *p, bool sees_addrs,
		      char *buf, size_t len);
};

static int r_type(const struct bare_perf_event *p, bool sees, char *b, size_t l)
{
	const char *name = perf_link_kind_name(p->f.kind);

	return name ? fmt_line(b, l, name) : -ENOENT;
}

static int r_name(const struct bare_perf_event *p, bool sees, char *b, size_t l)
{
	int n;

	if (p->f.kind != PERF_LINK_EVENT)
		return fmt_line(b, l, p->f.name);
	n = perf_event_describe(p->f.event_type, p->f.config, b, l - 1);
	return n + snprintf(b + n, l - n, "\n");
}

static int r_offset(const struct bare_perf_event *p, bool sees, char *b,
		    size_t l)
{
	return fmt_hex(b, l, p->f.offset, 1);
}

/* the kernel showed the daemon the address: the reader's rule decides */
static int r_addr(const struct bare_perf_event *p, bool sees, char *b, size_t l)
{
	return fmt_hex(b, l, sees ? p->f.addr : 0, 16);
}

static int r_config(const struct bare_perf_event *p, bool sees, char *b,
		    size_t l)
{
	return fmt_u64(b, l, p->f.config, '\n');
}

static int r_event_type(const struct bare_perf_event *p, bool sees, char *b,
			size_t l)
{
	return fmt_u64(b, l, p->f.event_type, '\n');
}

static int r_prog_id(const struct bare_perf_event *p, bool sees, char *b,
		     size_t l)
{
	return fmt_u64(b, l, p->f.prog_id, '\n');
}

static int r_prog_name(const struct bare_perf_event *p, bool sees, char *b,
		       size_t l)
{
	char name[PROG_NAME_MAX];
	int err = 0;

	/* the iterator's copy saves three syscalls per entry; one cut to 15
	 * bytes is made whole from the program's BTF */
	if (p->prog_name[0])
		err = prog_full_name(p->f.prog_id, p->prog_name, name,
				     sizeof(name));
	else
		err = prog_name_read(p->f.prog_id, name, sizeof(name));

	return err ? err : fmt_line(b, l, name);
}

static int r_pid(const struct bare_perf_event *p, bool sees, char *b, size_t l)
{
	return fmt_u64(b, l, p->pid, '\n');
}

static int r_comm(const struct bare_perf_event *p, bool sees, char *b, size_t l)
{
	return fmt_line(b, l, p->comm);
}

/* The files of an entry: those of a perf link that the query tells */
static const struct att_file att_files[] = {
	{"type", K_ALL, false, r_type},
	{"name", K_ALL, false, r_name},
	{"offset", K_UPROBE | K_KPROBE, false, r_offset},
	{"addr", K_KPROBE, false, r_addr},
	{"config", K_EVENT, true, r_config},
	{"event_type", K_EVENT, true, r_event_type},
	{"prog_id", K_ALL, true, r_prog_id},
	{"prog_name", K_ALL, false, r_prog_name},
	{"pid", K_ALL, true, r_pid},
	{"comm", K_ALL, false, r_comm},
	/* every holder of the perf event: entry_holders() */
	{"holders", K_ALL, false, NULL},
};
#define ATT_FILE_COUNT (ARRAY_SIZE(att_files))
#define ADDR_IDX 3

/*
 * addr only where the kernel reported one: BPF_TASK_FD_QUERY gives it for
 * probes made by address, and on newer kernels to a caller that may see
 * kernel addresses (as the daemon may); 0 means "not told", not address 0.
 */
static bool file_applies(size_t i, const struct bare_perf_event *p)
{
	if (i == ADDR_IDX && !p->f.addr)
		return false;
	return i < ATT_FILE_COUNT && att_files[i].kinds & 1u << p->f.kind;
}

bool attached_reader_dependent(fuse_ino_t ino)
{
	unsigned int idx = INO_IDX(ino);

	if (!INO_PID(ino))
		return idx == T_TABLE || idx == T_JSON;
	return idx == 1 + ADDR_IDX;
}

/* @n decimal digits at @s, no leading zero, at most @max. Return: 0 */
static int parse_dec(const char *s, size_t n, unsigned long long max,
		     __u32 *out)
{
	unsigned long long v = 0;
	size_t i;

	if (!n || n > 10 || (s[0] == '0' && n > 1))
		return -ENOENT;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -ENOENT;
		v = v * 10 + (unsigned int)(s[i] - '0');
	}
	if (v > max)
		return -ENOENT;
	*out = (__u32)v;
	return 0;
}

/* "PID-FD", both decimal without leading zeros. Return: 0, -ENOENT */
static int parse_entry(const char *name, __u32 *pid, __u32 *fd)
{
	const char *dash = strchr(name, '-');

	if (!dash || parse_dec(name, dash - name, PID_MAX - 1, pid) || !*pid ||
	    parse_dec(dash + 1, strlen(dash + 1), INT32_MAX, fd))
		return -ENOENT;
	return 0;
}

int attached_lookup(fuse_ino_t parent, const char *name, fuse_ino_t *ino)
{
	__u32 pid, fd;
	size_t i;

	if (parent == ATTACHED_DIR_INO) {
		for (i = T_TABLE; i <= T_JSON; i++)
			if (!strcmp(name, table_names[i])) {
				*ino = ENTRY_INO(0, 0, i);
				return 0;
			}
		if (parse_entry(name, &pid, &fd))
			return -ENOENT;
		*ino = ENTRY_INO(pid, fd, 0);
		return 0;
	}
	if (!INO_PID(parent) || INO_IDX(parent))
		return -ENOTDIR;
	for (i = 0; i < ATT_FILE_COUNT; i++)
		if (!strcmp(name, att_files[i].name)) {
			*ino = ENTRY_INO(INO_PID(parent), INO_FD(parent),
					 1 + i);
			return 0;
		}
	return -ENOENT;
}

/* The probe of entry @ino now. Return: 0, -ENOENT, -ENOMEM, -errno. */
static int probe_get(struct bare_perf_set *s, fuse_ino_t ino,
		     struct bare_perf_event **p)
{
	int err;

	*p = malloc(sizeof(**p));
	if (!*p)
		return -ENOMEM;
	err = bare_perf_get(s, INO_PID(ino), INO_FD(ino), *p);
	if (err) {
		free(*p);
		*p = NULL;
	}
	return err == -ENAMETOOLONG ? -ENOENT : err;
}

/* File @i of @p without its newline into @buf; false if it does not apply */
static bool value_of(size_t i, const struct bare_perf_event *p, bool sees,
		     char *buf, size_t len, size_t *n)
{
	int r = file_applies(i, p) && att_files[i].render
			? att_files[i].render(p, sees, buf, len)
			: -1;

	if (r <= 0 || (size_t)r >= len)
		return false;
	*n = (size_t)r - (buf[r - 1] == '\n');
	buf[*n] = '\0';
	return true;
}

static void table_row(struct sbuf *f, const struct bare_perf_event *p, bool sees,
		      char *buf, size_t len)
{
	/* the columns of links: indices into att_files, -1 for none */
	static const int cols[] = {0, 1, 2, ADDR_IDX, 4, -1, 6};
	size_t c, n;

	sbuf_printf(f, "%u-%u", p->pid, p->fd);
	for (c = 0; c < ARRAY_SIZE(cols); c++) {
		sbuf_put(f, "\t", 1);
		if (cols[c] >= 0 && value_of(cols[c], p, sees, buf, len, &n))
			sbuf_put_table_value(f, buf, n);
		else
			sbuf_put(f, "-", 1);
	}
	sbuf_put(f, "\t1\n", 3); /* COUNT: one target */
}

static void json_place(struct sbuf *f, const char *key, const char *v)
{
	sbuf_printf(f, ",\"%s\":", key);
	if (v)
		sbuf_put_json_string(f, v, strlen(v));
	else
		sbuf_put(f, "null", 4);
}

static void json_object(struct sbuf *f, const struct bare_perf_event *p,
			bool sees, char *buf, size_t len,
			struct cgroup_cache *places)
{
	const struct cgroup_place *pl = cgroup_cache_get(places, p->pid);
	size_t i, n;

	sbuf_printf(f, "{\"id\":\"%u-%u\"", p->pid, p->fd);
	for (i = 0; i < ATT_FILE_COUNT; i++) {
		if (!value_of(i, p, sees, buf, len, &n))
			continue;
		sbuf_printf(f, ",\"%s\":", att_files[i].name);
		if (att_files[i].json_number)
			sbuf_put(f, buf, n);
		else
			sbuf_put_json_string(f, buf, n);
	}
	/* where the holder (pid) runs, as links.json's pids objects */
	json_place(f, "cgroup", pl ? pl->path : NULL);
	json_place(f, "container", pl ? pl->container : NULL);
	sbuf_put(f, "}", 1);
}

static int render_table(struct bare_perf_set *s, int which, bool sees,
			char **out, size_t *len)
{
	struct cgroup_cache places = {0};
	struct bare_perf_event *v = NULL;
	char *buf = malloc(2 * PATH_MAX);
	int n = buf ? bare_perf_read_all(s, &v) : -ENOMEM, i;
	struct sbuf f = {0};

	if (n >= 0 && which == T_TABLE)
		sbuf_printf(&f, "ID\tTYPE\tNAME\tOFFSET\tADDR\tCONFIG\t"
				"COOKIE\tPROG_ID\tCOUNT\n");
	if (n >= 0 && which == T_JSON)
		sbuf_put(&f, "[", 1);
	for (i = 0; i < n; i++) {
		if (which == T_TABLE) {
			table_row(&f, &v[i], sees, buf, 2 * PATH_MAX);
			continue;
		}
		if (i)
			sbuf_put(&f, ",\n", 2);
		json_object(&f, &v[i], sees, buf, 2 * PATH_MAX, &places);
	}
	cgroup_cache_free(&places);
	if (n >= 0 && which == T_JSON)
		sbuf_put(&f, "]\n", 2);
	*out = sbuf_finish(&f, len);
	if (n >= 0 && !*out)
		n = -ENOMEM;
	if (n < 0) {
		free(*out);
		*out = NULL;
	}
	free(v);
	free(buf);
	return n < 0 ? n : 0;
}

/* The holders table of entry @ino into a malloc'd *@buf */
static int entry_holders(struct bare_perf_set *s, fuse_ino_t ino, char **buf,
			 size_t *len)
{
	struct holder_index idx = {0};
	struct link_holder *h = NULL;
	int n = bare_perf_holders(s, INO_PID(ino), INO_FD(ino), &h);

	if (n >= 0)
		n = holder_index_wrap(&idx, h, (size_t)n);
	if (n >= 0)
		n = holders_table(&idx, 0, idx.n, false, NULL, 0);
	*buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (n >= 0 && !*buf)
		n = -ENOMEM;
	if (n >= 0) /* the places are kept: the same table again */
		n = holders_table(&idx, 0, idx.n, false, *buf, (size_t)n + 1);
	holder_index_free(&idx);
	if (n < 0) {
		free(*buf);
		*buf = NULL;
		return n;
	}
	*len = (size_t)n;
	return 0;
}

int attached_render(struct bare_perf_set *s, fuse_ino_t ino, bool sees_addrs,
		    char **buf, size_t *len)
{
	unsigned int idx = INO_IDX(ino);
	struct bare_perf_event *p;
	int n;

	if (!s)
		return -ENOENT; /* bare_perf_open() failed */

	if (!INO_PID(ino))
		return idx == T_TABLE || idx == T_JSON
			       ? render_table(s, idx, sees_addrs, buf, len)
		       : idx ? -ENOENT
			     : -EISDIR;
	if (!idx)
		return -EISDIR;
	if (idx > ATT_FILE_COUNT)
		return -ENOENT;
	if (!att_files[idx - 1].render)
		return entry_holders(s, ino, buf, len);
	n = probe_get(s, ino, &p);
	*buf = n ? NULL : malloc(2 * PATH_MAX);
	if (!n && !*buf)
		n = -ENOMEM;
	if (!n)
		n = file_applies(idx - 1, p)
			    ? att_files[idx - 1].render(p, sees_addrs, *buf,
							2 * PATH_MAX)
			    : -ENOENT;
	free(p);
	if (n >= 2 * PATH_MAX)
		n = -ENAMETOOLONG;
	if (n < 0) {
		free(*buf);
		*buf = NULL;
		return n;
	}
	*len = (size_t)n;
	return 0;
}

int attached_attr(struct bare_perf_set *s, fuse_ino_t ino, bool sees_addrs,
		  mode_t *mode, off_t *size, nlink_t *nlink, char **keep)
{
	struct bare_perf_id *ids = NULL;
	char *buf = NULL;
	size_t len = 0;
	int n;

	if (!s)
		return -ENOENT; /* bare_perf_open() failed */

	*nlink = 1;
	*size = 0;
	*keep = NULL;
	if (ino == ATTACHED_DIR_INO) {
		n = bare_perf_ids(s, &ids);
		free(ids);
		*mode = S_IFDIR | 0555;
		*nlink = 2 + (n > 0 ? (nlink_t)n : 0);
		return n < 0 ? n : 0;
	}
	if (INO_PID(ino) && !INO_IDX(ino)) {
		struct bare_perf_event *p;

		n = probe_get(s, ino, &p);
		free(p);
		*mode = S_IFDIR | 0555;
		*nlink = 2;
		return n;
	}
	n = attached_render(s, ino, sees_addrs, &buf, &len);
	*keep = buf;
	*mode = S_IFREG | 0444;
	*size = (off_t)len;
	return n;
}

int attached_list(struct bare_perf_set *s, fuse_ino_t ino, attached_add_fn add,
		  void *ctx)
{
	struct bare_perf_id *ids = NULL;
	struct bare_perf_event *p;
	char name[32];
	size_t i;
	int n, err = 0;

	if (!s)
		return -ENOENT; /* bare_perf_open() failed */

	if (ino == ATTACHED_DIR_INO) {
		for (i = T_TABLE; !err && i <= T_JSON; i++)
			err = add(ctx, table_names[i], ENTRY_INO(0, 0, i),
				  S_IFREG);
		n = err ? err : bare_perf_ids(s, &ids);
		for (i = 0; n > 0 && !err && i < (size_t)n; i++) {
			snprintf(name, sizeof(name), "%u-%u", ids[i].pid,
				 ids[i].fd);
			err = add(ctx, name,
				  ENTRY_INO(ids[i].pid, ids[i].fd, 0), S_IFDIR);
		}
		free(ids);
		return err ? err : n < 0 ? n : 0;
	}
	if (!INO_PID(ino) || INO_IDX(ino))
		return -ENOTDIR;
	err = probe_get(s, ino, &p);
	for (i = 0; !err && i < ATT_FILE_COUNT; i++)
		if (file_applies(i, p))
			err = add(ctx, att_files[i].name,
				  ENTRY_INO(p->pid, p->fd, 1 + i), S_IFREG);
	free(p);
	return err;
}
