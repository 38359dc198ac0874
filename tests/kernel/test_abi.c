// SPDX-License-Identifier: GPL-2.0-only
/*
 * Checks the project's copy of the perf link ABI (bpf/read/link_info.h) against
 * the running kernel's BTF: every member offset, and every enum value.
 * Members the kernel does not have are skipped; a mismatch fails. Reads
 * /sys/kernel/btf/vmlinux: suite kernel (no root needed).
 */
#include <bpf/btf.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "counter_load.h"
#include "link_info.h"
#include "multi_targets.h"

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
	__s32 root =
		btf__find_by_name_kind(btf, "bpf_link_info", BTF_KIND_STRUCT);
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
		skip("%s: not in this kernel's BTF", path);
		return;
	}
	CHECK(kernel == ours, "%s: kernel offset %zu, ours %zu", path, kernel,
	      ours);
}

/* @required: absent from the kernel's enum fails; else it is a newer
 * value than this kernel has, and skips */
static void check_enum_of(const struct btf *btf, const char *enum_name,
			  const char *name, long ours, bool required)
{
	__s32 id = btf__find_by_name_kind(btf, enum_name, BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;
	int i;

	if (id < 0) {
		skip("%s: no enum %s", name, enum_name);
		return;
	}
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++, e++) {
		if (strcmp(btf__name_by_offset(btf, e->name_off), name))
			continue;
		CHECK(e->val == ours, "%s: kernel %d, ours %ld", name, e->val,
		      ours);
		return;
	}
	if (required)
		CHECK(false, "%s in the kernel's enum", name);
	else
		skip("%s: newer than this kernel", name);
}

static void check_enum(const struct btf *btf, const char *name, long ours)
{
	check_enum_of(btf, "bpf_perf_event_type", name, ours, true);
}

/* The kernel's struct may be smaller (older), never larger than ours. */
static void check_size(const struct btf *btf)
{
	__s32 id =
		btf__find_by_name_kind(btf, "bpf_link_info", BTF_KIND_STRUCT);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(btf, id);

	CHECK(!t || t->size <= sizeof(struct abi_link_info),
	      "kernel bpf_link_info is %u bytes, ours %zu", t ? t->size : 0,
	      sizeof(struct abi_link_info));
}

/* clang-format off */
#define MEMBER(m) { #m, offsetof(struct abi_link_info, m) }
/* clang-format on */

static const struct {
	const char *path;
	size_t offset;
} members[] = {
	MEMBER(type),
	MEMBER(id),
	MEMBER(prog_id),
	MEMBER(perf_event),
	MEMBER(perf_event.type),
	MEMBER(perf_event.uprobe.file_name),
	MEMBER(perf_event.uprobe.name_len),
	MEMBER(perf_event.uprobe.offset),
	MEMBER(perf_event.uprobe.cookie),
	MEMBER(perf_event.uprobe.ref_ctr_offset),
	MEMBER(perf_event.kprobe.func_name),
	MEMBER(perf_event.kprobe.name_len),
	MEMBER(perf_event.kprobe.offset),
	MEMBER(perf_event.kprobe.addr),
	MEMBER(perf_event.kprobe.missed),
	MEMBER(perf_event.kprobe.cookie),
	MEMBER(perf_event.tracepoint.tp_name),
	MEMBER(perf_event.tracepoint.name_len),
	MEMBER(perf_event.tracepoint.cookie),
	MEMBER(perf_event.event.config),
	MEMBER(perf_event.event.type),
	MEMBER(perf_event.event.cookie),
	MEMBER(raw_tracepoint.tp_name),
	MEMBER(raw_tracepoint.tp_name_len),
	MEMBER(raw_tracepoint.cookie),
	MEMBER(tracing.attach_type),
	MEMBER(tracing.target_obj_id),
	MEMBER(tracing.target_btf_id),
	MEMBER(tracing.cookie),
	MEMBER(cgroup.cgroup_id),
	MEMBER(cgroup.attach_type),
	MEMBER(netns.netns_ino),
	MEMBER(netns.attach_type),
	MEMBER(kprobe_multi.addrs),
	MEMBER(kprobe_multi.count),
	MEMBER(kprobe_multi.flags),
	MEMBER(kprobe_multi.missed),
	MEMBER(kprobe_multi.cookies),
	MEMBER(uprobe_multi.path),
	MEMBER(uprobe_multi.offsets),
	MEMBER(uprobe_multi.ref_ctr_offsets),
	MEMBER(uprobe_multi.cookies),
	MEMBER(uprobe_multi.path_size),
	MEMBER(uprobe_multi.count),
	MEMBER(uprobe_multi.flags),
	MEMBER(uprobe_multi.pid),
	MEMBER(tcx.ifindex),
	MEMBER(tcx.attach_type),
	MEMBER(netkit.ifindex),
	MEMBER(netkit.attach_type),
	MEMBER(sockmap.map_id),
	MEMBER(sockmap.attach_type),
	MEMBER(xdp.ifindex),
	MEMBER(struct_ops.map_id),
};

