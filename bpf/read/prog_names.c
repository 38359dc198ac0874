// SPDX-License-Identifier: GPL-2.0-only
/* Full program names from the programs' BTF (prog_names.h). */
#include "prog_names.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#define KNAME_MAX (BPF_OBJ_NAME_LEN - 1) /* bytes the kernel keeps */
#define SLOTS 1024			 /* remembered names, by id */

struct known_name {
	__u32 prog_id;
	char kname[BPF_OBJ_NAME_LEN];
	char *name; /* the full name; NULL: the kernel's is the name */
};

/*
 * Process-wide on purpose: what a live program's BTF says does not change
 * and is the same whichever mount asks; a memo private to this file, not
 * part of the handle of owned.h. Guarded by lock: the daemon's threads
 * share it. One entry per slot: a program whose id takes the slot of
 * another's replaces it.
 */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct known_name known[SLOTS];

/* The name of @fd's first function in its BTF, if @kname begins it. */
static char *btf_func_name(int fd, const struct bpf_prog_info *info,
			   const char *kname)
{
	struct bpf_func_info finfo;
	struct bpf_prog_info one;
	__u32 one_len = sizeof(one);
	const struct btf_type *t;
	const char *name = NULL;
	struct btf *btf;
	char *full = NULL;

	if (!info->btf_id || !info->nr_func_info)
		return NULL;
	memset(&one, 0, sizeof(one));
	memset(&finfo, 0, sizeof(finfo));
	one.nr_func_info = 1;
	one.func_info_rec_size = sizeof(finfo);
	one.func_info = (__u64)(unsigned long)&finfo;
	if (bpf_obj_get_info_by_fd(fd, &one, &one_len))
		return NULL;
	btf = btf__load_from_kernel_by_id(one.btf_id);
	if (!btf)
		return NULL;
	t = btf__type_by_id(btf, finfo.type_id);
	if (t && btf_is_func(t))
		name = btf__name_by_offset(btf, t->name_off);
	if (name && strlen(name) > KNAME_MAX &&
	    !strncmp(name, kname, KNAME_MAX))
		full = strdup(name);
	btf__free(btf);
	return full;
}

/* Ask the kernel: its name in @kname, the full one, or NULL. */
static int lookup(__u32 prog_id, bool kname_known, char *kname, char **full)
{
	struct bpf_prog_info info;
	__u32 info_len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(prog_id), err = 0;

	*full = NULL;
	if (fd < 0)
		return errno == EAGAIN ? -ENOENT : -errno;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &info_len))
		err = -errno;
	/* the name asked about, not a later program's of the same id */
	if (!err && kname_known && strncmp(info.name, kname, KNAME_MAX))
		err = -ENOENT;
	if (!err) {
		snprintf(kname, BPF_OBJ_NAME_LEN, "%s", info.name);
		if (strlen(kname) == KNAME_MAX)
			*full = btf_func_name(fd, &info, kname);
	}
	close(fd);
	return err;
}

/* A remembered name of @prog_id with kernel name @kname into @buf. */
static bool recall(__u32 prog_id, const char *kname, char *buf, size_t len)
{
	struct known_name *k = &known[prog_id % SLOTS];
	bool hit;

	pthread_mutex_lock(&lock);
	hit = k->prog_id == prog_id && !strcmp(k->kname, kname);
	if (hit)
		snprintf(buf, len, "%s", k->name ? k->name : kname);
	pthread_mutex_unlock(&lock);
	return hit;
}

static void remember(__u32 prog_id, const char *kname, char *full)
{
	struct known_name *k = &known[prog_id % SLOTS];

	pthread_mutex_lock(&lock);
	free(k->name);
	k->prog_id = prog_id;
	snprintf(k->kname, sizeof(k->kname), "%s", kname);
	k->name = full;
	pthread_mutex_unlock(&lock);
}

/* @s into @buf as snprintf "%s" would, without its set-up: a listing
 * names every link's program */
static void copy_name(char *buf, size_t len, const char *s)
{
	size_t n = len ? strnlen(s, len - 1) : 0;

	if (!len)
		return;
	memmove(buf, s, n);
	buf[n] = '\0';
}

int prog_full_name(__u32 prog_id, const char *kname, char *buf, size_t len)
{
	char name[BPF_OBJ_NAME_LEN] = "";
	char *full = NULL;
	int err;

	if (kname)
		copy_name(name, sizeof(name), kname);
	/* shorter than the kernel keeps: whole already */
	if (kname && strlen(name) < KNAME_MAX) {
		copy_name(buf, len, name);
		return 0;
	}
	if (kname && recall(prog_id, name, buf, len))
		return 0;
	err = lookup(prog_id, kname != NULL, name, &full);
	if (err && !kname)
		return err;
	snprintf(buf, len, "%s", full ? full : name);
	if (!err && strlen(name) == KNAME_MAX)
		remember(prog_id, name, full);
	else
		free(full);
	return 0;
}
