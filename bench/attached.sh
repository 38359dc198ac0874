#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# attached.sh [REPEAT]
#
# `cat MNT/attached/attached.json` against `bpftool -j perf show` (the
# reference: both list every perf event with a program and no link, with
# BPF_TASK_FD_QUERY's answers), wall time per read as the median of REPEAT
# (default 20) reads each, in two settings: 100 attachments held by one
# process (setbpf, 100 tracepoint perf events on 2 tracepoints) and 1,000
# processes with one attachment each (setbpf --procs 1000, on 20
# tracepoints: one takes 64 programs at most). Prints a table with the ratio
# (bpflinkfs / bpftool; the target is at most 1.0) and writes it to
# bench/results/attached-DATE-KERNEL.txt. The last column, `cat features`
# on the same mount, is the floor of a FUSE read by a new process.
#
# Environment: BPFLINKFS (daemon), SETBPF (tests/tools/setbpf), BPFTOOL.
# Exit 77 when it cannot run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
repeat=${1:-20}
daemon=${BPFLINKFS:-$root/build/fs/bpflinkfs}
setbpf=${SETBPF:-$root/build/tests/tools/setbpf}
bpftool=${BPFTOOL:-bpftool}

skip() {
	echo "attached.sh: SKIP: $*" >&2
	exit 77
}

[ "$(id -u)" -eq 0 ] || skip "needs root"
[ -x "$daemon" ] || skip "no daemon at $daemon (ninja -C build)"
[ -x "$setbpf" ] || skip "no setbpf at $setbpf (ninja -C build)"
command -v "$bpftool" >/dev/null || skip "no bpftool"
command -v python3 >/dev/null || skip "no python3"
for tracefs in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -d "$tracefs/events/syscalls" ] && break
done
[ -d "$tracefs/events/syscalls" ] || skip "no syscall tracepoints in tracefs"

work=$(mktemp -d /tmp/bpflinkfs-bench-attached.XXXXXX)
mnt=$work/mnt
mkdir "$mnt"
sb_pid=
cleanup() {
	[ -n "$sb_pid" ] && kill "$sb_pid" 2>/dev/null && wait "$sb_pid"
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
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    t.append((time.perf_counter() - s) * 1000)
t.sort()
print("%.2f" % t[len(t) // 2])
PY
}

# setting NAME SETBPF-ARGS...: start setbpf, time both, stop it
setting() {
	local name=$1 in=$work/sb.in ours ref n
	shift
	rm -f "$in"
	mkfifo "$in"
	"$setbpf" "$@" <"$in" >"$work/sb.out" 2>"$work/sb.err" &
	sb_pid=$!
	exec 9>"$in"
	for i in $(seq 1200); do
		grep -qx ready "$work/sb.out" 2>/dev/null && break
		kill -0 "$sb_pid" 2>/dev/null || skip "setbpf: $(cat "$work/sb.err")"
		sleep 0.1
	done
	n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' \
		"$mnt/attached/attached.json")
	ours=$(median_ms cat "$mnt/attached/attached.json")
	ref=$(median_ms "$bpftool" -j perf show)
	floor=$(median_ms cat "$mnt/features")
	printf '%-28s %9s %12s %12s %7s %9s\n' "$name" "$n" "$ours" "$ref" \
		"$(python3 -c "print('%.2f' % ($ours / $ref))")" "$floor"
	exec 9>&-
	wait "$sb_pid" || true
	sb_pid=
}

out=$work/table
{
	echo "# attached/ against bpftool perf show, kernel $(uname -r)," \
		"$(nproc) CPUs, median of $repeat reads, $(date -u +%F)"
	printf '%-28s %9s %12s %12s %7s %9s\n' setting entries "attached.json" \
		"bpftool" ratio "features"
	printf '%-28s %9s %12s %12s %7s %9s\n' "" "" "ms" "ms" "" "ms"
	# a tracepoint takes 64 programs at most: spread over several
	mapfile -t tps < <(ls "$tracefs/events/syscalls" | grep '^sys_enter_' |
		head -n 20 | sed 's/^/tracepoint:syscalls:/')
	[ "${#tps[@]}" -eq 20 ] || skip "fewer than 20 syscall tracepoints"
	mapfile -t specs < <(for i in $(seq 50); do printf '%s\n' "${tps[@]:0:2}"; done)
	setting "100 in one process" "${specs[@]}"
	setting "1000 processes, 1 each" --procs 1000 "${tps[@]}"
} | tee "$out"
mkdir -p "$here/results"
cp "$out" "$here/results/attached-$(date -u +%Y%m%d-%H%M)-$(uname -r).txt"
