#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# <ID>/events (bpflinkfs(8), EVENTS): a fixture with a known comm (prctl), pid and
# tid calls a probed function N times; each reader gets exactly those N
# lines, with times inside the fixture's own clock readings and the return
# values the function returned; overload loses events only as `# lost N`
# lines that account for every hit; poll, O_NONBLOCK, access, leaks, and
# blocked readers at SIGTERM and lazy unmount; a raw tracepoint link's
# execs; links adopted from a pin_dir, with and without its events maps.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"
source "$HERE/lib_control.sh"

bl_setup
[ -d /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"
[ -x "${EVENTS_FIXTURE:-}" ] || skip "\$EVENTS_FIXTURE is not set"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
FIX=$(readlink -f "$EVENTS_FIXTURE")
CHECK=(python3 "$HERE/events_check.py")
NCPU=$(getconf _NPROCESSORS_CONF)
declare -A RPID

# start_reader NAME ID: `cat ID/events` in the background, returning once
# its open is done (the file is among its fds), so later hits are its own.
start_reader() {
	cat "$MNT/$2/events" >"$WORK/$1.out" 2>"$WORK/$1.err" &
	RPID[$1]=$!
	wait_for -q 5 has_open "${RPID[$1]}" "/$2/events" ||
		fail "reader $1 did not open $2/events"
}

# has_open PID SUFFIX: process PID has a file open whose path ends in SUFFIX
has_open() {
	ls -l "/proc/$1/fd" 2>/dev/null | grep -q "$2\$"
}

stop_reader() {
	kill "${RPID[$1]}" 2>/dev/null
	wait "${RPID[$1]}" 2>/dev/null
	unset "RPID[$1]"
}

# wait_lines FILE N: until FILE has N lines (10 s at most), then 0.3 s more:
# a line too many has no condition to wait on, so it gets a fixed window.
wait_lines() {
	local file=$1 n=$2
	wait_for -q 10 eval '[ "$(wc -l <"$file")" -ge "$n" ]'
	sleep 0.3
}

fixture() {
	"$FIX" evtest "$1" >"$WORK/fix.out" || fail "fixture failed"
}

# one idle FUSE worker at most: the thread count settles where it began
bl_mount -o allow_other,uid=65534,umask=0,max_idle_threads=1
UP=$(ctl_create "uprobe:$FIX:bpflinkfs_events_hit"$'\n') || die "uprobe"
URET=$(ctl_create "uretprobe:$FIX:bpflinkfs_events_hit"$'\n') || die "uretprobe"

# --- the file: root's alone, whatever uid= and umask= say
assert_true "events listed" grep -qx events <(ls "$MNT/$UP")
assert_eq "events mode and owner" "400 0 0" \
	"$(stat -c '%a %u %g' "$MNT/$UP/events")"
assert_eq "hits keeps uid=" "65534" "$(stat -c %u "$MNT/$UP/hits")"
if out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
	timeout 5 cat "$MNT/$UP/events" 2>&1); then
	fail "a non-root reader opened events"
else
	assert_match "non-root reader: EACCES" "Permission denied" "$out"
fi
assert_true "non-root reads hits" setpriv --reuid=65534 --regid=65534 \
	--clear-groups cat "$MNT/$UP/hits" >/dev/null

# --- a link this mount did not make has no events
OFF=$(elf_file_offset "$FIX" bpflinkfs_events_hit) || die "offset"
mkl_start foreign "uprobe:$FIX:$OFF:0"
FOREIGN=$(mkl_lines foreign | awk '{print $1}')
assert_true "foreign link $FOREIGN listed" test -d "$MNT/$FOREIGN"
assert_true "foreign link: no events in ls" \
	bash -c "! ls '$MNT/$FOREIGN' | grep -qx events"
assert_true "foreign link: events is ENOENT" \
	bash -c "! cat '$MNT/$FOREIGN/events' 2>&1 | grep -qv 'No such file'"

