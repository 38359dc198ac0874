// SPDX-License-Identifier: GPL-2.0-only
/* The control file: line assembly, all-or-nothing writes, read-back, and
 * error_log (DESIGN.md section 3). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpflinkfs.h"
#include "create.h"

#define ERROR_LOG_ENTRIES 16
#define LINE_MAX_BYTES (1u << 20) /* a longer line is refused, not kept */

struct control_handle {
	pthread_mutex_t lock;
	bool wrote;
	unsigned int line_no;
	char *partial; /* an incomplete last line */
	size_t partial_len;
	bool partial_too_long;
	/* the rest of a line that failed is dropped up to its newline: a
	 * writer that retries a short write must not run its tail */
	bool discard;
	pid_t writer; /* the last process that wrote here */
	char *out; /* created ids not yet read back */
	size_t out_len, out_pos;
	char *listing; /* read on a handle that has not written */
	size_t listing_len;
};

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char *log_entries[ERROR_LOG_ENTRIES];
static unsigned int log_next;

struct control_handle *control_open(void)
{
	struct control_handle *h = calloc(1, sizeof(*h));

	if (h)
		pthread_mutex_init(&h->lock, NULL);
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

void error_log_add(int err, unsigned int line_no, const char *msg,
		   const char *line, size_t line_len, size_t column)
{
	struct timespec ts;
	size_t shown = line_len > 512 ? 512 : line_len, i, n;
	char *e = malloc(shown + 1024 + 600);

	if (!e)
		return;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	n = snprintf(e, 1024, "[%ld.%06ld] %s: line %u: %s\n  Command: ",
		     (long)ts.tv_sec, ts.tv_nsec / 1000, errno_name(err),
		     line_no, msg);
	/* paths in messages may hold any byte: keep the log printable */
	for (i = 0; i < n; i++)
		if ((unsigned char)e[i] >= 0x7f ||
		    ((unsigned char)e[i] < 0x20 && e[i] != '\n'))
			e[i] = '?';
	/* One byte, one column: unprintable bytes show as '?' */
	for (i = 0; i < shown; i++)
		e[n++] = (unsigned char)line[i] < 0x20 ||
					 (unsigned char)line[i] >= 0x7f ?
				 '?' :
				 line[i];
	if (shown < line_len)
		n += sprintf(e + n, "...");
	if (column > shown)
		column = shown;
	n += sprintf(e + n, "\n%*s^\n", (int)(11 + column), "");
	pthread_mutex_lock(&log_lock);
	free(log_entries[log_next % ERROR_LOG_ENTRIES]);
	log_entries[log_next++ % ERROR_LOG_ENTRIES] = e;
	pthread_mutex_unlock(&log_lock);
}

char *error_log_render(size_t *len)
{
	size_t total = 0, i, start;
	char *buf;

	pthread_mutex_lock(&log_lock);
	start = log_next > ERROR_LOG_ENTRIES ? log_next - ERROR_LOG_ENTRIES : 0;
	for (i = start; i < log_next; i++)
		total += strlen(log_entries[i % ERROR_LOG_ENTRIES]);
	buf = malloc(total + 1);
	if (buf) {
		total = 0;
		for (i = start; i < log_next; i++) {
			const char *e = log_entries[i % ERROR_LOG_ENTRIES];

			memcpy(buf + total, e, strlen(e));
			total += strlen(e);
		}
		buf[total] = '\0';
		*len = total;
	}
	pthread_mutex_unlock(&log_lock);
	return buf;
}

void error_log_clear(void)
{
	size_t i;

	pthread_mutex_lock(&log_lock);
	for (i = 0; i < ERROR_LOG_ENTRIES; i++) {
		free(log_entries[i]);
		log_entries[i] = NULL;
	}
	log_next = 0;
	pthread_mutex_unlock(&log_lock);
}

static int out_append(struct control_handle *h, const struct id_list *ids,
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

/* Run one complete line; links it makes are appended to @made. */
static int run_line(struct control_handle *h, const char *line, size_t len,
		    pid_t pid, struct id_list *made, struct path_memo *memo)
{
	struct parsed_cmd *cmd = malloc(sizeof(*cmd));
	struct create_error ce = { 0 };
	struct parse_error pe = { 0 };
	size_t lead;
	int err;

	h->line_no++;
	if (!cmd)
		return -ENOMEM;
	err = parse_line(line, len, cmd, &pe);
	if (err) {
		error_log_add(err, h->line_no, pe.msg, line, len, pe.column);
		goto out;
	}
	switch (cmd->kind) {
	case CMD_PROBE:
		while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' ||
			       line[len - 1] == '\r'))
			len--;
		/* the spec and the log hold the line without its blanks */
		for (lead = 0; lead < len && (line[lead] == ' ' ||
					      line[lead] == '\t');
		     lead++)
			;
		line += lead, len -= lead;
		cmd->probe.path_col -= cmd->probe.path_col >= lead ? lead : 0;
		cmd->probe.symbol_col -=
			cmd->probe.symbol_col >= lead ? lead : 0;
		err = probe_create(&cmd->probe, line, len, pid, made, memo,
				   &ce);
		if (err || ce.warning[0])
			error_log_add(err, h->line_no,
				      err ? ce.msg : ce.warning, line, len,
				      ce.column);
		break;
	case CMD_REMOVE:
		err = owned_remove(cmd->link_id);
		if (err)
			error_log_add(err, h->line_no,
				      err == -EPERM ?
					      "link not created by this mount" :
					      "no such link",
				      line, len, 0);
		break;
	case CMD_REMOVE_ALL:
		owned_remove_all();
		break;
	case CMD_NONE:
		break;
	}
out:
	free(cmd);
	return err;
}

