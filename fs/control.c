// SPDX-License-Identifier: GPL-2.0-only
/* The control file: line assembly, all-or-nothing writes, read-back, and
 * error_log (bpflinkfs(8), CONTROL LANGUAGE). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "log.h"
#include "owned.h"
#include "single_probe.h"
#include "make_links.h"

#define ERROR_LOG_ENTRIES 16

/* the spec of a per-CPU link adds " cpu=N" to the command */
_Static_assert(COMMAND_MAX_BYTES + sizeof(" cpu=4294967295") <=
		       sizeof(((struct owned_info *)0)->spec),
	       "an owned link's spec holds every accepted command");
#define LINE_MAX_BYTES (1u << 20) /* a longer line is refused, not kept */
#define PF_EXITING 0x4		  /* task flags: in do_exit() (linux/sched.h) */

struct control_handle {
	pthread_mutex_t lock;
	struct owned *reg; /* the links it makes and removes */
	struct error_log *log; /* where its lines' errors go */
	bool wrote;
	unsigned int line_no;
	char *partial; /* an incomplete last line */
	size_t partial_len;
	bool partial_too_long;
	/*
	 * A request that failed after it had ended a line begun in an
	 * earlier request: its first bytes up to that newline (the tail).
	 * When write(2) returned short, the writer sends that request again,
	 * and its tail must not run as a line of its own; a request that
	 * starts otherwise is a new one.
	 */
	uint64_t tail_hash;
	size_t tail_len; /* 0: no tail to recognise */
	unsigned int tail_line;
	pid_t writer;	     /* the last process that wrote here */
	pid_t writer_tgid;   /* its thread group, when it left a partial line */
	pid_t tgid_of, tgid; /* the thread group of a pid, read once */
	char *out;	     /* created ids not yet read back */
	size_t out_len, out_pos;
	char *listing; /* read on a handle that has not written */
	size_t listing_len;
};

/*
 * What one write request (or the last line run at close) does: the links
 * its lines made, removed again if a later line fails, and the links its
 * lines remove, removed only when every line has succeeded.
 */
struct request {
	pid_t pid; /* the writer */
	struct request_ids made;
	struct id_set gone;
	struct path_memo *memo; /* NULL: no memo */
};

/* The last ERROR_LOG_ENTRIES entries, oldest overwritten first. */
struct error_log {
	pthread_mutex_t lock;
	char *entries[ERROR_LOG_ENTRIES];
	unsigned int next; /* entries ever added since the last clear */
};

struct error_log *error_log_new(void)
{
	struct error_log *log = calloc(1, sizeof(*log));

	if (log)
		pthread_mutex_init(&log->lock, NULL);
	return log;
}

void error_log_free(struct error_log *log)
{
	if (!log)
		return;
	error_log_clear(log);
	pthread_mutex_destroy(&log->lock);
	free(log);
}

struct control_handle *control_open(struct owned *reg, struct error_log *log)
{
	struct control_handle *h = calloc(1, sizeof(*h));

	if (h) {
		pthread_mutex_init(&h->lock, NULL);
		h->reg = reg;
		h->log = log;
	}
	return h;
}

void control_release(struct control_handle *h)
{
	if (!h)
		return;
	pthread_mutex_destroy(&h->lock);
	free(h->partial);
	free(h->out);
	free(h->listing);
	free(h);
}

static const char *errno_name(int err)
{
	const char *name = err ? strerrorname_np(-err) : "warning";

	return name ? name : "EUNKNOWN";
}

/*
 * Copy @msg into @out (room for @size bytes and a NUL) as one line: a
 * message quotes paths, process and cgroup names, which may hold any byte,
 * and a newline among them would start a forged entry. Newline, tab and
 * backslash are written \n, \t and \\ (as the links table writes them),
 * other unprintable bytes as '?'. Return: the length written.
 */
static size_t escape_message(char *out, size_t size, const char *msg)
{
	static const char from[] = "\n\t\\", to[] = "nt\\";
	size_t n = 0;
	const char *p;

	for (; *msg && n + 2 <= size; msg++) {
		unsigned char c = (unsigned char)*msg;

		if ((p = strchr(from, c)) && c) {
			out[n++] = '\\';
			out[n++] = to[p - from];
		} else {
			out[n++] = c < 0x20 || c >= 0x7f ? '?' : c;
		}
	}
	out[n] = '\0';
	return n;
}

