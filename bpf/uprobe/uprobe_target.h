/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Uprobe targets: path and symbol resolution with libelf (our policy).
 * This is bpf/uprobe/'s public face; its files, one header each, call
 * each other one way only, from the top down:
 *   uprobe_usdt.c    a USDT probe -> its file offsets (uprobe_usdt.h)
 *   uprobe_target.c  SYMBOL -> file offset (uprobe_resolve())
 *   uprobe_path.c    a PATH or bare name -> the file (uprobe_resolve_path())
 *   uprobe_view.c    a PATH in the writer's view of the file system
 *   uprobe_cache.c   the resolution cache and the symbolizer
 *   uprobe_ldcache.c the ld.so cache
 *   uprobe_mount.c   the daemon's own mount, which no PATH may lead into
 *   uprobe_elf.c     opening a probe-able ELF file, its tables (libelf)
 *   uprobe_elfcheck.c  the bounds of a hostile ELF file
 *   uprobe_err.c     the error value (struct uprobe_err)
 * and, beside them, uprobe_fdroot.c: handing the kernel the file that was
 * read rather than its path (uprobe_fdroot.h).
 */
#ifndef BPFLINKFS_UPROBE_TARGET_H
#define BPFLINKFS_UPROBE_TARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

struct uprobe_target {
	char path[PATH_MAX]; /* the daemon's path to the file, for the kernel */
	uint64_t offset;     /* file offset of the probed instruction */
	dev_t dev;	     /* of the file that was resolved */
	ino_t ino;
	uint64_t ref_ctr_offset; /* usdt: file offset of the semaphore, or 0 */
	char warning[256]; /* non-empty: a warning for error_log (IFUNC ...) */
	int fd; /* resolve_uprobe()/resolve_usdt(): the resolved file (O_PATH),
		   what the kernel is to probe; the caller closes it */
};

/*
 * The resolver's error: @path_col and @symbol_col, given by the caller, are
 * where PATH and SYMBOL start in the command line; on failure the resolver
 * sets @e.column to the one at fault and @e.msg (e.g. "no symbol 'foo' in
 * /usr/bin/bash").
 */
struct uprobe_err {
	size_t path_col;
	size_t symbol_col;
	size_t provider_col; /* usdt: where PROVIDER starts */
	struct bl_error e;
};

/* A writer whose pid the daemon cannot see (FUSE pid 0). */
#define UPROBE_PID_UNSEEN ((pid_t)-1)

/**
 * uprobe_resolve_path() - find the file a PATH as written names, in the
 * writer's view of the file system
 * @path: as written: absolute, relative, a library name ("libc", found
 *        through the ld.so cache) or a bare command (found on the fixed PATH
 *        /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
 * @pid: the writing process: its root (/proc/PID/root) and working
 *       directory (/proc/PID/cwd) are where @path starts, its mount
 *       namespace is whose files it names, and /proc/self in @path is it.
 *       0: this process. UPROBE_PID_UNSEEN: a writer the daemon cannot see;
 *       paths start at the daemon's root, and a relative @path or
 *       /proc/self is refused.
 * @out: out, the daemon's path to that file, at least PATH_MAX bytes: the
 *       canonical absolute path where the daemon's own root leads to the
 *       same file, else one through /proc/PID/root (another mount
 *       namespace) or a /proc magic link (/proc/PID/exe of a deleted or
 *       replaced binary), which reaches it while that process lives
 * @terr: out, a message on failure
 *
 * Never looks anything up inside the daemon's own mount (uprobe_exclude_dir),
 * recognised by its device: such a PATH is -EINVAL.
 *
 * Return: 0, -ENOENT (no such file, library or command), -EINVAL (not an
 * ELF file, 32-bit or other-architecture ELF, inside the mount, relative or
 * /proc/self for an unseen writer), or another -errno.
 */
int uprobe_resolve_path(const char *path, pid_t pid, char *out,
			struct uprobe_err *terr);

/*
 * uprobe_locate_path() - uprobe_resolve_path() without its last step, the
 * check that the file is a probe-able ELF file (uprobe_elf_open()): for a
 * caller whose next step opens the file that way anyway (uprobe_glob()),
 * with the same messages. Same arguments and errors, but for that check.
 */
int uprobe_locate_path(const char *path, pid_t pid, char *out,
		       struct uprobe_err *terr);

