// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: whole sequences of writes to the control file's write
 * handler (fs/control.c: line assembly, all-or-nothing requests, read-back,
 * error_log), with bpf/make/parse.c behind it. The kernel side (probe_create(),
 * owned_remove() ...) is replaced by a model registry below (the handle
 * struct owned, made afresh for every input and handed to control_open()
 * as the daemon hands its own), which makes, fails and removes "links"
 * deterministically from the line's bytes.
 *
 * Input: byte 0 = flags, byte 1 = seed of the split points, the rest is the
 * byte stream written. Flags:
 *   bits 0-2 == 7: first write a line of about LINE_MAX_BYTES (1 MiB) bytes,
 *                  bits 3-4 choosing 1 MiB - 1, 1 MiB or 1 MiB + 1 bytes
 *   bit 5:         no control_flush() before release (the handle just goes)
 *   bit 6:         split into writes of 1..4 bytes (else 1..64 or whole)
 *
 * Invariants (abort() when broken):
 *   - control_write() returns len or a negative errno of the known set;
 *   - probe_create() never sees a newline, nor a line over 1 MiB;
 *   - a failed request leaves none of the links it made in the registry,
 *     and removes none that were there before it (its -ID and -* lines
 *     take effect only when the whole request succeeds);
 *   - read-back on the writing handle lists, in order, exactly the ids made
 *     by the requests that succeeded, then end-of-file;
 *   - a fresh handle reads owned_list(), byte for byte, in any chunk size;
 *   - error_log holds at most 16 entries, each in the documented form;
 *   - nothing leaks (ASan's LeakSanitizer at exit, and the registry is
 *     emptied every run).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "owned.h"
#include "single_probe.h"
#include "make_links.h"

#define LINE_MAX_BYTES (1u << 20) /* as in fs/control.c */
#define FOREIGN_ID_MAX 999	  /* ids below this belong to "others" */
#define MAX_LINKS 4096

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "invariant broken: %s\n", what);
		abort();
	}
}

/* ---- the model registry: what the kernel and owned.c would hold ---- */

/* owned.h's handle, opaque to control.c: here the model's state */
struct owned {
	struct {
		__u32 id;
		char *spec;
		size_t spec_len;
	} reg[MAX_LINKS];
	size_t reg_len;
	__u32 next_id;
};

/* the registry before the current call: a failed one keeps all of it */
static __u32 call_before[MAX_LINKS];
static size_t call_before_len;

/* ids made during the current control_write()/control_flush() call */
static __u32 call_made[MAX_LINKS];
static size_t call_made_len;

static int reg_find(const struct owned *o, __u32 id)
{
	size_t i;

	for (i = 0; i < o->reg_len; i++)
		if (o->reg[i].id == id)
			return (int)i;
	return -1;
}

static void reg_drop(struct owned *o, size_t i)
{
	free(o->reg[i].spec);
	o->reg[i] = o->reg[--o->reg_len];
}

static unsigned int line_hash(const char *line, size_t len)
{
	unsigned int h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)line[i]) * 16777619u;
	return h;
}

static int make_one(struct owned *o, const char *line, size_t len,
		    struct request_ids *made)
{
	char *spec;

	if (o->reg_len == MAX_LINKS || call_made_len == MAX_LINKS)
		return -ENOSPC;
	if (request_ids_reserve(made, 1))
		return -ENOMEM;
	spec = malloc(len + 1);
	if (!spec)
		return -ENOMEM;
	memcpy(spec, line, len);
	spec[len] = '\0';
	o->reg[o->reg_len].id = o->next_id;
	o->reg[o->reg_len].spec = spec;
	o->reg[o->reg_len++].spec_len = len;
	call_made[call_made_len++] = o->next_id;
	made->ids[made->len++] = o->next_id++;
	return 0;
}

int probe_create(struct owned *o, const struct probe_spec *p, const char *line,
		 size_t len, pid_t pid, struct request_ids *made,
		 struct path_memo *memo, struct bl_error *ce)
{
	static const int errs[] = {-ENOENT, -EOPNOTSUPP, -EPERM, -E2BIG};
	unsigned int h = line_hash(line, len);
	int n = p->kind == PROBE_SOFTWARE || p->kind == PROBE_HARDWARE ? 2 : 1;
	int i, err;

