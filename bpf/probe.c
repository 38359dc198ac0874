// SPDX-License-Identifier: GPL-2.0-only
#include "multi_create.h"
#include "owned.h"
#include "probe.h"
#include "sight.h"
#include "tracing_glob.h"
#include "usdt_create.h"

int probe_create(struct owned *o, const struct probe_spec *p, const char *line,
		 size_t len, pid_t pid, struct id_list *made,
		 struct path_memo *memo, struct bl_error *e, char *warning,
		 size_t warning_len)
{
	if (p->opts & OPT_SIGHT) {
		int err;

		e->msg[0] = warning[0] = '\0';
		e->column = 0;
		err = sight_check(p, e);
		e->err = err;
		if (err)
			return err;
	}
	if (p->wildcard && (p->kind == PROBE_FENTRY || p->kind == PROBE_FEXIT))
		return tracing_glob_create(o, p, line, len, pid, made, memo, e,
					   warning, warning_len);
	/* a USDT pattern is resolved with the probe's notes */
	if (p->kind == PROBE_USDT)
		return usdt_probe_create(o, p, line, len, pid, made, memo, e,
					 warning, warning_len);
	if (p->kind == PROBE_UPROBE && !p->wildcard && p->opts & OPT_LATENCY &&
	    !sight_use_pair(p, owned_latency_pairs(o)))
		return session_probe_create(o, p, line, len, pid, made, memo, e,
					    warning, warning_len);
	if (p->wildcard) {
		e->err = 0;
		e->column = 0;
		e->msg[0] = warning[0] = '\0';
		return multi_probe_create(o, p, line, len, pid, made, memo, e,
					  warning, warning_len);
	}
	return single_probe_create(o, p, line, len, pid, made, memo, e, warning,
				   warning_len);
}
