// SPDX-License-Identifier: GPL-2.0-only
/* The growing text buffer of the root tables. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmt.h"
#include "sbuf.h"

void sbuf_reserve(struct sbuf *s, size_t more)
{
	size_t cap;
	char *p;

	if (s->oom || s->len + more < s->cap)
		return;
	cap = (s->cap ? s->cap * 2 : 4096) + more;
	p = realloc(s->p, cap);
	if (!p) {
		s->oom = true;
		return;
	}
	s->p = p;
	s->cap = cap;
}

void sbuf_put_u64(struct sbuf *s, uint64_t v)
{
	sbuf_reserve(s, 24);
	if (!s->oom)
		s->len += fmt_u64(s->p + s->len, s->cap - s->len, v, 0);
}

void sbuf_printf(struct sbuf *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	sbuf_reserve(s, 256);
	if (s->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(s->p + s->len, s->cap - s->len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= s->cap - s->len) {
		sbuf_reserve(s, n + 1);
		if (s->oom)
			return;
		va_start(ap, fmt);
		vsnprintf(s->p + s->len, s->cap - s->len, fmt, ap);
		va_end(ap);
	}
	if (n > 0)
		s->len += n;
}

char *sbuf_finish(struct sbuf *s, size_t *len)
{
	sbuf_reserve(s, 1);
	if (s->oom) {
		free(s->p);
		errno = ENOMEM;
		return NULL;
	}
	s->p[s->len] = '\0';
	*len = s->len;
	return s->p;
}

size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len, i;
	unsigned int cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/* A tab, newline or backslash inside a table value: \t, \n, \\ */
void sbuf_put_table_value(struct sbuf *s, const char *v, size_t n)
{
	size_t i, run = 0;

	for (i = 0; i < n; i++) {
		const char *esc = v[i] == '\t'	 ? "\\t"
				  : v[i] == '\n' ? "\\n"
				  : v[i] == '\\' ? "\\\\"
						 : NULL;

		if (!esc)
			continue;
		sbuf_put(s, v + run, i - run);
		sbuf_put(s, esc, 2);
		run = i + 1;
	}
	sbuf_put(s, v + run, n - run);
}

/* Plain printable ASCII needs no escape: the common case, copied in runs */
static bool json_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

void sbuf_put_json_string(struct sbuf *s, const char *v, size_t n)
{
	const unsigned char *p = (const unsigned char *)v;
	size_t i = 0, run, l;

	sbuf_put(s, "\"", 1);
	while (i < n) {
		for (run = i; i < n && json_plain(p[i]); i++)
			;
		sbuf_put(s, v + run, i - run);
		if (i == n)
			break;
		if (p[i] == '"' || p[i] == '\\') {
			sbuf_printf(s, "\\%c", p[i]);
			i++;
		} else if (p[i] < 0x20 || p[i] == 0x7f ||
			   !(l = utf8_len(p + i, n - i))) {
			sbuf_printf(s, "\\u%04x", p[i]);
			i++;
		} else {
			sbuf_put(s, v + i, l);
			i += l;
		}
	}
	sbuf_put(s, "\"", 1);
}
