/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to bpf/uprobe/, not public API (the tests use it too). The
 * files call each other one way only, from the top down:
 *   uprobe_target.c  SYMBOL -> file offset (uprobe_resolve())
 *   uprobe_path.c    a PATH or bare name -> the file (uprobe_resolve_path())
 *   uprobe_view.c    a PATH in the writer's view of the file system
 *   uprobe_cache.c   the resolution cache and the symbolizer
 *   uprobe_ldcache.c the ld.so cache
 *   uprobe_mount.c   the daemon's own mount, which no PATH may lead into
 *   uprobe_elf.c     opening a probe-able ELF file, its tables (libelf)
 *   uprobe_elfcheck.c  the bounds of a hostile ELF file
 *   uprobe_err.c     the error value (struct uprobe_err)
 */
#ifndef BPFLINKFS_UPROBE_INTERNAL_H
#define BPFLINKFS_UPROBE_INTERNAL_H

/* the host's ELF machine, and its ld.so cache entries' arch flag */
#if defined(__x86_64__)
#define UPROBE_HOST_MACHINE EM_X86_64
#define UPROBE_LDCACHE_ARCH 0x0300
#elif defined(__aarch64__)
#define UPROBE_HOST_MACHINE EM_AARCH64
#define UPROBE_LDCACHE_ARCH 0x0a00
#else
#error "bpf/uprobe: add this architecture's EM_ and ld.so cache flag"
#endif

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "uprobe_target.h"

/* Fill @terr (may be NULL): the message, and the caret under SYMBOL when
 * @at_symbol, else under PATH. */
__attribute__((format(printf, 3, 4))) void
uprobe_set_err(struct uprobe_err *terr, bool at_symbol, const char *fmt, ...);

/**
 * uprobe_ldcache_lookup() - find a library for this architecture in the
 * ld.so cache
 * @name: "libc", "libc.so" or "libc.so.6" (exact names win over prefixes)
 * @out: out, the path the cache names (not yet canonical)
 * @outlen: size of @out
 *
 * Return: 0, -ENOENT (not in the cache), -EINVAL (unreadable cache format).
 */
int uprobe_ldcache_lookup(const char *name, char *out, size_t outlen);

/* The same in the cache file @cache (another root's /etc/ld.so.cache). */
int uprobe_ldcache_lookup_in(const char *cache, const char *name, char *out,
			     size_t outlen);

/**
 * uprobe_own_mount_dev() - the daemon's own FUSE mount (see
 * uprobe_exclude_dir())
 * @dev: out, its device, from /proc/self/mountinfo: found without touching
 *       the mount, and looked up again until found there
 * @dir: out, its directory (PATH_MAX bytes), or NULL
 * Return: 0, or -ENOENT when no directory is excluded.
 */
int uprobe_own_mount_dev(dev_t *dev, char *dir);

/**
 * uprobe_view_resolve() - find @text (absolute or relative) as @pid sees it
 * @text: the path
 * @pid: as for uprobe_resolve_path()
 * @written: the PATH as written, for messages
 * @out: out, the daemon's path to the file (see uprobe_resolve_path())
 * @mode: out, the file's type and mode
 * @terr: out, a message on failure (may be NULL)
 *
 * Return: 0, or -errno (-EINVAL: inside the daemon's mount, or what an
 * unseen writer cannot name).
 */
int uprobe_view_resolve(const char *text, pid_t pid, const char *written,
			char *out, mode_t *mode, struct uprobe_err *terr);

struct uprobe_elf {
	int fd;
	Elf *elf;
	struct stat st;
};

/**
 * uprobe_elf_open() - open a probe-able ELF file
 * @f: out, the open file; close it with uprobe_elf_close()
 * @path: the file
 * @terr: out, a message on failure (may be NULL)
 *
 * Probe-able: a regular 64-bit executable or shared object for the host's
 * architecture. On error nothing stays open.
 *
 * Return: 0, -EINVAL (not such a file), -ENOSYS (libelf unusable), or the
 * -errno of open()/fstat().
 */