void error_log_add(struct error_log *log, int err, unsigned int line_no,
		   const char *msg, const char *line, size_t line_len,
		   size_t column)
{
	struct timespec ts;
	size_t shown = line_len > 512 ? 512 : line_len, i, n;
	char *e = malloc(shown + 1024 + 600);

	if (!e)
		return;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	n = snprintf(e, 100, "[%ld.%06ld] %s: line %u: ", (long)ts.tv_sec,
		     ts.tv_nsec / 1000, errno_name(err), line_no);
	n += escape_message(e + n, 1024 - n, msg);
	n += sprintf(e + n, "\n  Command: ");
	/* One byte, one column: unprintable bytes show as '?' */
	for (i = 0; i < shown; i++)
		e[n++] = (unsigned char)line[i] < 0x20 ||
					 (unsigned char)line[i] >= 0x7f
				 ? '?'
				 : line[i];
	if (shown < line_len)
		n += sprintf(e + n, "...");
	if (column > shown)
		column = shown;
	n += sprintf(e + n, "\n%*s^\n", (int)(11 + column), "");
	pthread_mutex_lock(&log->lock);
	free(log->entries[log->next % ERROR_LOG_ENTRIES]);
	log->entries[log->next++ % ERROR_LOG_ENTRIES] = e;
	pthread_mutex_unlock(&log->lock);
}

char *error_log_render(struct error_log *log, size_t *len)
{
	size_t total = 0, i, start;
	char *buf;

	pthread_mutex_lock(&log->lock);
	start = log->next > ERROR_LOG_ENTRIES ? log->next - ERROR_LOG_ENTRIES
					      : 0;
	for (i = start; i < log->next; i++)
		total += strlen(log->entries[i % ERROR_LOG_ENTRIES]);
	buf = malloc(total + 1);
	if (buf) {
		total = 0;
		for (i = start; i < log->next; i++) {
			const char *e = log->entries[i % ERROR_LOG_ENTRIES];

			memcpy(buf + total, e, strlen(e));
			total += strlen(e);
		}
		buf[total] = '\0';
		*len = total;
	}
	pthread_mutex_unlock(&log->lock);
	return buf;
}

void error_log_clear(struct error_log *log)
{
	size_t i;

	pthread_mutex_lock(&log->lock);
	for (i = 0; i < ERROR_LOG_ENTRIES; i++) {
		free(log->entries[i]);
		log->entries[i] = NULL;
	}
	log->next = 0;
	pthread_mutex_unlock(&log->lock);
}

static int out_append(struct control_handle *h, const struct request_ids *ids,
		      size_t from)
{
	size_t need = h->out_len + (ids->len - from) * 12 + 1, i;
	char *p = realloc(h->out, need);

	if (!p)
		return -ENOMEM;
	h->out = p;
	for (i = from; i < ids->len; i++)
		h->out_len += sprintf(h->out + h->out_len, "%u\n", ids->ids[i]);
	return 0;
}

