// SPDX-License-Identifier: GPL-2.0-only
/*
 * The files of multi links (DESIGN.md section 2): count, funcs (one line
 * per target, of any length), pid, and hits summed over the targets.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "counter.h"
#include "fmt.h"
#include "ksyms.h"
#include "multi_info.h"
#include "owned.h"
#include "render.h"
#include "render_multi.h"
#include "uprobe_target.h"

int render_count(const struct link_view *v, char *buf, size_t len)
{
	return fmt_u64(buf, len, v->f.count, '\n');
}

int render_pid(const struct link_view *v, char *buf, size_t len)
{
	if (!v->f.pid)
		return -ENODATA;
	return fmt_u64(buf, len, v->f.pid, '\n');
}

/* The built-in program counts a target in the slot its cookie names. */
static bool counts_by_cookie(const struct link_view *v)
{
	return v->owned && v->own.slot > 0 && owned_counter(v->reg);
}

int render_multi_hits(const struct link_view *v, uint64_t *sum)
{
	unsigned int i, n = v->own.nslots ? v->own.nslots : 1;
	uint64_t hits;
	int err = 0;

	*sum = 0;
	for (i = 0; !err && i < n; i++) {
		err = counter_hits(owned_counter(v->reg), v->own.slot + i,
				   &hits);
		*sum += hits;
	}
	return err;
}

/* SYMBOL as the `symbol` file writes it, or "-" (file replaced, none) */
static void target_symbol(const struct link_view *v, const char *path,
			  bool same_file, uint64_t off, char *sym, size_t len)
{
	if (!same_file || path[0] != '/' ||
	    uprobe_symbolize(path, off, sym, len))
		snprintf(sym, len, "-");
}

static bool probed_file_is_there(const struct link_view *v, const char *path)
{
	struct stat st;

	if (!v->owned || !v->own.ino)
		return true;
	return !stat(path, &st) && st.st_dev == v->own.dev &&
	       st.st_ino == v->own.ino;
}

static void put_hits(FILE *out, const struct link_view *v, uint64_t cookie)
{
	uint64_t hits = 0;

	if (!counts_by_cookie(v))
		return;
	if (cookie < (uint64_t)v->own.slot ||
	    cookie - v->own.slot >= v->own.nslots ||
	    counter_hits(owned_counter(v->reg), cookie, &hits))
		fprintf(out, "\t-");
	else
		fprintf(out, "\t%llu", (unsigned long long)hits);
}

static void uprobe_lines(FILE *out, const struct link_view *v,
			 const struct multi_info *mi)
{
	bool same = probed_file_is_there(v, mi->path);
	char sym[PROBE_GLOB_NAME_MAX + 32];
	__u32 i;

	fprintf(out, "OFFSET\tSYMBOL\tREF_CTR_OFFSET\tCOOKIE%s\n",
		counts_by_cookie(v) ? "\tHITS" : "");
	for (i = 0; i < mi->count; i++) {
		target_symbol(v, mi->path, same, mi->t[i].where, sym,
			      sizeof(sym));
		fprintf(out, "0x%llx\t%s\t0x%llx\t%llu",
			(unsigned long long)mi->t[i].where, sym,
			(unsigned long long)mi->t[i].ref_ctr_offset,
			(unsigned long long)mi->t[i].cookie);
		put_hits(out, v, mi->t[i].cookie);
		fputc('\n', out);
	}
}

/* FUNC from the address the daemon sees; ADDR per the reader's rule. */
static void kprobe_lines(FILE *out, const struct link_view *v,
			 const struct multi_info *mi)
{
	struct ksyms *ks = ksyms_load();
	bool sees = v->reader && v->reader->sees_addrs;
	char func[768];
	__u32 i;

	fprintf(out, "FUNC\tADDR\tCOOKIE%s\n",
		counts_by_cookie(v) ? "\tHITS" : "");
	for (i = 0; i < mi->count; i++) {
		if (!ks || ksyms_name(ks, mi->t[i].where, func, sizeof(func)))
			snprintf(func, sizeof(func), "-");
		fprintf(out, "%s\t0x%016llx", func,
			sees ? (unsigned long long)mi->t[i].where : 0ULL);
		if (mi->has_cookies)
			fprintf(out, "\t%llu",
				(unsigned long long)mi->t[i].cookie);
		else
			fprintf(out, "\t-");
		if (mi->has_cookies)
			put_hits(out, v, mi->t[i].cookie);
		else if (counts_by_cookie(v))
			fprintf(out, "\t-");
		fputc('\n', out);
	}
	ksyms_free(ks);
}

/*
 * Rendered whole into a stream, then copied when it fits @len; else its
 * length is returned (>= @len) and the caller asks again with room
 * (link_file_render_alloc()).
 */
int render_funcs(const struct link_view *v, char *buf, size_t len)
{
	struct multi_info mi;
	char *text = NULL;
	size_t n = 0;
	FILE *out;
	int err = multi_info_read(v->f.id, &mi);

	if (err)
		return err == -EINVAL ? -ENODATA : err;
	out = open_memstream(&text, &n);
	if (out) {
		if (mi.link_type == LINK_TYPE_UPROBE_MULTI)
			uprobe_lines(out, v, &mi);
		else
			kprobe_lines(out, v, &mi);
		err = fclose(out) ? -ENOMEM : 0;
	} else {
		err = -ENOMEM;
	}
	multi_info_free(&mi);
	if (!err && n < len)
		memcpy(buf, text, n + 1);
	free(text);
	return err ? err : (int)n;
}

/* The name of target @i, "-" when unknown; @ks for kprobe_multi. */
static char *target_name(const struct link_view *v, const struct multi_info *mi,
			 bool same, struct ksyms *ks, __u32 i)
{
	char name[PROBE_GLOB_NAME_MAX + 32];

	if (mi->link_type == LINK_TYPE_UPROBE_MULTI)
		target_symbol(v, mi->path, same, mi->t[i].where, name,
			      sizeof(name));
	else if (!ks || ksyms_name(ks, mi->t[i].where, name, sizeof(name)))
		snprintf(name, sizeof(name), "-");
	return strdup(name);
}

int multi_target_names(const struct link_view *v, char ***names)
{
	struct multi_info *mi = calloc(1, sizeof(*mi));
	unsigned int n = v->own.nslots;
	char **out = calloc(n ? n : 1, sizeof(*out));
	struct ksyms *ks = NULL;
	int err = mi && out ? multi_info_read(v->f.id, mi) : -ENOMEM;
	bool same = false;
	__u32 i;

	if (!err && mi->link_type == LINK_TYPE_KPROBE_MULTI)
		ks = ksyms_load();
	if (!err && mi->link_type == LINK_TYPE_UPROBE_MULTI)
		same = probed_file_is_there(v, mi->path);
	for (i = 0; !err && mi->has_cookies && i < mi->count; i++) {
		uint64_t at = mi->t[i].cookie - v->own.slot;

		if (mi->t[i].cookie >= (uint64_t)v->own.slot && at < n &&
		    !out[at])
			out[at] = target_name(v, mi, same, ks, i);
	}
	for (i = 0; !err && i < n; i++)
		if (!out[i] && !(out[i] = strdup("-")))
			err = -ENOMEM;
	ksyms_free(ks);
	if (mi)
		multi_info_free(mi);
	free(mi);
	if (err) {
		for (i = 0; out && i < n; i++)
			free(out[i]);
		free(out);
		return err;
	}
	*names = out;
	return n;
}
