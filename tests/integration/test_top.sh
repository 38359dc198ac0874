#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Run statistics and `top`, against what the kernel says (bpftool -j prog
# show) and what the callers count themselves: every link's prog_* files
# and links.json equal bpf(2)'s figures; statistics are off with no reader
# (a foreign program's run_cnt does not move under calls), on while top is
# open, off after the last reader closes or is killed, and after kill -9
# of a daemon mounted with -o bpf_stats; top's RUNS/S of an own and a
# foreign uprobe link are within 20% of the rate a fixture made; a program
# that recurses shows MISSED/S and the kernel's recursion_misses; head,
# poll, O_NONBLOCK, access, top_interval=.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"
source "$HERE/lib_control.sh"

bl_setup
[ -d /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"
[ -x "${RATE_FIXTURE:-}" ] || skip "\$RATE_FIXTURE is not set"
[ -x "${RECURSE:-}" ] || skip "\$RECURSE is not set"
for tool in setpriv taskset stdbuf; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
[ "$(cat /proc/sys/kernel/bpf_stats_enabled)" = 0 ] ||
	skip "kernel.bpf_stats_enabled is 1: statistics cannot be seen off"
FIX=$(readlink -f "$RATE_FIXTURE")
OFF=$(elf_file_offset "$FIX" bpflinkfs_rate_hit) || die "offset"
RATE=20000
declare -A RPID

# prog_field PROG_ID FIELD: bpftool's value, 0 where it leaves it out
prog_field() {
	bpftool -j prog show id "$1" | python3 -c '
import json, sys
print(json.load(sys.stdin).get(sys.argv[1], 0))' "$2"
}

link_prog() {
	bpftool -j link show id "$1" | python3 -c '
import json, sys
print(json.load(sys.stdin)["prog_id"])'
}

# moved PROG_ID: how far its run_cnt moves under 0.3 s of calls
moved() {
	local a b
	a=$(prog_field "$1" run_cnt)
	taskset -c 0 "$FIX" 10000 0.3 >/dev/null
	b=$(prog_field "$1" run_cnt)
	echo $((b - a))
}

# start_top NAME: `cat top` in the background, once its open is done
start_top() {
	cat "$MNT/top" >"$WORK/$1.out" 2>"$WORK/$1.err" &
	RPID[$1]=$!
	wait_for -q 5 eval 'ls -l "/proc/'"${RPID[$1]}"'/fd" 2>/dev/null | grep -q "/top$"' ||
		fail "reader $1 did not open top"
}

# stop_top NAME [SIGNAL]
stop_top() {
	kill "${2:--TERM}" "${RPID[$1]}" 2>/dev/null
	wait "${RPID[$1]}" 2>/dev/null
	unset "RPID[$1]"
}

# wait_off PROG_ID: statistics go off within 5 s
wait_off() {
	local prog=$1
	wait_for -q 5 eval '[ "$(moved "$prog")" -eq 0 ]'
}

# features_stats: the bpf_stats line of features
features_stats() {
	grep '^bpf_stats ' "$MNT/features"
}

bl_mount
mkl_start foreign "uprobe:$FIX:$OFF:7"
read -r FID _ _ _ _ FPROG <<<"$(mkl_lines foreign)"
OWN=$(ctl_create "uprobe:$FIX:bpflinkfs_rate_hit"$'\n') || die "own link"
OPROG=$(link_prog "$OWN")
coproc REC { "$RECURSE"; }
read -r RLINK RPROG <&"${REC[0]}" || die "recurse did not start"
read -r ready <&"${REC[0]}"
assert_eq "recurse: ready" ready "$ready"

# --- off with no reader
assert_eq "no reader: features says off" "bpf_stats 0" "$(features_stats)"
assert_num_eq "no reader: a foreign program does not count" 0 \
	"$(moved "$FPROG")"
assert_eq "top is root's, 0400" "400 0" "$(stat -c '%a %u' "$MNT/top")"

# --- head: a first block one interval after the open
taskset -c 0 "$FIX" $RATE 4 >"$WORK/fix0.out" &
FIXPID=$!
START=$(date +%s.%N)
# line-buffered as at a terminal (to a file, head writes at its exit)
timeout 10 stdbuf -oL head -n 30 "$MNT/top" >"$WORK/head.out" &
HPID=$!
wait_for -q 10 grep -q "^$OWN	" "$WORK/head.out"
END=$(date +%s.%N)
kill $HPID 2>/dev/null
wait $HPID 2>/dev/null
wait $FIXPID
assert_eq "head: a block with the header" \
	"ID	TYPE	NAME	PROG_ID	RUNS/S	NS/RUN	CPU%	MISSED/S" \
	"$(sed -n 2p "$WORK/head.out")"
assert_match "head: the block's time line" '^# [0-9]+\.[0-9]{6}$' \
	"$(head -1 "$WORK/head.out")"
assert_match "head: the own link is in the first block" \
	"^$OWN	uprobe	$FIX	$OPROG	" "$(grep "^$OWN	" "$WORK/head.out")"
# the point: one interval (1 s), not two or more; the margin is for
# sampling a busy host's links on two shared CPUs and a sanitizer build
assert_true "head: the first block within 4 s" python3 -c \
	"import sys; sys.exit(not ($END - $START) < 4)"
wait_off "$FPROG" || fail "head gone: statistics still on"

# --- on while a reader is open; RUNS/S against the fixture's own rate
start_top a
assert_true "reader open: a foreign program counts" \
	test "$(moved "$FPROG")" -gt 0
assert_eq "reader open: features says on" "bpf_stats 1" "$(features_stats)"
grep -q '^bpflinkfs_prog_run_count_total{prog_id="'"$FPROG"'"' \
	"$MNT/metrics.prom" || fail "reader open: no run count in metrics"
read -r CALLS FSTART FEND FRATE < <(taskset -c 0 "$FIX" $RATE 4)
# block_after T: the reader has a block stamped at T or later
block_after() {
	python3 - "$WORK/a.out" "$1" <<'PY'
import sys
t = [float(l[2:]) for l in open(sys.argv[1], 'rb').read().split(b'\n')
     if l.startswith(b'# ')]
sys.exit(not t or t[-1] < float(sys.argv[2]))
PY
}
wait_for -q 5 block_after "$FEND"
# blocks whose interval lies within the fixture's run: each link's RUNS/S
python3 - "$WORK/a.out" "$FSTART" "$FEND" "$OWN" "$FID" \
	>"$WORK/rates" <<'PY'
import sys
path, start, end, ids = sys.argv[1], float(sys.argv[2]), float(
    sys.argv[3]), sys.argv[4:]
blocks, cur = [], None
for line in open(path, 'rb').read().split(b'\n'):
    if line.startswith(b'# '):
        cur = {'t': float(line[2:]), 'rows': {}}
        blocks.append(cur)
    elif cur is not None and line[:1].isdigit():
        f = line.split(b'\t')
        cur['rows'][f[0].decode()] = f
for prev, b in zip(blocks, blocks[1:]):
    if prev['t'] < start or b['t'] > end:
        continue
    for i in ids:
        f = b['rows'].get(i)
        print(i, *(float(f[k]) if f else 0 for k in (4, 5, 6)))
PY
[ -s "$WORK/rates" ] || fail "no block within the fixture's run"
while read -r id runs ns cpu; do
	assert_true "link $id: RUNS/S $runs within 20% of $FRATE" python3 -c \
		"import sys; sys.exit(not abs($runs - $FRATE) <= 0.2 * $FRATE)"
	assert_true "link $id: CPU% $cpu is RUNS/S x NS/RUN" python3 -c \
		"import sys; sys.exit(not abs($cpu - $runs * $ns / 1e7) <= 0.011 + 0.02 * $cpu)"
done <"$WORK/rates"

# --- recursion misses: the program that fires its own tracepoint
for i in $(seq 10); do
	echo 500 >&"${REC[1]}"
	read -r _ <&"${REC[0]}"
	sleep 0.15 # kept: spreads the rounds over more than one 1 s block
done
# missed_shown: a block of reader a shows MISSED/S of link RLINK
missed_shown() {
	python3 - "$WORK/a.out" "$RLINK" <<'PY'
import sys
rows = [l.split(b'\t') for l in open(sys.argv[1], 'rb').read().split(b'\n')
        if l.startswith(sys.argv[2].encode() + b'\t')]
sys.exit(not any(float(r[7]) > 0 for r in rows))
PY
}
wait_for -q 10 missed_shown
assert_true "recursion: MISSED/S of link $RLINK shown" missed_shown
assert_num_eq "recursion: bpftool counts the nested runs" 5000 \
	"$(prog_field "$RPROG" recursion_misses)"
assert_eq "recursion: metrics.prom" \
	"bpflinkfs_prog_recursion_misses_total{prog_id=\"$RPROG\",prog_name=\"recurse_tp\"} 5000" \
	"$(grep "^bpflinkfs_prog_recursion_misses_total{prog_id=\"$RPROG\"" \
		"$MNT/metrics.prom")"
assert_match "metrics: own link's run time" \
	"^bpflinkfs_link_run_time_seconds_total\{id=\"$OWN\"\} [0-9]+\.[0-9]{9}$" \
	"$(grep "^bpflinkfs_link_run_time_seconds_total{id=\"$OWN\"}" \
		"$MNT/metrics.prom")"

# --- poll and O_NONBLOCK on a second reader; then the first one killed
assert_true "O_NONBLOCK, poll" timeout 10 python3 - "$MNT/top" <<'PY'
import errno, os, select, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
try:
    os.read(fd, 65536)
    sys.exit("a new reader read before its first block")
except OSError as e:
    assert e.errno == errno.EAGAIN, e
p = select.poll()
p.register(fd, select.POLLIN)
assert p.poll(3000), "poll: no block within 3 s"
assert os.read(fd, 65536).startswith(b'# ')
os.close(fd)
PY
stop_top a -KILL
bl_daemon_alive || fail "daemon gone after a reader was killed"
wait_off "$FPROG" || fail "last reader killed: statistics still on"
assert_eq "last reader gone: features says off" "bpf_stats 0" \
	"$(features_stats)"
grep -q '^bpflinkfs_prog_run_count_total' "$MNT/metrics.prom" &&
	fail "statistics off: run count family still in metrics.prom"

# --- a reader blocked in read, killed: its read ends, statistics off
start_top b
wait_for 5 bl_blocked "${RPID[b]}"
stop_top b -KILL
bl_daemon_alive || fail "daemon gone after a blocked reader was killed"
wait_off "$FPROG" || fail "blocked reader killed: statistics still on"

# --- the prog_* files and links.json against bpftool, statistics off
for id in "$OWN:$OPROG" "$FID:$FPROG" "$RLINK:$RPROG"; do
	l=${id%%:*} p=${id#*:}
	for f in run_cnt run_time_ns recursion_misses; do
		want=$(prog_field "$p" "$f")
		assert_eq "link $l: prog_$f" "$want" \
			"$(cat "$MNT/$l/prog_$f")"
		assert_eq "link $l: links.json prog_$f" "$want" \
			"$(python3 -c 'import json, sys
for o in json.load(open(sys.argv[1], "rb")):
    if o["id"] == int(sys.argv[2]):
        v = o[sys.argv[3]]
        assert isinstance(v, int)
        print(v)' "$MNT/links.json" "$l" "prog_$f")"
	done
done
assert_true "own link counted runs" test "$(prog_field "$OPROG" run_cnt)" -gt 0

# --- access: not root; root without CAP_PERFMON and CAP_SYS_ADMIN
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
	cat "$MNT/top" 2>&1) && fail "non-root read top"
assert_match "non-root: EACCES" "Permission denied" "$out"
out=$(timeout 5 setpriv --inh-caps=-sys_admin,-perfmon \
	--bounding-set=-sys_admin,-perfmon cat "$MNT/top" 2>&1) &&
	fail "root without CAP_PERFMON read top"
assert_match "no CAP_PERFMON: EACCES" "Permission denied" "$out"
out=$(timeout 5 python3 -c 'import os, sys; os.open(sys.argv[1], os.O_WRONLY)' \
	"$MNT/top" 2>&1) && fail "top opened for writing"
assert_match "write: EACCES" "Permission denied" "$out"
assert_num_eq "refused readers left statistics off" 0 "$(moved "$FPROG")"
out=$(timeout 5 setpriv --inh-caps=-sys_admin,-perfmon \
	--bounding-set=-sys_admin,-perfmon cat "$MNT/$OWN/events" 2>&1) &&
	fail "root without CAP_PERFMON read events"
assert_match "events, no CAP_PERFMON: EACCES" "Permission denied" "$out"

# --- another process's BPF_ENABLE_STATS fd (the sysctl stays 0): features
# and metrics.prom see statistics on, and off again when it closes
mkfifo "$WORK/hold.in"
python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
nr = {"x86_64": 321, "aarch64": 280}[os.uname().machine]  # bpf(2)
attr = ctypes.c_uint32(0)  # BPF_STATS_RUN_TIME
fd = libc.syscall(nr, 32, ctypes.byref(attr), 4)  # BPF_ENABLE_STATS
print(fd, flush=True)
sys.stdin.read()' <"$WORK/hold.in" >"$WORK/hold.out" &
HOLD_PID=$!
exec {HOLD_FD}>"$WORK/hold.in"
wait_for 5 test -s "$WORK/hold.out"
hfd=$(cat "$WORK/hold.out")
assert_true "another process holds BPF_ENABLE_STATS" test "$hfd" -ge 0
assert_eq "sysctl still 0" 0 "$(cat /proc/sys/kernel/bpf_stats_enabled)"
assert_eq "another holder: features says on" "bpf_stats 1" "$(features_stats)"
grep -q '^bpflinkfs_prog_run_count_total{prog_id="'"$FPROG"'"' \
	"$MNT/metrics.prom" || fail "another holder: no run count in metrics"
exec {HOLD_FD}>&-
wait "$HOLD_PID" 2>/dev/null
wait_off "$FPROG" || fail "holder gone: statistics still on"
assert_eq "holder gone: features says off" "bpf_stats 0" "$(features_stats)"

# --- top_interval=: bad values refused
for bad in 5 abc 86400001; do
	m=$(mktemp -d /tmp/bpflinkfs-mnt.XXXXXX)
	out=$(timeout 15 "$BPFLINKFS" "$m" -f -o "top_interval=$bad" 2>&1) &&
		{
			fail "top_interval=$bad accepted"
			fusermount3 -u "$m"
		}
	assert_match "top_interval=$bad: refused" "bad option" "$out"
	rmdir "$m"
done

# --- -o bpf_stats: on with no reader; off when its daemon is killed
exec {REC[1]}>&-
wait "$REC_PID" 2>/dev/null
# --- a blocked reader at a lazy unmount: its read ends (end of file)
start_top c
wait_for 5 bl_blocked "${RPID[c]}"
fusermount3 -uz "$MNT"
wait_for -q 5 bl_gone "${RPID[c]}"
assert_true "lazy unmount: the blocked reader ended" \
	bash -c "! kill -0 ${RPID[c]} 2>/dev/null"
stop_top c
mkl_stop foreign
bl_stop_daemon
rmdir "$MNT"
bl_mount -o bpf_stats,top_interval=300
mkl_start foreign2 "uprobe:$FIX:$OFF:8"
read -r _ _ _ _ _ FPROG <<<"$(mkl_lines foreign2)"
assert_true "-o bpf_stats: a foreign program counts" \
	test "$(moved "$FPROG")" -gt 0
assert_eq "-o bpf_stats: features says on" "bpf_stats 1" "$(features_stats)"
timeout 10 stdbuf -oL head -n 12 "$MNT/top" >"$WORK/fast.out"
assert_true "top_interval=300: blocks 0.3 s apart" python3 - \
	"$WORK/fast.out" <<'PY'
import sys
t = [float(l[2:]) for l in open(sys.argv[1], 'rb').read().split(b'\n')
     if l.startswith(b'# ')]
d = [b - a for a, b in zip(t, t[1:])]
if not d or not all(0.25 < x < 0.6 for x in d):
    sys.exit("intervals: %s in %r" % (d, open(sys.argv[1], 'rb').read()))
PY
assert_true "-o bpf_stats: still on after the reader" \
	test "$(moved "$FPROG")" -gt 0
kill -9 "$BL_DAEMON_PID"
wait "$BL_DAEMON_PID" 2>/dev/null
BL_DAEMON_PID=
fusermount3 -uz "$MNT" 2>/dev/null
wait_off "$FPROG" || fail "daemon killed: statistics still on"
mkl_stop foreign2

finish
