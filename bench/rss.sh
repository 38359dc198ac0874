#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The daemon's memory per foreign link: VmRSS grown by N software-event
# links (default 10,000) once a `cat MNT/links.json` has read them and the
# heap trimmer (fs/heap_trim.c, every 2 s) has run, for builds side by
# side, each mounted and warmed first (three pairs of parallel reads of
# links.json, so that the FUSE worker threads and their buffers exist
# before the count starts and are not charged to the links).
#
#   sudo bench/rss.sh [N [ROUNDS]] [-- DAEMON...]
#
# DAEMON defaults to build/fs/bpflinkfs; give two to compare builds. The
# links are made and pinned by tests/tools/mklinks --set, so no process
# holds them; every link has a pin, the worst case for the kept walk of
# the pins. Each round mounts every daemon afresh. Prints a line per round
# and daemon: links made, VmRSS before and after, bytes per link.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
n=${1:-10000}
rounds=${2:-2}
shift $(($# < 2 ? $# : 2))
[ "${1:-}" = -- ] && shift
daemons=("$@")
[ ${#daemons[@]} -eq 0 ] && daemons=("$root/build/fs/bpflinkfs")
[ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; exit 77; }
command -v fusermount3 >/dev/null || { echo "no fusermount3" >&2; exit 77; }
mklinks=$root/build/tests/tools/mklinks
[ -x "$mklinks" ] || { echo "build first: ninja -C build" >&2; exit 77; }

tmp=$(mktemp -d /tmp/rss.XXXXXX)
set_dir=/sys/fs/bpf/rss-$$
pids=()
cleanup() {
	local m
	for m in "$tmp"/mnt*; do
		mountpoint -q "$m" 2>/dev/null && fusermount3 -u "$m"
	done
	rm -rf "$set_dir" "$tmp" /sys/fs/bpf/rss-pin-$$-*
}
trap cleanup EXIT

rss() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"; }
links() { bpftool link list | grep -c '^[0-9]'; }

echo "VmRSS per foreign link: $n software-event links, pinned; $(date -u '+%Y-%m-%d %H:%M'), kernel $(uname -r)"
for r in $(seq "$rounds"); do
	declare -a pid=() before=()
	for i in "${!daemons[@]}"; do
		m=$tmp/mnt$i
		mkdir -p "$m"
		"${daemons[i]}" "$m" -f -o "pin_dir=/sys/fs/bpf/rss-pin-$$-$i" \
			2>>"$tmp/log" &
		pid[i]=$!
		for _ in $(seq 100); do mountpoint -q "$m" && break; sleep 0.1; done
		mountpoint -q "$m" || { cat "$tmp/log" >&2; exit 1; }
		for _ in 1 2 3; do
			cat "$m/links.json" >/dev/null &
			cat "$m/links.json" >/dev/null
			wait $! # not a bare wait: the daemon is a child too
		done
	done
	sleep 6 # the trimmer's period is 2 s
	for i in "${!daemons[@]}"; do before[i]=$(rss "${pid[i]}"); done
	l0=$(links)
	mkdir -p "$set_dir"
	"$mklinks" --set "$set_dir" /bin/true none_ 0 0 "$n" >/dev/null ||
		{ echo "mklinks --set failed" >&2; exit 1; }
	made=$(($(links) - l0))
	for i in "${!daemons[@]}"; do cat "$tmp/mnt$i/links.json" >/dev/null; done
	sleep 6
	for i in "${!daemons[@]}"; do
		after=$(rss "${pid[i]}")
		printf 'round %d  %-40s %6d links  %6d -> %6d KiB  %4d B/link\n' \
			"$r" "${daemons[i]}" "$made" "${before[i]}" "$after" \
			$(((after - before[i]) * 1024 / made))
		fusermount3 -u "$tmp/mnt$i"
		wait "${pid[i]}" 2>/dev/null
	done
	rm -rf "$set_dir"
	sleep 2
done
