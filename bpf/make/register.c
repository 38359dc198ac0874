// SPDX-License-Identifier: GPL-2.0-only
/*
 * Creating a link, step three: register the new link as owned, with what
 * the daemon knows of it, in the registry and, with pin_dir, in bpffs
 * (register.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "owned.h"
#include "register.h"

/*
 * A kprobe's address as the kernel resolves it: FUNC's address in
 * /proc/kallsyms (the daemon, as root, sees it), plus the offset.
 * Return: 0, or -ENOENT when FUNC is missing or not unique.
 */
static int kallsyms_addr(const char *module, const char *func, __u64 *addr)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], mod[128];
	unsigned long long a;
	int found = 0;
	char type;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && found < 2) {
		mod[0] = '\0';
		if (sscanf(line, "%llx %c %255s [%127[^]]]", &a, &type, name,
			   mod) < 3 ||
		    strcmp(name, func) || (module[0] && strcmp(mod, module)))
			continue;
		*addr = a;
		found++;
	}
	fclose(f);
	return found == 1 && *addr ? 0 : -ENOENT;
}

/* Where the kernel has no perf link info (before 6.6), what we asked for. */
static void fields_from_probe(const struct probe_spec *p,
			      const struct perf_probe *pp, __u64 cookie,
			      struct link_fields *f)
{
	static const enum perf_link_kind kinds[] = {
		[PROBE_KPROBE] = PERF_LINK_KPROBE,
		[PROBE_KRETPROBE] = PERF_LINK_KRETPROBE,
		[PROBE_UPROBE] = PERF_LINK_UPROBE,
		[PROBE_URETPROBE] = PERF_LINK_URETPROBE,
		[PROBE_TRACEPOINT] = PERF_LINK_TRACEPOINT,
		[PROBE_SOFTWARE] = PERF_LINK_EVENT,
		[PROBE_HARDWARE] = PERF_LINK_EVENT,
		[PROBE_FENTRY] = PERF_LINK_UNSPEC, /* not perf links */
		[PROBE_FEXIT] = PERF_LINK_UNSPEC,
		[PROBE_RAWTP] = PERF_LINK_UNSPEC,
		[PROBE_USDT] = PERF_LINK_UPROBE,
	};

	f->kind = kinds[p->kind];
	f->cookie = cookie;
	f->offset = pp->offset;
	f->ref_ctr_offset = pp->ref_ctr_offset;
	f->config = pp->config;
	f->event_type = pp->perf_type;
	snprintf(f->name, sizeof(f->name), "%s",
		 pp->target    ? pp->target
		 : pp->tp_name ? pp->tp_name
			       : "");
	/* only where the kernel cannot say: reading kallsyms takes a while */
	if ((p->kind == PROBE_KPROBE || p->kind == PROBE_KRETPROBE) &&
	    !link_features()->perf_link_info &&
	    kallsyms_addr(p->path, p->symbol, &f->addr) == 0)
		f->addr += p->offset;
}

int own_link(struct owned *o, const struct owned_info *own, int *lfd,
	     struct bl_error *e)
{
	int err;

	if (!owned_pinning(o))
		return owned_add(o, own, *lfd);
	err = owned_add_pinned(o, own, *lfd, e);
	if (!err) {
		close(*lfd);
		*lfd = -1;
	}
	return err;
}

/* @src into @dst whole, or -ENAMETOOLONG with @e saying so */
static int copy_name(char *dst, size_t len, const char *src, struct bl_error *e)
{
	int n = snprintf(dst, len, "%s", src);

	if (n >= 0 && (size_t)n < len)
		return 0;
	bl_errorf(e,
		  "'%.32s...' is longer than a link's record keeps (%zu "
		  "bytes)",
		  src, len - 1);
	return -ENAMETOOLONG;
}

int link_register(struct owned *o, const struct probe_spec *p,
		  const struct uprobe_target *ut, const struct perf_probe *pp,
		  __u64 cookie, int slot, const char *spec, int *lfd,
		  struct bl_error *e, __u32 *id)
{
	struct owned_info *own = calloc(1, sizeof(*own));
	int err = own ? 0 : -ENOMEM;

	/* only the id: the tree reads the rest from the kernel, where it can */
	if (!err)
		err = link_id_read_fd(*lfd, &own->f.id);
	if (!err) {
		fields_from_probe(p, pp, cookie, &own->f);
		own->id = own->f.id;
		own->slot = slot;
		own->kind = p->kind;
		own->sight = p->opts & OPT_SIGHT;
		if (p->kind == PROBE_TRACEPOINT)
			err = copy_name(own->category, sizeof(own->category),
					p->path, e);
		if (ut) {
			own->dev = ut->dev;
			own->ino = ut->ino;
		}
		if (!err)
			err = copy_name(own->spec, sizeof(own->spec), spec, e);
		if (!err)
			err = own_link(o, own, lfd, e);
		if (!err)
			*id = own->f.id;
	}
	free(own);
	return err;
}