	check(pid == 4242, "pid passed through");
	check(len <= COMMAND_MAX_BYTES, "a command within the limit");
	check(!memchr(line, '\n', len), "no newline inside a line");
	check(len > 0, "a probe line is not empty");
	if (h % 7 == 0)
		n = 0; /* fails before making anything */
	for (i = 0; i < n; i++) {
		err = make_one(o, line, len, made);
		if (err)
			return err;
		if (i == 0 && h % 11 == 0)
			break; /* the second CPU fails: one stays in @made */
	}
	if (h % 7 == 0 || (n == 2 && i < n)) {
		ce->column = h % (len + 5); /* even past the end: clamped */
		snprintf(ce->msg, sizeof(ce->msg), "model failure %u", h);
		return errs[h % 4];
	}
	if (h % 13 == 0)
		snprintf(ce->warning, sizeof(ce->warning), "model warning");
	return 0;
}

int owned_remove(struct owned *o, __u32 id)
{
	int i = reg_find(o, id);

	if (i < 0)
		return id <= FOREIGN_ID_MAX ? -EPERM : -ENOENT;
	reg_drop(o, (size_t)i);
	return 0;
}

int owned_may_remove(struct owned *o, __u32 id)
{
	if (reg_find(o, id) >= 0)
		return 0;
	return id <= FOREIGN_ID_MAX ? -EPERM : -ENOENT;
}

int owned_remove_ids(struct owned *o, const __u32 *ids, size_t n)
{
	size_t i;
	int removed = 0, at;

	for (i = 0; i < n; i++) {
		check(i == 0 || ids[i - 1] < ids[i], "removal ids ascending");
		at = reg_find(o, ids[i]);
		if (at >= 0) {
			reg_drop(o, (size_t)at);
			removed++;
		}
	}
	return removed;
}

int owned_ids(struct owned *o, __u32 **ids)
{
	size_t i;

	*ids = malloc((o->reg_len ? o->reg_len : 1) * sizeof(**ids));
	if (!*ids)
		return -ENOMEM;
	for (i = 0; i < o->reg_len; i++)
		(*ids)[i] = o->reg[i].id;
	return (int)o->reg_len;
}

int owned_remove_all(struct owned *o)
{
	int n = (int)o->reg_len;

	while (o->reg_len)
		reg_drop(o, o->reg_len - 1);
	return n;
}

/* A registry entry by id, for sorting the listing */
struct by_id {
	__u32 id;
	size_t at;
};

static int cmp_id(const void *a, const void *b)
{
	__u32 x = ((const struct by_id *)a)->id,
	      y = ((const struct by_id *)b)->id;

	return x < y ? -1 : x > y;
}