static int cmp_ids(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* A probe line, blanks around it already gone: its link(s) into rq->made. */
static int run_probe(struct control_handle *h, struct parsed_cmd *cmd,
		     const char *line, size_t len, struct request *rq)
{
	struct bl_error e = {0};
	char msg[96];
	int err;

	/* every link keeps its command whole: spec, links.json, pin_dir */
	if (len > COMMAND_MAX_BYTES) {
		snprintf(msg, sizeof(msg),
			 "command of %zu bytes, over the limit of %u bytes",
			 len, COMMAND_MAX_BYTES);
		error_log_add(h->log, -EINVAL, h->line_no, msg, line, len,
			      COMMAND_MAX_BYTES);
		return -EINVAL;
	}
	err = probe_create(h->reg, &cmd->probe, line, len, rq->pid, &rq->made,
			   rq->memo, &e);
	if (err || e.warning[0])
		error_log_add(h->log, err, h->line_no, err ? e.msg : e.warning,
			      line, len, e.column);
	return err;
}

/*
 * A removal line: checked now, done when the request succeeds. A link
 * that an earlier line of the request removes is gone for the later ones.
 */
static int run_remove(struct control_handle *h, __u32 id, const char *line,
		      size_t len, struct request *rq)
{
	int err = id_set_has(&rq->gone, id) ? -ENOENT
					    : owned_may_remove(h->reg, id);
	char msg[96];

	if (!err) {
		err = id_set_add(&rq->gone, id);
		return err < 0 ? err : 0;
	}
	if (err == -EPERM)
		snprintf(msg, sizeof(msg), "link not created by this mount");
	else if (err == -ENOENT)
		snprintf(msg, sizeof(msg), "no such link");
	else
		snprintf(msg, sizeof(msg), "cannot look the link up: %s",
			 strerror(-err));
	error_log_add(h->log, err, h->line_no, msg, line, len, 0);
	return err;
}

/* -*: every link owned now, but for those the request removes already */
static int run_remove_all(struct control_handle *h, struct request *rq)
{
	__u32 *ids = NULL;
	int n = owned_ids(h->reg, &ids), i, err = 0;

	for (i = 0; i < n && err >= 0; i++)
		err = id_set_add(&rq->gone, ids[i]);
	free(ids);
	return n < 0 ? n : err < 0 ? err : 0;
}

/* Run one complete line; links it makes are appended to rq->made. */
static int run_line(struct control_handle *h, const char *line, size_t len,
		    struct request *rq)
{
	struct parsed_cmd *cmd = malloc(sizeof(*cmd));
	struct bl_error pe = {0};
	size_t lead;
	int err;

	h->line_no++;
	if (!cmd)
		return -ENOMEM;
	err = parse_line(line, len, cmd, &pe);
	if (err) {
		error_log_add(h->log, err, h->line_no, pe.msg, line, len,
			      pe.column);
		goto out;
	}
	switch (cmd->kind) {
	case CMD_PROBE:
		while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' ||
			       line[len - 1] == '\r'))
			len--;
		/* the spec and the log hold the line without its blanks */
		for (lead = 0;
		     lead < len && (line[lead] == ' ' || line[lead] == '\t');
		     lead++)
			;
		line += lead, len -= lead;
		cmd->probe.path_col -= cmd->probe.path_col >= lead ? lead : 0;
		cmd->probe.symbol_col -=
			cmd->probe.symbol_col >= lead ? lead : 0;
		err = run_probe(h, cmd, line, len, rq);
		break;
	case CMD_REMOVE:
		err = run_remove(h, cmd->link_id, line, len, rq);
		break;
	case CMD_REMOVE_ALL:
		err = run_remove_all(h, rq);
		break;
	case CMD_NONE:
		break;
	}
out:
	free(cmd);
	return err;
}

/* Ascending ids of @l into owned_remove_ids() */
static void remove_list(struct owned *reg, const struct request_ids *l)
{
	__u32 *ids = l->len ? malloc(l->len * sizeof(*ids)) : NULL;
	size_t i;

	if (!l->len)
		return;
	if (!ids) { /* one by one, then */
		for (i = 0; i < l->len; i++)
			owned_remove(reg, l->ids[i]);
		return;
	}
	memcpy(ids, l->ids, l->len * sizeof(*ids));
	qsort(ids, l->len, sizeof(*ids), cmp_ids);
	owned_remove_ids(reg, ids, l->len);
	free(ids);
}

/*
 * The end of a request: on failure (@err) the links it made are removed
 * and its removals are dropped; on success its removals are made (they
 * return at once: the reaper closes the fds), and the ids it made are
 * queued for reading back.
 */
static int request_end(struct control_handle *h, struct request *rq, int err)
{
	__u32 *ids = NULL;
	int n = err ? 0 : id_set_sorted(&rq->gone, &ids);

	if (!err && n < 0)
		err = n;
	if (!err)
		err = out_append(h, &rq->made, 0);
	if (err)
		remove_list(h->reg, &rq->made);
	else if (n > 0)
		owned_remove_ids(h->reg, ids, n);
	free(ids);
	free(rq->made.ids);
	rq->made = (struct request_ids){0};
	id_set_clear(&rq->gone);
	return err;
}

/* Append to the partial line; a line past LINE_MAX_BYTES is dropped whole
 * and fails when its newline arrives. */
