// SPDX-License-Identifier: GPL-2.0-only
/*
 * fs/fmt.h against snprintf(3): every formatter must give the bytes and
 * the return value that the printf format it replaces gives, for edge
 * values, random values and every buffer size from 0 up (truncation).
 * One TAP point per edge value, one for the random values.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fmt.h"

#define GUARD 40 /* the bytes of the buffer under test, 'Z' beyond @len */

/* Nothing written past @len. */
static int overrun(const char *gbuf, size_t len)
{
	size_t i;

	for (i = len; i < GUARD; i++)
		if (gbuf[i] != 'Z')
			return 1;
	return 0;
}

static void same(const char *what, uint64_t v, int got, const char *gbuf,
		 int want, const char *wbuf, size_t len)
{
	EXPECT(got == want && (!len || !strcmp(gbuf, wbuf)) &&
		       !overrun(gbuf, len),
	       "%s(%" PRIu64 ") len %zu: got %d '%s', want %d '%s'", what, v,
	       len, got, len ? gbuf : "", want, len ? wbuf : "");
}

static void check_value(uint64_t v, const char *s)
{
	char g[GUARD], w[GUARD];
	size_t len;

	for (len = 0; len <= 24; len++) {
		memset(g, 'Z', sizeof(g));
		same("fmt_u64", v, fmt_u64(g, len, v, '\n'), g,
		     snprintf(w, len, "%" PRIu64 "\n", v), w, len);
		memset(g, 'Z', sizeof(g));
		same("fmt_u64 no end", v, fmt_u64(g, len, v, 0), g,
		     snprintf(w, len, "%" PRIu64, v), w, len);
		memset(g, 'Z', sizeof(g));
		same("fmt_hex", v, fmt_hex(g, len, v, 1), g,
		     snprintf(w, len, "0x%" PRIx64 "\n", v), w, len);
		memset(g, 'Z', sizeof(g));
		same("fmt_hex 16", v, fmt_hex(g, len, v, 16), g,
		     snprintf(w, len, "0x%016" PRIx64 "\n", v), w, len);
		memset(g, 'Z', sizeof(g));
		same("fmt_line", v, fmt_line(g, len, s), g,
		     snprintf(w, len, "%s\n", s), w, len);
	}
}

int main(void)
{
	static const uint64_t edges[] = { 0,	      1,	  9,
					  10,	      15,	  16,
					  UINT32_MAX, (uint64_t)UINT32_MAX + 1,
					  UINT64_MAX - 1, UINT64_MAX };
	static const char *const strs[] = { "", "a", "uprobe",
					    "/usr/lib/x86_64-linux-gnu/libc.so.6" };
	size_t i;

	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		check_value(edges[i], strs[i % 4]);
		group_end("%" PRIu64 " and '%s', every buffer size", edges[i],
			  strs[i % 4]);
	}
	srandom(7);
	for (i = 0; i < 2000; i++) {
		uint64_t v = (uint64_t)random() << 33 ^ (uint64_t)random() << 2 ^
			     (uint64_t)random();

		check_value(v >> (i % 64), strs[i % 4]);
	}
	group_end("2000 random values, every buffer size");
	return done_testing();
}