char *owned_list(struct owned *o, size_t *len)
{
	struct by_id idx[MAX_LINKS];
	size_t i, total = 1, n = 0;
	char *buf;

	for (i = 0; i < o->reg_len; i++) {
		idx[i] = (struct by_id){o->reg[i].id, i};
		total += 12 + o->reg[i].spec_len;
	}
	qsort(idx, o->reg_len, sizeof(idx[0]), cmp_id);
	buf = malloc(total);
	if (!buf)
		return NULL;
	for (i = 0; i < o->reg_len; i++) {
		size_t at = idx[i].at;

		n += sprintf(buf + n, "%u\t", o->reg[at].id);
		memcpy(buf + n, o->reg[at].spec, o->reg[at].spec_len);
		n += o->reg[at].spec_len;
		buf[n++] = '\n';
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* ---- the driver ---- */

/* ids that successful requests made, in order: what read-back must give */
static __u32 expect[MAX_LINKS];
static size_t expect_len;

static int known_errno(long r)
{
	return r == -EINVAL || r == -ENOENT || r == -EOPNOTSUPP ||
	       r == -EPERM || r == -E2BIG || r == -ENOSPC || r == -ENOMEM;
}

static void snapshot(const struct owned *o)
{
	size_t i;

	for (i = 0; i < o->reg_len; i++)
		call_before[i] = o->reg[i].id;
	call_before_len = o->reg_len;
}

/*
 * After a call: either all its links are kept and expected, or none; a
 * failed call removed nothing that was there before it.
 */
static void account(const struct owned *o, long r)
{
	size_t i;

	for (i = 0; r < 0 && i < call_before_len; i++)
		check(reg_find(o, call_before[i]) >= 0,
		      "a failed request removes nothing");
	check(r >= 0 || known_errno(r), "return is len or a known -errno");
	for (i = 0; i < call_made_len; i++) {
		if (r >= 0) {
			if (expect_len < MAX_LINKS)
				expect[expect_len++] = call_made[i];
		} else {
			check(reg_find(o, call_made[i]) < 0,
			      "a failed request leaves none of its links");
		}
	}
	call_made_len = 0;
}

static void do_write(struct owned *o, struct control_handle *h, const char *d,
		     size_t n)
{
	ssize_t r;

	snapshot(o);
	r = control_write(h, d, n, 4242);

	check(r < 0 || (size_t)r == n, "write returns its length");
	account(o, r);
}

static size_t next_split(unsigned int *seed, unsigned char flags, size_t left)
{
	size_t n;

	*seed = *seed * 1103515245u + 12345u;
	if (flags & 0x40)
		n = 1 + (*seed >> 16) % 4;
	else if ((*seed >> 16) % 8 == 0)
		n = left;
	else
		n = 1 + (*seed >> 16) % 64;
	return n < left ? n : left;
}

static void giant_line(struct owned *o, struct control_handle *h,
		       unsigned char flags)
{
	size_t n = LINE_MAX_BYTES - 1 + ((flags >> 3) & 3) % 3;
	char *big = malloc(n);

	check(big != NULL, "malloc");
	memset(big, 'k', n);
	memcpy(big, "kprobe:", 7);
	/* in two writes, so the partial-line path takes the limit */
	do_write(o, h, big, n / 2);
	do_write(o, h, big + n / 2, n - n / 2);
	free(big);
}

static void check_readback(struct control_handle *h)
{
	char buf[64], *all = NULL, *p, *end;
	size_t len = 0, i = 0;
	ssize_t r;

	while ((r = control_read(h, buf, 1 + len % sizeof(buf), 0)) > 0) {
		all = realloc(all, len + r + 1);
		check(all != NULL, "realloc");
		memcpy(all + len, buf, r);
		len += r;
	}
	check(r == 0, "read-back ends with end-of-file");
	for (p = all; p && p < all + len; p = end + 1) {
		all[len] = '\0';
		end = strchr(p, '\n');
		check(end != NULL, "read-back lines end in a newline");
		check(i < expect_len, "no more ids than were made");
		check(strtoul(p, NULL, 10) == expect[i++], "ids in order");
	}
	check(i == expect_len || expect_len == MAX_LINKS, "every id read back");
	free(all);
}

/* A handle that never wrote reads owned_list(), in odd chunk sizes. */
static void check_listing(struct owned *o, struct error_log *errors)
{
	struct control_handle *h = control_open(o, errors);
	size_t want_len, off = 0;
	char *want = owned_list(o, &want_len), buf[100];
	ssize_t r;

	check(h && want, "alloc");
	while ((r = control_read(h, buf, 1 + off % 97, (off_t)off)) > 0) {
		check(off + r <= want_len, "listing no longer than owned_list");
		check(!memcmp(buf, want + off, r), "listing is owned_list");
		off += r;
	}
	check(r == 0 && off == want_len, "listing complete");
	control_release(h);
	free(want);
}

static void check_error_log(struct error_log *errors)
{
	size_t len, entries = 0;
	char *log = error_log_render(errors, &len), *p;

	check(log != NULL, "error_log renders");
	check(strlen(log) == len, "error_log length");
	for (p = log; *p; p++)
		if (*p == '\n' && p[1] == '[')
			entries++;
	if (len) {
		check(log[0] == '[' && log[len - 1] == '\n',
		      "error_log entries are whole");
		entries++;
	}
	check(entries <= 16, "at most 16 error_log entries");
	check(!strstr(log, "Command: ") || strstr(log, "^\n"),
	      "every command has its caret line");
	free(log);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* one log for the run, as the daemon has one for its mount */
	static struct error_log *errors;
	struct control_handle *h;
	struct owned *o;
	unsigned char flags;
	unsigned int seed;
	size_t pos = 2, n;
	int r;

	if (size < 2)
		return 0;
	flags = data[0];
	seed = data[1];
	o = calloc(1, sizeof(*o));
	check(o != NULL, "calloc");
	o->next_id = 1000;
	errors = errors ? errors : error_log_new();
	check(errors != NULL, "error_log_new");
	h = control_open(o, errors);
	check(h != NULL, "control_open");
	if ((flags & 7) == 7)
		giant_line(o, h, flags);
	while (pos < size) {
		n = next_split(&seed, flags, size - pos);
		do_write(o, h, (const char *)data + pos, n);
		pos += n;
	}
	if (!(flags & 0x20)) {
		snapshot(o);
		r = control_flush(h, 4242, false);
		check(r == 0 || known_errno(r), "flush returns 0 or -errno");
		account(o, r);
	} else {
		call_made_len = 0;
	}
	check_readback(h);
	check_listing(o, errors);
	check_error_log(errors);
	control_release(h);
	owned_remove_all(o);
	free(o);
	error_log_clear(errors);
	expect_len = 0;
	return 0;
}
