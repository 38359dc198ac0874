// SPDX-License-Identifier: GPL-2.0-only
/*
 * bare_uprobes: the floor that bpflinkfs's control file is measured against.
 * It makes N uprobe links the plainest way libbpf allows (one perf event
 * from the uprobe PMU, one BPF_PERF_EVENT link, perf fd closed) and times
 * creating them, then closing them from one thread or from T threads.
 *
 *   bare_uprobes [--threads LIST] [--prefix P] [--repeat R] BINARY [N]
 *   bare_uprobes --libbpf-by-name OBJ [--prefix P] BINARY [N]
 *   bare_uprobes --count-links | --count-perf-links
 *   bare_uprobes --count-ids FILE
 *
 * LIST is comma separated thread counts, 1 meaning one thread closing in
 * order (default 1,2,4,8). Every entry is one round: create N, close N.
 * Output is one `key=value ...` line per measurement, for scripts.
 * --libbpf-by-name is what a libbpf user writes instead: the first program
 * of the BPF object OBJ attached N times with bpf_program__attach_uprobe_opts
 * by function name (libbpf resolves each name itself), then every link
 * destroyed with bpf_link__destroy in order.
 * --count-links prints how many BPF link ids exist; --count-perf-links how
 * many of them are perf-event links; --count-ids how many of the ids listed
 * in FILE (whitespace separated) still exist.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#define UPROBE_TYPE_FILE "/sys/bus/event_source/devices/uprobe/type"
#define MAX_THREADS 64

struct target {
	char *name;
	unsigned long offset; /* file offset, as the uprobe PMU wants */
};

struct closer {
	pthread_t tid;
	int *fds;
	size_t n;
	pthread_barrier_t *start;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_target(const void *a, const void *b)
{
	return strcmp(((const struct target *)a)->name,
		      ((const struct target *)b)->name);
}

/* File offset of virtual address @vaddr, from the PT_LOAD holding it. */
static int vaddr_to_offset(Elf *elf, GElf_Addr vaddr, unsigned long *off)
{
	size_t i, nph;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nph))
		return -EINVAL;
	for (i = 0; i < nph; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

/* Appends every FUNC symbol of @scn whose name starts with @prefix. */
static int scan_symtab(Elf *elf, Elf_Scn *scn, const char *prefix,
		       struct target **t, size_t *n)
{
	size_t i, cnt, plen = strlen(prefix);
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Shdr sh;
	GElf_Sym sym;

	if (!data || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return -EINVAL;
	cnt = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < cnt; i++) {
		const char *name;
		void *p;

		if (!gelf_getsym(data, i, &sym) ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || strncmp(name, prefix, plen))
			continue;
		p = realloc(*t, (*n + 1) * sizeof(**t));
		if (!p)
			return -ENOMEM;
		*t = p;
		(*t)[*n].name = strdup(name);
		if (!(*t)[*n].name ||
		    vaddr_to_offset(elf, sym.st_value, &(*t)[*n].offset))
			return -EINVAL;
		(*n)++;
	}
	return 0;
}

/* Targets of @path named @prefix*, sorted by name; count in *@n. */
static int load_targets(const char *path, const char *prefix, struct target **t,
			size_t *n)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int fd, err = -ENOENT;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		close(fd);
		return -EINVAL;
	}
	*t = NULL;
	*n = 0;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			err = scan_symtab(elf, scn, prefix, t, n);
			break;
		}
	elf_end(elf);
	close(fd);
	if (!err)
		qsort(*t, *n, sizeof(**t), cmp_target);
	return err;
}

static int uprobe_pmu_type(void)
{
	FILE *f = fopen(UPROBE_TYPE_FILE, "re");
	int type = -1;

	if (!f)
		return -errno;
	if (fscanf(f, "%d", &type) != 1)
		type = -EINVAL;
	fclose(f);
	return type;
}

/* The smallest program a uprobe runs: r0 = 0; exit. */
static int load_prog(void)
{
	struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "bare_uprobe", "GPL",
			       insns, 2, NULL);

	return fd < 0 ? -errno : fd;
}

