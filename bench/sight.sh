#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# sight.sh [--quick] [ROUNDS]
#
# Cost per hit of what a probe sees besides its count, against Debian's
# bpftrace doing the same, in paired rounds on the same probe:
#   latency  `u:hot_fn latency` (a uprobe session link) against bpftrace's
#            uprobe + uretprobe with `@s[tid] = nsecs` and
#            `@h = hist(nsecs - @s[tid])`
#   stacks   `stacks=user` against `@[ustack] = count()`
#   by       `by=pid` against `@[pid] = count()`
# plus none (no probe) and counter (the built-in counter) for the floor,
# on two rows: uprobe (hit_fixture's hot_fn) and tracepoint
# (syscalls:sys_enter_getpid; no latency row there: a tracepoint has no
# return). The fixture runs on CPU 0, everything else on the last CPU.
# Overhead per hit = ns per call - none's; reported per row and option:
# ours, bpftrace's, and ours/bpftrace (the median over rounds of the ratio
# paired within each round). Each run is checked: our hits hold the calls,
# and bpftrace's map holds them (its count, or its histogram's).
#
# N calls per run: 1,000,000 (--quick: 200,000; CALLS=N sets it). ROUNDS
# default 3 (--quick 2). Needs root, gcc, bpftrace, taskset, the daemon
# (BPFLINKFS or build/fs/bpflinkfs); exits 77 when it cannot.
# Table to stdout and bench/results/sight-DATE-KERNEL.txt.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
daemon=${BPFLINKFS:-$root/build/fs/bpflinkfs}
calls=1000000
rounds=3
for a in "$@"; do
	case $a in
	--quick) calls=200000 rounds=2 ;;
	[0-9]*) rounds=$a ;;
	*) echo "usage: sight.sh [--quick] [ROUNDS]" >&2; exit 2 ;;
	esac
done
calls=${CALLS:-$calls}

skip() {
	echo "sight.sh: SKIP: $*" >&2
	exit 77
}
[ "$(id -u)" -eq 0 ] || skip "needs root"
for t in gcc bpftrace taskset objdump fusermount3 python3; do
	command -v "$t" >/dev/null || skip "$t not found"
done
[ -x "$daemon" ] || skip "no daemon at $daemon (ninja -C build)"
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || skip "needs 2 CPUs (fixture and the rest apart)"
last=$((ncpu - 1))
work=$(mktemp -d /tmp/bench-sight.XXXXXX)
mnt=$work/mnt
dpid= hpid=
cleanup() {
	[ -n "$hpid" ] && kill "$hpid" 2>/dev/null && wait "$hpid" 2>/dev/null
	if [ -n "$dpid" ]; then
		mountpoint -q "$mnt" && fusermount3 -u "$mnt" 2>/dev/null
		wait "$dpid" 2>/dev/null || true
	fi
	[ "${KEEP:-0}" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$mnt"
fix=$work/hit_fixture
gcc -O2 -o "$fix" "$here/hit_fixture.c"
taskset -c "$last" "$daemon" "$mnt" -f 2>"$work/daemon.log" &
dpid=$!
for _ in $(seq 100); do
	[ -e "$mnt/control" ] && break
	sleep 0.1
done
[ -e "$mnt/control" ] || skip "the daemon did not mount"

run_fixture() { taskset -c 0 "$fix" "$1" "$calls" | cut -d' ' -f1; }
mode_of() { [ "$1" = uprobe ] && echo uprobe || echo getpid; }
ours_probe() {
	[ "$1" = uprobe ] && echo "u:$fix:hot_fn" ||
		echo "t:syscalls:sys_enter_getpid"
}
bt_probe() {
	[ "$1" = uprobe ] && echo "uprobe:$fix:hot_fn" ||
		echo "tracepoint:syscalls:sys_enter_getpid"
}
ours_opt() {
	case $1 in
	counter) echo "" ;;
	latency) echo latency ;;
	stacks) echo stacks=user ;;
	by) echo by=pid ;;
	esac
}
bt_prog() {
	local p
	p=$(bt_probe "$1")
	case $2 in
	latency) echo "$p { @s[tid] = nsecs; } uretprobe:$fix:hot_fn" \
		"/@s[tid]/ { @h = hist(nsecs - @s[tid]); delete(@s[tid]); }" ;;
	stacks) echo "$p { @[ustack] = count(); }" ;;
	by) echo "$p { @[pid] = count(); }" ;;
	esac
}

