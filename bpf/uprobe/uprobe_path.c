// SPDX-License-Identifier: GPL-2.0-only
/*
 * Uprobe targets, the file half: the ld.so cache, whether a file is an ELF
 * file we can probe, and reading its tables (program headers, symbols and
 * their versions) with libelf. The ld.so cache is read directly because no
 * library exposes it. A PATH with a slash is found by uprobe_view.c, in the
 * writer's view of the file system; a bare name here, in the same view; and
 * the daemon's own mount, which no PATH may lead into, is known here.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "uprobe_internal.h"
#include "uprobe_target.h"

#define LD_SO_CACHE "/etc/ld.so.cache"
#define FIXED_PATH                                                             \
	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* glibc's dl-cache.h: the "new" cache format and its entry flags */
#define CACHE_MAGIC_NEW "glibc-ld.so.cache1.1"
#define CACHE_HDR_NEW 48
#define CACHE_ENTRY_NEW 24
#define CACHE_FLAG_ELF_LIBC6 0x0003
#define CACHE_FLAG_TYPE_MASK 0x00ff
#define CACHE_FLAG_ARCH_MASK 0xff00

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#define CACHE_FLAG_ARCH 0x0300
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#define CACHE_FLAG_ARCH 0x0a00
#else
#error "uprobe_path.c: add this architecture's EM_ and ld.so cache flag"
#endif

/* strerror() may use a static buffer; the descriptions are constant */
static const char *errstr(int e)
{
	const char *s = strerrordesc_np(e);

	return s ? s : "unknown error";
}

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
static int elf_usable;

static void elf_init(void)
{
	elf_usable = elf_version(EV_CURRENT) != EV_NONE;
}

static int elf_ready(void)
{
	pthread_once(&elf_once, elf_init);
	return elf_usable ? 0 : -ENOSYS;
}

void uprobe_set_err(struct target_error *terr, size_t column, const char *fmt,
		    ...)
{
	va_list ap;

	if (!terr)
		return;
	terr->column_hint = column;
	va_start(ap, fmt);
	vsnprintf(terr->msg, sizeof(terr->msg), fmt, ap);
	va_end(ap);
}

/* ---- ld.so cache ---- */

static bool cache_name_matches(const char *key, const char *name, bool exact)
{
	size_t n = strlen(name);

	if (exact)
		return strcmp(key, name) == 0;
	if (strncmp(key, name, n) != 0)
		return false;
	key += n;
	/* "libc" must not match "libcrypt.so": only "libc.so" or "libc.so.*" */
	if (!strstr(name, ".so")) {
		if (strncmp(key, ".so", 3) != 0)
			return false;
		key += 3;
	}
	return *key == '\0' || *key == '.';
}

/* Search the new-format table at @base (@size bytes up to end of file). */
static int cache_search(const char *base, size_t size, const char *name,
			bool exact, char *out, size_t outlen)
{
	uint32_t nlibs, i;

	if (size < CACHE_HDR_NEW ||
	    memcmp(base, CACHE_MAGIC_NEW, strlen(CACHE_MAGIC_NEW)) != 0)
		return -EINVAL;
	memcpy(&nlibs, base + 20, sizeof(nlibs));
	if (nlibs > (size - CACHE_HDR_NEW) / CACHE_ENTRY_NEW)
		return -EINVAL;
	for (i = 0; i < nlibs; i++) {
		const char *e =
			base + CACHE_HDR_NEW + (size_t)i * CACHE_ENTRY_NEW;
		int32_t flags;
		uint32_t key, val;

		memcpy(&flags, e, 4);
		memcpy(&key, e + 4, 4);
		memcpy(&val, e + 8, 4);
		if ((flags & CACHE_FLAG_ARCH_MASK) != CACHE_FLAG_ARCH ||
		    (flags & CACHE_FLAG_TYPE_MASK) != CACHE_FLAG_ELF_LIBC6)
			continue;
		if (key >= size || val >= size ||
		    !memchr(base + key, '\0', size - key) ||
		    !memchr(base + val, '\0', size - val))
			return -EINVAL;
		if (!cache_name_matches(base + key, name, exact))
			continue;
		if (strlen(base + val) >= outlen)
			return -ENAMETOOLONG;
		strcpy(out, base + val);
		return 0;
	}
	return -ENOENT;
}

