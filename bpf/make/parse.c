// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control language (bpflinkfs(8), CONTROL LANGUAGE). Every error names the
 * 0-based byte column of the first bad character, counted in the line as
 * written (leading blanks included), so control.c can put a caret under it.
 */
#include "parse.h"
#include "array_size.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "lexer.h"
#include "perf_names.h"

static const struct {
	const char *name;
	const char *abbr;
	enum probe_kind kind;
} probe_kinds[] = {
	{"kprobe", "k", PROBE_KPROBE},
	{"kretprobe", "kr", PROBE_KRETPROBE},
	{"uprobe", "u", PROBE_UPROBE},
	{"uretprobe", "ur", PROBE_URETPROBE},
	{"tracepoint", "t", PROBE_TRACEPOINT},
	{"software", "s", PROBE_SOFTWARE},
	{"hardware", "h", PROBE_HARDWARE},
	{"fentry", "f", PROBE_FENTRY},
	{"fexit", "fr", PROBE_FEXIT},
	{"rawtracepoint", "rt", PROBE_RAWTP},
	{"usdt", "U", PROBE_USDT},
	/* aliases: older bpftrace; `type` of a raw tracepoint link */
	{"kfunc", "kfunc", PROBE_FENTRY},
	{"kretfunc", "kretfunc", PROBE_FEXIT},
	{"raw_tracepoint", "raw_tracepoint", PROBE_RAWTP},
};

#define KIND_BIT(k) (1u << (k))
#define KINDS_ALL 0x7ffu
#define KINDS_EVENT (KIND_BIT(PROBE_SOFTWARE) | KIND_BIT(PROBE_HARDWARE))
#define KINDS_PID                                                              \
	(KINDS_EVENT | KIND_BIT(PROBE_UPROBE) | KIND_BIT(PROBE_URETPROBE) |    \
	 KIND_BIT(PROBE_USDT))
/* tracing and raw tracepoint links: the built-in counter only, for now */
#define KINDS_TRACING                                                          \
	(KIND_BIT(PROBE_FENTRY) | KIND_BIT(PROBE_FEXIT) | KIND_BIT(PROBE_RAWTP))
#define KINDS_PERF (KINDS_ALL & ~KINDS_TRACING)
/*
 * a call has an entry and a return to time between; a USDT location lies
 * inside a function, where a return probe would take whatever is on top of
 * the stack for the return address (corrupting the traced program)
 */
#define KINDS_LATENCY                                                          \
	(KIND_BIT(PROBE_UPROBE) | KIND_BIT(PROBE_KPROBE) |                     \
	 KIND_BIT(PROBE_FENTRY))

static const struct {
	const char *key;
	unsigned int bit;   /* OPT_* */
	unsigned int kinds; /* KIND_BIT()s it applies to */
	const char *where;  /* for the message when it does not apply */
	bool bare;	    /* a word without =VALUE */
} options[] = {
	{"cookie", OPT_COOKIE, KINDS_PERF,
	 "perf-event links (not fentry, fexit, rawtracepoint)", false},
	{"pid", OPT_PID, KINDS_PID,
	 "uprobes, usdt and software/hardware events", false},
	{"cpu", OPT_CPU, KINDS_EVENT, "software/hardware events", false},
	{"period", OPT_PERIOD, KINDS_EVENT, "software/hardware events", false},
	{"freq", OPT_FREQ, KINDS_EVENT, "software/hardware events", false},
	{"prog", OPT_PROG, KINDS_PERF,
	 "perf-event links (not fentry, fexit, rawtracepoint)", false},
	{"latency", OPT_LATENCY, KINDS_LATENCY,
	 "uprobe, kprobe and fentry probes at a function's entry (not a "
	 "return, nor a USDT location inside a function)",
	 true},
	{"stacks", OPT_STACKS, KINDS_ALL, "", false},
	{"by", OPT_BY, KINDS_ALL, "", false},
};

