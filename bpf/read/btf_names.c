// SPDX-License-Identifier: GPL-2.0-only
/* Names of kernel BTF types for tracing links (btf_names.h). */
#include "btf_names.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BTF_CACHE_MAX 8 /* objects: vmlinux and a few modules */

struct btf_entry {
	__u32 obj_id;
	char module[64]; /* empty for vmlinux */
	struct btf *btf;
};

/*
 * Process-wide on purpose: BTF names by object id are facts of the one
 * running kernel, the same for every mount this process serves, and do
 * not change; a memo private to this file, not part of the handle of
 * owned.h. Guarded by lock: the daemon's threads share it.
 */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct btf_entry cache[BTF_CACHE_MAX];
static struct btf *vmlinux;
static size_t next_slot;

/* The name of kernel BTF object @obj_id ("vmlinux" or the module's). */
static int btf_obj_name(__u32 obj_id, char *name, size_t len)
{
	struct bpf_btf_info info;
	__u32 info_len = sizeof(info);
	int fd = bpf_btf_get_fd_by_id(obj_id), err = 0;

	if (fd < 0)
		return errno == EAGAIN ? -ENOENT : -errno;
	memset(&info, 0, sizeof(info));
	memset(name, 0, len);
	info.name = (__u64)(unsigned long)name;
	info.name_len = len;
	if (bpf_obj_get_info_by_fd(fd, &info, &info_len))
		err = -errno;
	close(fd);
	name[len - 1] = '\0';
	return err;
}

/* lock held: the entry of @obj_id, loaded when missing */
static struct btf_entry *entry_get(__u32 obj_id)
{
	struct btf_entry *e;
	char name[64];
	size_t i;

	for (i = 0; i < BTF_CACHE_MAX; i++)
		if (cache[i].btf && cache[i].obj_id == obj_id)
			return &cache[i];
	if (btf_obj_name(obj_id, name, sizeof(name)))
		return NULL;
	if (!vmlinux)
		vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux)
		return NULL;
	e = &cache[next_slot++ % BTF_CACHE_MAX];
	if (e->btf != vmlinux)
		btf__free(e->btf);
	e->btf = NULL;
	if (strcmp(name, "vmlinux") == 0) {
		e->module[0] = '\0';
		e->btf = vmlinux;
	} else {
		snprintf(e->module, sizeof(e->module), "%s", name);
		e->btf = btf__load_from_kernel_by_id_split(obj_id, vmlinux);
	}
	if (!e->btf)
		return NULL;
	e->obj_id = obj_id;
	return e;
}

int btf_target_name(__u32 obj_id, __u32 btf_id, char *buf, size_t len)
{
	const struct btf_type *t;
	struct btf_entry *e;
	int err = -ENOENT, n;

	if (len)
		buf[0] = '\0';
	if (!obj_id || !btf_id || !len)
		return -ENOENT;
	pthread_mutex_lock(&lock);
	e = entry_get(obj_id);
	t = e ? btf__type_by_id(e->btf, btf_id) : NULL;
	if (t && t->name_off) {
		n = snprintf(buf, len, "%s%s%s", e->module,
			     e->module[0] ? ":" : "",
			     btf__name_by_offset(e->btf, t->name_off));
		err = n < (int)len ? 0 : -ENAMETOOLONG;
	}
	pthread_mutex_unlock(&lock);
	if (err)
		buf[0] = '\0';
	return err;
}