static int partial_add(struct control_handle *h, const char *d, size_t n)
{
	char *p;

	if (h->partial_too_long || h->partial_len + n > LINE_MAX_BYTES) {
		h->partial_too_long = true;
		return 0;
	}
	p = realloc(h->partial, h->partial_len + n + 1);
	if (!p)
		return -ENOMEM;
	memcpy(p + h->partial_len, d, n);
	h->partial = p;
	h->partial_len += n;
	return 0;
}

static int run_partial(struct control_handle *h, struct request *rq)
{
	int err;

	if (h->partial_too_long) {
		h->line_no++;
		error_log_add(h->log, -EINVAL, h->line_no, "line too long",
			      h->partial, h->partial_len, 0);
		err = -EINVAL;
	} else {
		err = run_line(h, h->partial ? h->partial : "", h->partial_len,
			       rq);
	}
	h->partial_len = 0;
	h->partial_too_long = false;
	return err;
}

/* FNV-1a: recognises a request sent again without keeping its bytes. */
static uint64_t bytes_hash(const char *d, size_t n)
{
	uint64_t v = 14695981039346656037ull;
	size_t i;

	for (i = 0; i < n; i++)
		v = (v ^ (unsigned char)d[i]) * 1099511628211ull;
	return v;
}

/* After a failed request that began inside a line: remember its tail. */
static void tail_remember(struct control_handle *h, const char *d, size_t len,
			  unsigned int line_no)
{
	const char *nl = memchr(d, '\n', len);

	if (!nl)
		return;
	h->tail_len = nl - d + 1;
	h->tail_hash = bytes_hash(d, h->tail_len);
	h->tail_line = line_no;
}

/*
 * The request starts with the tail of a line that failed: the writer
 * retries after a short write(2). Nothing of it runs, and it fails
 * (EINVAL). Whatever it holds, the next request is judged on its own.
 */
static bool tail_again(struct control_handle *h, const char *d, size_t len)
{
	size_t n = h->tail_len;

	h->tail_len = 0;
	if (!n || len < n || d[n - 1] != '\n' ||
	    bytes_hash(d, n) != h->tail_hash)
		return false;
	error_log_add(
		h->log, -EINVAL, h->tail_line,
		"the rest of this line, which failed, was written again (a retry after a short write): not run",
		d, n - 1, 0);
	return true;
}

/* The lines of one request; an unfinished last one stays partial. */
static int run_lines(struct control_handle *h, const char *data, size_t len,
		     struct request *rq)
{
	size_t pos = 0;
	int err = 0;

	while (!err && pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (data + pos)) : len - pos;

		if (!nl)
			return partial_add(h, data + pos, n);
		if (h->partial_len || h->partial_too_long) {
			err = partial_add(h, data + pos, n);
			if (!err)
				err = run_partial(h, rq);
		} else {
			err = run_line(h, data + pos, n, rq);
		}
		pos += n + 1;
	}
	return err;
}

/* The thread group of @pid from /proc/PID/status, or -1. */
static pid_t proc_tgid(pid_t pid)
{
	char path[32], line[128];
	long v = -1;
	FILE *f;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %ld", &v) == 1)
			break;
	fclose(f);
	return (pid_t)v;
}

/* The thread group of the writer @pid, from /proc once per writer. */
static pid_t writer_group(struct control_handle *h, pid_t pid)
{
	if (h->tgid_of != pid || !pid) {
		h->tgid_of = pid;
		h->tgid = proc_tgid(pid);
	}
	return h->tgid;
}

ssize_t control_write(struct control_handle *h, const char *data, size_t len,
		      pid_t pid)
{
	struct path_memo memo = {0};
	struct request rq = {.pid = pid, .memo = &memo};
	unsigned int line_no;
	bool inside;
	pid_t tgid;
	int err;

	pthread_mutex_lock(&h->lock);
	h->wrote = true;
	__atomic_store_n(&h->writer, pid, __ATOMIC_RELAXED);
	inside = h->partial_len || h->partial_too_long;
	line_no = h->line_no + 1;
	err = tail_again(h, data, len) ? -EINVAL : run_lines(h, data, len, &rq);
	err = request_end(h, &rq, err);
	if (err) {
		/* its start was accepted by an earlier request */
		if (inside)
			tail_remember(h, data, len, line_no);
		h->partial_len = 0;
		h->partial_too_long = false;
	}
	/* whose threads may run the unfinished line at close */
	tgid = h->partial_len || h->partial_too_long ? writer_group(h, pid) : 0;
	__atomic_store_n(&h->writer_tgid, tgid, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&h->lock);
	path_memo_clear(&memo);
	return err ? err : (ssize_t)len;
}

