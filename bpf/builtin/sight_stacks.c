// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading a stacks= link's maps (progs/sight.bpf.c): the stacks and their
 * hits, and user frames named as the `symbol` file names an offset. The
 * kernel gives a user frame as the build id of its file and the offset in
 * it; the files are found by build id among those the daemon knows: the
 * probed file, the daemon's own mappings (libc, ld.so) and, while the
 * process runs, its mappings (through /proc/PID/map_files, so a process in
 * another mount namespace is read in its own world). A frame the kernel
 * could give only as an address is named through the process's mappings.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>

#include <bpf/bpf.h>

#include "sight.h"
#include "uprobe_target.h"

struct sight_stacks {
	int ustack_fd, ubidmap_fd, ubid_fd, kstack_fd, stacks_fd, dropped_fd;
};

int sight_stacks_open(__u32 prog_id, struct sight_stacks **out)
{
	struct sight_stacks *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->ustack_fd = sight_map_of_prog(prog_id, "sight_ustackmap");
	s->ubidmap_fd = sight_map_of_prog(prog_id, "sight_ubidmap");
	s->ubid_fd = sight_map_of_prog(prog_id, "sight_ubid");
	s->kstack_fd = sight_map_of_prog(prog_id, "sight_kstackmap");
	s->stacks_fd = sight_map_of_prog(prog_id, "sight_stacks");
	s->dropped_fd = sight_map_of_prog(prog_id, "sight_dropped");
	if (s->ustack_fd < 0 || s->ubidmap_fd < 0 || s->ubid_fd < 0 ||
	    s->kstack_fd < 0 || s->stacks_fd < 0 || s->dropped_fd < 0) {
		sight_stacks_close(s);
		return -ENOENT;
	}
	*out = s;
	return 0;
}

void sight_stacks_close(struct sight_stacks *s)
{
	if (!s)
		return;
	if (s->ustack_fd >= 0)
		close(s->ustack_fd);
	if (s->ubidmap_fd >= 0)
		close(s->ubidmap_fd);
	if (s->ubid_fd >= 0)
		close(s->ubid_fd);
	if (s->kstack_fd >= 0)
		close(s->kstack_fd);
	if (s->stacks_fd >= 0)
		close(s->stacks_fd);
	if (s->dropped_fd >= 0)
		close(s->dropped_fd);
	free(s);
}

static int stack_key_cmp(const void *x, const void *y)
{
	const struct sight_stack_row *a = x, *b = y;

	return memcmp(&a->key, &b->key, sizeof(a->key));
}

int sight_stacks_rows(struct sight_stacks *s, struct sight_stack_row **rows,
		      size_t *n, __u64 *dropped)
{
	size_t i, u = 0;
	struct sight_stack_key k, next;
	struct sight_stack_row *r = calloc(SIGHT_STACKS, sizeof(*r));
	void *prev = NULL;
	__u32 zero = 0;

	if (!r)
		return -ENOMEM;
	*n = 0;
	while (*n < SIGHT_STACKS &&
	       !bpf_map_get_next_key(s->stacks_fd, prev, &next)) {
		k = next;
		prev = &k;
		r[*n].key = k;
		if (!bpf_map_lookup_elem(s->stacks_fd, &k, &r[*n].hits))
			(*n)++;
	}
	if (bpf_map_lookup_elem(s->dropped_fd, &zero, dropped))
		*dropped = 0;
	/* a walk restarts when its key goes meanwhile: keep a key once */
	qsort(r, *n, sizeof(*r), stack_key_cmp);
	for (i = 0; i < *n; i++)
		if (!u || stack_key_cmp(&r[u - 1], &r[i]))
			r[u++] = r[i];
	*n = u;
	*rows = r;
	return 0;
}

int sight_stack_ips(struct sight_stacks *s, __s32 id, __u64 *ips)
{
	int n;

	if (id < 0)
		return 0;
	memset(ips, 0, SIGHT_STACK_DEPTH * sizeof(*ips));
	if (bpf_map_lookup_elem(s->kstack_fd, &id, ips))
		return -errno;
	for (n = 0; n < SIGHT_STACK_DEPTH && ips[n]; n++)
		;
	return n;
}

