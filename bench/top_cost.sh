#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# top_cost.sh [SECS] [N...]
#
# What one reader of MOUNTPOINT/top costs the host, and what the kernel's
# run statistics add to a program run:
#
# 1. stats_cost.c: the empty program run by BPF_PROG_TEST_RUN with
#    statistics off and on (a BPF_ENABLE_STATS fd), paired rounds in one
#    run; the kernel's own time per run, and on/off as a ratio.
# 2. For each N (default 1000 10000): N software-event links (cpu-clock
#    with a period that never fires, one program, pinned: mklinks --set,
#    the tests' link maker), a fresh mount of build/fs/bpflinkfs, and its
#    CPU time (the sum of /proc/PID/task/*/schedstat, ns) over SECS
#    (default 20) seconds twice: idle (the floor: no reader), then with
#    one `cat top` reader at the default interval of 1 s. Reported: the
#    reader's CPU per interval (ms) and as % of one CPU, next to the floor.
#    Goal: top at 10,000 links under 1% of one CPU.
#
# The host's other links count too (each sample reads every link): their
# number is printed with the figures. Needs root, gcc, libbpf, libelf,
# fusermount3; exits 77 when it cannot run. Table to stdout and
# bench/results/top_cost-DATE-KERNEL.txt.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
daemon=${BPFLINKFS:-$root/build/fs/bpflinkfs}
secs=${1:-20}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000)

skip() {
	echo "top_cost.sh: $*" >&2
	exit 77
}
[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$daemon" ] || skip "no daemon at $daemon (ninja -C build)"
for t in gcc fusermount3 python3; do
	command -v $t >/dev/null || skip "$t is not installed"
done

work=$(mktemp -d /tmp/bpflinkfs-topcost.XXXXXX)
pins=/sys/fs/bpf/bpflinkfs-topcost-$$
mnt=$work/mnt
dpid=
cleanup() {
	[ -n "$dpid" ] && { fusermount3 -u "$mnt" 2>/dev/null || true; }
	rm -rf "$pins"
	rm -rf "$work"
}
trap cleanup EXIT

gcc -O2 -Wall -D_GNU_SOURCE -o "$work/stats_cost" "$here/stats_cost.c" -lbpf
gcc -O2 -Wall -D_GNU_SOURCE -o "$work/mklinks" \
	"$root/tests/tools/mklinks.c" -lbpf -lelf

# the daemon's CPU time so far, all threads, ns
cpu_ns() {
	cat /proc/"$dpid"/task/*/schedstat 2>/dev/null |
		awk '{ s += $1 } END { printf "%d\n", s }'
}

mount_daemon() {
	mkdir -p "$mnt"
	"$daemon" "$mnt" -f 2>>"$work/daemon.log" &
	dpid=$!
	for _ in $(seq 100); do
		mountpoint -q "$mnt" && return 0
		sleep 0.1
	done
	echo "top_cost.sh: no mount" >&2
	exit 1
}

unmount_daemon() {
	fusermount3 -u "$mnt"
	wait "$dpid" 2>/dev/null || true
	dpid=
}

out=$here/results/top_cost-$(date +%Y%m%d-%H%M)-$(uname -r).txt
mkdir -p "$here/results"
{
	echo "# top_cost.sh $(date -u +%FT%TZ) $(uname -r), $(nproc) CPUs"
	echo
	echo "## What statistics add per program run (BPF_PROG_TEST_RUN, empty program)"
	"$work/stats_cost" 10000000 7 | tee "$work/stats" | sed 's/^/    /'
	read -r off on added ratio < <(tail -1 "$work/stats")
	echo
	echo "| statistics | ns per run | |"
	echo "| --- | --- | --- |"
	echo "| off | $off | floor |"
	echo "| on | $on | +$added ns, ratio $ratio |"
	echo
	echo "## What one top reader costs the daemon (${secs} s each, interval 1 s)"
	echo
	echo "| links made | host links | idle ms/s | reader ms/interval | reader % of a CPU |"
	echo "| --- | --- | --- | --- | --- |"
	for n in "${sizes[@]}"; do
		rm -rf "$pins"
		mkdir -p "$pins"
		"$work/mklinks" --set "$pins" /bin/true x 0 0 "$n" >/dev/null
		mount_daemon
		ls "$mnt" >/dev/null # the first listing fills the link cache
		sleep 2
		a=$(cpu_ns)
		sleep "$secs"
		b=$(cpu_ns)
		timeout "$secs" cat "$mnt/top" >/dev/null || true
		c=$(cpu_ns)
		host=$(ls "$mnt" | grep -c '^[0-9]')
		unmount_daemon
		rm -rf "$pins"
		python3 - "$n" "$host" "$a" "$b" "$c" "$secs" <<'PY'
import sys
n, host, a, b, c, secs = sys.argv[1:]
a, b, c, secs = int(a), int(b), int(c), float(secs)
idle = (b - a) / secs / 1e6
reader = (c - b) / secs / 1e6 - idle
print(f"| {n} | {host} | {idle:.2f} | {reader:.2f} | {reader / 10:.3f}% |")
PY
	done
	echo
	echo "reader = the daemon's CPU per second with the reader, minus idle."
} | tee "$out"