/*
 * The signal that is killing @pid, or 0. A dying task closes its files in
 * do_exit() after it has set PF_EXITING and its exit code (as waitpid()
 * reports it: a signal in the low 7 bits), so the FLUSH it sends from
 * there finds both in /proc/PID/stat (fields 9 and 52).
 */
static int killed_by(pid_t pid)
{
	unsigned long flags = 0;
	char path[32], buf[2048], *p, *save = NULL;
	long code = 0;
	int fd, field;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = pid > 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')'); /* after the command name, whatever it holds */
	for (field = 3, p = p ? strtok_r(p + 1, " \n", &save) : NULL; p;
	     field++, p = strtok_r(NULL, " \n", &save)) {
		if (field == 9)
			flags = strtoul(p, NULL, 10);
		else if (field == 52)
			code = strtol(p, NULL, 10);
	}
	return flags & PF_EXITING ? (int)(code & 0x7f) : 0;
}

/* The process that wrote last closes (any of its threads). */
static bool closer_is_writer(const struct control_handle *h, pid_t pid)
{
	pid_t tgid = __atomic_load_n(&h->writer_tgid, __ATOMIC_RELAXED);

	return pid == __atomic_load_n(&h->writer, __ATOMIC_RELAXED) ||
	       (tgid > 0 && proc_tgid(pid) == tgid);
}

/* A writer killed in the middle of a line: none of it runs. */
static int drop_killed(struct control_handle *h, pid_t pid, int sig)
{
	const char *abbrev = sigabbrev_np(sig);
	char msg[160];

	h->line_no++;
	snprintf(
		msg, sizeof(msg),
		"the writer (pid %d) was killed by signal %d (SIG%s) before it ended this line: not run",
		(int)pid, sig, abbrev ? abbrev : "?");
	error_log_add(h->log, -EINTR, h->line_no, msg,
		      h->partial ? h->partial : "", h->partial_len,
		      h->partial_len);
	h->partial_len = 0;
	h->partial_too_long = false;
	return -EINTR;
}

int control_flush(struct control_handle *h, pid_t pid, bool last)
{
	struct request rq = {.pid = pid};
	int err = 0, sig;

	/*
	 * Only the writer's own close runs its last line (a forked child
	 * exiting closes its copy too), and not when a signal kills it; the
	 * final release runs it anyway. Another process's close (a child's
	 * exec) does nothing, and waits for no request of the writer.
	 */
	if (!last && !closer_is_writer(h, pid))
		return 0;
	pthread_mutex_lock(&h->lock);
	if ((h->partial_len || h->partial_too_long) &&
	    (last || closer_is_writer(h, pid))) {
		sig = last ? 0 : killed_by(pid);
		if (sig) {
			err = drop_killed(h, pid, sig);
		} else {
			err = request_end(h, &rq, run_partial(h, &rq));
		}
	}
	pthread_mutex_unlock(&h->lock);
	return err;
}

ssize_t control_read(struct control_handle *h, char *buf, size_t size,
		     off_t off)
{
	size_t n;

	pthread_mutex_lock(&h->lock);
	if (h->wrote) {
		n = h->out_len - h->out_pos;
		n = n < size ? n : size;
		if (n)
			memcpy(buf, h->out + h->out_pos, n);
		h->out_pos += n;
	} else {
		if (!h->listing || off == 0) {
			free(h->listing);
			h->listing = owned_list(h->reg, &h->listing_len);
		}
		if (!h->listing) {
			pthread_mutex_unlock(&h->lock);
			return -ENOMEM;
		}
		n = (size_t)off >= h->listing_len ? 0 : h->listing_len - off;
		n = n < size ? n : size;
		if (n)
			memcpy(buf, h->listing + off, n);
	}
	pthread_mutex_unlock(&h->lock);
	return n;
}