# --- one reader, N hits: exactly N lines of the fixture
start_reader one "$UP"
fixture 1000
wait_lines "$WORK/one.out" 1000
stop_reader one
out=$("${CHECK[@]}" check "$WORK/one.out" "$WORK/fix.out" 1000 "$NCPU") ||
	fail "uprobe stream: $out"
ok

# --- a uretprobe, two readers at once: both get every hit with RETVAL
start_reader r1 "$URET"
start_reader r2 "$URET"
fixture 500
wait_lines "$WORK/r1.out" 500
wait_lines "$WORK/r2.out" 500
stop_reader r1
stop_reader r2
for r in r1 r2; do
	out=$("${CHECK[@]}" check "$WORK/$r.out" "$WORK/fix.out" 500 "$NCPU" \
		retval) || fail "uretprobe reader $r: $out"
	ok
done

# --- a reader opened after the calls gets none of them
start_reader late "$URET"
sleep 0.5 # a window for a line that must not come: nothing to wait on
stop_reader late
assert_eq "late reader" 0 "$(wc -c <"$WORK/late.out")"

# --- poll: quiet before a hit, readable after; O_NONBLOCK is EAGAIN
out=$(timeout 30 "${CHECK[@]}" poll "$MNT/$UP/events" "$FIX") ||
	fail "poll: $out"
ok

# --- reads smaller than a line or two: whole lines, else parts of one
out=$(timeout 30 "${CHECK[@]}" small "$MNT/$UP/events" "$FIX") ||
	fail "small reads: $out"
ok

# --- overload: a slow reader under 1,000,000 hits
H0=$(cat "$MNT/$UP/hits")
rm -f "$WORK/stop"
timeout 300 "${CHECK[@]}" slow "$MNT/$UP/events" "$WORK/slow.out" \
	"$WORK/stop" &
SLOW=$!
wait_for 10 test -e "$WORK/stop.opened"
fixture 1000000
touch "$WORK/stop"
wait "$SLOW" || fail "slow reader failed"
H1=$(cat "$MNT/$UP/hits")
read -r lines lost <"$WORK/slow.out"
echo "overload: $((H1 - H0)) hits, $lines lines, $lost lost"
assert_eq "overload: lines + lost = hits" "$((H1 - H0))" "$((lines + lost))"
assert_true "overload: some were lost" test "$lost" -gt 0