/* Stack @id of the address map @fd as frames given by address */
static int frames_of_ips(int fd, __s32 id, struct bpf_stack_build_id *f)
{
	__u64 ips[SIGHT_STACK_DEPTH];
	int n;

	memset(ips, 0, sizeof(ips));
	if (bpf_map_lookup_elem(fd, &id, ips))
		return -errno;
	for (n = 0; n < SIGHT_STACK_DEPTH && ips[n]; n++) {
		f[n].status = BPF_STACK_BUILD_ID_IP;
		f[n].ip = ips[n];
	}
	return n;
}

int sight_stack_frames(struct sight_stacks *s, __s32 id,
		       struct bpf_stack_build_id *f)
{
	__s32 bid;
	int n;

	if (id < 0)
		return 0;
	memset(f, 0, SIGHT_STACK_DEPTH * sizeof(*f));
	/* the build-id form, taken when the stack was first seen; else the
	 * addresses, named while the process runs */
	if (bpf_map_lookup_elem(s->ubid_fd, &id, &bid) ||
	    bpf_map_lookup_elem(s->ubidmap_fd, &bid, f))
		return frames_of_ips(s->ustack_fd, id, f);
	for (n = 0;
	     n < SIGHT_STACK_DEPTH && f[n].status != BPF_STACK_BUILD_ID_EMPTY;
	     n++)
		;
	return n;
}

/* One line of /proc/PID/maps with a file */
struct umap {
	__u64 start, end, pgoff;
	char *path;
};

/* A file by its build id */
struct ufile {
	unsigned char id[BPF_BUILD_ID_SIZE];
	char *path;
};

struct sight_umaps {
	__u32 tgid;
	bool loaded;
	struct umap *v;
	size_t n;
	struct ufile *files;
	size_t nfiles;
};

/* The GNU build id of the ELF file at @path into @id (zero-padded) */
static int build_id_of(const char *path, unsigned char *id)
{
	int fd, ret = -ENOENT;
	Elf_Scn *scn = NULL;
	struct stat st;
	Elf *e;

	/* a regular file only: opening a mapped device can block or act */
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (e && ret && (scn = elf_nextscn(e, scn))) {
		size_t off = 0, name_off, desc_off;
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		while (ret && (off = gelf_getnote(d, off, &nh, &name_off,
						  &desc_off)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + name_off, "GNU", 4)) {
				memset(id, 0, BPF_BUILD_ID_SIZE);
				memcpy(id, (char *)d->d_buf + desc_off,
				       nh.n_descsz < BPF_BUILD_ID_SIZE
					       ? nh.n_descsz
					       : BPF_BUILD_ID_SIZE);
				ret = 0;
			}
	}
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

int sight_umaps_add_file(struct sight_umaps *u, const char *path)
{
	unsigned char id[BPF_BUILD_ID_SIZE];
	struct ufile *f;
	size_t i;
	int err = build_id_of(path, id);

	if (err)
		return err;
	for (i = 0; i < u->nfiles; i++)
		if (!memcmp(u->files[i].id, id, sizeof(id)))
			return 0;
	f = realloc(u->files, (u->nfiles + 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	u->files = f;
	memcpy(f[u->nfiles].id, id, sizeof(id));
	f[u->nfiles].path = strdup(path);
	if (!f[u->nfiles].path)
		return -ENOMEM;
	u->nfiles++;
	return 0;
}

static void umaps_load(struct sight_umaps *u, __u32 tgid);

struct sight_umaps *sight_umaps_new(void)
{
	struct sight_umaps *u = calloc(1, sizeof(*u));
	size_t i;

	if (!u)
		return NULL;
	/* the daemon's own libraries: libc and ld.so, which most share */
	umaps_load(u, 0);
	for (i = 0; i < u->n; i++)
		sight_umaps_add_file(u, u->v[i].path);
	return u;
}

static void umaps_clear(struct sight_umaps *u)
{
	size_t i;

	for (i = 0; i < u->n; i++)
		free(u->v[i].path);
	free(u->v);
	u->v = NULL;
	u->n = 0;
	u->loaded = false;
}

void sight_umaps_free(struct sight_umaps *u)
{
	size_t i;

	if (!u)
		return;
	umaps_clear(u);
	for (i = 0; i < u->nfiles; i++)
		free(u->files[i].path);
	free(u->files);
	free(u);
}

/* The file mappings of @tgid, none when it has gone (0: the daemon) */
static void umaps_load(struct sight_umaps *u, __u32 tgid)
{
	char path[64], *line = NULL, file[4096];
	size_t cap = 0;
	FILE *f;

	umaps_clear(u);
	u->tgid = tgid;
	u->loaded = true;
	if (tgid)
		snprintf(path, sizeof(path), "/proc/%u/maps", tgid);
	else
		snprintf(path, sizeof(path), "/proc/self/maps");
	f = fopen(path, "re");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long s, e, off;
		struct umap *v;

		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095[^\n]", &s,
			   &e, &off, file) < 4 ||
		    file[0] != '/')
			continue;
		v = realloc(u->v, (u->n + 1) * sizeof(*v));
		if (!v)
			break;
		u->v = v;
		v[u->n] = (struct umap){s, e, off, strdup(file)};
		if (v[u->n].path)
			u->n++;
	}
	free(line);
	fclose(f);
}