int uprobe_elf_open(struct uprobe_elf *f, const char *path,
		    struct uprobe_err *terr);

/*
 * What an ELF file may cost (uprobe_elfcheck.c, uprobe_symtab_load()):
 * header tables of at most this many entries, symbol and string tables of
 * at most these sizes (read whole: the largest real binaries have a few
 * million symbols, 24 bytes each).
 */
#define UPROBE_ELF_MAX_HEADERS 65536u
#define UPROBE_SYMTAB_MAX_BYTES (64u << 20)
#define UPROBE_STRTAB_MAX_BYTES (256u << 20)

/**
 * uprobe_elf_bounds() - refuse a 64-bit ELF file whose headers claim more
 * than the file holds
 * @fd: the file, open
 * @st: its fstat()
 * @path: for messages
 * @terr: out, a message on failure (may be NULL)
 *
 * Read raw, before libelf allocates by what the headers say: section and
 * program header counts (extended numbering included) over
 * UPROBE_ELF_MAX_HEADERS or tables past the end of the file, a section
 * past the end of the file, symbol tables with entries of another size,
 * and symbol or string tables in a hole of a sparse file are refused.
 * Anything that is no 64-bit ELF file of the host's byte order is left to
 * libelf's checks.
 *
 * Return: 0, -EINVAL (with a message), or -ENOMEM.
 */
int uprobe_elf_bounds(int fd, const struct stat *st, const char *path,
		      struct uprobe_err *terr);

/* Close what uprobe_elf_open() opened; safe to call twice. */
void uprobe_elf_close(struct uprobe_elf *f);

/* A symbol table (.symtab or .dynsym) of an open ELF file. */
struct uprobe_symtab {
	Elf *elf;
	Elf_Data *data;
	size_t count, strndx;
	Elf_Data *versym;  /* dynsym only */
	const char **vers; /* with versym: version names by index */
};

/* One symbol with its name split from a "@VER" / "@@VER" suffix. */
struct uprobe_sym {
	GElf_Sym sym;
	const char *name; /* as stored; may carry "@VER" in .symtab */
	size_t baselen;
	const char *ver; /* NULL: unversioned */
	bool hidden;	 /* a non-default (compat) version */
};

/* The first section of type @type, its header in @sh; NULL if none. */
Elf_Scn *uprobe_find_scn(Elf *elf, GElf_Word type, GElf_Shdr *sh);

/*
 * Load .symtab or .dynsym (@type): 0, -ENOENT (none), -EINVAL, -EFBIG (it
 * or its string table is over UPROBE_SYMTAB_MAX_BYTES or
 * UPROBE_STRTAB_MAX_BYTES).
 */
int uprobe_symtab_load(Elf *elf, GElf_Word type, struct uprobe_symtab *t);

/* Free what uprobe_symtab_load() allocated; the Elf stays. */
void uprobe_symtab_free(struct uprobe_symtab *t);

/*
 * Symbol @i of @t with its version: from the name's "@VER" (.symtab) or
 * .gnu.version with verdef/verneed (.dynsym). 0 or -EINVAL.
 */
int uprobe_sym_get(const struct uprobe_symtab *t, size_t i,
		   struct uprobe_sym *si);

/* A function, an IFUNC, or an untyped label inside executable code. */
bool uprobe_is_code(Elf *elf, const GElf_Sym *s);

/*
 * Program headers (from libelf), the only source of the vaddr <-> file
 * offset mapping. uprobe_vaddr_to_off(): through the PT_LOAD segment whose
 * file part maps @vaddr. uprobe_off_to_vaddr(): the other way; an
 * executable segment wins over overlapping ones. Both return 0, -ENOENT (no
 * such segment) or -EINVAL (no program headers).
 */
int uprobe_vaddr_to_off(Elf *elf, GElf_Addr vaddr, uint64_t *off);
int uprobe_off_to_vaddr(Elf *elf, uint64_t off, GElf_Addr *vaddr);

/* @off is inside the file part of an executable PT_LOAD and below @size. */
bool uprobe_off_in_exec(Elf *elf, uint64_t off, off_t file_size);

