// SPDX-License-Identifier: GPL-2.0-only
/*
 * link_info_from_task_fd() against links made by mklinks (no bpflinkfs
 * code): with --keep-perf-fd, a uprobe, uretprobe and tracepoint link give
 * the kind, path or event name and offset mklinks was told to use; a
 * software event (which BPF_TASK_FD_QUERY does not answer), links whose perf
 * fd is closed, and an id that does not exist give -ENOENT. Where the kernel
 * has perf link info, the answers must also agree with it.
 *
 * Usage: test_taskfd [MKLINKS TARGET] (default: $MKLINKS and $TARGET).
 * The uprobe goes on the ELF entry point of TARGET, an instruction start.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "check.h"
#include "child.h"
#include "link_info.h"
#include "taskfd_query.h"


struct mkl_link {
	unsigned int id, prog_id;
	char type[16];
	char name[PATH_MAX];
	unsigned long long offset; /* uprobe only */
};

/* File offset of the ELF entry point, from the program headers. */
static long entry_file_offset(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	long off = -1;
	int i, fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64)
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			break;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    eh.e_entry >= ph.p_vaddr &&
		    eh.e_entry < ph.p_vaddr + ph.p_filesz) {
			off = (long)(eh.e_entry - ph.p_vaddr + ph.p_offset);
			break;
		}
	}
out:
	close(fd);
	return off;
}

/* Read @n link lines and "ready". Return: 0, or -EIO. */
static int mkl_read(struct test_child *m, struct mkl_link *l, int n)
{
	char line[PATH_MAX + 128], off[32];
	int i;

	for (i = 0; i < n; i++) {
		if (!fgets(line, sizeof(line), m->out) ||
		    sscanf(line, "%u\t%15s\t%4095[^\t]\t%31s\t%*s\t%u",
			   &l[i].id, l[i].type, l[i].name, off,
			   &l[i].prog_id) != 5)
			return -EIO;
		l[i].offset = strtoull(off, NULL, 0);
	}
	if (!fgets(line, sizeof(line), m->out) || strcmp(line, "ready\n"))
		return -EIO;
	return 0;
}


/* With perf link info, the kernel's own answer must match too. */
static void check_vs_link_info(const struct mkl_link *l,
			       const struct link_fields *t)
{
	static struct link_fields k;

	if (!link_features()->perf_link_info || link_info_read(l->id, &k))
		return;
	CHECK(k.kind == t->kind && !strcmp(k.name, t->name) &&
		      k.offset == t->offset,
	      "link %u: agrees with perf link info (%d %s 0x%llx)", l->id,
	      k.kind, k.name, (unsigned long long)k.offset);
}

static void check_kept(const struct mkl_link *l)
{
	static struct link_fields f;
	const char *want_name = l->name;
	enum perf_link_kind want = PERF_LINK_UPROBE;
	int err;

	memset(&f, 0, sizeof(f));
	err = link_info_from_task_fd(l->id, l->prog_id, &f);
	if (!strcmp(l->type, "software")) {
		CHECK(err == -ENOENT, "%s link %u: -ENOENT (got %d)", l->type,
		      l->id, err);
		return;
	}
	if (!strcmp(l->type, "uretprobe"))
		want = PERF_LINK_URETPROBE;
	if (!strcmp(l->type, "tracepoint")) {
		want = PERF_LINK_TRACEPOINT;
		want_name = strchr(l->name, ':') + 1; /* no category */
	}
	CHECK(err == 0, "%s link %u: answered (%d)", l->type, l->id, err);
	if (err)
		return;
	CHECK(f.kind == want, "%s link %u: kind %d", l->type, l->id, f.kind);
	CHECK(!strcmp(f.name, want_name), "%s link %u: name '%s'", l->type,
	      l->id, f.name);
	if (want != PERF_LINK_TRACEPOINT)
		CHECK(f.offset == l->offset, "%s link %u: offset 0x%llx",
		      l->type, l->id, (unsigned long long)f.offset);
	check_vs_link_info(l, &f);
}

static int run(const char *mklinks, const char *target, long entry)
{
	char up[PATH_MAX + 64], urp[PATH_MAX + 64];
	char *kept[] = {(char *)mklinks, "--keep-perf-fd", up, urp,
			"tracepoint:sched:sched_process_exec:7",
			"software:cpu-clock:0:0", NULL};
	char *closed[] = {(char *)mklinks,
			  "tracepoint:sched:sched_process_exec:0", NULL};
	struct mkl_link *l = calloc(4, sizeof(*l));
	static struct link_fields f;
	struct test_child m;
	int i, err;

	snprintf(up, sizeof(up), "uprobe:%s:0x%lx:1", target, entry);
	snprintf(urp, sizeof(urp), "uretprobe:%s:0x%lx:2", target, entry);
	if (!CHECK(l && !child_start(&m, kept) && !mkl_read(&m, l, 4),
		   "mklinks --keep-perf-fd made 4 links"))
		return 1;
	for (i = 0; i < 4; i++)
		check_kept(&l[i]);
	err = link_info_from_task_fd(l[0].id, l[0].prog_id + 100000, &f);
	CHECK(err == -ENOENT, "wrong prog id: -ENOENT (got %d)", err);
	child_stop(&m);
	if (!CHECK(!child_start(&m, closed) && !mkl_read(&m, l, 1),
		   "mklinks made a link"))
		return 1;
	err = link_info_from_task_fd(l[0].id, l[0].prog_id, &f);
	CHECK(err == -ENOENT, "perf fd closed: -ENOENT (got %d)", err);
	child_stop(&m);
	err = link_info_from_task_fd(0xfffffff0u, 1, &f);
	CHECK(err == -ENOENT, "no such link: -ENOENT (got %d)", err);
	free(l);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mklinks = argc > 2 ? argv[1] : getenv("MKLINKS");
	const char *target = argc > 2 ? argv[2] : getenv("TARGET");
	struct stat st;
	long entry;

	if (geteuid())
		skip_all("needs root");
	if (!mklinks || !target || access(mklinks, X_OK))
		skip_all("no mklinks (set MKLINKS and TARGET)");
	if (stat("/sys/kernel/tracing/events/sched/sched_process_exec", &st))
		skip_all("no tracefs at /sys/kernel/tracing");
	entry = entry_file_offset(target);
	if (entry < 0)
		bail_out("no entry point in %s", target);
	signal(SIGPIPE, SIG_IGN);
	link_features_detect();
	run(mklinks, target, entry);
	return done_testing();
}
