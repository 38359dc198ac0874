// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "single_probe.h"
#include "multi_probe.h"
#include "owned.h"
#include "resolve.h"
#include "make_links.h"
#include "sight.h"
#include "tracing_glob.h"
#include "usdt_probe.h"

static bool is_uprobe(const struct probe_spec *p)
{
	return p->kind == PROBE_UPROBE || p->kind == PROBE_URETPROBE;
}

/* A uprobe SYMBOL with pattern bytes that the file has as a name. */
static bool names_a_symbol(const struct probe_spec *p, pid_t pid,
			   struct path_memo *memo)
{
	struct uprobe_err te = {0};
	char *canon = malloc(PATH_MAX);
	bool found = false;

	if (canon && !locate_uprobe_file(p, pid, memo, canon, &te))
		found = uprobe_has_symbol(canon, p->symbol);
	free(canon);
	return found;
}

/*
 * A uprobe whose SYMBOL looks like a pattern (Go's "pkg.(*T).M"): the
 * symbol of exactly that name when the file has one, one link as for any
 * name; else the pattern, which takes no +OFFSET. 1: it is a pattern.
 */
/*
 * A line of one target: a uprobe that asks for latency is one uprobe
 * session link where the kernel has them (else an entry and a return
 * link, made by single_probe.c), every other line a link of its own.
 */
static int one_target_create(struct owned *o, const struct probe_spec *p,
			     const char *line, size_t len, pid_t pid,
			     struct request_ids *made, struct path_memo *memo,
			     struct bl_error *e)
{
	if (p->kind == PROBE_UPROBE && p->opts & OPT_LATENCY &&
	    !sight_use_pair(p, owned_latency_pairs(o)))
		return session_probe_create(o, p, line, len, pid, made, memo,
					    e);
	return single_probe_create(o, p, line, len, pid, made, memo, e);
}

static int uprobe_name_or_pattern(struct owned *o, const struct probe_spec *p,
				  const char *line, size_t len, pid_t pid,
				  struct request_ids *made, struct path_memo *memo,
				  struct bl_error *e)
{
	struct probe_spec *one;
	int err;

	if (!names_a_symbol(p, pid, memo)) {
		if (!p->pattern_plus_col)
			return 1;
		e->err = -EINVAL;
		e->column = p->pattern_plus_col;
		bl_errorf(e,
			  "a pattern takes no +OFFSET: '%s' (no symbol has "
			  "that name)",
			  p->symbol);
		return -EINVAL;
	}
	one = malloc(sizeof(*one));
	if (!one)
		return -ENOMEM;
	*one = *p;
	one->wildcard = false;
	err = one_target_create(o, one, line, len, pid, made, memo, e);
	free(one);
	return err;
}

int probe_create(struct owned *o, const struct probe_spec *p, const char *line,
		 size_t len, pid_t pid, struct request_ids *made,
		 struct path_memo *memo, struct bl_error *e)
{
	if (p->opts & OPT_SIGHT) {
		int err;

		e->msg[0] = e->warning[0] = '\0';
		e->column = 0;
		err = sight_check(p, e);
		e->err = err;
		if (err)
			return err;
	}
	if (p->wildcard && (p->kind == PROBE_FENTRY || p->kind == PROBE_FEXIT))
		return tracing_glob_create(o, p, line, len, pid, made, memo, e);
	/* a USDT pattern is resolved with the probe's notes */
	if (p->kind == PROBE_USDT)
		return usdt_probe_create(o, p, line, len, pid, made, memo, e);
	if (p->wildcard && is_uprobe(p)) {
		int err = uprobe_name_or_pattern(o, p, line, len, pid, made,
						 memo, e);

		if (err != 1)
			return err;
	}
	if (p->wildcard) {
		e->err = 0;
		e->column = 0;
		e->msg[0] = e->warning[0] = '\0';
		return multi_probe_create(o, p, line, len, pid, made, memo, e);
	}
	return one_target_create(o, p, line, len, pid, made, memo, e);
}
