// SPDX-License-Identifier: GPL-2.0-only
/*
 * fentry/fexit with a pattern in FUNC (bpflinkfs(8), CONTROL LANGUAGE): the
 * kernel has no multi link for tracing programs, so one link per match,
 * all or nothing (tracing_glob.h). The function names come from the
 * kernel's BTF, the only functions a tracing program can attach to.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "tracing_glob.h"

struct func_names {
	char **v;
	size_t n, cap;
};

static void names_free(struct func_names *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i]);
	free(f->v);
}

static int names_add(struct func_names *f, const char *name)
{
	char **grown;

	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 16;
		grown = realloc(f->v, f->cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		f->v = grown;
	}
	f->v[f->n] = strdup(name);
	return f->v[f->n] ? (f->n++, 0) : -ENOMEM;
}

static int by_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Sorted, each name once (BTF may carry a static function twice). */
static void names_unique(struct func_names *f)
{
	size_t i, n = 0;

	if (f->n)
		qsort(f->v, f->n, sizeof(*f->v), by_name);
	for (i = 0; i < f->n; i++) {
		if (n && !strcmp(f->v[n - 1], f->v[i]))
			free(f->v[i]);
		else
			f->v[n++] = f->v[i];
	}
	f->n = n;
}

/* The BTF to search: vmlinux's, or MODULE's split on it (*base too). */
static struct btf *btf_open(const struct probe_spec *p, struct btf **base,
			    struct bl_error *e)
{
	char path[PATH_MAX];
	struct btf *btf;
	int n;

	*base = btf__load_vmlinux_btf();
	if (libbpf_get_error(*base)) {
		*base = NULL;
		bl_fail_at(
			e, -EOPNOTSUPP, p->symbol_col,
			"no kernel BTF (/sys/kernel/btf/vmlinux): %s needs it",
			probe_kind_name(p->kind));
		return NULL;
	}
	if (!p->path[0])
		return *base;
	n = snprintf(path, sizeof(path), "/sys/kernel/btf/%s", p->path);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		bl_fail_at(e, -ENAMETOOLONG, p->path_col,
			   "no module has a name this long");
		return NULL;
	}
	for (char *c = path + strlen("/sys/kernel/btf/"); *c; c++)
		*c = *c == '-' ? '_' : *c; /* as the kernel names modules */
	btf = btf__parse_split(path, *base);
	if (!libbpf_get_error(btf))
		return btf;
	bl_fail_at(e, -ENOENT, p->path_col, "no module '%s' with BTF (%s)",
		   p->path, path);
	return NULL;
}

/* The functions FUNC matches, into @f; e->err set on failure. */
static int funcs_match(const struct probe_spec *p, struct func_names *f,
		       struct bl_error *e)
{
	struct btf *base, *btf = btf_open(p, &base, e);
	__u32 id, first, end;
	int err = 0;

	if (!btf)
		goto out;
	first = btf == base ? 1 : btf__type_cnt(base);
	end = btf__type_cnt(btf);
	for (id = first; !err && id < end; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name =
			t ? btf__name_by_offset(btf, t->name_off) : NULL;

		if (t && btf_is_func(t) && name && !fnmatch(p->symbol, name, 0))
			err = names_add(f, name);
	}
	names_unique(f);
	e->err = err;
	e->column = p->symbol_col;
	if (!err && !f->n)
		bl_fail(e, -ENOENT, "no function in the BTF of %s matches '%s'",
			p->path[0] ? p->path : "vmlinux", p->symbol);
	else if (!err && f->n > TRACING_GLOB_MAX)
		bl_fail(e, -E2BIG,
			"'%s' matches %zu functions, more than %d (one %s "
			"link each): narrow the pattern",
			p->symbol, f->n, TRACING_GLOB_MAX,
			probe_kind_name(p->kind));
	if (btf != base)
		btf__free(btf);
out:
	btf__free(base);
	return e->err;
}

int tracing_glob_create(struct owned *o, const struct probe_spec *p,
			const char *line, size_t len, pid_t pid,
			struct request_ids *made, struct path_memo *memo,
			struct bl_error *e)
{
	struct probe_spec *one = malloc(sizeof(*one));
	struct func_names f = {0};
	size_t i;
	int err;

	e->err = 0;
	e->msg[0] = e->warning[0] = '\0';
	err = one ? funcs_match(p, &f, e) : -ENOMEM;
	for (i = 0; !err && i < f.n; i++) {
		*one = *p;
		one->wildcard = false;
		snprintf(one->symbol, sizeof(one->symbol), "%s", f.v[i]);
		err = single_probe_create(o, one, line, len, pid, made, memo,
					  e);
	}
	names_free(&f);
	free(one);
	e->err = err;
	return err;
}
