// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control language (DESIGN.md section 3.1). Every error names the
 * 0-based byte column of the first bad character, counted in the line as
 * written (leading blanks included), so control.c can put a caret under it.
 */
#include "parse.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "perf_names.h"

/* Longer tokens are cut in messages, which must fit PARSE_MSG_MAX. */
#define PARSE_MSG_MAX 160 /* as error_log has always shown them */
#define QUOTE_MAX 48
#define TOK_FMT "'%.*s%s'"
#define TOK_ARGS(lx, b, e)                                                     \
	(int)((e) - (b) > QUOTE_MAX ? QUOTE_MAX : (e) - (b)), (lx)->s + (b),   \
		(e) - (b) > QUOTE_MAX ? "..." : ""

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

struct lexer {
	const char *s; /* the line as written: columns index it */
	size_t end;    /* without trailing blanks and '\r' */
	size_t pos;
	struct bl_error *perr;
	size_t cookie_col;   /* where cookie= was given */
	bool period_in_spec; /* s:EVENT:PERIOD */
};

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

static const struct {
	const char *key;
	unsigned int bit;   /* OPT_* */
	unsigned int kinds; /* KIND_BIT()s it applies to */
	const char *where;  /* for the message when it does not apply */
} options[] = {
	{"cookie", OPT_COOKIE, KINDS_PERF,
	 "perf-event links (not fentry, fexit, rawtracepoint)"},
	{"pid", OPT_PID, KINDS_PID,
	 "uprobes, usdt and software/hardware events"},
	{"cpu", OPT_CPU, KINDS_EVENT, "software/hardware events"},
	{"period", OPT_PERIOD, KINDS_EVENT, "software/hardware events"},
	{"freq", OPT_FREQ, KINDS_EVENT, "software/hardware events"},
	{"prog", OPT_PROG, KINDS_PERF,
	 "perf-event links (not fentry, fexit, rawtracepoint)"},
};

const char *probe_kind_name(enum probe_kind kind)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(probe_kinds); i++)
		if (probe_kinds[i].kind == kind)
			return probe_kinds[i].name;
	return "unknown";
}