# ours ROW OPT: ns per call with our link, its hits checked
ours() {
	local id ns hits
	exec 3<>"$mnt/control"
	echo "$(ours_probe "$1") $(ours_opt "$2")" >&3
	read -r id <&3
	exec 3>&-
	ns=$(run_fixture "$(mode_of "$1")")
	hits=$(cat "$mnt/$id/hits")
	echo "-$id" >"$mnt/control"
	[ "$hits" -ge "$calls" ] ||
		{ echo "ours $1 $2: $hits hits < $calls calls" >&2; exit 1; }
	echo "$ns"
}

# bt ROW OPT: ns per call under bpftrace, its map checked: the counts (or
# the histogram's) of its map add up to the calls at least
bt() {
	local ns sum
	taskset -c "$last" bpftrace -e "$(bt_prog "$1" "$2")" \
		>"$work/bt.out" 2>&1 &
	hpid=$!
	for _ in $(seq 300); do
		grep -qs Attaching "$work/bt.out" && break
		sleep 0.1
	done
	sleep 2 # it prints before it attaches
	ns=$(run_fixture "$(mode_of "$1")")
	kill -INT "$hpid"
	wait "$hpid" 2>/dev/null || true
	hpid=
	sum=$(awk '/^\[/ { sub(/\|.*/, ""); s += $NF; next }
		/^@.*: [0-9]+$/ { s += $NF } /^\]: [0-9]+$/ { s += $NF }
		END { print s + 0 }' "$work/bt.out")
	[ "$sum" -ge "$calls" ] ||
		{ echo "bpftrace $1 $2: $sum < $calls calls" >&2; exit 1; }
	echo "$ns"
}

printf 'round\trow\thow\tns_per_call\n' >"$work/raw.tsv"
for r in $(seq "$rounds"); do
	for row in uprobe tracepoint; do
		printf '%s\t%s\tnone\t%s\n' "$r" "$row" \
			"$(run_fixture "$(mode_of "$row")")" >>"$work/raw.tsv"
		printf '%s\t%s\tcounter\t%s\n' "$r" "$row" \
			"$(ours "$row" counter)" >>"$work/raw.tsv"
		for opt in latency stacks by; do
			[ "$row" = tracepoint ] && [ "$opt" = latency ] && continue
			printf '%s\t%s\t%s\t%s\n' "$r" "$row" "$opt" \
				"$(ours "$row" "$opt")" >>"$work/raw.tsv"
			printf '%s\t%s\tbt_%s\t%s\n' "$r" "$row" "$opt" \
				"$(bt "$row" "$opt")" >>"$work/raw.tsv"
		done
	done
done

out=$root/bench/results/sight-$(date +%Y%m%d-%H%M)-$(uname -r).txt
python3 - "$work/raw.tsv" "$calls" "$rounds" <<'PY' | tee "$out"
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
ns = {}
for r in rows:
    ns[(r["round"], r["row"], r["how"])] = float(r["ns_per_call"])
rounds = sorted({r["round"] for r in rows})
print("sight.sh: %s calls a run, %s rounds, paired; overhead = ns per call"
      " - none's (median over rounds)" % (sys.argv[2], sys.argv[3]))
print("row\toption\tnone_ns\tcounter_ns\tours_ns\tbpftrace_ns\tours/bpftrace")
for row in ("uprobe", "tracepoint"):
    for opt in ("latency", "stacks", "by"):
        if not (rounds[0], row, opt) in ns:
            continue
        none = st.median(ns[(k, row, "none")] for k in rounds)
        cnt = st.median(ns[(k, row, "counter")] - ns[(k, row, "none")]
                        for k in rounds)
        o = [ns[(k, row, opt)] - ns[(k, row, "none")] for k in rounds]
        b = [ns[(k, row, "bt_" + opt)] - ns[(k, row, "none")] for k in rounds]
        ratio = st.median(x / y for x, y in zip(o, b))
        print("%s\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%.2f" % (row, opt, none, cnt,
              st.median(o), st.median(b), ratio))
PY
echo "raw figures: $work/raw.tsv (KEEP=1 keeps them)" >&2