/**
 * uprobe_resolve() - resolve a uprobe spec to a file offset
 * @canonical: path from uprobe_resolve_path()
 * @symbol: SYMBOL (bare, name@VER or name@@VER), or NULL with @by_offset
 * @offset: +OFFSET added to the symbol, or the file offset when @by_offset
 * @by_offset: @offset is a file offset (PATH:0xFILEOFFSET)
 * @retprobe: a uretprobe: a non-zero +OFFSET is refused
 * @t: out, path, file offset, device and inode, warning
 * @terr: out, a message on failure
 *
 * Uses libelf: .symtab, then .dynsym; the file offset comes from the
 * program header of the PT_LOAD segment that contains the symbol.
 *
 * Return: 0, -ENOENT (no such symbol, only an undefined import, no symbol
 * table), -EINVAL (ambiguous symbol, offset outside any executable
 * segment or past the end of the file, not a function), or another -errno.
 */
int uprobe_resolve(const char *canonical, const char *symbol, uint64_t offset,
		   bool by_offset, bool retprobe, struct uprobe_target *t,
		   struct uprobe_err *terr);

/**
 * uprobe_exclude_dir() - refuse paths that lead into the FUSE mount on @dir
 * (the daemon's own: looking them up would send the daemon requests to
 * itself); its device is read from /proc/self/mountinfo at first use
 */
void uprobe_exclude_dir(const char *dir);

/**
 * uprobe_symbolize() - name the function containing a file offset
 * @path: ELF file
 * @file_offset: as in link info (uprobe offset)
 * @buf: out, "func+0xOFF" ("func+0x0" at the entry)
 * @len: size of @buf
 *
 * Return: 0, -ENOENT (no symbol contains it), or another -errno.
 */
int uprobe_symbolize(const char *path, uint64_t file_offset, char *buf,
		     size_t len);

/**
 * uprobe_symbolize_many() - uprobe_symbolize() for @n offsets in one file,
 * with one stat and one cache look-up for all (the funcs of a uprobe_multi
 * link: the per-offset call cost a stat(2) each)
 * @path: ELF file
 * @offsets: @n file offsets, as in link info
 * @n: number of offsets
 * @names: out, @n strings "func+0xOFF" pointing into *@text, NULL where
 *	no symbol contains the offset
 * @text: out, the one allocation holding every name (caller frees)
 *
 * Return: 0 or -errno (then every @names entry and *@text are NULL).
 */
int uprobe_symbolize_many(const char *path, const uint64_t *offsets, size_t n,
			  char **names, char **text);

/**
 * uprobe_has_symbol() - does the file have a symbol of exactly this name
 * @canonical: path from uprobe_resolve_path()
 * @name: a name (name@VER as for uprobe_resolve()), taken as bytes: `*`,
 *        `?` and `[` are themselves
 *
 * Any symbol of .symtab or .dynsym counts (an import too: resolving it
 * then says what it is). A file that cannot be read has none.
 */
bool uprobe_has_symbol(const char *canonical, const char *name);

/* uprobe_resolve() without the cache: parses @canonical on each call. */
int uprobe_resolve_uncached(const char *canonical, const char *symbol,
			    uint64_t offset, bool by_offset, bool retprobe,
			    struct uprobe_target *t, struct uprobe_err *terr);

/* A function a wildcard matched (uprobe_glob()). */
struct uprobe_match {
	uint64_t offset; /* file offset of its entry */
	char *name;	 /* its name, without a @VER suffix */
	size_t seq;	 /* internal: table order */
};

struct uprobe_matches {
	struct uprobe_match *m; /* by offset, one per distinct offset */
	size_t n;
	dev_t dev; /* of the file that was read */
	ino_t ino;
	char *names; /* uprobe_glob(): every name in one allocation (m[].name
			point into it); NULL: each name is malloc'd */
};

/* Longest function name a wildcard can match (longer ones are skipped). */
#define PROBE_GLOB_NAME_MAX 1024

/**
 * uprobe_glob() - the functions of an ELF file whose names match a glob
 * @canonical: path from uprobe_resolve_path()
 * @pattern: fnmatch(3) pattern: `*`, `?`, `[...]`, matched against the
 *           name without its @VER suffix
 * @out: out, the matches; free with uprobe_matches_free()
 * @terr: out, a message on failure (caret under SYMBOL for no match)
 *
 * As bpftrace chooses the targets of a wildcard uprobe: defined symbols
 * that are code (uprobe_is_code()), .symtab then .dynsym, one target per
 * distinct file offset (the first name in that order names it).
 *
 * Return: 0, -ENOENT (nothing matches), or another -errno (see
 * uprobe_resolve()).
 */
int uprobe_glob(const char *canonical, const char *pattern,
		struct uprobe_matches *out, struct uprobe_err *terr);

/** uprobe_matches_free() - free what uprobe_glob() made */
void uprobe_matches_free(struct uprobe_matches *m);

#endif
