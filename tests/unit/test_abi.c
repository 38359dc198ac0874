// SPDX-License-Identifier: GPL-2.0-only
/*
 * Checks the project's copy of the perf link ABI (bpf/linkinfo.h) against
 * the running kernel's BTF: every member offset, and every enum value.
 * Members the kernel does not have are skipped; a mismatch fails.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "linkinfo.h"

static int failures, checked, skipped;

/* Bit offset of member @name in composite @id, through anonymous members. */
static int member_offset(const struct btf *btf, __u32 id, const char *name,
			 __u32 *bits, __u32 *type)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;
	int i;

	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_composite(t))
		return -ENOENT;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		__u32 inner;

		if (n && *n) {
			if (strcmp(n, name))
				continue;
			*bits = btf_member_bit_offset(t, i);
			*type = m->type;
			return 0;
		}
		if (member_offset(btf, m->type, name, &inner, type) == 0) {
			*bits = btf_member_bit_offset(t, i) + inner;
			return 0;
		}
	}
	return -ENOENT;
}

static int path_offset(const struct btf *btf, const char *path, size_t *bytes)
{
	char buf[128], *save = NULL, *tok;
	__s32 root = btf__find_by_name_kind(btf, "bpf_link_info",
					    BTF_KIND_STRUCT);
	__u32 type, bits, total = 0;

	if (root < 0)
		return -ENOENT;
	type = root;
	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok;
	     tok = strtok_r(NULL, ".", &save)) {
		if (member_offset(btf, type, tok, &bits, &type))
			return -ENOENT;
		total += bits;
	}
	*bytes = total / 8;
	return 0;
}

static void check_member(const struct btf *btf, const char *path, size_t ours)
{
	size_t kernel;

	if (path_offset(btf, path, &kernel)) {
		printf("# skip %s: not in this kernel's BTF\n", path);
		skipped++;
		return;
	}
	checked++;
	if (kernel != ours) {
		printf("not ok - %s: kernel offset %zu, ours %zu\n", path,
		       kernel, ours);
		failures++;
	} else {
		printf("ok - %s at %zu\n", path, ours);
	}
}

static void check_enum(const struct btf *btf, const char *name, long ours)
{
	__s32 id = btf__find_by_name_kind(btf, "bpf_perf_event_type",
					  BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;
	int i;

	if (id < 0) {
		printf("# skip %s: no enum bpf_perf_event_type\n", name);
		skipped++;
		return;
	}
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++, e++) {
		if (strcmp(btf__name_by_offset(btf, e->name_off), name))
			continue;
		checked++;
		if (e->val != ours) {
			printf("not ok - %s: kernel %d, ours %ld\n", name,
			       e->val, ours);
			failures++;
		} else {
			printf("ok - %s = %ld\n", name, ours);
		}
		return;
	}
	printf("not ok - %s missing from the kernel's enum\n", name);
	failures++;
}

#define OFF(m) offsetof(struct abi_link_info, m)

int main(void)
{
	struct btf *btf = btf__load_vmlinux_btf();

	if (!btf) {
		printf("# skip: no kernel BTF (/sys/kernel/btf/vmlinux)\n");
		return 77;
	}
	check_member(btf, "type", OFF(type));
	check_member(btf, "id", OFF(id));
	check_member(btf, "prog_id", OFF(prog_id));
	check_member(btf, "perf_event", OFF(perf_event));
	check_member(btf, "perf_event.type", OFF(perf_event.type));
	check_member(btf, "perf_event.uprobe.file_name",
		     OFF(perf_event.uprobe.file_name));
	check_member(btf, "perf_event.uprobe.name_len",
		     OFF(perf_event.uprobe.name_len));
	check_member(btf, "perf_event.uprobe.offset",
		     OFF(perf_event.uprobe.offset));
	check_member(btf, "perf_event.uprobe.cookie",
		     OFF(perf_event.uprobe.cookie));
	check_member(btf, "perf_event.uprobe.ref_ctr_offset",
		     OFF(perf_event.uprobe.ref_ctr_offset));
	check_member(btf, "perf_event.kprobe.func_name",
		     OFF(perf_event.kprobe.func_name));
	check_member(btf, "perf_event.kprobe.name_len",
		     OFF(perf_event.kprobe.name_len));
	check_member(btf, "perf_event.kprobe.offset",
		     OFF(perf_event.kprobe.offset));
	check_member(btf, "perf_event.kprobe.addr",
		     OFF(perf_event.kprobe.addr));
	check_member(btf, "perf_event.kprobe.missed",
		     OFF(perf_event.kprobe.missed));
	check_member(btf, "perf_event.kprobe.cookie",
		     OFF(perf_event.kprobe.cookie));
	check_member(btf, "perf_event.tracepoint.tp_name",
		     OFF(perf_event.tracepoint.tp_name));
	check_member(btf, "perf_event.tracepoint.name_len",
		     OFF(perf_event.tracepoint.name_len));
	check_member(btf, "perf_event.tracepoint.cookie",
		     OFF(perf_event.tracepoint.cookie));
	check_member(btf, "perf_event.event.config",
		     OFF(perf_event.event.config));
	check_member(btf, "perf_event.event.type", OFF(perf_event.event.type));
	check_member(btf, "perf_event.event.cookie",
		     OFF(perf_event.event.cookie));
	check_enum(btf, "BPF_PERF_EVENT_UNSPEC", PERF_LINK_UNSPEC);
	check_enum(btf, "BPF_PERF_EVENT_UPROBE", PERF_LINK_UPROBE);
	check_enum(btf, "BPF_PERF_EVENT_URETPROBE", PERF_LINK_URETPROBE);
	check_enum(btf, "BPF_PERF_EVENT_KPROBE", PERF_LINK_KPROBE);
	check_enum(btf, "BPF_PERF_EVENT_KRETPROBE", PERF_LINK_KRETPROBE);
	check_enum(btf, "BPF_PERF_EVENT_TRACEPOINT", PERF_LINK_TRACEPOINT);
	check_enum(btf, "BPF_PERF_EVENT_EVENT", PERF_LINK_EVENT);
	{
		__s32 id = btf__find_by_name_kind(btf, "bpf_link_info",
						  BTF_KIND_STRUCT);
		const struct btf_type *t = id < 0 ? NULL :
						    btf__type_by_id(btf, id);

		if (t && t->size > sizeof(struct abi_link_info)) {
			printf("not ok - kernel bpf_link_info is %u bytes, ours %zu\n",
			       t->size, sizeof(struct abi_link_info));
			failures++;
		}
	}
	btf__free(btf);
	printf("# %d checked, %d skipped, %d failed\n", checked, skipped,
	       failures);
	return failures ? 1 : 0;
}