static const struct {
	const char *name;
	long value;
} kinds[] = {
	{"BPF_PERF_EVENT_UNSPEC", PERF_LINK_UNSPEC},
	{"BPF_PERF_EVENT_UPROBE", PERF_LINK_UPROBE},
	{"BPF_PERF_EVENT_URETPROBE", PERF_LINK_URETPROBE},
	{"BPF_PERF_EVENT_KPROBE", PERF_LINK_KPROBE},
	{"BPF_PERF_EVENT_KRETPROBE", PERF_LINK_KRETPROBE},
	{"BPF_PERF_EVENT_TRACEPOINT", PERF_LINK_TRACEPOINT},
	{"BPF_PERF_EVENT_EVENT", PERF_LINK_EVENT},
};

/*
 * The multi links (bpf/read/multi_targets.h): the uprobe_multi part of union
 * bpf_attr's link_create (made with bpf(2) directly), and the attach types
 * their programs are loaded with.
 */
static int offset_in(const struct btf *btf, const char *root, int kind,
		     const char *path, size_t *bytes)
{
	char buf[128], *save = NULL, *tok;
	__s32 id = btf__find_by_name_kind(btf, root, kind);
	__u32 type, bits, total = 0;

	if (id < 0)
		return -ENOENT;
	type = id;
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

/* clang-format off */
#define CREATE(m, ours) { "bpf_attr", BTF_KIND_UNION, \
	"link_create.uprobe_multi." #m, \
	offsetof(struct abi_link_create_uprobe_multi, ours) }
/* clang-format on */

static const struct {
	const char *root;
	int kind;
	const char *path;
	size_t offset;
} multi_members[] = {
	{"bpf_attr", BTF_KIND_UNION, "link_create.prog_fd",
	 offsetof(struct abi_link_create_uprobe_multi, prog_fd)},
	{"bpf_attr", BTF_KIND_UNION, "link_create.attach_type",
	 offsetof(struct abi_link_create_uprobe_multi, attach_type)},
	{"bpf_attr", BTF_KIND_UNION, "link_create.flags",
	 offsetof(struct abi_link_create_uprobe_multi, flags)},
	CREATE(path, path),
	CREATE(offsets, offsets),
	CREATE(ref_ctr_offsets, ref_ctr_offsets),
	CREATE(cookies, cookies),
	CREATE(cnt, cnt),
	CREATE(flags, uflags),
	CREATE(pid, pid),
};

static const struct {
	const char *type, *name;
	long value;
} multi_enums[] = {
	{"bpf_attach_type", "BPF_TRACE_KPROBE_MULTI",
	 COUNTER_ATTACH_KPROBE_MULTI},
	{"bpf_attach_type", "BPF_TRACE_UPROBE_MULTI",
	 COUNTER_ATTACH_UPROBE_MULTI},
};

static void check_multi_enum(const struct btf *btf, const char *type,
			     const char *name, long ours)
{
	__s32 id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;
	int i;

	if (id < 0) {
		skip("%s: no enum %s", name, type);
		return;
	}
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++, e++)
		if (!strcmp(btf__name_by_offset(btf, e->name_off), name)) {
			CHECK(e->val == ours, "%s: kernel %d, ours %ld", name,
			      e->val, ours);
			return;
		}
	skip("%s: not in this kernel's enum %s", name, type);
}

static void check_multi(const struct btf *btf)
{
	size_t i, kernel;

	for (i = 0; i < sizeof(multi_members) / sizeof(multi_members[0]); i++) {
		if (offset_in(btf, multi_members[i].root, multi_members[i].kind,
			      multi_members[i].path, &kernel)) {
			skip("%s.%s: not in this kernel's BTF",
			     multi_members[i].root, multi_members[i].path);
			continue;
		}
		CHECK(kernel == multi_members[i].offset,
		      "%s.%s: kernel offset %zu, ours %zu",
		      multi_members[i].root, multi_members[i].path, kernel,
		      multi_members[i].offset);
	}
	for (i = 0; i < sizeof(multi_enums) / sizeof(multi_enums[0]); i++)
		check_multi_enum(btf, multi_enums[i].type, multi_enums[i].name,
				 multi_enums[i].value);
}