static void undo(struct id_list *made)
{
	size_t i;

	for (i = 0; i < made->len; i++)
		owned_remove(made->ids[i]);
	made->len = 0;
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

static int run_partial(struct control_handle *h, pid_t pid,
		       struct id_list *made, struct path_memo *memo)
{
	int err;

	if (h->partial_too_long) {
		h->line_no++;
		error_log_add(-EINVAL, h->line_no, "line too long",
			      h->partial, h->partial_len, 0);
		err = -EINVAL;
	} else {
		err = run_line(h, h->partial ? h->partial : "",
			       h->partial_len, pid, made, memo);
	}
	h->partial_len = 0;
	h->partial_too_long = false;
	return err;
}

/* In discard mode: drop up to the newline; the request fails (EINVAL). */
static bool discard_rest(struct control_handle *h, const char **data,
			 size_t *len)
{
	const char *nl;

	if (!h->discard)
		return false;
	nl = memchr(*data, '\n', *len);
	if (nl)
		h->discard = false;
	return true;
}

ssize_t control_write(struct control_handle *h, const char *data, size_t len,
		      pid_t pid)
{
	struct id_list made = { 0 };
	struct path_memo memo = { 0 };
	size_t pos = 0;
	int err = 0;

	pthread_mutex_lock(&h->lock);
	h->wrote = true;
	h->writer = pid;
	if (discard_rest(h, &data, &len)) {
		pthread_mutex_unlock(&h->lock);
		return -EINVAL;
	}
	while (!err && pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (data + pos)) : len - pos;

		if (!nl) {
			err = partial_add(h, data + pos, n);
			break;
		}
		if (h->partial_len || h->partial_too_long) {
			err = partial_add(h, data + pos, n);
			if (!err)
				err = run_partial(h, pid, &made, &memo);
			/* its start was accepted by an earlier request */
			if (err)
				h->discard = true;
		} else {
			err = run_line(h, data + pos, n, pid, &made, &memo);
		}
		pos += n + 1;
	}
	if (err) {
		undo(&made);
		h->partial_len = 0;
		h->partial_too_long = false;
	} else {
		err = out_append(h, &made, 0);
	}
	pthread_mutex_unlock(&h->lock);
	path_memo_clear(&memo);
	free(made.ids);
	return err ? err : (ssize_t)len;
}

int control_flush(struct control_handle *h, pid_t pid, bool last)
{
	struct id_list made = { 0 };
	int err = 0;

	pthread_mutex_lock(&h->lock);
	/*
	 * Only the writer's own close runs its last line (a forked child
	 * exiting closes its copy too); the final release runs it anyway.
	 */
	if ((h->partial_len || h->partial_too_long) &&
	    (last || pid == h->writer)) {
		err = run_partial(h, pid, &made, NULL);
		if (err)
			undo(&made);
		else
			err = out_append(h, &made, 0);
	}
	pthread_mutex_unlock(&h->lock);
	free(made.ids);
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
			h->listing = owned_list(&h->listing_len);
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