/* The path, through /proc/PID/map_files, of mapping @i of u->tgid */
static void map_file(const struct sight_umaps *u, size_t i, char *buf,
		     size_t len)
{
	snprintf(buf, len, "/proc/%u/map_files/%llx-%llx", u->tgid,
		 (unsigned long long)u->v[i].start,
		 (unsigned long long)u->v[i].end);
}

/* Load @tgid's mappings and learn the build ids of its files */
static void umaps_for(struct sight_umaps *u, __u32 tgid)
{
	char mf[96];
	size_t i;

	if (u->loaded && u->tgid == tgid)
		return;
	umaps_load(u, tgid);
	for (i = 0; i < u->n; i++) {
		if (i && !strcmp(u->v[i].path, u->v[i - 1].path))
			continue;
		map_file(u, i, mf, sizeof(mf));
		sight_umaps_add_file(u, mf);
	}
}

/* FUNC+0xOFF in @path, else PATH+0xOFF */
static void name_offset(const char *path, const char *shown, __u64 off,
			char *buf, size_t len)
{
	if (uprobe_symbolize(path, off, buf, len))
		snprintf(buf, len, "%s+0x%llx", shown, (unsigned long long)off);
}

/* A frame given as an address: through the process's mappings */
static int frame_by_ip(struct sight_umaps *u, __u64 ip, char *buf, size_t len)
{
	char mf[96];
	size_t i;

	for (i = 0; i < u->n; i++)
		if (ip >= u->v[i].start && ip < u->v[i].end)
			break;
	if (i == u->n) {
		snprintf(buf, len, "[unknown]");
		return -ENOENT;
	}
	map_file(u, i, mf, sizeof(mf));
	name_offset(mf, u->v[i].path, ip - u->v[i].start + u->v[i].pgoff, buf,
		    len);
	return 0;
}

int sight_user_frame(struct sight_umaps *u, __u32 tgid,
		     const struct bpf_stack_build_id *f, char *buf, size_t len)
{
	size_t i;

	umaps_for(u, tgid);
	if (f->status == BPF_STACK_BUILD_ID_IP)
		return frame_by_ip(u, f->ip, buf, len);
	for (i = 0; i < u->nfiles; i++)
		if (!memcmp(u->files[i].id, f->build_id, BPF_BUILD_ID_SIZE))
			break;
	if (f->status != BPF_STACK_BUILD_ID_VALID || i == u->nfiles) {
		snprintf(buf, len, "[unknown]");
		return -ENOENT;
	}
	name_offset(u->files[i].path, u->files[i].path, f->offset, buf, len);
	return 0;
}