/* One uprobe link on @path at file offset @off; returns its fd. */
static int make_link(int pmu, int prog, const char *path, unsigned long off)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = pmu,
		.config1 = (unsigned long)path,
		.config2 = off,
	};
	int pfd, lfd, err;

	/* Every process: pid -1 needs a cpu, and uprobes fire on any. */
	pfd = syscall(SYS_perf_event_open, &attr, -1, 0, -1,
		      PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return -errno;
	lfd = bpf_link_create(prog, pfd, BPF_PERF_EVENT, NULL);
	err = -errno;
	close(pfd); /* the link holds the event */
	return lfd < 0 ? err : lfd;
}

static void *closer_main(void *arg)
{
	struct closer *c = arg;
	size_t i;

	pthread_barrier_wait(c->start);
	for (i = 0; i < c->n; i++)
		close(c->fds[i]);
	return NULL;
}

/* Closes @fds from @nthreads threads, contiguous shares; seconds taken. */
static double close_all(int *fds, size_t n, int nthreads)
{
	struct closer c[MAX_THREADS];
	pthread_barrier_t start;
	size_t done = 0;
	double t0;
	int i;

	if (nthreads == 1) {
		t0 = now_s();
		for (done = 0; done < n; done++)
			close(fds[done]);
		return now_s() - t0;
	}
	pthread_barrier_init(&start, NULL, nthreads + 1);
	for (i = 0; i < nthreads; i++) {
		size_t share = n / nthreads + ((size_t)i < n % nthreads);

		c[i] = (struct closer){
			.fds = fds + done, .n = share, .start = &start};
		done += share;
		if (pthread_create(&c[i].tid, NULL, closer_main, &c[i])) {
			fputs("bare_uprobes: pthread_create failed\n", stderr);
			exit(1);
		}
	}
	pthread_barrier_wait(&start);
	t0 = now_s();
	for (i = 0; i < nthreads; i++)
		pthread_join(c[i].tid, NULL);
	pthread_barrier_destroy(&start);
	return now_s() - t0;
}

/* Number of BPF link ids on the system (ids only: the cheapest count). */
static long count_links(void)
{
	__u32 id = 0;
	long n = 0;

	while (!bpf_link_get_next_id(id, &id))
		n++;
	return errno == ENOENT ? n : -errno;
}

/*
 * Number of perf-event links (uprobes among them). Unlike the other counters
 * it opens each id, for the type: run it only while no link is being
 * created or measured, since a link whose owner closes it while we hold it
 * is released by our close.
 */
static long count_perf_links(void)
{
	__u32 id = 0;
	long n = 0;

	while (!bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_link_get_fd_by_id(id);

		if (fd < 0)
			continue; /* gone since get_next_id */
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    info.type == BPF_LINK_TYPE_PERF_EVENT)
			n++;
		close(fd);
	}
	return errno == ENOENT ? n : -errno;
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * How many of @ids (sorted) the kernel still lists. It walks the id list
 * instead of opening each id, since an fd we open would hold the link and
 * make us, not its owner, pay for its release.
 */
static size_t ids_left(const __u32 *ids, size_t n)
{
	size_t left = 0;
	__u32 id = 0;

	while (!bpf_link_get_next_id(id, &id))
		left += !!bsearch(&id, ids, n, sizeof(*ids), cmp_u32);
	return left;
}

/* --count-ids FILE: how many of the link ids in FILE still exist. */
static int count_ids(const char *file)
{
	FILE *f = fopen(file, "re");
	__u32 *ids = NULL, v;
	size_t n = 0;

	if (!f) {
		perror(file);
		return 1;
	}
	while (fscanf(f, "%u", &v) == 1) {
		void *p = realloc(ids, (n + 1) * sizeof(*ids));

		if (!p)
			return 1;
		ids = p;
		ids[n++] = v;
	}
	fclose(f);
	qsort(ids, n, sizeof(*ids), cmp_u32);
	printf("%zu\n", ids_left(ids, n));
	free(ids);
	return 0;
}

static void record_ids(const int *fds, __u32 *ids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);

		ids[i] = bpf_obj_get_info_by_fd(fds[i], &info, &len) ? 0
								     : info.id;
	}
}