struct opt_word {
	const char *word;
	unsigned int value;
};

static const struct opt_word stacks_words[] = {
	{"user", STACKS_USER},
	{"kernel", STACKS_KERNEL},
	{"both", STACKS_USER | STACKS_KERNEL},
};

static const struct opt_word by_words[] = {
	{"pid", BY_PID},
	{"comm", BY_COMM},
	{"cgroup", BY_CGROUP},
};

const char *probe_kind_name(enum probe_kind kind)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(probe_kinds); i++)
		if (probe_kinds[i].kind == kind)
			return probe_kinds[i].name;
	return "unknown";
}

/*
 * A wildcard SYMBOL, FUNC or USDT name (`*`, `?`, `[...]`, as bpftrace):
 * mark it, check that every `[` of @g (at column @col) closes, and refuse
 * a +OFFSET after it (@plus: its column, or 0 when there is none).
 */
static int check_glob_at(struct lexer *lx, struct probe_spec *p, const char *g,
			 size_t col, size_t plus)
{
	const char *q;

	if (!strpbrk(g, "*?["))
		return 0;
	p->wildcard = true;
	for (q = g; (q = strchr(q, '[')); q++) {
		const char *c = q + 1;

		c += *c == '!' || *c == '^';
		c += *c == ']'; /* a ']' first is literal */
		c = strchr(c, ']');
		if (!c)
			return lex_fail(lx, -EINVAL, col + (q - g),
					"unclosed '[' in pattern '%s'", g);
		q = c;
	}
	if (plus)
		return lex_fail(lx, -EINVAL, plus,
				"a pattern takes no +OFFSET: '%s'", g);
	return 0;
}

static int check_glob(struct lexer *lx, struct probe_spec *p, size_t plus)
{
	return check_glob_at(lx, p, p->symbol, p->symbol_col, plus);
}

/* Pattern bytes outside a pattern: "bad NAME" under the first one. */
static int check_no_glob_bytes(struct lexer *lx, const struct probe_spec *p,
			       const char *g, size_t col, const char *what)
{
	if (p->wildcard || !strpbrk(g, "]!^-"))
		return 0;
	return lex_fail(lx, -EINVAL, col + strcspn(g, "]!^-"),
			"bad %s " TOK_FMT, what,
			TOK_ARGS(lx, col, lex_tok_end(lx, col)));
}

/* An optional MODULE: before the token's end @e, into p->path; then
 * p->symbol_col is where FUNC or NAME starts. */
static int parse_module(struct lexer *lx, struct probe_spec *p, size_t e)
{
	int err;

	if (memchr(lx->s + lx->pos, ':', e - lx->pos)) {
		err = lex_name(lx, is_module_char, ":", p->path, PROBE_NAME_MAX,
			       "module name");
		if (err)
			return err;
		lx->pos++;
	}
	p->symbol_col = lx->pos;
	return 0;
}

/* kprobe:[MODULE:]FUNC[+OFFSET], kretprobe:[MODULE:]FUNC */
static int parse_kprobe(struct lexer *lx, struct probe_spec *p)
{
	size_t e = lex_tok_end(lx, lx->pos);
	int err = parse_module(lx, p, e);

	if (err)
		return err;
	err = lex_name(lx, is_kglob_char, "+", p->symbol, sizeof(p->symbol),
		       "function name");
	if (!err)
		err = check_glob(lx, p, lx->pos == e ? 0 : lx->pos);
	if (!err)
		err = check_no_glob_bytes(lx, p, p->symbol, p->symbol_col,
					  "function name");
	if (err || lx->pos == e)
		return err;
	if (p->kind == PROBE_KRETPROBE)
		return lex_fail(lx, -EINVAL, lx->pos,
				"kretprobe takes no offset " TOK_FMT,
				TOK_ARGS(lx, lx->pos, e));
	/* struct kprobe keeps the offset as unsigned int */
	return lex_plus_offset(lx, UINT32_MAX, &p->offset);
}

