// SPDX-License-Identifier: GPL-2.0-only
/* Kernel addresses to function names, from /proc/kallsyms (ksyms.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"

struct ksym {
	uint64_t addr;
	char *name; /* "func" or "func [module]" */
};

struct ksyms {
	struct ksym *s;
	size_t n, cap;
};

static int ksym_cmp(const void *x, const void *y)
{
	const struct ksym *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* One line "ADDR TYPE NAME [MODULE]": text symbols (t, T) only. */
static int ksym_add(struct ksyms *ks, const char *line)
{
	char name[512], mod[128], type;
	unsigned long long addr;
	struct ksym *grown;
	int n;

	mod[0] = '\0';
	n = sscanf(line, "%llx %c %511s [%127[^]]]", &addr, &type, name, mod);
	if (n < 3 || (type != 't' && type != 'T') || !addr)
		return 0;
	if (ks->n == ks->cap) {
		ks->cap = ks->cap ? 2 * ks->cap : 65536;
		grown = realloc(ks->s, ks->cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		ks->s = grown;
	}
	ks->s[ks->n].addr = addr;
	if (mod[0])
		n = asprintf(&ks->s[ks->n].name, "%s [%s]", name, mod);
	else
		n = (ks->s[ks->n].name = strdup(name)) ? 0 : -1;
	if (n < 0)
		return -ENOMEM;
	ks->n++;
	return 0;
}

struct ksyms *ksyms_load(void)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[768];
	int err = ks && f ? 0 : (errno ? -errno : -ENOMEM);

	while (!err && fgets(line, sizeof(line), f))
		err = ksym_add(ks, line);
	if (f)
		fclose(f);
	if (err) {
		ksyms_free(ks);
		errno = -err;
		return NULL;
	}
	qsort(ks->s, ks->n, sizeof(*ks->s), ksym_cmp);
	return ks;
}

int ksyms_name(const struct ksyms *ks, uint64_t addr, char *buf, size_t len)
{
	size_t lo = 0, hi = ks->n;

	if (!addr)
		return -ENOENT;
	/* the last symbol at or below @addr */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ks->s[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	if (ks->s[lo - 1].addr == addr)
		snprintf(buf, len, "%s", ks->s[lo - 1].name);
	else
		snprintf(buf, len, "%s+0x%llx", ks->s[lo - 1].name,
			 (unsigned long long)(addr - ks->s[lo - 1].addr));
	return 0;
}

void ksyms_free(struct ksyms *ks)
{
	size_t i;

	if (!ks)
		return;
	for (i = 0; i < ks->n; i++)
		free(ks->s[i].name);
	free(ks->s);
	free(ks);
}
