// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control language's lexical layer (lexer.h): numbers, names,
 * paths, words. Every error names the 0-based byte column of the first bad
 * character, counted in the line as written (leading blanks included).
 */
#include "lexer.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

int lex_fail(struct lexer *lx, int err, size_t col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bl_vfail_at(lx->perr, err, col, fmt, ap);
	va_end(ap);
	return err;
}

size_t lex_tok_end(const struct lexer *lx, size_t pos)
{
	while (pos < lx->end && !is_blank(lx->s[pos]))
		pos++;
	return pos;
}

void lex_skip_blanks(struct lexer *lx)
{
	while (lx->pos < lx->end && is_blank(lx->s[lx->pos]))
		lx->pos++;
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
 * lex_number() - the number in [b, e): decimal, or 0x hex if @hex
 * Syntax errors come before range errors, so the caret lands on the first
 * bad character; an out-of-range number is blamed on its first digit.
 */
int lex_number(struct lexer *lx, size_t b, size_t e, uint64_t max, bool hex,
	       const char *what, uint64_t *out)
{
	unsigned int base = 10;
	bool overflow = false;
	uint64_t v = 0;
	size_t i = b;
	int d;

	if (b == e)
		return lex_fail(lx, -EINVAL, b, "expected a number for %s",
				what);
	if (hex && e - b >= 2 && lx->s[b] == '0' &&
	    (lx->s[b + 1] | 0x20) == 'x') {
		base = 16;
		i += 2;
		if (i == e)
			return lex_fail(lx, -EINVAL, i,
					"expected hex digits after '0x' in %s",
					what);
	}
	for (; i < e; i++) {
		d = digit_value(lx->s[i], base);
		if (d < 0)
			return lex_fail(lx, -EINVAL, i, "bad %s " TOK_FMT "%s",
					what, TOK_ARGS(lx, b, e),
					hex ? "" : " (decimal digits only)");
		if (v > (max - d) / base)
			overflow = true;
		else
			v = v * base + d;
	}
	if (overflow)
		return lex_fail(lx, -EINVAL, b,
				"%s " TOK_FMT " out of range (max %llu)", what,
				TOK_ARGS(lx, b, e), (unsigned long long)max);
	*out = v;
	return 0;
}

/*
 * lex_name() - a name of @ok bytes at lx->pos, copied to @out
 * It must end at a blank, the line's end, or one of @stops; lx->pos is
 * left on that byte.
 */
int lex_name(struct lexer *lx, bool (*ok)(unsigned char), const char *stops,
	     char *out, size_t outsz, const char *what)
{
	size_t b = lx->pos, e;
	char c;

	while (lx->pos < lx->end && ok(lx->s[lx->pos]))
		lx->pos++;
	e = lx->pos;
	c = e < lx->end ? lx->s[e] : ' ';
	/* a pattern where none is taken (bpftrace users try them) */
	if (c && strchr("*?[", c))
		return lex_fail(
			lx, -EINVAL, e,
			"no wildcards in a %s " TOK_FMT ": name it whole "
			"(they work in uprobe, kprobe, fentry/fexit and "
			"usdt names)",
			what, TOK_ARGS(lx, b, lex_tok_end(lx, b)));
	if (!is_blank(c) && (!c || !strchr(stops, c)))
		return lex_fail(lx, -EINVAL, e, "bad %s " TOK_FMT, what,
				TOK_ARGS(lx, b, lex_tok_end(lx, b)));
	if (b == e)
		return lex_fail(lx, -EINVAL, b, "expected a %s", what);
	if (e - b >= outsz)
		return lex_fail(lx, -EINVAL, b, "%s too long (max %zu bytes)",
				what, outsz - 1);
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
				return lex_fail(
					lx, -EINVAL, lx->pos,
					"bad escape in quoted %s (only \\\" and \\\\)",
					what);
			c = lx->s[++lx->pos];
		}
		if (n + 1 >= outsz)
			return lex_fail(lx, -EINVAL, q,
					"%s too long (max %zu bytes)", what,
					outsz - 1);
		out[n++] = c;
		lx->pos++;
	}
	if (lx->pos == lx->end)
		return lex_fail(lx, -EINVAL, q, "unterminated quote in %s",
				what);
	lx->pos++;
	if (n == 0)
		return lex_fail(lx, -EINVAL, q, "empty %s", what);
	out[n] = '\0';
	return 0;
}

/*
 * lex_path() - a path at lx->pos, quoted or not
 * Unquoted, it ends at a blank (and at ':' if @colon_ends) and may not
 * hold '"', so that a path is always written back unambiguously.
 */
int lex_path(struct lexer *lx, char *out, size_t outsz, bool colon_ends,
	     const char *what)
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
			return lex_fail(lx, -EINVAL, lx->pos,
					"'\"' inside unquoted %s " TOK_FMT,
					what,
					TOK_ARGS(lx, b, lex_tok_end(lx, b)));
	}
	if (lx->pos == b)
		return lex_fail(lx, -EINVAL, b, "expected a %s", what);
	if (lx->pos - b >= outsz)
		return lex_fail(lx, -EINVAL, b, "%s too long (max %zu bytes)",
				what, outsz - 1);
	memcpy(out, lx->s + b, lx->pos - b);
	out[lx->pos - b] = '\0';
	return 0;
}

/* +OFFSET after a symbol, up to the end of the token. */
int lex_plus_offset(struct lexer *lx, uint64_t max, uint64_t *out)
{
	size_t e = lex_tok_end(lx, lx->pos);
	int err;

	err = lex_number(lx, lx->pos + 1, e, max, true, "offset", out);
	lx->pos = e;
	return err;
}

/* Move past a word that ends at @stop or a blank; its length. */
size_t lex_word(struct lexer *lx, char stop)
{
	size_t b = lx->pos;

	while (lx->pos < lx->end && lx->s[lx->pos] != stop &&
	       !is_blank(lx->s[lx->pos]))
		lx->pos++;
	return lx->pos - b;
}

/* Is the @n bytes at @b exactly @word? */
bool lex_word_is(const struct lexer *lx, size_t b, size_t n, const char *word)
{
	return strlen(word) == n && !memcmp(word, lx->s + b, n);
}
