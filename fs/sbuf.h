/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A growing text buffer for the root tables (tables.c, metrics.c): one
 * allocation failure makes every later call a no-op and sbuf_finish()
 * fail, so renderers check once at the end.
 */
#ifndef BPFLINKFS_SBUF_H
#define BPFLINKFS_SBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

/** sbuf_reserve() - room for @more bytes and a NUL (sets oom on failure) */
void sbuf_reserve(struct sbuf *s, size_t more);

/** sbuf_put() - append @n bytes; the NUL is written by sbuf_finish() only */
static inline void sbuf_put(struct sbuf *s, const char *data, size_t n)
{
	if (s->len + n >= s->cap) {
		sbuf_reserve(s, n + 1);
		if (s->oom)
			return;
	}
	memcpy(s->p + s->len, data, n);
	s->len += n;
}

/** sbuf_put_u64() - append @v in decimal */
void sbuf_put_u64(struct sbuf *s, uint64_t v);

/** sbuf_printf() - append printf output */
void sbuf_printf(struct sbuf *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * sbuf_finish() - NUL-end the text and hand it over
 * @len: out, its length without the NUL
 * Return: the malloc'd text (caller frees), or NULL with errno ENOMEM (the
 * buffer is freed).
 */
char *sbuf_finish(struct sbuf *s, size_t *len);

/**
 * utf8_len() - length of the valid UTF-8 sequence at @p (of @n bytes), or
 * 0 when it is not one (overlong, surrogate, beyond U+10FFFF, cut short)
 */
size_t utf8_len(const unsigned char *p, size_t n);

/**
 * sbuf_put_table_value() - append @n bytes of @v as a value of a
 * tab-separated table: a tab, newline or backslash as \t, \n, \\
 */
void sbuf_put_table_value(struct sbuf *s, const char *v, size_t n);

/**
 * sbuf_put_json_string() - append @n bytes of @v as a JSON string: quote,
 * backslash and control bytes escaped, bytes that are not UTF-8 as \u00XX
 * (bpflinkfs(8), the links table)
 */
void sbuf_put_json_string(struct sbuf *s, const char *v, size_t n);

#endif
