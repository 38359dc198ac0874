#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# holders.sh [REPEAT]
#
# What `holders` costs: `cat MNT/links.json` (every link's pids objects
# with cgroup and container, each holder's /proc/PID/cgroup read once per
# read) against `bpftool -j link show` (the reference: it lists every link
# with its holders' pid and comm, found with the same kind of iterator),
# wall time per read as the median of REPEAT (default 20) reads each, in
# two settings: 1,000 links held by one process, and 1,000 links held by
# 200 processes, 5 each (200 cgroup files per read). Also one link's
# `holders` against its `pids` (the same walk, plus one cgroup file), and
# `cat features` on the same mount, the floor of a FUSE read by a new
# process. Links are rarely firing page-fault events made by mklinks.
# Prints a table with the ratio (bpflinkfs / bpftool) and writes it to
# bench/results/holders-DATE-KERNEL.txt.
#
# Environment: BPFLINKFS (daemon), MKLINKS (tests/tools/mklinks), BPFTOOL.
# Exit 77 when it cannot run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
repeat=${1:-20}
daemon=${BPFLINKFS:-$root/build/fs/bpflinkfs}
mklinks=${MKLINKS:-$root/build/tests/tools/mklinks}
bpftool=${BPFTOOL:-bpftool}

skip() {
	echo "holders.sh: SKIP: $*" >&2
	exit 77
}

[ "$(id -u)" -eq 0 ] || skip "needs root"
[ -x "$daemon" ] || skip "no daemon at $daemon (ninja -C build)"
[ -x "$mklinks" ] || skip "no mklinks at $mklinks (ninja -C build)"
command -v "$bpftool" >/dev/null || skip "no bpftool"
command -v python3 >/dev/null || skip "no python3"

work=$(mktemp -d /tmp/bpflinkfs-bench-holders.XXXXXX)
mnt=$work/mnt
mkdir "$mnt"
mk_pids=()
fifo_fd=
cleanup() {
	[ -n "$fifo_fd" ] && eval "exec $fifo_fd>&-"
	[ "${#mk_pids[@]}" -gt 0 ] && wait "${mk_pids[@]}" 2>/dev/null
	mountpoint -q "$mnt" && fusermount3 -u "$mnt"
	rm -rf "$work"
}
trap cleanup EXIT

"$daemon" "$mnt" -f 2>"$work/daemon.log" &
for i in $(seq 100); do
	mountpoint -q "$mnt" && break
	sleep 0.1
done
mountpoint -q "$mnt" || skip "the daemon did not mount: $(cat "$work/daemon.log")"

# median_ms CMD...: median wall time of REPEAT runs of CMD, in ms
median_ms() {
	python3 - "$repeat" "$@" <<'PY'
import subprocess, sys, time
n, cmd = int(sys.argv[1]), sys.argv[2:]
t = []
for _ in range(n):
    s = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    t.append((time.perf_counter() - s) * 1000)
t.sort()
print("%.2f" % t[len(t) // 2])
PY
}

# setting NAME PROCS LINKS_EACH: PROCS mklinks holding LINKS_EACH links
# each (page-fault events every 10^6 faults: they almost never run)
setting() {
	local name=$1 procs=$2 each=$3 in=$work/mk.in i ours ref one pids
	local floor id specs=()
	for i in $(seq "$each"); do specs+=("software:2:0:$i"); done
	rm -f "$in" "$work"/mk.*.out
	mkfifo "$in"
	mk_pids=()
	for i in $(seq "$procs"); do
		"$mklinks" "${specs[@]}" <"$in" >"$work/mk.$i.out" 2>&1 &
		mk_pids+=($!)
	done
	exec {fifo_fd}>"$in"
	for i in $(seq 1200); do
		[ "$(grep -lx ready "$work"/mk.*.out 2>/dev/null | wc -l)" -eq \
			"$procs" ] && break
		sleep 0.1
	done
	[ "$(grep -lx ready "$work"/mk.*.out | wc -l)" -eq "$procs" ] ||
		skip "mklinks: $(cat "$work/mk.1.out")"
	id=$(head -n1 "$work/mk.1.out" | cut -f1)
	ours=$(median_ms cat "$mnt/links.json")
	ref=$(median_ms "$bpftool" -j link show)
	one=$(median_ms cat "$mnt/$id/holders")
	pids=$(median_ms cat "$mnt/$id/pids")
	floor=$(median_ms cat "$mnt/features")
	printf '%-30s %6s %11s %9s %6s %8s %7s %9s\n' "$name" \
		"$(ls "$mnt" | grep -c '^[0-9]')" "$ours" "$ref" \
		"$(python3 -c "print('%.2f' % ($ours / $ref))")" "$one" "$pids" \
		"$floor"
	exec {fifo_fd}>&-
	fifo_fd=
	wait "${mk_pids[@]}" || true
	mk_pids=()
}

out=$work/table
{
	echo "# holders: links.json against bpftool link show, kernel" \
		"$(uname -r), $(nproc) CPUs, median of $repeat reads, $(date -u +%F)"
	printf '%-30s %6s %11s %9s %6s %8s %7s %9s\n' setting links \
		"links.json" bpftool ratio holders pids features
	printf '%-30s %6s %11s %9s %6s %8s %7s %9s\n' "" "(host)" ms ms "" \
		"ms" "ms" ms
	setting "1000 links, 1 process" 1 1000
	setting "1000 links, 200 processes" 200 5
} | tee "$out"
mkdir -p "$here/results"
cp "$out" "$here/results/holders-$(date -u +%Y%m%d-%H%M)-$(uname -r).txt"
