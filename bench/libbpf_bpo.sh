#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# libbpf_bpo.sh [CACHE]: print the root of a libbpf 1.3+ (headers and the
# static libbpf.a) from bookworm-backports' libbpf-dev, unpacked into CACHE
# (default /var/cache/bpflinkfs-libbpf) the way scripts/bpftool_bpo.sh gets
# bpftool: its own sources.list, lists and package cache, so the machine's
# apt state and its installed libbpf 1.1 stay as they are. Build against it
# with -I ROOT/usr/include ROOT/usr/lib/MULTIARCH/libbpf.a -lelf -lz.
# Exit 1 (with the reason on stderr) when it cannot be had or is older than
# 1.3 (bpf_program__attach_uprobe_multi came with libbpf 1.3).
set -uo pipefail

d=${1:-/var/cache/bpflinkfs-libbpf}
a=(-o "Dir::Etc::SourceList=$d/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/apt")
arch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
lib=$d/root/usr/lib/$arch/libbpf.a
ver=$d/root/usr/include/bpf/libbpf_version.h

if [ ! -f "$lib" ] || [ ! -f "$ver" ]; then
	mkdir -p "$d/lists/partial" "$d/apt/archives/partial" "$d/debs" || exit 1
	echo "deb http://deb.debian.org/debian bookworm-backports main" \
		>"$d/sources.list"
	rm -f "$d"/debs/libbpf-dev_*.deb
	if ! apt-get -qq "${a[@]}" update >&2 ||
		! (cd "$d/debs" &&
			apt-get -qq "${a[@]}" download libbpf-dev/bookworm-backports >&2) ||
		! dpkg -x "$d"/debs/libbpf-dev_*.deb "$d/root"; then
		echo "libbpf_bpo: libbpf-dev from bookworm-backports cannot be had" >&2
		exit 1
	fi
fi
major=$(awk '/define LIBBPF_MAJOR_VERSION/ { print $3 }' "$ver" 2>/dev/null)
minor=$(awk '/define LIBBPF_MINOR_VERSION/ { print $3 }' "$ver" 2>/dev/null)
if [ -z "$major" ] || [ "$major" -lt 1 ] ||
	{ [ "$major" = 1 ] && [ "${minor:-0}" -lt 3 ]; }; then
	echo "libbpf_bpo: backports libbpf is ${major:-?}.${minor:-?}, need 1.3+" >&2
	exit 1
fi
printf '%s\n' "$d/root"