/* 2 global or unique, 1 weak, 0 local: who wins at the same address. */
int uprobe_bind_rank(unsigned char bind);

/* Drop every cached symbol table (tests: a cold cache). */
void uprobe_symcache_flush(void);

/*
 * ---- the resolution cache (uprobe_cache.c) ----
 *
 * What uprobe_resolve() reads of a file, copied out of libelf once. Built
 * by one thread, then immutable: readers need no lock, only a reference.
 */
#define UPROBE_RNONE UINT32_MAX /* no such offset in the name blob */

/* One symbol of .symtab or .dynsym, as uprobe_sym_get() gives it. */
struct uprobe_rsym {
	uint64_t value, size;
	uint32_t name; /* in names: as stored, may carry "@VER" */
	uint32_t ver;  /* in names, or UPROBE_RNONE: unversioned */
	uint32_t baselen;
	uint32_t idx; /* in the ELF table */
	uint16_t shndx;
	unsigned char info;
	bool hidden; /* a non-default (compat) version */
	bool code;   /* uprobe_is_code() */
};

struct uprobe_rtab {
	struct uprobe_rsym *s; /* by base name, then table order */
	size_t n;
	int state; /* 0, -ENOENT (no such table), -EINVAL (unreadable) */
};

/* A PT_LOAD program header, in program header order. */
struct uprobe_rload {
	uint64_t off, vaddr, filesz;
	bool exec;
};

struct uprobe_rfile {
	dev_t dev; /* the key: the file as it was parsed */
	ino_t ino;
	struct timespec mtime, ctime;
	off_t size;
	struct uprobe_rload *loads;
	size_t nloads;
	struct uprobe_rtab tab[2]; /* .symtab, .dynsym */
	uint32_t *needed;	   /* DT_NEEDED names, in names */
	size_t nneeded;
	char *names;
	size_t names_len, names_cap;
	size_t bytes;  /* memory held, for the cache's budget */
	uint64_t used; /* LRU clock; the rest under the cache's lock */
	int refs;
	bool linked; /* in the cache; else freed by the last put */
};

/**
 * uprobe_rescache_get() - the parsed form of a file, from the cache
 * @path: the file (canonical)
 * @rfp: out, a reference; give it back with uprobe_rescache_put()
 * @f: out, on return 1 only: the open file, to resolve uncached and close
 * @terr: out, a message when opening fails
 *
 * One stat() on a hit; on a miss the file is opened with uprobe_elf_open()
 * and parsed, keyed by its fstat().
 *
 * Return: 0 (*@rfp set), 1 (not cacheable: out of memory or over the
 * budget; @f is open), or the -errno of uprobe_elf_open().
 */
int uprobe_rescache_get(const char *path, struct uprobe_rfile **rfp,
			struct uprobe_elf *f, struct uprobe_err *terr);
void uprobe_rescache_put(struct uprobe_rfile *rf);

/* A file in the cache now is the same probe-able ELF file it was then. */
bool uprobe_rescache_known(const char *path);

/* Drop every cached file (tests: a cold cache); users keep their refs. */
void uprobe_rescache_flush(void);

/*
 * The symbols of table @which (0 .symtab, 1 .dynsym) whose base name is
 * @name (@baselen bytes): their count, the first at index *@first.
 */
size_t uprobe_rtab_find(const struct uprobe_rfile *rf, int which,
			const char *name, size_t baselen, size_t *first);

/* As uprobe_vaddr_to_off() and uprobe_off_in_exec(), from the copy. */
int uprobe_rfile_vaddr_to_off(const struct uprobe_rfile *rf, uint64_t vaddr,
			      uint64_t *off);
bool uprobe_rfile_off_in_exec(const struct uprobe_rfile *rf, uint64_t off);

/* uprobe_resolve() without the cache: parses @canonical on each call. */
int uprobe_resolve_uncached(const char *canonical, const char *symbol,
			    uint64_t offset, bool by_offset, bool retprobe,
			    struct uprobe_target *t, struct uprobe_err *terr);

#endif