/* The ':' before the next part; else "expected ':' and @what". */
static int expect_colon(struct lexer *lx, const char *what)
{
	if (lx->pos == lx->end || lx->s[lx->pos] != ':')
		return lex_fail(lx, -EINVAL, lx->pos, "expected ':' and %s",
				what);
	lx->pos++;
	return 0;
}

/*
 * A uprobe SYMBOL: "QUOTED" (never a pattern, may hold any byte but a
 * newline) or bare; lx->pos is left on the '+' of an OFFSET or the token's
 * end, which @e is set to.
 */
static int parse_usym(struct lexer *lx, struct probe_spec *p, size_t *e)
{
	int err;

	if (lx->pos < lx->end && lx->s[lx->pos] == '"') {
		p->quoted = true;
		err = lex_path(lx, p->symbol, sizeof(p->symbol), false,
			       "symbol");
		*e = lex_tok_end(lx, lx->pos);
		if (!err && lx->pos != *e && lx->s[lx->pos] != '+')
			err = lex_fail(lx, -EINVAL, lx->pos,
				       "expected +OFFSET or a blank after the "
				       "quoted symbol");
		return err;
	}
	err = lex_name(lx, is_usym_char, "+", p->symbol, sizeof(p->symbol),
		       "symbol");
	/* +OFFSET after a pattern: refused later, unless it is a name */
	if (!err)
		err = check_glob(lx, p, 0);
	return err;
}

/* uprobe:PATH:SYMBOL[+OFFSET], uprobe:PATH:FILEOFFSET, and uretprobe */
static int parse_uprobe(struct lexer *lx, struct probe_spec *p)
{
	size_t b, e, plus;
	int err;

	p->path_col = lx->pos;
	err = lex_path(lx, p->path, sizeof(p->path), true, "path");
	if (!err)
		err = expect_colon(lx,
				   "a symbol or file offset after the path");
	if (err)
		return err;
	b = p->symbol_col = lx->pos;
	e = lex_tok_end(lx, b);
	if (b < e && lx->s[b] >= '0' && lx->s[b] <= '9') {
		p->by_offset = true;
		lx->pos = e;
		return lex_number(lx, b, e, UINT64_MAX, true, "file offset",
				  &p->offset);
	}
	err = parse_usym(lx, p, &e);
	if (err || lx->pos == e)
		return err;
	plus = lx->pos;
	if (p->wildcard)
		p->pattern_plus_col = plus; /* decided once the file is read */
	err = lex_plus_offset(lx, UINT64_MAX, &p->offset);
	if (err)
		return err;
	if (p->kind == PROBE_URETPROBE && p->offset)
		return lex_fail(
			lx, -EINVAL, plus,
			"uretprobe must be at a function entry, not " TOK_FMT,
			TOK_ARGS(lx, b, e));
	return 0;
}

/*
 * fentry:[MODULE:]FUNC, fexit:[MODULE:]FUNC, rawtracepoint:[MODULE:]NAME:
 * no offset; the columns place the caret of a function the kernel refuses.
 * fentry/fexit FUNC may be a pattern (one link per match).
 */
static int parse_kfunc(struct lexer *lx, struct probe_spec *p)
{
	size_t e = lex_tok_end(lx, lx->pos);
	int err;

	p->path_col = lx->pos;
	err = parse_module(lx, p, e);
	if (err)
		return err;
	if (p->kind == PROBE_RAWTP)
		return lex_name(lx, is_ksym_char, "", p->symbol,
				sizeof(p->symbol), "tracepoint name");
	err = lex_name(lx, is_kglob_char, "", p->symbol, sizeof(p->symbol),
		       "function name");
	if (!err)
		err = check_glob(lx, p, 0);
	if (!err)
		err = check_no_glob_bytes(lx, p, p->symbol, p->symbol_col,
					  "function name");
	return err;
}