/* Creates N links, closes them from @nthreads threads, prints both times. */
static int round_once(int pmu, int prog, const char *path,
		      const struct target *t, size_t n, int nthreads)
{
	int *fds = calloc(n, sizeof(*fds));
	__u32 *ids = calloc(n, sizeof(*ids));
	double t0, create_s, close_s;
	size_t i;

	if (!fds || !ids)
		return -ENOMEM;
	t0 = now_s();
	for (i = 0; i < n; i++) {
		fds[i] = make_link(pmu, prog, path, t[i].offset);
		if (fds[i] < 0) {
			fprintf(stderr, "bare_uprobes: %s: %s\n", t[i].name,
				strerror(-fds[i]));
			close_all(fds, i, 1);
			return -1;
		}
	}
	create_s = now_s() - t0;
	record_ids(fds, ids, n);
	qsort(ids, n, sizeof(*ids), cmp_u32);
	close_s = close_all(fds, n, nthreads);
	printf("bare create n=%zu s=%.6f rate=%.1f\n", n, create_s,
	       n / create_s);
	printf("bare close threads=%d n=%zu s=%.6f rate=%.1f ids_left=%zu\n",
	       nthreads, n, close_s, n / close_s, ids_left(ids, n));
	fflush(stdout);
	free(fds);
	free(ids);
	return 0;
}

/* Attaches @prog to @t[0..n) by name; the links in @links. */
static int attach_by_name(struct bpf_program *prog, const char *path,
			  const struct target *t, size_t n,
			  struct bpf_link **links)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo);
	size_t i;

	for (i = 0; i < n; i++) {
		uo.func_name = t[i].name;
		links[i] = bpf_program__attach_uprobe_opts(prog, -1, path, 0,
							   &uo);
		if (!links[i]) {
			int err = -errno;

			fprintf(stderr, "bare_uprobes: libbpf: %s: %s\n",
				t[i].name, strerror(-err));
			while (i--)
				bpf_link__destroy(links[i]);
			return err;
		}
	}
	return 0;
}

/*
 * --libbpf-by-name: N links through libbpf's by-name uprobe attach, timed
 * like round_once (create, then destroy in order from one thread).
 */
static int libbpf_round(const char *obj_path, const char *path,
			const struct target *t, size_t n)
{
	struct bpf_link **links = calloc(n, sizeof(*links));
	__u32 *ids = calloc(n, sizeof(*ids));
	double t0, create_s, destroy_s;
	struct bpf_program *prog;
	struct bpf_object *obj;
	size_t i;
	int err;

	if (!links || !ids)
		return -ENOMEM;
	obj = bpf_object__open_file(obj_path, NULL);
	if (!obj)
		return -errno;
	err = bpf_object__load(obj);
	prog = err ? NULL : bpf_object__next_program(obj, NULL);
	if (!prog) {
		fprintf(stderr, "bare_uprobes: %s: %s\n", obj_path,
			err ? strerror(-err) : "no program");
		bpf_object__close(obj);
		return err ? err : -ENOENT;
	}
	t0 = now_s();
	err = attach_by_name(prog, path, t, n, links);
	create_s = now_s() - t0;
	if (err) {
		bpf_object__close(obj);
		return err;
	}
	for (i = 0; i < n; i++) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);

		if (!bpf_obj_get_info_by_fd(bpf_link__fd(links[i]), &info,
					    &len))
			ids[i] = info.id;
	}
	qsort(ids, n, sizeof(*ids), cmp_u32);
	t0 = now_s();
	for (i = 0; i < n; i++)
		bpf_link__destroy(links[i]);
	destroy_s = now_s() - t0;
	printf("libbpf create n=%zu s=%.6f rate=%.1f\n", n, create_s,
	       n / create_s);
	printf("libbpf destroy threads=1 n=%zu s=%.6f rate=%.1f ids_left=%zu\n",
	       n, destroy_s, n / destroy_s, ids_left(ids, n));
	bpf_object__close(obj);
	free(links);
	free(ids);
	return 0;
}

