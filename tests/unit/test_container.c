// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf/holders/container.c on cgroup paths as the runtimes write them: docker
 * (systemd and cgroupfs drivers, docker in docker), Kubernetes pods under
 * containerd and CRI-O (systemd and cgroupfs drivers), podman (rootful,
 * rootless, conmon), LXC, systemd-nspawn, libvirt, and host paths that
 * name no container.
 */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "container.h"

#define ID_A "4f1c2d3e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d"
#define ID_B "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define POD_UID "6b7c0f2e_3f7d_4d0b_9f0e_2c1e7a3b9d10"

struct sample {
	const char *path;
	const char *want; /* NULL: no container */
};

static const struct sample samples[] = {
	/* docker, systemd cgroup driver */
	{"/system.slice/docker-" ID_A ".scope", ID_A},
	/* a container running systemd: its own units below its scope */
	{"/system.slice/docker-" ID_A ".scope/init.scope", ID_A},
	{"/system.slice/docker-" ID_A ".scope/system.slice/cron.service", ID_A},
	/* docker, cgroupfs driver, and docker in docker: the innermost */
	{"/docker/" ID_A, ID_A},
	{"/docker/" ID_A "/docker/" ID_B, ID_B},
	{"/system.slice/docker-" ID_A ".scope/docker/" ID_B, ID_B},
	/* Kubernetes with containerd, systemd driver */
	{"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_UID
	 ".slice/cri-containerd-" ID_A ".scope",
	 ID_A},
	{"/kubepods.slice/kubepods-pod" POD_UID ".slice/cri-containerd-" ID_B
	 ".scope",
	 ID_B},
	/* the pod's slice itself is no container */
	{"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" POD_UID
	 ".slice",
	 NULL},
	/* Kubernetes, cgroupfs driver */
	{"/kubepods/burstable/pod6b7c0f2e-3f7d-4d0b-9f0e-2c1e7a3b9d10/" ID_A,
	 ID_A},
	{"/kubepods/besteffort/pod6b7c0f2e-3f7d-4d0b-9f0e-2c1e7a3b9d10", NULL},
	/* CRI-O, and its conmon */
	{"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_UID
	 ".slice/crio-" ID_A ".scope",
	 ID_A},
	{"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_UID
	 ".slice/crio-conmon-" ID_A ".scope",
	 NULL},
	{"/kubepods/burstable/pod" POD_UID "/crio-" ID_B, ID_B},
	/* podman: rootful, rootless, conmon, cgroupfs */
	{"/machine.slice/libpod-" ID_A ".scope", ID_A},
	{"/machine.slice/libpod-" ID_A ".scope/container", ID_A},
	{"/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID_B
	 ".scope",
	 ID_B},
	{"/machine.slice/libpod-conmon-" ID_A ".scope", NULL},
	{"/libpod_parent/libpod-" ID_A, ID_A},
	/* LXC 4+, and before */
	{"/lxc.payload.web1", "web1"},
	{"/lxc.payload.web1/system.slice/cron.service", "web1"},
	{"/lxc.monitor.web1", NULL},
	{"/lxc/web2", "web2"},
	/* systemd-nspawn and libvirt: systemd's escapes decoded */
	{"/machine.slice/machine-debian\\x2dbookworm.scope", "debian-bookworm"},
	{"/machine.slice/machine-qemu\\x2d1\\x2dubuntu.scope/libvirt/emulator",
	 "qemu-1-ubuntu"},
	{"/machine.slice/systemd-nspawn@arch.service/payload", "arch"},
	{"/machine.slice/machine-bad\\xzz.scope", "bad\\xzz"},
	{"/machine.slice/machine-nul\\x00.scope", "nul\\x00"},
	{"/machine.slice/machine-.scope", NULL},
	/* the host */
	{"/", NULL},
	{"", NULL},
	{"/init.scope", NULL},
	{"/system.slice/docker.service", NULL},
	{"/system.slice/containerd.service", NULL},
	{"/system.slice/ssh.service", NULL},
	{"/user.slice/user-0.slice/session-3.scope", NULL},
	{"/machine.slice", NULL},
	/* not ids: too short, upper case, not hex */
	{"/system.slice/docker-abc.scope", NULL},
	{"/system.slice/docker-4F1C2D3E5A6B7C8D.scope", NULL},
	{"/docker/buildkit", NULL},
	{"/docker/" ID_A "xyz", NULL},
	/* slashes doubled or at the end */
	{"//docker//" ID_A "/", ID_A},
};

int main(void)
{
	char out[128];
	size_t i;
	int r;

	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		const struct sample *s = &samples[i];

		memset(out, 'Z', sizeof(out));
		r = cgroup_container(s->path, out, sizeof(out));
		if (s->want)
			CHECK(r == (int)strlen(s->want) &&
				      !strcmp(out, s->want),
			      "%s: got %d '%.*s', want '%s'", s->path, r,
			      r > 0 ? r : 0, out, s->want);
		else
			CHECK(r == -ENOENT, "%s: got %d, want none", s->path,
			      r);
	}
	/* an id one byte longer than the room: not cut */
	r = cgroup_container("/docker/" ID_A, out, 64);
	CHECK(r == -ENAMETOOLONG, "64-digit id in 64 bytes: got %d", r);
	r = cgroup_container("/docker/" ID_A, out, 65);
	CHECK(r == 64 && !strcmp(out, ID_A), "64-digit id in 65 bytes: %d", r);
	r = cgroup_container("/lxc.payload.web1", out, 0);
	CHECK(r == -ENAMETOOLONG, "no room at all: got %d", r);
	return done_testing();
}