/*
 * USDT providers and names are C identifiers (sys/sdt.h pastes them), or
 * patterns of them.
 */
static bool is_usdt_char(unsigned char c)
{
	return is_alnum(c) || c == '_' || c == '*' || c == '?' || c == '[' ||
	       c == ']' || c == '!' || c == '^' || c == '-';
}

/* usdt:PATH:[PROVIDER:]NAME, either part may be a pattern */
static int parse_usdt(struct lexer *lx, struct probe_spec *p)
{
	size_t e;
	int err;

	p->path_col = lx->pos;
	err = lex_path(lx, p->path, sizeof(p->path), true, "path");
	if (!err)
		err = expect_colon(lx, "a probe name after the path");
	if (err)
		return err;
	p->provider_col = p->symbol_col = lx->pos;
	e = lex_tok_end(lx, lx->pos);
	if (memchr(lx->s + lx->pos, ':', e - lx->pos)) {
		err = lex_name(lx, is_usdt_char, ":", p->provider,
			       sizeof(p->provider), "USDT provider");
		if (err)
			return err;
		p->symbol_col = ++lx->pos;
	}
	err = lex_name(lx, is_usdt_char, "", p->symbol, sizeof(p->symbol),
		       "USDT probe name");
	if (!err)
		err = check_glob_at(lx, p, p->provider, p->provider_col, 0);
	if (!err)
		err = check_glob(lx, p, 0);
	if (!err)
		err = check_no_glob_bytes(lx, p, p->provider, p->provider_col,
					  "USDT provider");
	if (!err)
		err = check_no_glob_bytes(lx, p, p->symbol, p->symbol_col,
					  "USDT probe name");
	return err;
}

/* tracepoint:CATEGORY:NAME */
static int parse_tracepoint(struct lexer *lx, struct probe_spec *p)
{
	int err;

	p->path_col = lx->pos;
	err = lex_name(lx, is_tp_char, ":", p->path, PROBE_NAME_MAX,
		       "tracepoint category");
	if (!err)
		err = expect_colon(lx, "a tracepoint name after the category");
	if (err)
		return err;
	p->symbol_col = lx->pos;
	return lex_name(lx, is_tp_char, "", p->symbol, sizeof(p->symbol),
			"tracepoint name");
}

/* software:EVENT[:PERIOD], hardware:EVENT[:PERIOD] */
static int parse_event(struct lexer *lx, struct probe_spec *p)
{
	bool sw = p->kind == PROBE_SOFTWARE;
	size_t b = lx->pos, e;
	int err;

	err = lex_name(lx, is_event_char, ":", p->symbol, sizeof(p->symbol),
		       sw ? "software event" : "hardware event");
	if (err)
		return err;
	p->perf_type = sw ? PERF_TYPE_SOFTWARE : PERF_TYPE_HARDWARE;
	if (perf_event_lookup(p->perf_type, lx->s + b, lx->pos - b,
			      &p->perf_config, &p->period))
		return lex_fail(lx, -ENOENT, b, "unknown %s event " TOK_FMT,
				sw ? "software" : "hardware",
				TOK_ARGS(lx, b, lx->pos));
	if (lx->pos == lx->end || lx->s[lx->pos] != ':')
		return 0;
	b = lx->pos + 1;
	e = lex_tok_end(lx, b);
	lx->pos = e;
	err = lex_number(lx, b, e, UINT64_MAX, true, "period", &p->period);
	if (err)
		return err;
	if (!p->period)
		return lex_fail(lx, -EINVAL, b, "period must be > 0");
	p->opts |= OPT_PERIOD;
	lx->period_in_spec = true;
	return 0;
}

