// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: arbitrary bytes as one control line to parse_line()
 * (bpf/make/parse.c). Aborts when an invariant of bpf/make/parse.h breaks; the
 * sanitizers catch reads past @size (libFuzzer's buffer is exactly sized).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static void check(int cond)
{
	if (!cond)
		abort();
}

static int terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

static void check_probe(const struct probe_spec *p)
{
	int events = p->kind == PROBE_SOFTWARE || p->kind == PROBE_HARDWARE;

	check(p->kind >= PROBE_KPROBE && p->kind <= PROBE_USDT);
	check(terminated(p->path, sizeof(p->path)));
	check(terminated(p->symbol, sizeof(p->symbol)));
	check(terminated(p->prog, sizeof(p->prog)));
	check((p->opts & OPT_PID) ? p->pid > 0 : p->pid == -1);
	check((p->opts & OPT_CPU) ? p->cpu >= 0 : p->cpu == -1);
	check(!(p->opts & OPT_COOKIE) || (p->opts & OPT_PROG));
	check(!(p->opts & OPT_PROG) || p->prog[0] == '/');
	check(!((p->opts & OPT_PERIOD) && (p->opts & OPT_FREQ)));
	if (events)
		check((p->opts & OPT_FREQ) ? p->freq > 0 && !p->period
					   : p->period > 0);
	else
		check(!(p->opts & (OPT_CPU | OPT_PERIOD | OPT_FREQ)));
	if (p->kind == PROBE_TRACEPOINT)
		check(p->path[0] && p->symbol[0]);
	if (p->by_offset)
		check(!p->symbol[0]);
	else if (p->kind != PROBE_TRACEPOINT)
		check(p->symbol[0] != '\0');
	check(terminated(p->provider, sizeof(p->provider)));
	if (p->kind == PROBE_FENTRY || p->kind == PROBE_FEXIT ||
	    p->kind == PROBE_RAWTP)
		check(!(p->opts & (OPT_PROG | OPT_COOKIE | OPT_PID)));
	if (p->kind == PROBE_URETPROBE && !p->by_offset)
		check(p->offset == 0);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static struct parsed_cmd cmd, again;
	struct bl_error perr, perr2;
	int ret, ret2;

	ret = parse_line((const char *)data, size, &cmd, &perr);
	if (ret) {
		check(ret == -EINVAL || ret == -ENOENT);
		check(perr.err == ret);
		check(perr.column <= size);
		check(terminated(perr.msg, sizeof(perr.msg)));
		check(perr.msg[0] != '\0');
	} else {
		check(cmd.kind >= CMD_NONE && cmd.kind <= CMD_REMOVE_ALL);
		if (cmd.kind == CMD_REMOVE)
			check(cmd.link_id > 0);
		if (cmd.kind == CMD_PROBE)
			check_probe(&cmd.probe);
	}
	/* pure: the same bytes give the same answer */
	ret2 = parse_line((const char *)data, size, &again, &perr2);
	check(ret2 == ret);
	if (ret)
		check(perr2.column == perr.column &&
		      !strcmp(perr2.msg, perr.msg));
	else
		check(!memcmp(&again, &cmd, sizeof(cmd)));
	return 0;
}
