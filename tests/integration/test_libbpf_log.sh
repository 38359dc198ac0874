#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# libbpf's messages reach the daemon's log (log_msg(), "bpflinkfs: libbpf:
# ..." in the foreground), not a bare stderr: a pin_dir whose events_on is
# a map of another layout (made here with bpftool) makes libbpf warn that
# it cannot reuse that pin, and the warning is in the log with the
# daemon's prefix; libbpf's debug lines only with -d.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"

bl_setup
command -v bpftool >/dev/null || skip "bpftool is not installed"
grep -q ' /sys/fs/bpf bpf ' /proc/mounts || skip "no bpffs at /sys/fs/bpf"
PIN=/sys/fs/bpf/bpflinkfs-libbpf-$$
trap 'rm -rf "$PIN"; bl_cleanup' EXIT
mkdir -m 0700 "$PIN" || die "mkdir $PIN"
bpftool map create "$PIN/events_on" type array key 4 value 8 entries 1 \
	name bl_test_other || die "bpftool map create"

bl_mount -o "pin_dir=$PIN"
grep -F "bpflinkfs: libbpf: " "$WORK/daemon.log" >"$WORK/routed"
assert_true "libbpf's warnings in the daemon's log" test -s "$WORK/routed"
assert_true "and they name the pin it cannot reuse: $PIN/events_on" \
	grep -qF "'$PIN/events_on'" "$WORK/routed"
assert_eq "no libbpf line outside the log" "" \
	"$(grep '^libbpf: ' "$WORK/daemon.log")"
# without -d, no debug line: libbpf says "loading" objects only in those
assert_eq "no libbpf debug line without -d" "" \
	"$(grep -i 'libbpf: loading' "$WORK/routed")"
bl_stop_daemon
rmdir "$MNT"

: >"$WORK/daemon.log"
bl_mount -d -o "pin_dir=$PIN"
assert_true "with -d: libbpf's debug lines in the log" \
	grep -qi "^bpflinkfs: libbpf: loading" "$WORK/daemon.log"
finish