/* link types, attach types and multi flags the project names itself */
static const struct {
	const char *enum_name, *name;
	long value;
} other_enums[] = {
	{"bpf_link_type", "BPF_LINK_TYPE_RAW_TRACEPOINT",
	 LINK_TYPE_RAW_TRACEPOINT},
	{"bpf_link_type", "BPF_LINK_TYPE_TRACING", LINK_TYPE_TRACING},
	{"bpf_link_type", "BPF_LINK_TYPE_CGROUP", LINK_TYPE_CGROUP},
	{"bpf_link_type", "BPF_LINK_TYPE_ITER", LINK_TYPE_ITER},
	{"bpf_link_type", "BPF_LINK_TYPE_NETNS", LINK_TYPE_NETNS},
	{"bpf_link_type", "BPF_LINK_TYPE_XDP", LINK_TYPE_XDP},
	{"bpf_link_type", "BPF_LINK_TYPE_PERF_EVENT", LINK_TYPE_PERF_EVENT},
	{"bpf_link_type", "BPF_LINK_TYPE_KPROBE_MULTI", LINK_TYPE_KPROBE_MULTI},
	{"bpf_link_type", "BPF_LINK_TYPE_STRUCT_OPS", LINK_TYPE_STRUCT_OPS},
	{"bpf_link_type", "BPF_LINK_TYPE_NETFILTER", LINK_TYPE_NETFILTER},
	{"bpf_link_type", "BPF_LINK_TYPE_TCX", LINK_TYPE_TCX},
	{"bpf_link_type", "BPF_LINK_TYPE_UPROBE_MULTI", LINK_TYPE_UPROBE_MULTI},
	{"bpf_link_type", "BPF_LINK_TYPE_NETKIT", LINK_TYPE_NETKIT},
	{"bpf_link_type", "BPF_LINK_TYPE_SOCKMAP", LINK_TYPE_SOCKMAP},
	{"bpf_attach_type", "BPF_TRACE_FENTRY", ATTACH_TRACE_FENTRY},
	{"bpf_attach_type", "BPF_TRACE_FEXIT", ATTACH_TRACE_FEXIT},
	{"bpf_attach_type", "BPF_MODIFY_RETURN", ATTACH_MODIFY_RETURN},
	{"bpf_attach_type", "BPF_LSM_MAC", ATTACH_LSM_MAC},
	{"bpf_attach_type", "BPF_LSM_CGROUP", ATTACH_LSM_CGROUP},
	{"bpf_attach_type", "BPF_TRACE_KPROBE_SESSION",
	 ATTACH_TRACE_KPROBE_SESSION},
	{"bpf_attach_type", "BPF_TRACE_UPROBE_SESSION",
	 ATTACH_TRACE_UPROBE_SESSION},
};

/* attach_type_name()'s own names: the kernel's enumerator, lower case,
 * without BPF_ (and the one kernel rename, BPF_TRACE_UPROBE_MULTI) */
static void check_attach_type_names(const struct btf *btf)
{
	__s32 id =
		btf__find_by_name_kind(btf, "bpf_attach_type", BTF_KIND_ENUM);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(btf, id);
	const struct btf_enum *e;
	char want[64];
	size_t k;
	int i;

	if (!t) {
		skip("no enum bpf_attach_type");
		return;
	}
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++, e++) {
		const char *n = btf__name_by_offset(btf, e->name_off);
		const char *ours = attach_type_name(e->val);

		if (e->val < ATTACH_LSM_CGROUP || strncmp(n, "BPF_", 4) ||
		    n[4] == '_')
			continue;
		if (!ours) {
			skip("%s: no name in this build", n);
			continue;
		}
		for (k = 0; n[4 + k] && k < sizeof(want) - 1; k++)
			want[k] = tolower((unsigned char)n[4 + k]);
		want[k] = '\0';
		CHECK(strcmp(want, ours) == 0, "%s (%d): ours %s", n, e->val,
		      ours);
	}
}

int main(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	size_t i;

	if (!btf)
		skip_all("no kernel BTF (/sys/kernel/btf/vmlinux)");
	for (i = 0; i < sizeof(members) / sizeof(members[0]); i++)
		check_member(btf, members[i].path, members[i].offset);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		check_enum(btf, kinds[i].name, kinds[i].value);
	for (i = 0; i < sizeof(other_enums) / sizeof(other_enums[0]); i++)
		check_enum_of(btf, other_enums[i].enum_name,
			      other_enums[i].name, other_enums[i].value, false);
	check_attach_type_names(btf);
	check_size(btf);
	check_multi(btf);
	btf__free(btf);
	return done_testing();
}
