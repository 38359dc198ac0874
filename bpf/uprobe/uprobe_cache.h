/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The resolution cache: what uprobe_resolve() reads of a file, copied out
 * of libelf once (the symbolizer's cache is uprobe_symcache.h).
 */
#ifndef BPFLINKFS_UPROBE_CACHE_H
#define BPFLINKFS_UPROBE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "uprobe_elf.h"

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

/**
 * uprobe_loads_read() - the PT_LOAD program headers of @elf, in order
 * @loads: out, malloc'd (the caller frees it); @nloads: out, how many
 * Return: 0, -EINVAL (no program headers readable), -ENOMEM.
 */
int uprobe_loads_read(Elf *elf, struct uprobe_rload **loads, size_t *nloads);

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

/*
 * The symbols of table @which whose base name starts with @prefix (@len
 * bytes; 0: every symbol): their count, the first at index *@first.
 */
size_t uprobe_rtab_prefixed(const struct uprobe_rfile *rf, int which,
			    const char *prefix, size_t len, size_t *first);

/* As uprobe_vaddr_to_off() and uprobe_off_in_exec(), from the copy. */
int uprobe_rfile_vaddr_to_off(const struct uprobe_rfile *rf, uint64_t vaddr,
			      uint64_t *off);
bool uprobe_rfile_off_in_exec(const struct uprobe_rfile *rf, uint64_t off);

#endif