static int parse_threads(const char *s, int *list, int max)
{
	int n = 0;

	while (*s && n < max) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s || v < 1 || v > MAX_THREADS ||
		    (*end && *end != ','))
			return -EINVAL;
		list[n++] = v;
		s = *end ? end + 1 : end;
	}
	return n ? n : -EINVAL;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bare_uprobes [--threads 1,2,4,8] [--prefix P] "
		"[--repeat R] BINARY [N]\n"
		"       bare_uprobes --libbpf-by-name OBJ [--prefix P] "
		"BINARY [N]\n"
		"       bare_uprobes --count-links | --count-perf-links | "
		"--count-ids FILE\n");
	exit(2);
}

static void raise_nofile(void)
{
	struct rlimit r;

	if (!getrlimit(RLIMIT_NOFILE, &r)) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

struct options {
	const char *prefix, *obj;
	int threads[16];
	int nthr, repeat;
};

/* --count-links / --count-perf-links: the number of links, or why not. */
static int print_link_count(bool perf_only)
{
	long c = perf_only ? count_perf_links() : count_links();

	if (c < 0) {
		fprintf(stderr, "bare_uprobes: %s\n", strerror(-c));
		return 1;
	}
	printf("%ld\n", c);
	return 0;
}

/* Options up to the first operand; its index, or -1 when the run is over
 * (a --count-* mode ran, its exit code in *@rc). */
static int parse_opts(int argc, char **argv, struct options *o, int *rc)
{
	int argi;

	for (argi = 1; argi < argc && !strncmp(argv[argi], "--", 2); argi++) {
		if (!strcmp(argv[argi], "--count-links") ||
		    !strcmp(argv[argi], "--count-perf-links")) {
			*rc = print_link_count(!strcmp(argv[argi],
						       "--count-perf-links"));
			return -1;
		}
		if (argi + 1 >= argc)
			usage();
		if (!strcmp(argv[argi], "--count-ids")) {
			*rc = count_ids(argv[argi + 1]);
			return -1;
		}
		if (!strcmp(argv[argi], "--threads"))
			o->nthr = parse_threads(argv[++argi], o->threads, 16);
		else if (!strcmp(argv[argi], "--libbpf-by-name"))
			o->obj = argv[++argi];
		else if (!strcmp(argv[argi], "--prefix"))
			o->prefix = argv[++argi];
		else if (!strcmp(argv[argi], "--repeat"))
			o->repeat = atoi(argv[++argi]);
		else
			usage();
		if (o->nthr < 0 || o->repeat < 1)
			usage();
	}
	if (argi >= argc || argc - argi > 2)
		usage();
	return argi;
}

int main(int argc, char **argv)
{
	struct options o = {"bench_fn_", NULL, {1, 2, 4, 8}, 4, 1};
	struct target *t = NULL;
	int i, r, pmu, prog, rc = 0, argi;
	size_t n = 0, want;
	char *canon;

	argi = parse_opts(argc, argv, &o, &rc);
	if (argi < 0)
		return rc;
	want = argi + 1 < argc ? strtoul(argv[argi + 1], NULL, 10) : 1000;
	canon = realpath(argv[argi], NULL);
	if (!canon || load_targets(canon, o.prefix, &t, &n)) {
		fprintf(stderr, "bare_uprobes: %s: cannot read its symbols\n",
			argv[argi]);
		return 1;
	}
	if (n < want || !want) {
		fprintf(stderr, "bare_uprobes: %s has %zu %s*, want %zu\n",
			canon, n, o.prefix, want);
		return 1;
	}
	raise_nofile();
	if (o.obj) {
		rc = libbpf_round(o.obj, canon, t, want);
		if (rc)
			fprintf(stderr, "bare_uprobes: libbpf: %s\n",
				strerror(-rc));
		return rc ? 1 : 0;
	}
	pmu = uprobe_pmu_type();
	prog = load_prog();
	if (pmu < 0 || prog < 0) {
		fprintf(stderr, "bare_uprobes: %s: %s\n",
			pmu < 0 ? "uprobe PMU" : "program load",
			strerror(pmu < 0 ? -pmu : -prog));
		return 77;
	}
	for (r = 0; r < o.repeat; r++)
		for (i = 0; i < o.nthr; i++)
			if (round_once(pmu, prog, canon, t, want, o.threads[i]))
				return 1;
	return 0;
}
