/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The values of the per-link files, formatted without printf: listing a
 * thousand links renders some ten thousand of them, and vsnprintf's set-up
 * was a third of the daemon's time for a links.json.
 *
 * Each returns what snprintf would: the length of the whole value, even
 * when @len is too small, in which case it writes what fits, NUL-ended.
 */
#ifndef BPFLINKFS_FMT_H
#define BPFLINKFS_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* @n bytes of @s, then @end (0: none); NUL-ended within @len. */
static inline int fmt_put(char *buf, size_t len, const char *s, size_t n,
			  char end)
{
	size_t total = n + (end != 0);

	if (len) {
		size_t fit = n < len - 1 ? n : len - 1;

		memcpy(buf, s, fit);
		if (end && fit + 1 < len)
			buf[fit++] = end;
		buf[fit] = '\0';
	}
	return (int)total;
}

/**
 * fmt_line() - "@s\n", as snprintf(buf, len, "%s\n", s)
 */
static inline int fmt_line(char *buf, size_t len, const char *s)
{
	return fmt_put(buf, len, s, strlen(s), '\n');
}

/**
 * fmt_u64() - @v in decimal, then @end (0: none); as "%" PRIu64 "\n"
 */
static inline int fmt_u64(char *buf, size_t len, uint64_t v, char end)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	return fmt_put(buf, len, p, tmp + sizeof(tmp) - p, end);
}

/**
 * fmt_hex() - "0x" and @v in lower-case hex, at least @width digits
 * (zero-padded), then a newline; as "0x%0*" PRIx64 "\n"
 */
static inline int fmt_hex(char *buf, size_t len, uint64_t v, int width)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	do
		*--p = "0123456789abcdef"[v & 15];
	while ((v >>= 4) || tmp + sizeof(tmp) - p < width);
	*--p = 'x';
	*--p = '0';
	return fmt_put(buf, len, p, tmp + sizeof(tmp) - p, '\n');
}

#endif