__attribute__((format(printf, 4, 5))) static int
fail(struct lexer *lx, int err, size_t col, const char *fmt, ...)
{
	va_list ap;

	lx->perr->err = err;
	lx->perr->column = col;
	va_start(ap, fmt);
	vsnprintf(lx->perr->msg, PARSE_MSG_MAX, fmt, ap);
	va_end(ap);
	return err;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static size_t tok_end(const struct lexer *lx, size_t pos)
{
	while (pos < lx->end && !is_blank(lx->s[pos]))
		pos++;
	return pos;
}

static void skip_blanks(struct lexer *lx)
{
	while (lx->pos < lx->end && is_blank(lx->s[lx->pos]))
		lx->pos++;
}

static bool is_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') ||
	       ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* Kernel symbols: C identifiers plus the '.' of "foo.isra.0" and '$'. */
static bool is_ksym_char(unsigned char c)
{
	return is_alnum(c) || c == '_' || c == '.' || c == '$';
}

/* A kprobe FUNC that may be a glob pattern (DESIGN.md 3.1, Wildcards). */
static bool is_kglob_char(unsigned char c)
{
	return is_ksym_char(c) || c == '*' || c == '?' || c == '[' ||
	       c == ']' || c == '!' || c == '^' || c == '-';
}

/* Module names as in /proc/modules; '-' is how modprobe spells '_'. */
static bool is_module_char(unsigned char c)
{
	return is_alnum(c) || c == '_' || c == '-';
}

/* tracefs: xhci-hcd, spi-mem and cdnsp-dev are real categories. */
static bool is_tp_char(unsigned char c)
{
	return is_alnum(c) || c == '_' || c == '-';
}

static bool is_event_char(unsigned char c)
{
	return is_alnum(c) || c == '_' || c == '-';
}

/*
 * ELF symbols may hold almost anything (Go: "main.(*T).M", versions:
 * "malloc@@GLIBC_2.2.5"); only the bytes that end the field are excluded.
 */
static bool is_usym_char(unsigned char c)
{
	return c > ' ' && c != ':' && c != '+' && c != '"';
}

static int digit_value(unsigned char c, unsigned int base)
{
	int d;

	if (c >= '0' && c <= '9')
		d = c - '0';
	else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		d = (c | 0x20) - 'a' + 10;
	else
		return -1;
	return d < (int)base ? d : -1;
}

/*
 * parse_number() - the number in [b, e): decimal, or 0x hex if @hex
 * Syntax errors come before range errors, so the caret lands on the first
 * bad character; an out-of-range number is blamed on its first digit.
 */
static int parse_number(struct lexer *lx, size_t b, size_t e, uint64_t max,
			bool hex, const char *what, uint64_t *out)
{
	unsigned int base = 10;
	bool overflow = false;
	uint64_t v = 0;
	size_t i = b;
	int d;

	if (b == e)
		return fail(lx, -EINVAL, b, "expected a number for %s", what);
	if (hex && e - b >= 2 && lx->s[b] == '0' &&
	    (lx->s[b + 1] | 0x20) == 'x') {
		base = 16;
		i += 2;
		if (i == e)
			return fail(lx, -EINVAL, i,
				    "expected hex digits after '0x' in %s",
				    what);
	}
	for (; i < e; i++) {
		d = digit_value(lx->s[i], base);
		if (d < 0)
			return fail(lx, -EINVAL, i, "bad %s " TOK_FMT "%s",
				    what, TOK_ARGS(lx, b, e),
				    hex ? "" : " (decimal digits only)");
		if (v > (max - d) / base)
			overflow = true;
		else
			v = v * base + d;
	}
	if (overflow)
		return fail(lx, -EINVAL, b,
			    "%s " TOK_FMT " out of range (max %llu)", what,
			    TOK_ARGS(lx, b, e), (unsigned long long)max);
	*out = v;
	return 0;
}

/*
 * scan_name() - a name of @ok bytes at lx->pos, copied to @out
 * It must end at a blank, the line's end, or one of @stops; lx->pos is
 * left on that byte.
 */
static int scan_name(struct lexer *lx, bool (*ok)(unsigned char),
		     const char *stops, char *out, size_t outsz,
		     const char *what)
{
	size_t b = lx->pos, e;
	char c;

	while (lx->pos < lx->end && ok(lx->s[lx->pos]))
		lx->pos++;
	e = lx->pos;
	c = e < lx->end ? lx->s[e] : ' ';
	if (!is_blank(c) && (!c || !strchr(stops, c)))
		return fail(lx, -EINVAL, e, "bad %s " TOK_FMT, what,
			    TOK_ARGS(lx, b, tok_end(lx, b)));
	if (b == e)
		return fail(lx, -EINVAL, b, "expected a %s", what);
	if (e - b >= outsz)
		return fail(lx, -EINVAL, b, "%s too long (max %zu bytes)", what,
			    outsz - 1);
	memcpy(out, lx->s + b, e - b);
	out[e - b] = '\0';
	return 0;
}

/* A double-quoted string at lx->pos, with \" and \\ as its only escapes. */
static int parse_quoted(struct lexer *lx, char *out, size_t outsz,
			const char *what)
{
	size_t q = lx->pos++, n = 0;
	char c;

	while (lx->pos < lx->end && lx->s[lx->pos] != '"') {
		c = lx->s[lx->pos];
		if (c == '\\') {
			if (lx->pos + 1 == lx->end ||
			    (lx->s[lx->pos + 1] != '"' &&
			     lx->s[lx->pos + 1] != '\\'))
				return fail(
					lx, -EINVAL, lx->pos,
					"bad escape in quoted %s (only \\\" and \\\\)",
					what);
			c = lx->s[++lx->pos];
		}
		if (n + 1 >= outsz)
			return fail(lx, -EINVAL, q,
				    "%s too long (max %zu bytes)", what,
				    outsz - 1);
		out[n++] = c;
		lx->pos++;
	}
	if (lx->pos == lx->end)
		return fail(lx, -EINVAL, q, "unterminated quote in %s", what);
	lx->pos++;
	if (n == 0)
		return fail(lx, -EINVAL, q, "empty %s", what);
	out[n] = '\0';
	return 0;
}

/*
 * parse_path() - a path at lx->pos, quoted or not
 * Unquoted, it ends at a blank (and at ':' if @colon_ends) and may not
 * hold '"', so that a path is always written back unambiguously.
 */
static int parse_path(struct lexer *lx, char *out, size_t outsz,
		      bool colon_ends, const char *what)
{
	size_t b = lx->pos;
	char c;

	if (b < lx->end && lx->s[b] == '"')
		return parse_quoted(lx, out, outsz, what);
	for (; lx->pos < lx->end; lx->pos++) {
		c = lx->s[lx->pos];
		if (is_blank(c) || (colon_ends && c == ':'))
			break;
		if (c == '"')
			return fail(lx, -EINVAL, lx->pos,
				    "'\"' inside unquoted %s " TOK_FMT, what,
				    TOK_ARGS(lx, b, tok_end(lx, b)));
	}
	if (lx->pos == b)
		return fail(lx, -EINVAL, b, "expected a %s", what);
	if (lx->pos - b >= outsz)
		return fail(lx, -EINVAL, b, "%s too long (max %zu bytes)", what,
			    outsz - 1);
	memcpy(out, lx->s + b, lx->pos - b);
	out[lx->pos - b] = '\0';
	return 0;
}

/* +OFFSET after a symbol, up to the end of the token. */
static int parse_plus_offset(struct lexer *lx, uint64_t max, uint64_t *out)
{
	size_t e = tok_end(lx, lx->pos);
	int err;

	err = parse_number(lx, lx->pos + 1, e, max, true, "offset", out);
	lx->pos = e;
	return err;
}

/*
 * A wildcard SYMBOL or FUNC (`*`, `?`, `[...]`, as bpftrace): mark it, check
 * that every `[` closes, and refuse a +OFFSET after it (@plus: its column,
 * or 0 when there is none).
 */
static int check_glob(struct lexer *lx, struct probe_spec *p, size_t plus)
{
	const char *g = p->symbol, *q;

	if (!strpbrk(g, "*?["))
		return 0;
	p->wildcard = true;
	for (q = g; (q = strchr(q, '[')); q++) {
		const char *c = q + 1;

		c += *c == '!' || *c == '^';
		c += *c == ']'; /* a ']' first is literal */
		c = strchr(c, ']');
		if (!c)
			return fail(lx, -EINVAL, p->symbol_col + (q - g),
				    "unclosed '[' in pattern '%s'", g);
		q = c;
	}
	if (plus)
		return fail(lx, -EINVAL, plus,
			    "a pattern takes no +OFFSET: '%s'", g);
	return 0;
}

/* An optional MODULE: before the token's end @e, into p->path; then
 * p->symbol_col is where FUNC or NAME starts. */
static int parse_module(struct lexer *lx, struct probe_spec *p, size_t e)
{
	int err;

	if (memchr(lx->s + lx->pos, ':', e - lx->pos)) {
		err = scan_name(lx, is_module_char, ":", p->path,
				PROBE_NAME_MAX, "module name");
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
	size_t e = tok_end(lx, lx->pos);
	int err = parse_module(lx, p, e);

	if (err)
		return err;
	err = scan_name(lx, is_kglob_char, "+", p->symbol, sizeof(p->symbol),
			"function name");
	if (!err)
		err = check_glob(lx, p, lx->pos == e ? 0 : lx->pos);
	if (!err && !p->wildcard && strpbrk(p->symbol, "]!^-"))
		return fail(lx, -EINVAL,
			    p->symbol_col + strcspn(p->symbol, "]!^-"),
			    "bad function name " TOK_FMT,
			    TOK_ARGS(lx, p->symbol_col, e));
	if (err || lx->pos == e)
		return err;
	if (p->kind == PROBE_KRETPROBE)
		return fail(lx, -EINVAL, lx->pos,
			    "kretprobe takes no offset " TOK_FMT,
			    TOK_ARGS(lx, lx->pos, e));
	/* struct kprobe keeps the offset as unsigned int */
	return parse_plus_offset(lx, UINT32_MAX, &p->offset);
}

/* The ':' before the next part; else "expected ':' and @what". */
static int expect_colon(struct lexer *lx, const char *what)
{
	if (lx->pos == lx->end || lx->s[lx->pos] != ':')
		return fail(lx, -EINVAL, lx->pos, "expected ':' and %s", what);
	lx->pos++;
	return 0;
}

/* uprobe:PATH:SYMBOL[+OFFSET], uprobe:PATH:FILEOFFSET, and uretprobe */
static int parse_uprobe(struct lexer *lx, struct probe_spec *p)
{
	size_t b, e, plus;
	int err;

	p->path_col = lx->pos;
	err = parse_path(lx, p->path, sizeof(p->path), true, "path");
	if (!err)
		err = expect_colon(lx,
				   "a symbol or file offset after the path");
	if (err)
		return err;
	b = p->symbol_col = lx->pos;
	e = tok_end(lx, b);
	if (b < e && lx->s[b] >= '0' && lx->s[b] <= '9') {
		p->by_offset = true;
		lx->pos = e;
		return parse_number(lx, b, e, UINT64_MAX, true, "file offset",
				    &p->offset);
	}
	err = scan_name(lx, is_usym_char, "+", p->symbol, sizeof(p->symbol),
			"symbol");
	if (!err)
		err = check_glob(lx, p, lx->pos == e ? 0 : lx->pos);
	if (err || lx->pos == e)
		return err;
	plus = lx->pos;
	err = parse_plus_offset(lx, UINT64_MAX, &p->offset);
	if (err)
		return err;
	if (p->kind == PROBE_URETPROBE && p->offset)
		return fail(
			lx, -EINVAL, plus,
			"uretprobe must be at a function entry, not " TOK_FMT,
			TOK_ARGS(lx, b, e));
	return 0;
}

/*
 * fentry:[MODULE:]FUNC, fexit:[MODULE:]FUNC, rawtracepoint:[MODULE:]NAME:
 * no offset; the columns place the caret of a function the kernel refuses.
 */
static int parse_kfunc(struct lexer *lx, struct probe_spec *p)
{
	size_t e = tok_end(lx, lx->pos);
	int err;

	p->path_col = lx->pos;
	err = parse_module(lx, p, e);
	if (err)
		return err;
	return scan_name(lx, is_ksym_char, "", p->symbol, sizeof(p->symbol),
			 p->kind == PROBE_RAWTP ? "tracepoint name"
						: "function name");
}

/* USDT providers and names are C identifiers (sys/sdt.h pastes them). */
static bool is_usdt_char(unsigned char c)
{
	return is_alnum(c) || c == '_';
}

/* usdt:PATH:[PROVIDER:]NAME */
static int parse_usdt(struct lexer *lx, struct probe_spec *p)
{
	size_t e;
	int err;

	p->path_col = lx->pos;
	err = parse_path(lx, p->path, sizeof(p->path), true, "path");
	if (!err)
		err = expect_colon(lx, "a probe name after the path");
	if (err)
		return err;
	p->provider_col = p->symbol_col = lx->pos;
	e = tok_end(lx, lx->pos);
	if (memchr(lx->s + lx->pos, ':', e - lx->pos)) {
		err = scan_name(lx, is_usdt_char, ":", p->provider,
				sizeof(p->provider), "USDT provider");
		if (err)
			return err;
		p->symbol_col = ++lx->pos;
	}
	return scan_name(lx, is_usdt_char, "", p->symbol, sizeof(p->symbol),
			 "USDT probe name");
}

/* tracepoint:CATEGORY:NAME */
static int parse_tracepoint(struct lexer *lx, struct probe_spec *p)
{
	int err;

	p->path_col = lx->pos;
	err = scan_name(lx, is_tp_char, ":", p->path, PROBE_NAME_MAX,
			"tracepoint category");
	if (!err)
		err = expect_colon(lx, "a tracepoint name after the category");
	if (err)
		return err;
	p->symbol_col = lx->pos;
	return scan_name(lx, is_tp_char, "", p->symbol, sizeof(p->symbol),
			 "tracepoint name");
}

/* software:EVENT[:PERIOD], hardware:EVENT[:PERIOD] */
static int parse_event(struct lexer *lx, struct probe_spec *p)
{
	bool sw = p->kind == PROBE_SOFTWARE;
	size_t b = lx->pos, e;
	int err;

	err = scan_name(lx, is_event_char, ":", p->symbol, sizeof(p->symbol),
			sw ? "software event" : "hardware event");
	if (err)
		return err;
	p->perf_type = sw ? PERF_TYPE_SOFTWARE : PERF_TYPE_HARDWARE;
	if (perf_event_lookup(p->perf_type, lx->s + b, lx->pos - b,
			      &p->perf_config, &p->period))
		return fail(lx, -ENOENT, b, "unknown %s event " TOK_FMT,
			    sw ? "software" : "hardware",
			    TOK_ARGS(lx, b, lx->pos));
	if (lx->pos == lx->end || lx->s[lx->pos] != ':')
		return 0;
	b = lx->pos + 1;
	e = tok_end(lx, b);
	lx->pos = e;
	err = parse_number(lx, b, e, UINT64_MAX, true, "period", &p->period);
	if (err)
		return err;
	if (!p->period)
		return fail(lx, -EINVAL, b, "period must be > 0");
	p->opts |= OPT_PERIOD;
	lx->period_in_spec = true;
	return 0;
}

/* Move past a word that ends at @stop or a blank; its length. */
static size_t scan_word(struct lexer *lx, char stop)
{
	size_t b = lx->pos;

	while (lx->pos < lx->end && lx->s[lx->pos] != stop &&
	       !is_blank(lx->s[lx->pos]))
		lx->pos++;
	return lx->pos - b;
}

/* Is the @n bytes at @b exactly @word? */
static bool word_is(const struct lexer *lx, size_t b, size_t n,
		    const char *word)
{
	return strlen(word) == n && !memcmp(word, lx->s + b, n);
}

static int parse_kind(struct lexer *lx, struct probe_spec *p)
{
	size_t b = lx->pos, n = scan_word(lx, ':'), i;

	for (i = 0; i < ARRAY_LEN(probe_kinds); i++)
		if (word_is(lx, b, n, probe_kinds[i].name) ||
		    word_is(lx, b, n, probe_kinds[i].abbr))
			break;
	if (i == ARRAY_LEN(probe_kinds))
		return fail(lx, -EINVAL, b, "unknown probe type " TOK_FMT,
			    TOK_ARGS(lx, b, lx->pos));
	if (lx->pos == lx->end || lx->s[lx->pos] != ':')
		return fail(lx, -EINVAL, lx->pos, "expected ':' after " TOK_FMT,
			    TOK_ARGS(lx, b, lx->pos));
	lx->pos++;
	p->kind = probe_kinds[i].kind;
	return 0;
}

/* A number option's value, from lx->pos to the end of the token. */
static int option_number(struct lexer *lx, uint64_t max, const char *key,
			 bool nonzero, uint64_t *out)
{
	size_t b = lx->pos, e = tok_end(lx, b);
	int err;

	lx->pos = e;
	err = parse_number(lx, b, e, max, true, key, out);
	if (!err && nonzero && !*out)
		return fail(lx, -EINVAL, b, "%s must be > 0", key);
	return err;
}

static int option_prog(struct lexer *lx, struct probe_spec *p)
{
	size_t b = lx->pos;
	int err;

	err = parse_path(lx, p->prog, sizeof(p->prog), false, "program path");
	if (err)
		return err;
	if (lx->pos < lx->end && !is_blank(lx->s[lx->pos]))
		return fail(lx, -EINVAL, lx->pos,
			    "unexpected " TOK_FMT " after the program path",
			    TOK_ARGS(lx, lx->pos, tok_end(lx, lx->pos)));
	if (p->prog[0] != '/')
		return fail(lx, -EINVAL, b,
			    "program path must be absolute (a bpffs pin)");
	return 0;
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
	}
	return option_prog(lx, p);
}

/* One KEY=VALUE at lx->pos. */
static int parse_option(struct lexer *lx, struct probe_spec *p)
{
	size_t kb = lx->pos, n = scan_word(lx, '='), i;

	if (lx->pos == lx->end || lx->s[lx->pos] != '=')
		return fail(lx, -EINVAL, kb, "expected KEY=VALUE, got " TOK_FMT,
			    TOK_ARGS(lx, kb, lx->pos));
	for (i = 0; i < ARRAY_LEN(options); i++)
		if (word_is(lx, kb, n, options[i].key))
			break;
	if (i == ARRAY_LEN(options))
		return fail(lx, -EINVAL, kb, "unknown option " TOK_FMT,
			    TOK_ARGS(lx, kb, lx->pos));
	if (!(options[i].kinds & KIND_BIT(p->kind)))
		return fail(lx, -EINVAL, kb, "option '%s' applies to %s only",
			    options[i].key, options[i].where);
	if (options[i].bit == OPT_PERIOD && lx->period_in_spec)
		return fail(lx, -EINVAL, kb,
			    "period given twice (':PERIOD' and 'period=')");
	if (p->opts & options[i].bit)
		return fail(lx, -EINVAL, kb, "option '%s' given twice",
			    options[i].key);
	if ((options[i].bit == OPT_FREQ && (p->opts & OPT_PERIOD)) ||
	    (options[i].bit == OPT_PERIOD && (p->opts & OPT_FREQ)))
		return fail(lx, -EINVAL, kb,
			    "a period and 'freq=' exclude each other");
	lx->pos++;
	p->opts |= options[i].bit;
	return option_value(lx, p, options[i].bit, kb, options[i].key);
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
	for (skip_blanks(lx); !err && lx->pos < lx->end; skip_blanks(lx))
		err = parse_option(lx, p);
	if (err)
		return err;
	if ((p->opts & OPT_COOKIE) && !(p->opts & OPT_PROG))
		return fail(
			lx, -EINVAL, lx->cookie_col,
			"'cookie=' needs 'prog=': the built-in program uses the cookie as its counter key");
	if (p->opts & OPT_FREQ)
		p->period = 0;
	return 0;
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
		e = tok_end(lx, b);
		if (b == e)
			return fail(lx, -EINVAL, b,
				    "expected a link id or '*' after '-'");
		lx->pos = e;
		err = parse_number(lx, b, e, UINT32_MAX, false, "link id", &id);
		if (err)
			return err;
		if (!id)
			return fail(lx, -EINVAL, b, "link id must be > 0");
		cmd->kind = CMD_REMOVE;
		cmd->link_id = (uint32_t)id;
	}
	skip_blanks(lx);
	if (lx->pos < lx->end)
		return fail(lx, -EINVAL, lx->pos,
			    "unexpected " TOK_FMT " after the command",
			    TOK_ARGS(lx, lx->pos, tok_end(lx, lx->pos)));
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
			return fail(lx, -EINVAL, i,
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
	skip_blanks(&lx);
	if (lx.pos == lx.end || line[lx.pos] == '#') {
		cmd->kind = CMD_NONE;
		return 0;
	}
	if (line[lx.pos] == '-')
		return parse_remove(&lx, cmd);
	cmd->kind = CMD_PROBE;
	return parse_probe(&lx, &cmd->probe);
}