# --- a tracepoint: hits of a process named by prctl, no RETVAL
TRACEFS=$(bl_tracefs) || TRACEFS=
if [ -n "$TRACEFS" ] && [ -d "$TRACEFS/events/syscalls/sys_enter_getppid" ]; then
	TP=$(ctl_create $'tracepoint:syscalls:sys_enter_getppid\n') || die "tp"
	start_reader tp "$TP"
	pid=$(python3 -c 'import ctypes, os
ctypes.CDLL(None).prctl(15, b"evtp", 0, 0, 0)
print(os.getpid())
for _ in range(20):
    os.getppid()')
	wait_lines "$WORK/tp.out" 20
	stop_reader tp
	assert_eq "tracepoint: lines of evtp" 20 \
		"$(awk -F'\t' -v p="$pid" '$5 == "evtp" && $3 == p && $4 == p \
			&& NF == 5' "$WORK/tp.out" | wc -l)"
else
	echo "note: no syscalls:sys_enter_getppid tracepoint, not tried"
fi

# --- a raw tracepoint link (its own program instance, recording into the
# counter's ring): a shell whose pid the test knows execs a script that
# execs itself again; the stream holds exactly those execs of that pid:
# the shell's own (comm sh) and the script's 1 + RT_N (comm evexec)
RT_N=9
if grep -qx 'rawtracepoint 1' "$MNT/features"; then
	RT=$(ctl_create $'rawtracepoint:sched_process_exec\n') || die "rawtp"
	assert_true "rawtracepoint: events listed" \
		grep -qx events <(ls "$MNT/$RT")
	printf '#!/bin/sh\n[ "$1" -gt 0 ] && exec "$0" $(($1 - 1))\nexit 0\n' \
		>"$WORK/evexec"
	chmod +x "$WORK/evexec"
	start_reader rt "$RT"
	/bin/sh -c 'echo $$ >"$1"; exec "$2" "$3"' sh "$WORK/rt.pid" \
		"$WORK/evexec" "$RT_N"
	pid=$(cat "$WORK/rt.pid")
	wait_lines "$WORK/rt.out" $((RT_N + 2))
	stop_reader rt
	assert_eq "rawtracepoint: execs of $pid as evexec" $((RT_N + 1)) \
		"$(awk -F'\t' -v p="$pid" '$3 == p && $4 == p && \
			$5 == "evexec" && NF == 5' "$WORK/rt.out" | wc -l)"
	assert_eq "rawtracepoint: all lines of $pid" $((RT_N + 2)) \
		"$(awk -F'\t' -v p="$pid" '$3 == p' "$WORK/rt.out" | wc -l)"
	assert_eq "rawtracepoint: first line of $pid" "sh" \
		"$(awk -F'\t' -v p="$pid" '$3 == p {print $5; exit}' \
			"$WORK/rt.out")"
	echo "-$RT" >"$MNT/control"
else
	echo "note: no raw tracepoints here, rawtracepoint events not tried"
fi

# --- a multi link: TARGET names the function hit (nm's names, +0x0 as
# funcs writes an entry)
if [ -n "${MULTI_TARGET:-}" ] && [ -x "$MULTI_TARGET" ]; then
	MT=$(readlink -f "$MULTI_TARGET")
	MULTI=$(ctl_create "uprobe:$MT:fn_t*"$'\n') || die "multi"
	start_reader multi "$MULTI"
	"$MT" 0 2 1 0 >/dev/null &
	pid=$!
	wait "$pid"
	wait_lines "$WORK/multi.out" 3
	stop_reader multi
	for fn in $(nm "$MT" | awk '$3 ~ /^fn_t/ {print $3}'); do
		want=$([ "$fn" = fn_two ] && echo 2 || echo 1)
		assert_eq "multi link: lines with TARGET $fn+0x0" "$want" \
			"$(awk -F'\t' -v p="$pid" -v t="$fn+0x0" \
				'$3 == p && $6 == t && NF == 6' "$WORK/multi.out" |
				wc -l)"
	done
	echo "-$MULTI" >"$MNT/control"
else
	echo "note: \$MULTI_TARGET not set, multi link TARGET not tried"
fi

# --- removing the link ends its stream: a blocked reader gets end of file
GONE=$(ctl_create "uprobe:$FIX:bpflinkfs_events_hit"$'\n') || die "uprobe"
start_reader gone "$GONE"
ctl_create "-$GONE"$'\n' >/dev/null || fail "removal of $GONE"
wait_for -q 3 bl_gone "${RPID[gone]}"
rc=0
kill -0 "${RPID[gone]}" 2>/dev/null && rc=1
assert_eq "removed link: blocked reader returned" 0 "$rc"
wait "${RPID[gone]}"
assert_eq "removed link: reader saw end of file" 0 "$?"
unset "RPID[gone]"

