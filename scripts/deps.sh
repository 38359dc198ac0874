#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install what bpflinkfs needs on Debian 12, and set up the kernel
# interfaces it uses. Run as root. Safe to run again: it installs only
# missing packages and mounts only what is not mounted.
#
#   deps.sh          what building and running need (packages-run.txt):
#                    the mount command's set-up (scripts/mount.sh)
#   deps.sh --test   that and the test tools (packages-test.txt): the test
#                    command's (scripts/test.sh)
#
# Exit status: 0, or 1 when a package cannot be installed (2: a bad
# argument). A kernel interface that cannot be set up (in a container, say)
# is a warning only: the daemon and the tests say what they miss.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LISTS=("$HERE/packages-run.txt")
case ${1:-} in
"") ;;
--test) LISTS+=("$HERE/packages-test.txt") ;;
*)
	echo "usage: $0 [--test]" >&2
	exit 2
	;;
esac

# The package names of the lists: one or more a line, # starts a comment.
PACKAGES=()
for list in "${LISTS[@]}"; do
	[ -r "$list" ] || { echo "deps: cannot read $list" >&2; exit 1; }
	read -r -d '' -a words < <(sed 's/#.*//' "$list"; printf '\0') || true
	PACKAGES+=("${words[@]}")
done

say() { printf 'deps: %s\n' "$*"; }
warn() { printf 'deps: warning: %s\n' "$*" >&2; }

is_root() { [ "$(id -u)" -eq 0 ]; }

# dpkg-query prints "installed" only for a fully installed package; a
# package that was removed but not purged reads "config-files".
pkg_installed() {
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

install_packages() {
	local missing=() p

	if ! command -v dpkg-query >/dev/null; then
		warn "not a Debian system (no dpkg-query); install by hand: ${PACKAGES[*]}"
		return 0
	fi
	for p in "${PACKAGES[@]}"; do
		pkg_installed "$p" || missing+=("$p")
	done
	if [ "${#missing[@]}" -eq 0 ]; then
		say "all packages installed"
		return 0
	fi
	if ! is_root; then
		echo "deps: missing packages: ${missing[*]}; run as root (sudo $0)" >&2
		return 1
	fi
	say "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# A fresh machine may have no package lists at all: update once first.
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" \
		</dev/null >/dev/null
	say "installed ${#missing[@]} package(s)"
}

load_fuse() {
	[ -c /dev/fuse ] && return 0
	if command -v modprobe >/dev/null && modprobe fuse && [ -c /dev/fuse ]; then
		say "loaded the fuse module"
		return 0
	fi
	warn "no /dev/fuse: load the fuse module (modprobe fuse)"
}

# mount_fs TYPE DIR: mount a pseudo file system unless DIR already has one.
mount_fs() {
	local type=$1 dir=$2

	if mountpoint -q "$dir" 2>/dev/null; then
		return 0
	fi
	mkdir -p "$dir" 2>/dev/null || true
	if mount -t "$type" "$type" "$dir" 2>/dev/null; then
		say "mounted $type at $dir"
	else
		warn "cannot mount $type at $dir (mount -t $type $type $dir)"
	fi
}

setup_kernel() {
	if ! is_root; then
		warn "not root: /dev/fuse, tracefs and bpffs not checked"
		return 0
	fi
	load_fuse
	mount_fs tracefs /sys/kernel/tracing
	mount_fs bpf /sys/fs/bpf
	[ -r /sys/kernel/btf/vmlinux ] ||
		warn "no /sys/kernel/btf/vmlinux: the kernel needs CONFIG_DEBUG_INFO_BTF=y"
}

install_packages
setup_kernel