int uprobe_ldcache_lookup(const char *name, char *out, size_t outlen)
{
	return uprobe_ldcache_lookup_in(LD_SO_CACHE, name, out, outlen);
}

int uprobe_ldcache_lookup_in(const char *cache, const char *name, char *out,
			     size_t outlen)
{
	struct stat st;
	char *map;
	int fd, err;

	fd = open(cache, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = fstat(fd, &st) < 0 ? -errno : st.st_size == 0 ? -EINVAL : 0;
	if (err) {
		close(fd);
		return err;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (err)
		return err;
	/* glibc >= 2.32 writes only the new format, which starts the file */
	err = cache_search(map, st.st_size, name, true, out, outlen);
	if (err == -ENOENT)
		err = cache_search(map, st.st_size, name, false, out, outlen);
	munmap(map, st.st_size);
	return err;
}

/* ---- the daemon's own mount ---- */

static pthread_mutex_t mnt_lock = PTHREAD_MUTEX_INITIALIZER;
static char excluded_dir[PATH_MAX];
static dev_t excluded_dev;
static bool excluded_known;

void uprobe_exclude_dir(const char *dir)
{
	pthread_mutex_lock(&mnt_lock);
	snprintf(excluded_dir, sizeof(excluded_dir), "%s", dir ? dir : "");
	excluded_known = false;
	pthread_mutex_unlock(&mnt_lock);
}

/* mountinfo escapes blanks, newlines and backslashes as \ooo */
static void unescape_octal(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

/*
 * The device of the FUSE mount on excluded_dir, from /proc/self/mountinfo
 * (the topmost one): found without touching the mount. Lock held.
 */
static void find_excluded_dev(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *mp = malloc(PATH_MAX), *sep;
	unsigned int maj, min;
	struct statx st;
	size_t cap = 0;

	while (f && mp && getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%*d %*d %u:%u %*s %4095s", &maj, &min, mp) !=
		    3)
			continue;
		sep = strstr(line, " - ");
		unescape_octal(mp);
		if (sep && !strncmp(sep + 3, "fuse", 4) &&
		    !strcmp(mp, excluded_dir)) {
			excluded_dev = makedev(maj, min);
			excluded_known = true;
		}
	}
	free(line);
	free(mp);
	if (f)
		fclose(f);
	/* not listed (yet?): what is mounted there, without a sync */
	if (!excluded_known &&
	    !statx(AT_FDCWD, excluded_dir, AT_STATX_DONT_SYNC, STATX_TYPE, &st))
		excluded_dev = makedev(st.stx_dev_major, st.stx_dev_minor);
}

int uprobe_own_mount_dev(dev_t *dev, char *dir)
{
	int err = -ENOENT;

	pthread_mutex_lock(&mnt_lock);
	if (!excluded_known && excluded_dir[0])
		find_excluded_dev();
	if (excluded_dir[0]) {
		*dev = excluded_dev;
		if (dir)
			strcpy(dir, excluded_dir);
		err = 0;
	}
	pthread_mutex_unlock(&mnt_lock);
	return err;
}

/* ---- bare names: the ld.so cache and the fixed PATH, the writer's ---- */

/* @text as @pid sees it, a regular file: its path for the daemon. */
static int bare_try(pid_t pid, const char *text, char *out, bool exec)
{
	mode_t mode;
	int err = uprobe_view_resolve(text, pid, text, out, &mode, NULL);

	if (!err && (!S_ISREG(mode) || (exec && !(mode & 0111))))
		err = -ENOENT;
	return err;
}

static int bare_ldcache(pid_t pid, const char *name, char *out)
{
	char *cache = malloc(2 * PATH_MAX), *lib = cache + PATH_MAX;
	int err = cache ? bare_try(pid, "/etc/ld.so.cache", cache, false)
			: -ENOMEM;

	if (!err)
		err = uprobe_ldcache_lookup_in(cache, name, lib, PATH_MAX);
	if (!err)
		err = bare_try(pid, lib, out, false);
	free(cache);
	return err;
}

static int bare_path(pid_t pid, const char *name, char *out)
{
	const char *dir = FIXED_PATH, *end;
	char *cand = malloc(PATH_MAX);
	int err = cand ? -ENOENT : -ENOMEM;

	for (; cand && *dir && err; dir = *end ? end + 1 : end) {
		end = strchrnul(dir, ':');
		if (snprintf(cand, PATH_MAX, "%.*s/%s", (int)(end - dir), dir,
			     name) >= PATH_MAX) {
			err = -ENAMETOOLONG;
			break;
		}
		err = bare_try(pid, cand, out, true) ? -ENOENT : 0;
	}
	free(cand);
	return err;
}

static int find_bare_name(const char *name, pid_t pid, char *out,
			  struct target_error *terr)
{
	bool lib_first = strncmp(name, "lib", 3) == 0;
	int cache_err = -ENOENT, path_err;

	/* a missing or unreadable cache only means "not a cached library" */
	if (lib_first) {
		cache_err = bare_ldcache(pid, name, out);
		if (!cache_err)
			return 0;
	}
	path_err = bare_path(pid, name, out);
	if (!path_err)
		return 0;
	if (!lib_first) {
		cache_err = bare_ldcache(pid, name, out);
		if (!cache_err)
			return 0;
	}
	uprobe_set_err(terr, 0,
		       "'%s' is neither a library in /etc/ld.so.cache%s nor a "
		       "command on " FIXED_PATH,
		       name, cache_err == -ENOENT ? "" : " (unreadable)");
	return path_err == -ENAMETOOLONG ? path_err : -ENOENT;
}

int uprobe_resolve_path(const char *path, pid_t pid, char *out,
			struct target_error *terr)
{
	struct uprobe_elf f;
	mode_t mode;
	int err;

	if (terr)
		terr->msg[0] = '\0';
	if (!path || !*path) {
		uprobe_set_err(terr, 0, "empty path");
		return -EINVAL;
	}
	if (strchr(path, '/'))
		err = uprobe_view_resolve(path, pid, path, out, &mode, terr);
	else
		err = find_bare_name(path, pid, out, terr);
	if (err)
		return err;
	/* unchanged since it was parsed: it passed uprobe_elf_open() then */
	if (uprobe_rescache_known(out))
		return 0;
	err = uprobe_elf_open(&f, out, terr);
	uprobe_elf_close(&f);
	return err;
}

/* A 64-bit executable or shared object for us. */
static int check_elf(Elf *elf, const char *path, struct target_error *terr)
{
	GElf_Ehdr eh;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		uprobe_set_err(terr, 0, "%s is not an ELF file", path);
		return -EINVAL;
	}
	if (gelf_getclass(elf) != ELFCLASS64) {
		uprobe_set_err(
			terr, 0,
			"%s is a 32-bit ELF file; only 64-bit is supported",
			path);
		return -EINVAL;
	}
	if (eh.e_machine != HOST_MACHINE) {
		uprobe_set_err(terr, 0,
			       "%s is for another architecture (e_machine %u)",
			       path, eh.e_machine);
		return -EINVAL;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		uprobe_set_err(
			terr, 0,
			"%s is not an executable or shared object (ELF type %u)",
			path, eh.e_type);
		return -EINVAL;
	}
	return 0;
}

void uprobe_elf_close(struct uprobe_elf *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

int uprobe_elf_open(struct uprobe_elf *f, const char *path,
		    struct target_error *terr)
{
	int err = elf_ready();

	f->fd = -1;
	f->elf = NULL;
	if (err) {
		uprobe_set_err(terr, 0, "libelf is unusable");
		return err;
	}
	/* O_NONBLOCK: a FIFO must not block the daemon; it is refused below */
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f->fd < 0 || fstat(f->fd, &f->st) < 0) {
		err = -errno;
		uprobe_set_err(terr, 0, "cannot open %s: %s", path,
			       errstr(errno));
		uprobe_elf_close(f);
		return err;
	}
	if (!S_ISREG(f->st.st_mode)) {
		uprobe_set_err(terr, 0, "%s is not a regular file", path);
		uprobe_elf_close(f);
		return -EINVAL;
	}
	/*
	 * Not ELF_C_READ_MMAP: each new mapping of a file makes the kernel
	 * write every uprobe already on it into that mapping, so mapping the
	 * target once per line costs O(links on the file).
	 */
	err = uprobe_elf_bounds(f->fd, &f->st, path, terr);
	if (!err)
		f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	if (!err)
		err = check_elf(f->elf, path, terr);
	if (err)
		uprobe_elf_close(f);
	return err;
}

/* ---- sections and symbol tables ---- */

/* .gnu.version entries: bit 15 marks a hidden (non-default) version */
#define VERSYM_HIDDEN 0x8000
#define VERSYM_VERSION 0x7fff

Elf_Scn *uprobe_find_scn(Elf *elf, GElf_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

static int vers_build(struct uprobe_symtab *t);

/* Load .symtab or .dynsym (@type); -ENOENT when the file has none. */
int uprobe_symtab_load(Elf *elf, GElf_Word type, struct uprobe_symtab *t)
{
	Elf_Scn *scn, *vs, *strs;
	GElf_Shdr sh, vsh;

	memset(t, 0, sizeof(*t));
	t->elf = elf;
	scn = uprobe_find_scn(elf, type, &sh);
	if (!scn || !sh.sh_entsize)
		return -ENOENT;
	strs = elf_getscn(elf, sh.sh_link);
	if (sh.sh_size > UPROBE_SYMTAB_MAX_BYTES ||
	    (strs && gelf_getshdr(strs, &vsh) &&
	     vsh.sh_size > UPROBE_STRTAB_MAX_BYTES))
		return -EFBIG;
	t->data = elf_getdata(scn, NULL);
	if (!t->data)
		return -EINVAL;
	t->count = sh.sh_size / sh.sh_entsize;
	t->strndx = sh.sh_link;
	if (type != SHT_DYNSYM)
		return 0;
	vs = uprobe_find_scn(elf, SHT_GNU_versym, &vsh);
	if (vs && vsh.sh_link == elf_ndxscn(scn))
		t->versym = elf_getdata(vs, NULL);
	return t->versym ? vers_build(t) : 0;
}

#define VERSIONS 0x8000 /* .gnu.version holds 15-bit indexes */

/*
 * The name of each version index, looked up once per table rather than
 * once per symbol. As before, the first entry of .gnu.version_d with an
 * index names it, else the first of .gnu.version_r. Every entry takes 8
 * bytes or more, so a walk takes at most one step per 8 bytes of its
 * section, whatever its next-offsets say.
 */
static void vers_from_def(struct uprobe_symtab *t, Elf_Scn *scn, bool *seen)
{
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	size_t off = 0, steps;
	GElf_Verdaux va;
	GElf_Verdef vd;
	GElf_Shdr sh;

	if (!d || !gelf_getshdr(scn, &sh))
		return;
	for (steps = d->d_size / 8 + 1; steps && gelf_getverdef(d, off, &vd);
	     steps--) {
		if (vd.vd_ndx < VERSIONS && !seen[vd.vd_ndx] &&
		    gelf_getverdaux(d, off + vd.vd_aux, &va)) {
			seen[vd.vd_ndx] = true;
			t->vers[vd.vd_ndx] =
				elf_strptr(t->elf, sh.sh_link, va.vda_name);
		}
		if (!vd.vd_next)
			break;
		off += vd.vd_next;
	}
}

static void vers_from_need(struct uprobe_symtab *t, Elf_Scn *scn, bool *seen)
{
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	size_t off = 0, aoff, steps;
	GElf_Vernaux va;
	GElf_Verneed vn;
	GElf_Shdr sh;

	if (!d || !gelf_getshdr(scn, &sh))
		return;
	steps = d->d_size / 8 + 1;
	while (steps && gelf_getverneed(d, off, &vn)) {
		steps--;
		for (aoff = off + vn.vn_aux;
		     steps && gelf_getvernaux(d, aoff, &va);
		     steps--, aoff += va.vna_next) {
			if (va.vna_other < VERSIONS && !seen[va.vna_other]) {
				seen[va.vna_other] = true;
				t->vers[va.vna_other] = elf_strptr(
					t->elf, sh.sh_link, va.vna_name);
			}
			if (!va.vna_next)
				break;
		}
		if (!vn.vn_next)
			break;
		off += vn.vn_next;
	}
}

static int vers_build(struct uprobe_symtab *t)
{
	bool *seen = calloc(2 * VERSIONS, sizeof(*seen));
	size_t i;

	t->vers = calloc(VERSIONS, sizeof(*t->vers));
	if (!seen || !t->vers) {
		free(seen);
		return -ENOMEM;
	}
	vers_from_def(t,
		      uprobe_find_scn(t->elf, SHT_GNU_verdef, &(GElf_Shdr){0}),
		      seen);
	/* an index .gnu.version_d names, but not to a name: ask _r */
	for (i = 0; i < VERSIONS; i++)
		seen[VERSIONS + i] = seen[i] && t->vers[i];
	vers_from_need(
		t, uprobe_find_scn(t->elf, SHT_GNU_verneed, &(GElf_Shdr){0}),
		seen + VERSIONS);
	free(seen);
	return 0;
}

void uprobe_symtab_free(struct uprobe_symtab *t)
{
	free(t->vers);
	t->vers = NULL;
}

int uprobe_sym_get(const struct uprobe_symtab *t, size_t i,
		   struct uprobe_sym *si)
{
	const char *at;
	GElf_Versym vs;

	if (!gelf_getsym(t->data, i, &si->sym))
		return -EINVAL;
	si->name = elf_strptr(t->elf, t->strndx, si->sym.st_name);
	if (!si->name)
		return -EINVAL;
	si->ver = NULL;
	si->hidden = false;
	at = strchr(si->name, '@');
	si->baselen = at ? (size_t)(at - si->name) : strlen(si->name);
	if (at) {
		si->hidden = at[1] != '@';
		si->ver = at + (si->hidden ? 1 : 2);
		return 0;
	}
	if (!t->versym || !gelf_getversym(t->versym, i, &vs))
		return 0;
	si->hidden = vs & VERSYM_HIDDEN;
	vs &= VERSYM_VERSION;
	if (vs > VER_NDX_GLOBAL)
		si->ver = t->vers[vs];
	return 0;
}

bool uprobe_is_code(Elf *elf, const GElf_Sym *s)
{
	unsigned char type = GELF_ST_TYPE(s->st_info);
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return true;
	if (type != STT_NOTYPE)
		return false;
	/* assembly labels without .type: accept them only inside code */
	scn = elf_getscn(elf, s->st_shndx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

/* ---- program headers ---- */

int uprobe_vaddr_to_off(Elf *elf, GElf_Addr vaddr, uint64_t *off)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) != 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

int uprobe_off_to_vaddr(Elf *elf, uint64_t off, GElf_Addr *vaddr)
{
	int err = -ENOENT;
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) != 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    off < ph.p_offset || off - ph.p_offset >= ph.p_filesz)
			continue;
		*vaddr = off - ph.p_offset + ph.p_vaddr;
		err = 0;
		if (ph.p_flags & PF_X)
			break;
	}
	return err;
}

bool uprobe_off_in_exec(Elf *elf, uint64_t off, off_t file_size)
{
	size_t n, i;
	GElf_Phdr ph;

	if ((uint64_t)file_size <= off || elf_getphdrnum(elf, &n) != 0)
		return false;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		if (off >= ph.p_offset && off - ph.p_offset < ph.p_filesz)
			return true;
	}
	return false;
}