static int parse_kind(struct lexer *lx, struct probe_spec *p)
{
	size_t b = lx->pos, n = lex_word(lx, ':'), i;

	for (i = 0; i < ARRAY_SIZE(probe_kinds); i++)
		if (lex_word_is(lx, b, n, probe_kinds[i].name) ||
		    lex_word_is(lx, b, n, probe_kinds[i].abbr))
			break;
	if (i == ARRAY_SIZE(probe_kinds))
		return lex_fail(lx, -EINVAL, b, "unknown probe type " TOK_FMT,
				TOK_ARGS(lx, b, lx->pos));
	if (lx->pos == lx->end || lx->s[lx->pos] != ':')
		return lex_fail(lx, -EINVAL, lx->pos,
				"expected ':' after " TOK_FMT,
				TOK_ARGS(lx, b, lx->pos));
	lx->pos++;
	p->kind = probe_kinds[i].kind;
	return 0;
}

/* A number option's value, from lx->pos to the end of the token. */
static int option_number(struct lexer *lx, uint64_t max, const char *key,
			 bool nonzero, uint64_t *out)
{
	size_t b = lx->pos, e = lex_tok_end(lx, b);
	int err;

	lx->pos = e;
	err = lex_number(lx, b, e, max, true, key, out);
	if (!err && nonzero && !*out)
		return lex_fail(lx, -EINVAL, b, "%s must be > 0", key);
	return err;
}

static int option_prog(struct lexer *lx, struct probe_spec *p)
{
	size_t b = lx->pos;
	int err;

	err = lex_path(lx, p->prog, sizeof(p->prog), false, "program path");
	if (err)
		return err;
	if (lx->pos < lx->end && !is_blank(lx->s[lx->pos]))
		return lex_fail(
			lx, -EINVAL, lx->pos,
			"unexpected " TOK_FMT " after the program path",
			TOK_ARGS(lx, lx->pos, lex_tok_end(lx, lx->pos)));
	if (p->prog[0] != '/')
		return lex_fail(lx, -EINVAL, b,
				"program path must be absolute (a bpffs pin)");
	return 0;
}

/* stacks= or by=: one of the @n @words, up to the token's end */
static int option_word(struct lexer *lx, const char *key,
		       const struct opt_word *words, size_t n,
		       unsigned int *out)
{
	size_t b = lx->pos, e = lex_tok_end(lx, b), i;

	lx->pos = e;
	for (i = 0; i < n; i++)
		if (lex_word_is(lx, b, e - b, words[i].word)) {
			*out = words[i].value;
			return 0;
		}
	return lex_fail(lx, -EINVAL, b, "%s= takes %s|%s|%s, not " TOK_FMT, key,
			words[0].word, words[1].word, words[2].word,
			TOK_ARGS(lx, b, e));
}

static int option_value(struct lexer *lx, struct probe_spec *p,
			unsigned int bit, size_t kb, const char *key)
{
	uint64_t v = 0;
	int err;

	switch (bit) {
	case OPT_COOKIE:
		lx->cookie_col = kb;
		return option_number(lx, UINT64_MAX, key, false, &p->cookie);
	case OPT_PID:
		/* pid 0 would be the daemon itself to perf_event_open() */
		err = option_number(lx, INT32_MAX, key, true, &v);
		p->pid = (int)v;
		return err;
	case OPT_CPU:
		err = option_number(lx, INT32_MAX, key, false, &v);
		p->cpu = (int)v;
		return err;
	case OPT_PERIOD:
		return option_number(lx, UINT64_MAX, key, true, &p->period);
	case OPT_FREQ:
		return option_number(lx, UINT64_MAX, key, true, &p->freq);
	case OPT_STACKS:
		p->stacks_col = kb;
		return option_word(lx, key, stacks_words,
				   ARRAY_SIZE(stacks_words), &p->stacks);
	case OPT_BY: {
		unsigned int by = BY_NONE;

		p->by_col = kb;
		err = option_word(lx, key, by_words, ARRAY_SIZE(by_words), &by);
		p->by = (enum hits_by)by;
		return err;
	}
	}
	return option_prog(lx, p);
}

