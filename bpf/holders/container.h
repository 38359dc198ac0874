/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which container a cgroup v2 path names. Container runtimes put each
 * container in a cgroup named after it: systemd-driven ones in a scope
 * (docker-ID.scope, cri-containerd-ID.scope, crio-ID.scope,
 * libpod-ID.scope, machine-NAME.scope for systemd-nspawn and libvirt,
 * or nspawn's own systemd-nspawn@NAME.service; names in systemd's \xHH
 * escapes), cgroupfs-driven ones in a directory
 * (/docker/ID, /libpod_parent/libpod-ID, a kubelet's pod<UID>/ID), LXC in
 * lxc.payload.NAME (lxc/NAME before LXC 4). Pure: no syscalls.
 */
#ifndef BPFLINKFS_CONTAINER_H
#define BPFLINKFS_CONTAINER_H

#include <stddef.h>

/**
 * cgroup_container() - the container id or name that a cgroup path names
 * @path: a cgroup v2 path as /proc/PID/cgroup's `0::` line writes it
 *        (`/system.slice/docker-ID.scope`), NUL-terminated
 * @out: the id (hex, as the runtime prints it) or name (systemd escapes
 *       decoded), NUL-terminated
 * @len: size of @out
 *
 * The innermost component that names a container wins: a process in a
 * cgroup below its container's (a container running systemd, docker in
 * docker) belongs to the innermost one. Ids are hex, at least 12 digits,
 * so a runtime's own helpers (crio-conmon-ID.scope,
 * libpod-conmon-ID.scope) name none.
 *
 * Return: the length of the id or name, -ENOENT when the path names no
 * container, -ENAMETOOLONG when it does not fit in @len.
 */
int cgroup_container(const char *path, char *out, size_t len);

#endif
