#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# events.sh [N]: what the events stream costs, one run, as ratios.
#
# 1. Cost per hit with no events reader: a uprobe on the events fixture's
#    function, N calls, the fixture's own CLOCK_BOOTTIME around its loop,
#    less the same loop unprobed; this daemon against BASE_BPFLINKFS, a
#    daemon built without the feature (e.g. from the commit before it);
#    without BASE_BPFLINKFS that row is left out. Three alternating rounds,
#    the best of each.
# 2. Delivery: `cat ID/events` against bpftrace
#    `printf("%d %d %s\n", pid, tid, comm)` on the same uprobe, N calls at
#    full speed: hits a second while read, lines delivered a second, lost.
#
# Needs root, bpftrace, fusermount3, python3; exits 77 when it cannot run.
# Table to stdout and bench/results/events-DATE-KERNEL.txt.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$here/..
N=${1:-1000000}
BPFLINKFS=${BPFLINKFS:-$src/build/fs/bpflinkfs}
FIX=${EVENTS_FIXTURE:-$src/build/tests/tools/events_fixture}
BASE=${BASE_BPFLINKFS:-}

[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
for t in bpftrace fusermount3 python3; do
	command -v $t >/dev/null || { echo "SKIP: no $t"; exit 77; }
done
[ -x "$BPFLINKFS" ] && [ -x "$FIX" ] ||
	{ echo "SKIP: build first (ninja -C build)"; exit 77; }
[ -n "$BASE" ] && [ -x "$BASE" ] ||
	echo "note: BASE_BPFLINKFS not set: no cost comparison" >&2
FIX=$(readlink -f "$FIX")
work=$(mktemp -d /tmp/bpflinkfs-bench-events.XXXXXX)
mnt=
dpid=
cleanup() {
	[ -n "$mnt" ] && fusermount3 -u "$mnt" 2>/dev/null
	[ -n "$dpid" ] && wait "$dpid" 2>/dev/null
	[ -n "$mnt" ] && rmdir "$mnt"
	rm -rf "$work"
}
trap cleanup EXIT

# mount DAEMON: a fresh mount with one uprobe link; sets mnt, dpid, id
mount_with() {
	mnt=$(mktemp -d /tmp/bpflinkfs-bench-mnt.XXXXXX)
	"$1" "$mnt" -f 2>>"$work/daemon.log" &
	dpid=$!
	for _ in $(seq 100); do
		mountpoint -q "$mnt" && break
		sleep 0.1
	done
	exec 3<>"$mnt/control"
	echo "uprobe:$FIX:bpflinkfs_events_hit" >&3
	read -r id <&3
	exec 3>&-
}
unmount() {
	fusermount3 -u "$mnt"
	wait "$dpid"
	rmdir "$mnt"
	mnt= dpid=
}
# loop_ns: ns a call of the fixture's loop, N calls
loop_ns() {
	"$FIX" bench "$N" >"$work/fix.out"
	python3 -c 'import sys
l = open(sys.argv[1]).read().split("\n")
t0 = float(l[0].split()[2]); t1 = float(l[1].split()[1])
print("%.1f" % ((t1 - t0) * 1e9 / int(sys.argv[2])))' "$work/fix.out" "$N"
}
best() { printf '%s\n' "$@" | sort -g | head -1; }

out=$work/table
{
	echo "# events.sh N=$N $(date -u +%FT%TZ) kernel $(uname -r)"
	echo "# $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out"

# --- 1. cost per hit, no reader
bare=() feat=() base=()
for round in 1 2 3; do
	bare+=("$(loop_ns)")
	mount_with "$BPFLINKFS"
	feat+=("$(loop_ns)")
	unmount
	if [ -n "$BASE" ] && [ -x "$BASE" ]; then
		mount_with "$BASE"
		base+=("$(loop_ns)")
		unmount
	fi
done
b=$(best "${bare[@]}") f=$(best "${feat[@]}")
{
	echo "cost per hit, no reader (ns a call, best of 3; loop unprobed $b)"
	echo "  this daemon       $(python3 -c "print('%.1f' % ($f - $b))")"
	if [ ${#base[@]} -gt 0 ]; then
		o=$(best "${base[@]}")
		echo "  without events    $(python3 -c "print('%.1f' % ($o - $b))")"
		echo "  ratio             $(python3 -c \
			"print('%.3f' % (($f - $b) / ($o - $b)))")"
	fi
} >>"$out"

# --- 2. delivery at full speed
mount_with "$BPFLINKFS"
h0=$(cat "$mnt/$id/hits")
cat "$mnt/$id/events" >"$work/ev.out" &
cpid=$!
sleep 1
"$FIX" bench "$N" >"$work/fix.out"
sleep 2
kill "$cpid"
wait "$cpid" 2>/dev/null
h1=$(cat "$mnt/$id/hits")
unmount
read -r secs <<<"$(python3 -c 'import sys
l = open(sys.argv[1]).read().split("\n")
print(float(l[1].split()[1]) - float(l[0].split()[2]))' "$work/fix.out")"
lines=$(grep -vc '^#' "$work/ev.out")
lost=$(awk '/^# lost/ {s += $3} END {print s + 0}' "$work/ev.out")

bpftrace -e "uprobe:$FIX:bpflinkfs_events_hit { printf(\"%d %d %s\\n\", pid, tid, comm); }" \
	>"$work/bt.out" 2>"$work/bt.err" &
bpid=$!
for _ in $(seq 300); do
	grep -q Attaching "$work/bt.out" && break
	sleep 0.1
done
sleep 1
"$FIX" bench "$N" >"$work/fix2.out"
sleep 2
kill -INT "$bpid"
wait "$bpid" 2>/dev/null
bsecs=$(python3 -c 'import sys
l = open(sys.argv[1]).read().split("\n")
print(float(l[1].split()[1]) - float(l[0].split()[2]))' "$work/fix2.out")
blines=$(grep -c ' bench$' "$work/bt.out")
blost=$(grep -ho 'Lost [0-9]*' "$work/bt.out" "$work/bt.err" |
	awk '{s += $2} END {print s + 0}')
python3 - "$N" "$((h1 - h0))" "$secs" "$lines" "$lost" "$bsecs" "$blines" \
	"$blost" >>"$out" <<'PY'
import sys
n, hits, s, l, lo, bs, bl, blo = sys.argv[1:]
n, hits, l, lo, bl, blo = map(int, (n, hits, l, lo, bl, blo))
s, bs = float(s), float(bs)
print("delivery at full speed, %d calls" % n)
print("  %-22s %12s %12s %10s" % ("", "hits/s", "lines/s", "lost"))
print("  %-22s %12.0f %12.0f %10d" % ("cat ID/events", hits / s, l / s, lo))
print("  %-22s %12.0f %12.0f %10d" % ("bpftrace printf", n / bs, bl / bs, blo))
print("  lines/s ratio (bpflinkfs / bpftrace): %.2f" % ((l / s) / (bl / bs)))
print("  accounted (lines + lost = hits): %s" % (l + lo == hits))
PY
cat "$out"
mkdir -p "$here/results"
cp "$out" "$here/results/events-$(date -u +%Y%m%d-%H%M)-$(uname -r).txt"