/* The option named by the @n bytes at @kb, or -1 */
static int option_find(const struct lexer *lx, size_t kb, size_t n)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(options); i++)
		if (lex_word_is(lx, kb, n, options[i].key))
			return (int)i;
	return -1;
}

/* Does option @i apply to @p's kind, once, and with its other options? */
static int option_fits(struct lexer *lx, const struct probe_spec *p, int i,
		       size_t kb)
{
	unsigned int bit = options[i].bit;

	if (!(options[i].kinds & KIND_BIT(p->kind)))
		return lex_fail(lx, -EINVAL, kb,
				"option '%s' applies to %s only",
				options[i].key, options[i].where);
	if (bit == OPT_PERIOD && lx->period_in_spec)
		return lex_fail(lx, -EINVAL, kb,
				"period given twice (':PERIOD' and 'period=')");
	if (p->opts & bit)
		return lex_fail(lx, -EINVAL, kb, "option '%s' given twice",
				options[i].key);
	if ((bit == OPT_FREQ && (p->opts & OPT_PERIOD)) ||
	    (bit == OPT_PERIOD && (p->opts & OPT_FREQ)))
		return lex_fail(lx, -EINVAL, kb,
				"a period and 'freq=' exclude each other");
	return 0;
}

/* One KEY=VALUE, or a bare option word, at lx->pos. */
static int parse_option(struct lexer *lx, struct probe_spec *p)
{
	size_t kb = lx->pos, n = lex_word(lx, '=');
	bool eq = lx->pos < lx->end && lx->s[lx->pos] == '=';
	int i = option_find(lx, kb, n), err;

	if (i >= 0 && options[i].bare && eq)
		return lex_fail(lx, -EINVAL, lx->pos,
				"option '%s' takes no value", options[i].key);
	if ((i < 0 || !options[i].bare) && !eq)
		return lex_fail(lx, -EINVAL, kb,
				"expected KEY=VALUE, got " TOK_FMT,
				TOK_ARGS(lx, kb, lx->pos));
	if (i < 0)
		return lex_fail(lx, -EINVAL, kb, "unknown option " TOK_FMT,
				TOK_ARGS(lx, kb, lx->pos));
	err = option_fits(lx, p, i, kb);
	if (err)
		return err;
	p->opts |= options[i].bit;
	if (options[i].bit == OPT_LATENCY) {
		p->latency_col = kb;
		/* its return half is a return probe: at the entry only, as
		 * uretprobe (a number is the writer's word for an entry) */
		if (p->kind == PROBE_UPROBE && !p->by_offset && p->offset)
			return lex_fail(
				lx, -EINVAL, kb,
				"latency times a call from its "
				"function's entry: not at SYMBOL+OFFSET");
		return 0;
	}
	lx->pos++;
	if (options[i].bit == OPT_PROG)
		p->prog_col = kb;
	return option_value(lx, p, options[i].bit, kb, options[i].key);
}

/*
 * latency, stacks= and by= are the built-in program's: with prog= the
 * caret goes under the first of them.
 */
static int sight_with_prog(struct lexer *lx, const struct probe_spec *p)
{
	size_t col = SIZE_MAX;

	if (!(p->opts & OPT_PROG) || !(p->opts & OPT_SIGHT))
		return 0;
	if (p->opts & OPT_LATENCY)
		col = p->latency_col;
	if (p->opts & OPT_STACKS && p->stacks_col < col)
		col = p->stacks_col;
	if (p->opts & OPT_BY && p->by_col < col)
		col = p->by_col;
	return lex_fail(lx, -EINVAL, col,
			"latency, stacks= and by= need the built-in program, "
			"not 'prog='");
}

