#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bpftool_bpo.sh [CACHE]: print the path of a bpftool 7.5+ from
# bookworm-backports, unpacked into CACHE (default
# /var/cache/bpflinkfs-bpftool) without touching the machine's apt sources,
# lists or package cache; exit 1 (with the reason on stderr) when it cannot
# be had. bpftool 7.5 prints perf-link and multi-link details that Debian
# 12's 7.1 does not; the tests and bench/ compare against it. It may need
# the backports libbpf beside it: then run it with
# LD_LIBRARY_PATH=$(dirname PATH)/../lib/x86_64-linux-gnu (the second line
# printed, empty when not needed).
set -uo pipefail

d=${1:-/var/cache/bpflinkfs-bpftool}
a=(-o "Dir::Etc::SourceList=$d/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/apt")
bin=$d/root/usr/sbin/bpftool
lib=$d/root/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)

fetch() { # fetch PACKAGE: download and unpack PACKAGE/bookworm-backports
	(cd "$d/debs" && apt-get -qq "${a[@]}" download "$1/bookworm-backports" >&2) &&
		dpkg -x "$d"/debs/"$1"_*.deb "$d/root"
}

if [ ! -x "$bin" ]; then
	mkdir -p "$d/lists/partial" "$d/apt/archives/partial" "$d/debs" || exit 1
	echo "deb http://deb.debian.org/debian bookworm-backports main" \
		>"$d/sources.list"
	apt-get -qq "${a[@]}" update >&2 && fetch bpftool ||
		{ echo "bpftool_bpo: bookworm-backports cannot be had" >&2; exit 1; }
fi
if ! "$bin" version >/dev/null 2>&1; then
	[ -d "$lib" ] || fetch libbpf1
	LD_LIBRARY_PATH=$lib "$bin" version >/dev/null 2>&1 ||
		{ echo "bpftool_bpo: $bin does not run" >&2; exit 1; }
	printf '%s\n%s\n' "$bin" "$lib"
	exit 0
fi
printf '%s\n\n' "$bin"
