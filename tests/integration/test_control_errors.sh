#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Control errors (bpflinkfs(8), What a write does and ERRORS and OWNERSHIP AND LIFETIME): the errno table, all-or-nothing
# writes, error_log's format, line, caret and 16-entry limit, and that a
# link this mount does not own cannot be removed.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"
source "$HERE/lib_control.sh"

bl_setup
TRACEFS=$(bl_tracefs) || skip "tracefs is not mounted and cannot be mounted"
[ -d /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"
command -v gcc >/dev/null || skip "gcc is not installed"

mkdir "$WORK/tgt" || die "mkdir"
TGT=$WORK/tgt/bpflinkfs_target
cp "$(readlink -f "$TARGET")" "$TGT" || die "copy of the target"

# A binary with two local functions of one name: an ambiguous symbol.
cat >"$WORK/dup1.c" <<'EOF'
static __attribute__((noinline)) int dup_fn(int x) { return x + 1; }
int one(int x) { return dup_fn(x); }
EOF
cat >"$WORK/dup2.c" <<'EOF'
static __attribute__((noinline)) int dup_fn(int x) { return x + 2; }
int one(int);
int main(int argc, char **argv) { (void)argv; return one(argc) + dup_fn(argc); }
EOF
gcc -O0 -o "$WORK/tgt/dup" "$WORK/dup1.c" "$WORK/dup2.c" || die "gcc dup"
[ "$(readelf -sW "$WORK/tgt/dup" | awk '$8 == "dup_fn"' | wc -l)" -eq 2 ] ||
	die "the dup fixture has not two dup_fn symbols"

bl_mount

# --- the errno table, one fresh handle per line -------------------------
# case ERRNO LINE [AT]: the write fails with ERRNO, error_log's newest
# entry names it, says line 1 and repeats the line, with the caret under
# the first occurrence of AT when given.
case_() {
	local want=$1 line=$2 at=${3:-} last col
	assert_errno "errno" "$want" "$line"$'\n'
	last=$(errlog_entries | tail -n1) || fail "error_log format"
	IFS=$'\t' read -r _ ename lno ccol cmd msg <<<"$last"
	if [ -n "$at" ]; then
		col=${line%%"$at"*}
		assert_eq "caret column of '$line' under '$at'" "${#col}" "$ccol"
	fi
	assert_eq "error_log name for '$line'" "$want" "$ename"
	assert_eq "error_log line for '$line'" 1 "$lno"
	assert_eq "error_log command for '$line'" "$line" "$cmd"
	[ -n "$msg" ] && ok || fail "error_log: no message for '$line'"
}

case_ EINVAL "bogus:foo" bogus
case_ EINVAL "u:"
case_ EINVAL "uprobe:$TGT"
case_ EINVAL "s:cpu-clock bogus=1" bogus
case_ EINVAL "s:cpu-clock cpu=abc" abc
case_ EINVAL "s:cpu-clock cpu="
case_ EINVAL "s:cpu-clock:xyz" xyz
case_ EINVAL "u:$TGT:bpflinkfs_target_a cookie=5" cookie
case_ EINVAL "s:cpu-clock cpu=0 cookie=5"
case_ EINVAL "u:$TGT:bpflinkfs_target_a cpu=0" cpu
case_ EINVAL "u:$TGT:bpflinkfs_target_a period=10"
case_ EINVAL "t:sched:sched_switch freq=10"
case_ EINVAL "s:cpu-clock:100 period=5 cpu=0"
case_ EINVAL "s:cpu-clock period=5 freq=10 cpu=0"
case_ EINVAL "ur:$TGT:bpflinkfs_target_a+4"
case_ EINVAL "-abc"
case_ EINVAL "u:$TGT:bpflinkfs_target_a+zz" zz
case_ EINVAL "u:$WORK/tgt/dup:dup_fn"
case_ ENOENT "u:$WORK/no/such/file:main" /
case_ ENOENT "u:$TGT:no_such_symbol" no_such
case_ ENOENT "ur:$TGT:no_such_symbol"
case_ ENOENT "t:sched:no_such_tracepoint" no_such
case_ ENOENT "t:no_such_category:sched_switch" no_such
case_ ENOENT "s:no-such-event" no-such
case_ ENOENT "-999999999"
if [ ! -d /sys/bus/event_source/devices/kprobe ]; then
	case_ EOPNOTSUPP "k:do_sys_openat2"
	case_ EOPNOTSUPP "kprobe:do_sys_openat2+4"
	case_ EOPNOTSUPP "kr:do_sys_openat2"
else
	echo "NOTE: this kernel has kprobes; the EOPNOTSUPP case is not run"
fi
if ! ls /sys/bus/event_source/devices/ |
	grep -qE '^(cpu|cpu_core|cpu_atom|armv.*)$'; then
	case_ ENOENT "h:cpu-cycles"
	case_ ENOENT "hardware:instructions cpu=0"
else
	echo "NOTE: this host has a hardware PMU; the h: ENOENT case is not run"
fi
# the ambiguous symbol's message lists the candidates
msg=$(errlog_entries | grep -F "u:$WORK/tgt/dup:dup_fn" | tail -n1 | cut -f6)
[[ "$msg" == *0x* ]] && ok ||
	fail "ambiguous dup_fn: the message lists no candidates: '$msg'"
# no such process (perf_event_open(2)): the caret under pid=
NOPID=$(($(cat /proc/sys/kernel/pid_max) + 1))
case_ ESRCH "s:cpu-clock pid=$NOPID" pid=
case_ ESRCH "u:$TGT:bpflinkfs_target_a pid=$NOPID" pid=
# a prog= that is not there: the caret under prog=
if grep -q ' /sys/fs/bpf bpf ' /proc/mounts; then
	case_ ENOENT "u:$TGT:bpflinkfs_target_a prog=/sys/fs/bpf/no-such-$$" \
		prog=
	case_ ENOENT "u:$TGT:bpflinkfs_target_* prog=/sys/fs/bpf/no-such-$$" \
		prog=
fi
# an unknown USDT probe: the caret under NAME, not PROVIDER; under
# PROVIDER only when no probe has that provider
if echo '#include <sys/sdt.h>' | gcc -E - >/dev/null 2>&1; then
	cat >"$WORK/sdt.c" <<'EOF'
#include <sys/sdt.h>
int main(int argc, char **argv)
{
	(void)argv;
	DTRACE_PROBE1(prov, here, argc);
	return 0;
}
EOF
	gcc -O1 -o "$WORK/tgt/sdt" "$WORK/sdt.c" || die "gcc sdt"
	case_ ENOENT "usdt:$WORK/tgt/sdt:prov:nosuch" nosuch
	case_ ENOENT "usdt:$WORK/tgt/sdt:nosuch" nosuch
	case_ ENOENT "usdt:$WORK/tgt/sdt:noprov:here" noprov
fi
# a pattern refused for one target the kernel cannot probe (an instruction
# with a LOCK prefix, which uprobes cannot step) names that target; the
# kernel checks it where the file is mapped, so a process holds it mapped
cat >"$WORK/lock.c" <<'EOF'
#include <unistd.h>
volatile int lock_sink;
__attribute__((noinline)) void lk_good_a(void) { lock_sink += 1; }
__attribute__((noinline)) void lk_good_b(void) { lock_sink += 2; }
__asm__(".text\n.globl lk_locked\n.type lk_locked, @function\n"
	"lk_locked:\n\tlock incl lock_sink(%rip)\n\tret\n"
	".size lk_locked, .-lk_locked\n");
__attribute__((noinline)) void lk_good_c(void) { lock_sink += 3; }
int main(void)
{
	lk_good_a();
	lk_good_b();
	lk_good_c();
	pause();
	return 0;
}
EOF
if [ "$(uname -m)" = x86_64 ] && gcc -O1 -o "$WORK/tgt/lock" "$WORK/lock.c"; then
	"$WORK/tgt/lock" &
	LOCKPID=$!
	wait_for -q 5 grep -q "$WORK/tgt/lock" "/proc/$LOCKPID/maps" 2>/dev/null
	case_ EOPNOTSUPP "u:$WORK/tgt/lock:lk_*" 'lk_*'
	assert_match "the refused target is named" \
		"lk_locked \(file offset 0x[0-9a-f]+\), a target of the 4," \
		"$(errlog_entries | tail -n1)"
	# the same target alone: the kernel's internal ENOTSUPP (524), which
	# FUSE cannot carry (a reply with it left the writer waiting for
	# ever), is EOPNOTSUPP
	case_ EOPNOTSUPP "u:$WORK/tgt/lock:lk_locked"
	assert_match "a lone refused target says why" \
		"an instruction the kernel cannot probe" \
		"$(errlog_entries | tail -n1)"
	kill "$LOCKPID"
	wait "$LOCKPID" 2>/dev/null
fi
# nothing of the above made a link
assert_eq "owned links after the failures" "" "$(owned_listing)"

# --- a foreign link cannot be removed -----------------------------------
mkl_start foreign "software:0:0:5"
FID=$(mkl_lines foreign | cut -f1)
[ -n "$FID" ] || die "mklinks made no link"
assert_errno "removing a foreign link" EPERM "-$FID"$'\n'
IFS=$'\t' read -r _ ename _ _ cmd _ < <(errlog_entries | tail -n1)
assert_eq "error_log of the foreign removal" "EPERM -$FID" "$ename $cmd"
err=$(t rmdir "$MNT/$FID" 2>&1) && fail "rmdir of foreign $FID succeeded"
assert_match "rmdir of a foreign link" \
	"Operation not permitted|Permission denied" "$err"
assert_eq "-* on no owned links" OK "$(ctl_write $'-*\n')"
[ -d "$MNT/$FID" ] && ok || fail "foreign link $FID left the tree"
bpftool link show id "$FID" >/dev/null 2>&1 && ok ||
	fail "foreign link $FID is gone from the kernel"
mkl_stop foreign

# --- all-or-nothing ------------------------------------------------------
# undone_gone: no link of the daemon (its fds, or of its programs $progs)
# is new since $before (in $extra, the ones that are); all_or_nothing's
# locals
undone_gone() {
	extra=$(comm -13 <(echo "$before") <(daemon_link_ids | sort -n) | xargs)
	# shellcheck disable=SC2086
	[ -n "$progs" ] && extra="$extra $(comm -13 <(echo "$before") \
		<(links_of_progs $progs) | xargs)"
	[ -z "${extra// /}" ]
}
# all_or_nothing ERRNO BADCOL_TEXT DATA: DATA's third line is bad, first at
# BADCOL_TEXT; the write fails, nothing stays, error_log says line 3 with
# the caret under the first bad character.
all_or_nothing() {
	local want=$1 at=$2 data=$3 before progs extra bad col i
	before=$(daemon_link_ids)
	assert_eq "all-or-nothing errno" "$want" "$(ctl_write "$data")"
	assert_eq "all-or-nothing: owned links" "" "$(owned_listing)"
	bad=$(printf '%s' "$data" | sed -n 3p)
	col=${bad%%"$at"*}
	col=${#col}
	IFS=$'\t' read -r _ ename lno ccol cmd _ < <(errlog_entries | tail -n1)
	assert_eq "all-or-nothing: error_log" "$want line 3: $bad" \
		"$ename line $lno: $cmd"
	assert_eq "all-or-nothing: caret column under '$at'" "$col" "$ccol"
	# the kernel lets go of the undone links within a short wait
	progs=$(daemon_prog_ids)
	wait_for -q 5 undone_gone
	assert_eq "all-or-nothing: links left by the daemon" "" "${extra// /}"
	t ls "$MNT" | grep -xF -f <(echo "$extra" | tr ' ' '\n' | grep .) &&
		fail "all-or-nothing: undone links still in ls"
}

all_or_nothing EINVAL bogus \
	"$(printf '%s\n' "s:task-clock cpu=0" "u:$TGT:bpflinkfs_target_c" \
		"s:cpu-clock cpu=0 bogus=1")"$'\n'
all_or_nothing ENOENT no_such_sym \
	$'u:'"$TGT"$':bpflinkfs_target_a\ns:cpu-clock\nu:'"$TGT"$':no_such_sym\n'
all_or_nothing EINVAL xyz \
	$'# a comment\n\ns:cpu-clock period=xyz\ns:cpu-clock cpu=0\n'
all_or_nothing EINVAL 'cpu=0' \
	$'t:sched:sched_switch\n  \nu:'"$TGT"$':bpflinkfs_target_b cpu=0\n'
all_or_nothing ENOENT no_such_tp \
	$'t:sched:sched_switch\nt:sched:sched_switch\nt:sched:no_such_tp\n'

# the lines after the bad one are not run either
assert_eq "lines after a bad one" EINVAL \
	"$(ctl_write $'s:cpu-clock cpu=0 x\ns:task-clock cpu=0\n')"
assert_eq "owned links after it" "" "$(owned_listing)"

# --- error_log keeps 16, newest last; an empty line clears it -----------
echo >"$MNT/error_log" || fail "clearing error_log"
assert_eq "error_log after clearing" "" "$(t cat "$MNT/error_log")"
for i in $(seq 20); do
	ctl_write "s:no-such-$i"$'\n' >/dev/null
done
errlog_entries >"$WORK/entries" || fail "error_log format after 20 errors"
assert_eq "error_log entries" 16 "$(wc -l <"$WORK/entries")"
assert_eq "error_log commands, oldest first" \
	"$(printf 's:no-such-%s\n' $(seq 5 20) | xargs)" \
	"$(cut -f5 "$WORK/entries" | xargs)"
assert_eq "error_log names" "ENOENT" "$(cut -f2 "$WORK/entries" | sort -u)"
python3 - "$WORK/entries" <<'EOF' && ok || fail "error_log timestamps"
import sys
ts = [float(l.split("\t")[0]) for l in open(sys.argv[1])]
up = float(open("/proc/uptime").read().split()[0])
assert ts == sorted(ts), "not newest last: %s" % ts
assert all(abs(t - up) < 60 for t in ts), \
    "not seconds since boot: %s, uptime %s" % (ts, up)
EOF
echo >"$MNT/error_log" || fail "clearing error_log"
assert_eq "error_log after clearing" "" "$(t cat "$MNT/error_log")"

# A message quotes a path, which may hold any byte: a newline in it would
# start a forged entry. The entry stays one message line, the newline and
# tab written \n and \t as the links table writes them.
FORGE="$WORK/"$'x\n[9.000000] EPERM: line 1: forged\tdir'
mkdir -p "$FORGE" && cp "$TARGET" "$FORGE/t"
(cd "$FORGE" && ctl_write $'u:./t:no_such_symbol\n' >/dev/null)
log=$(t cat "$MNT/error_log")
assert_eq "error_log: one entry for a path with a newline" 1 \
	"$(grep -c '^\[' <<<"$log")"
assert_true "error_log: the newline written \\n" \
	grep -qF 'x\n[9.000000] EPERM: line 1: forged\tdir' <<<"$log"
echo >"$MNT/error_log"

# A path longer than the message (3,600 bytes here): the message loses its
# middle, not its end, so the cause (strerror's words) still shows.
LONGDIR=$WORK/$(printf 'q%.0s' {1..200})
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17; do
	LONGDIR=$LONGDIR/$(printf 'q%.0s' {1..200})
done
mkdir -p "$LONGDIR"
ctl_write "u:$LONGDIR/nonexist:foo"$'\n' >/dev/null
log=$(t cat "$MNT/error_log")
assert_true "error_log: a long path is cut in the middle, its cause kept" \
	grep -qE 'ENOENT: line 1: .*\.\.\..*/nonexist: No such file or directory' \
	<<<"$log"
echo >"$MNT/error_log"

# the daemon still creates links after all this
ids=$(ctl_create $'s:cpu-clock cpu=0\n') || fail "creating after errors"
[ -n "$ids" ] && [ -d "$MNT/$ids" ] && ok || fail "no link after errors"
ctl_write $'-*\n' >/dev/null
bl_daemon_alive || fail "daemon dead or mount not answering at the end"
finish