# --- no leaks: fds, threads, ring buffers, recording switched off
daemon_counts() {
	local fds tasks rings
	fds=$(ls "/proc/$BL_DAEMON_PID/fd" | wc -l)
	tasks=$(ls "/proc/$BL_DAEMON_PID/task" | wc -l)
	rings=$(grep -l '^map_type:[[:space:]]*27$' \
		/proc/"$BL_DAEMON_PID"/fdinfo/* 2>/dev/null | wc -l)
	echo "$fds $tasks $rings"
}
# the .bss of the built-in program: how many slots record now
events_active() {
	local f id
	for f in /proc/"$BL_DAEMON_PID"/fdinfo/*; do
		id=$(awk '/^map_id:/ {print $2}' "$f")
		[ -n "$id" ] || continue
		bpftool map show id "$id" 2>/dev/null | grep -q 'name counter_.bss' ||
			continue
		bpftool map dump id "$id" -j | python3 -c '
import json, sys
d = json.load(sys.stdin)
v = d[0].get("formatted", d[0])["value"]
print(v[".bss"][0]["events_active"] if isinstance(v, dict) else int.from_bytes(bytes(int(x, 16) for x in v[:4]), "little"))'
		return
	done
	echo "no .bss map"
}
python3 -c "import os; os.close(os.open('$MNT/$UP/events', os.O_RDONLY))"
BEFORE=$(daemon_counts)
timeout 120 python3 - "$MNT/$UP/events" "$MNT/$URET/events" <<'PY' ||
import os, sys
for i in range(100):
    fd = os.open(sys.argv[1 + i % 2], os.O_RDONLY | os.O_NONBLOCK)
    try:
        os.read(fd, 4096)
    except BlockingIOError:
        pass
    os.close(fd)
PY
	fail "100 open/close cycles"
for i in 1 2 3 4 5; do # readers killed while blocked in read (by 0.3 s)
	(timeout -s KILL 0.3 cat "$MNT/$UP/events" >/dev/null 2>&1)
done 2>/dev/null
# the daemon lets go of the killed readers' handles
wait_for -q 10 eval '[ "$(daemon_counts)" = "$BEFORE" ] && [ "$(events_active)" = 0 ]'
AFTER=$(daemon_counts)
assert_eq "fds threads rings after 105 opens" "$BEFORE" "$AFTER"
assert_eq "no slot records after the last close" 0 "$(events_active)"
t cat "$MNT/$UP/hits" >/dev/null || fail "daemon stuck after killed readers"

# --- blocked reader, lazy unmount: the reader returns, the daemon exits
start_reader lazy "$UP"
umount -l "$MNT"
wait_for -q 3 bl_gone "${RPID[lazy]}"
assert_true "lazy unmount: blocked reader returned" \
	bash -c "! kill -0 ${RPID[lazy]} 2>/dev/null"
stop_reader lazy
wait_for -q 10 bl_gone "$BL_DAEMON_PID"
rc=0
timeout 5 tail --pid="$BL_DAEMON_PID" -f /dev/null || rc=$?
assert_eq "lazy unmount: daemon exited" 0 "$rc"
wait "$BL_DAEMON_PID"
assert_eq "lazy unmount: exit status" 0 "$?"
BL_DAEMON_PID=
rmdir "$MNT" 2>/dev/null

# --- blocked reader, SIGTERM: the reader returns, the daemon exits cleanly
bl_mount
UP=$(ctl_create "uprobe:$FIX:bpflinkfs_events_hit"$'\n') || die "uprobe"
start_reader term "$UP"
kill -TERM "$BL_DAEMON_PID"
wait_for -q 3 bl_gone "${RPID[term]}"
assert_true "SIGTERM: blocked reader returned" \
	bash -c "! kill -0 ${RPID[term]} 2>/dev/null"
stop_reader term
rc=0
timeout 10 tail --pid="$BL_DAEMON_PID" -f /dev/null || rc=$?
assert_eq "SIGTERM: daemon exited" 0 "$rc"
wait "$BL_DAEMON_PID"
assert_eq "SIGTERM: exit status" 0 "$?"
BL_DAEMON_PID=
# --- links adopted from a pin_dir: their programs (the previous daemon's)
# record into the events maps pinned there, which the new daemon reuses;
# with those pins gone, the new daemon has a ring of its own and adopted
# links have no events file
if grep -q ' /sys/fs/bpf bpf ' /proc/mounts ||
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null; then
	PIN=/sys/fs/bpf/bpflinkfs-events-$$
	trap 'rm -rf "$PIN"; bl_cleanup' EXIT
	bl_mount -o "pin_dir=$PIN"
	UP=$(ctl_create "uprobe:$FIX:bpflinkfs_events_hit"$'\n') || die "uprobe"
	for f in events_ring events_on events_lost events_bss; do
		assert_true "pin_dir: $f pinned" test -e "$PIN/$f"
	done
	# killed while a reader is open: its switch stays on in the pinned
	# maps until the next daemon switches it off
	start_reader killed "$UP"
	kill -KILL "$BL_DAEMON_PID"
	wait "$BL_DAEMON_PID" 2>/dev/null
	BL_DAEMON_PID=
	stop_reader killed
	assert_eq "killed daemon: the pinned .bss still records" 1 \
		"$(bpftool map dump pinned "$PIN/events_bss" -j | python3 -c '
import json, sys
d = json.load(sys.stdin)
v = d[0].get("formatted", d[0])["value"]
print(v[".bss"][0]["events_active"] if isinstance(v, dict) else int.from_bytes(bytes(int(x, 16) for x in v[:4]), "little"))')"
	umount -l "$MNT" # the dead daemon's mount
	rmdir "$MNT"
	bl_mount -o "pin_dir=$PIN"
	assert_eq "pin_dir: $UP adopted" "$UP" "$(cut -f1 "$MNT/control")"
	assert_eq "restart: no slot records before a reader" 0 "$(events_active)"
	assert_true "adopted link: events listed" grep -qx events <(ls "$MNT/$UP")
	start_reader adopted "$UP"
	fixture 100
	wait_lines "$WORK/adopted.out" 100
	stop_reader adopted
	out=$("${CHECK[@]}" check "$WORK/adopted.out" "$WORK/fix.out" 100 \
		"$NCPU") || fail "adopted link stream: $out"
	ok
	assert_eq "adopted link: recording off after the close" 0 \
		"$(events_active)"
	bl_stop_daemon
	rmdir "$MNT"
	rm "$PIN"/events_*
	bl_mount -o "pin_dir=$PIN"
	assert_eq "pin_dir without events maps: $UP adopted" "$UP" \
		"$(cut -f1 "$MNT/control")"
	assert_true "adopted link, other ring: no events in ls" \
		bash -c "! ls '$MNT/$UP' | grep -qx events"
	assert_true "adopted link, other ring: events is ENOENT" \
		bash -c "! cat '$MNT/$UP/events' 2>&1 | grep -qv 'No such file'"
	assert_true "pin_dir: events maps pinned again" test -e "$PIN/events_ring"
	# a map of another layout under one of those names: new maps, not
	# pinned, with a log line; counting goes on
	bl_stop_daemon
	rmdir "$MNT"
	rm "$PIN/events_on"
	bpftool map create "$PIN/events_on" type array key 4 value 8 \
		entries 1 name bl_test_other || die "bpftool map create"
	bl_mount -o "pin_dir=$PIN"
	assert_match "pin_dir: unusable events maps logged" \
		"cannot use its events maps" "$(cat "$WORK/daemon.log")"
	assert_true "adopted link, unusable maps: no events" \
		bash -c "! ls '$MNT/$UP' | grep -qx events"
	H0=$(cat "$MNT/$UP/hits")
	fixture 10
	assert_eq "adopted link, unusable maps: still counts" $((H0 + 10)) \
		"$(cat "$MNT/$UP/hits")"
	NEW=$(ctl_create "uprobe:$FIX:bpflinkfs_events_hit"$'\n') || die "new"
	assert_true "new link, unusable pins: events listed" \
		grep -qx events <(ls "$MNT/$NEW")
	bl_stop_daemon
	rmdir "$MNT"
	rm -rf "$PIN"
else
	echo "note: no bpffs at /sys/fs/bpf, adopted links' events not tried"
fi
mkl_stop foreign
finish
