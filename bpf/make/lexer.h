/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control language's lexical layer, shared by the parser (parse.c):
 * a lexer over one line, its error with a column, and the pieces a probe
 * spec is made of (numbers, names, paths, words).
 */
#ifndef BPFLINKFS_LEXER_H
#define BPFLINKFS_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Longer tokens are cut in messages, so that the message around them fits. */
#define QUOTE_MAX 48
#define TOK_FMT "'%.*s%s'"
#define TOK_ARGS(lx, b, e)                                                     \
	(int)((e) - (b) > QUOTE_MAX ? QUOTE_MAX : (e) - (b)), (lx)->s + (b),   \
		(e) - (b) > QUOTE_MAX ? "..." : ""

struct lexer {
	const char *s; /* the line as written: columns index it */
	size_t end;    /* without trailing blanks and '\r' */
	size_t pos;
	struct bl_error *perr;
	size_t cookie_col;   /* where cookie= was given */
	bool period_in_spec; /* s:EVENT:PERIOD */
};

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline bool is_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') ||
	       ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* Kernel symbols: C identifiers plus the '.' of "foo.isra.0" and '$'. */
static inline bool is_ksym_char(unsigned char c)
{
	return is_alnum(c) || c == '_' || c == '.' || c == '$';
}

/* A kernel FUNC that may be a glob pattern (bpflinkfs(8), CONTROL LANGUAGE). */
static inline bool is_kglob_char(unsigned char c)
{
	return is_ksym_char(c) || c == '*' || c == '?' || c == '[' ||
	       c == ']' || c == '!' || c == '^' || c == '-';
}

/* Module names as in /proc/modules; '-' is how modprobe spells '_'. */
static inline bool is_module_char(unsigned char c)
{
	return is_alnum(c) || c == '_' || c == '-';
}

/* tracefs: xhci-hcd, spi-mem and cdnsp-dev are real categories. */
static inline bool is_tp_char(unsigned char c)
{
	return is_alnum(c) || c == '_' || c == '-';
}

static inline bool is_event_char(unsigned char c)
{
	return is_alnum(c) || c == '_' || c == '-';
}

/*
 * ELF symbols may hold almost anything (Go: "main.(*T).M", versions:
 * "malloc@@GLIBC_2.2.5"); only the bytes that end the field are excluded.
 */
static inline bool is_usym_char(unsigned char c)
{
	return c > ' ' && c != ':' && c != '+' && c != '"';
}

/**
 * lex_fail() - record an error in lx->perr: @err, the caret @col, the
 * message (cut as bl_errorf() cuts it)
 * Return: @err, so that callers can `return lex_fail(...)`.
 */
__attribute__((format(printf, 4, 5))) int
lex_fail(struct lexer *lx, int err, size_t col, const char *fmt, ...);

/** lex_tok_end() - where the token at @pos ends: a blank or the line's end */
size_t lex_tok_end(const struct lexer *lx, size_t pos);

/** lex_skip_blanks() - move lx->pos past blanks */
void lex_skip_blanks(struct lexer *lx);

/**
 * lex_number() - the number in [@b, @e): decimal, or also 0x hex if @hex,
 * at most @max, into *@out; @what names it in messages
 * Return: 0 or -EINVAL (syntax before range: the caret lands on the first
 * bad character; an out-of-range number is blamed on its first digit).
 */
int lex_number(struct lexer *lx, size_t b, size_t e, uint64_t max, bool hex,
	       const char *what, uint64_t *out);

/**
 * lex_name() - a name of @ok bytes at lx->pos, copied to @out (@outsz
 * bytes); it must end at a blank, the line's end or one of @stops, where
 * lx->pos is left
 * Return: 0 or -EINVAL (bad byte, empty, too long).
 */
int lex_name(struct lexer *lx, bool (*ok)(unsigned char), const char *stops,
	     char *out, size_t outsz, const char *what);

/**
 * lex_path() - a path at lx->pos, double-quoted (\" and \\ escapes) or
 * not; unquoted it ends at a blank (and ':' if @colon_ends) and holds no
 * '"', so that a path is always written back unambiguously
 * Return: 0 or -EINVAL.
 */
int lex_path(struct lexer *lx, char *out, size_t outsz, bool colon_ends,
	     const char *what);

/** lex_plus_offset() - +OFFSET at lx->pos, up to the token's end */
int lex_plus_offset(struct lexer *lx, uint64_t max, uint64_t *out);

/** lex_word() - move past a word that ends at @stop or a blank; its length */
size_t lex_word(struct lexer *lx, char stop);

/** lex_word_is() - the @n bytes at @b are exactly @word */
bool lex_word_is(const struct lexer *lx, size_t b, size_t n, const char *word);

#endif