static int parse_probe(struct lexer *lx, struct probe_spec *p)
{
	int err;

	p->pid = -1;
	p->cpu = -1;
	err = parse_kind(lx, p);
	if (err)
		return err;
	switch (p->kind) {
	case PROBE_KPROBE:
	case PROBE_KRETPROBE:
		err = parse_kprobe(lx, p);
		break;
	case PROBE_UPROBE:
	case PROBE_URETPROBE:
		err = parse_uprobe(lx, p);
		break;
	case PROBE_TRACEPOINT:
		err = parse_tracepoint(lx, p);
		break;
	case PROBE_FENTRY:
	case PROBE_FEXIT:
	case PROBE_RAWTP:
		err = parse_kfunc(lx, p);
		break;
	case PROBE_USDT:
		err = parse_usdt(lx, p);
		break;
	default:
		err = parse_event(lx, p);
		break;
	}
	for (lex_skip_blanks(lx); !err && lx->pos < lx->end;
	     lex_skip_blanks(lx))
		err = parse_option(lx, p);
	if (err)
		return err;
	if ((p->opts & OPT_COOKIE) && !(p->opts & OPT_PROG))
		return lex_fail(
			lx, -EINVAL, lx->cookie_col,
			"'cookie=' needs 'prog=': the built-in program uses the cookie as its counter key");
	if (p->opts & OPT_FREQ)
		p->period = 0;
	return sight_with_prog(lx, p);
}

/* -ID or -* */
static int parse_remove(struct lexer *lx, struct parsed_cmd *cmd)
{
	size_t b = ++lx->pos, e;
	uint64_t id;
	int err;

	if (b < lx->end && lx->s[b] == '*') {
		cmd->kind = CMD_REMOVE_ALL;
		lx->pos++;
	} else {
		e = lex_tok_end(lx, b);
		if (b == e)
			return lex_fail(lx, -EINVAL, b,
					"expected a link id or '*' after '-'");
		lx->pos = e;
		err = lex_number(lx, b, e, UINT32_MAX, false, "link id", &id);
		if (err)
			return err;
		if (!id)
			return lex_fail(lx, -EINVAL, b, "link id must be > 0");
		cmd->kind = CMD_REMOVE;
		cmd->link_id = (uint32_t)id;
	}
	lex_skip_blanks(lx);
	if (lx->pos < lx->end)
		return lex_fail(
			lx, -EINVAL, lx->pos,
			"unexpected " TOK_FMT " after the command",
			TOK_ARGS(lx, lx->pos, lex_tok_end(lx, lx->pos)));
	return 0;
}

/* Trailing blanks and one '\r' (a line from a CRLF file) are not the line's. */
static int trim_and_check(struct lexer *lx)
{
	unsigned char c;
	size_t i;

	while (lx->end && is_blank(lx->s[lx->end - 1]))
		lx->end--;
	if (lx->end && lx->s[lx->end - 1] == '\r')
		lx->end--;
	while (lx->end && is_blank(lx->s[lx->end - 1]))
		lx->end--;
	for (i = 0; i < lx->end; i++) {
		c = lx->s[i];
		if ((c < ' ' && c != '\t') || c == 0x7f)
			return lex_fail(lx, -EINVAL, i,
					"control byte 0x%02x in line", c);
	}
	return 0;
}

int parse_line(const char *line, size_t len, struct parsed_cmd *cmd,
	       struct bl_error *perr)
{
	struct lexer lx = {.s = line, .end = len, .perr = perr};
	int err;

	memset(perr, 0, sizeof(*perr));
	memset(cmd, 0, sizeof(*cmd));
	err = trim_and_check(&lx);
	if (err)
		return err;
	lex_skip_blanks(&lx);
	if (lx.pos == lx.end || line[lx.pos] == '#') {
		cmd->kind = CMD_NONE;
		return 0;
	}
	if (line[lx.pos] == '-')
		return parse_remove(&lx, cmd);
	cmd->kind = CMD_PROBE;
	return parse_probe(&lx, &cmd->probe);
}
