#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# attached/ (bpflinkfs(8), Probes attached without a link): programs attached to perf events without a
# link. Debian's bpftrace 0.17 (PERF_EVENT_IOC_SET_BPF) with a uprobe and a
# tracepoint, and setbpf (tests/tools) with a uprobe and a software event,
# must show with the pid, comm, prog_id, path, offset and name that /proc,
# `bpftool -j perf show` and readelf give; they vanish within a second of
# their holder's exit; perf events that links hold (mklinks keeping its
# perf event fds, a link made through control) do not show; everything is
# read-only.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"
source "$HERE/lib_control.sh"

BT_PID=
SB_PID=
att_cleanup() {
	[ -n "$BT_PID" ] && kill "$BT_PID" 2>/dev/null && wait "$BT_PID"
	[ -n "$SB_PID" ] && kill "$SB_PID" 2>/dev/null && wait "$SB_PID"
	bl_cleanup
}

bl_setup
trap att_cleanup EXIT
[ -n "${SETBPF:-}" ] && [ -x "$SETBPF" ] || skip "\$SETBPF is not set"
command -v bpftrace >/dev/null || skip "bpftrace is not installed"
[ -d /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"
TRACEFS=$(bl_tracefs) || skip "tracefs is not mounted and cannot be mounted"
[ -d "$TRACEFS/events/syscalls/sys_enter_getppid" ] ||
	skip "no tracepoint syscalls:sys_enter_getppid"

TGT=$(readlink -f "$TARGET")
OFF_A=$(elf_file_offset "$TGT" bpflinkfs_target_a) || die "offset of a"
OFF_B=$(elf_file_offset "$TGT" bpflinkfs_target_b) || die "offset of b"

bl_mount

# perf_show PID: `bpftool -j perf show` entries of PID, one a line:
# FD PROG_ID FD_TYPE NAME OFFSET (tab-separated; "-" where none).
perf_show() {
	bpftool -j perf show | python3 -c '
import json, sys
for e in json.load(sys.stdin):
    if e["pid"] != int(sys.argv[1]):
        continue
    name = e.get("filename", e.get("tracepoint", e.get("func", "-")))
    off = hex(e["offset"]) if "offset" in e else "-"
    print("%d\t%d\t%s\t%s\t%s" % (e["fd"], e["prog_id"], e["fd_type"],
                                  name, off))' "$1"
}


# entries_of PID: the attached/ entries of PID, by name
entries_of() {
	ls "$MNT/attached" | grep "^$1-" | sort
}

# check_entry WHAT DIR FILE VALUE: DIR/FILE reads VALUE
check_entry() {
	assert_eq "$1: $3" "$4" "$(cat "$2/$3" 2>&1)"
}

# check_like_bpftool WHAT PID: every perf event bpftool lists for PID is in
# attached/ with bpftool's values, pid and /proc's comm.
check_like_bpftool() {
	local what=$1 pid=$2 fd prog type name off d comm
	comm=$(cat "/proc/$pid/comm")
	while IFS=$'\t' read -r fd prog type name off; do
		d=$MNT/attached/$pid-$fd
		if [ ! -d "$d" ]; then
			fail "$what: $pid-$fd (bpftool: $type $name) not in attached/"
			continue
		fi
		ok
		check_entry "$what $pid-$fd" "$d" pid "$pid"
		check_entry "$what $pid-$fd" "$d" comm "$comm"
		check_entry "$what $pid-$fd" "$d" prog_id "$prog"
		check_entry "$what $pid-$fd" "$d" type "$type"
		check_entry "$what $pid-$fd" "$d" name "$name"
		[ "$off" != - ] && assert_num_eq "$what $pid-$fd: offset" "$off" \
			"$(cat "$d/offset")"
		check_entry "$what $pid-$fd" "$d" prog_name \
			"$(bpftool -j prog show id "$prog" | python3 -c \
				'import json,sys; print(json.load(sys.stdin)["name"])')"
	done < <(perf_show "$pid")
}

# --- one task-file iterator: attached/ and every pids file share it. The
# daemon's task_file iter links (its /proc/PID/fdinfo) each run a program
# of their own: none is loaded twice.
ls "$MNT/attached" >/dev/null
cat "$MNT"/*/pids >/dev/null 2>&1
tags=$(for f in /proc/"$BL_DAEMON_PID"/fdinfo/*; do
	grep -q '^target_name:[[:space:]]*task_file' "$f" 2>/dev/null &&
		sed -n 's/^prog_tag:[[:space:]]*//p' "$f"
done | sort)
assert_true "the daemon holds task_file iter links" [ -n "$tags" ]
assert_eq "no task_file iterator program loaded twice (tags: $(echo $tags))" \
	"" "$(uniq -d <<<"$tags")"

# --- bpftrace 0.17: a uprobe and a tracepoint, attached by ioctl
bpftrace -e "uprobe:$TGT:bpflinkfs_target_a { @a = count(); }
tracepoint:syscalls:sys_enter_getppid { @t = count(); }" \
	>"$WORK/bpftrace.out" 2>&1 &
BT_PID=$!
wait_for -q 30 bash -c "[ \$(bpftool perf show | grep -c 'pid $BT_PID ') -ge 2 ]" ||
	die "bpftrace did not attach: $(cat "$WORK/bpftrace.out")"
perf_show "$BT_PID" >"$WORK/bt.perf"
assert_eq "bpftrace: perf events bpftool lists" 2 "$(wc -l <"$WORK/bt.perf")"
check_like_bpftool bpftrace "$BT_PID"
U=$(awk -F'\t' '$3 == "uprobe" {print $1}' "$WORK/bt.perf")
TP=$(awk -F'\t' '$3 == "tracepoint" {print $1}' "$WORK/bt.perf")
[ -n "$U" ] && [ -n "$TP" ] || die "bpftrace: no uprobe or no tracepoint"
D=$MNT/attached/$BT_PID-$U

# metrics.prom carries them as bpflinkfs_attached_info (bpflinkfs(8), Probes attached without a link), with
# the pid, fd, type, name and prog_id that bpftool perf show gave
while IFS=$'\t' read -r fd prog type name _; do
	want="bpflinkfs_attached_info{pid=\"$BT_PID\",fd=\"$fd\",type=\"$type\",name=\"$name\",prog_id=\"$prog\","
	assert_true "metrics.prom: $type of bpftrace as bpflinkfs_attached_info" \
		grep -qF "$want" "$MNT/metrics.prom"
done <"$WORK/bt.perf"
check_entry "bpftrace uprobe" "$D" type uprobe
check_entry "bpftrace uprobe" "$D" name "$TGT"
assert_num_eq "bpftrace uprobe: offset (readelf)" "$OFF_A" "$(cat "$D/offset")"
assert_eq "bpftrace uprobe: files" "comm holders name offset pid prog_id prog_name type" \
	"$(ls "$D" | xargs)"
D=$MNT/attached/$BT_PID-$TP
check_entry "bpftrace tracepoint" "$D" type tracepoint
check_entry "bpftrace tracepoint" "$D" name sys_enter_getppid
assert_eq "bpftrace tracepoint: files" "comm holders name pid prog_id prog_name type" \
	"$(ls "$D" | xargs)"
check_entry "bpftrace" "$D" comm bpftrace

# the tables: one row and one object per entry, with the same values
row=$(grep -P "^$BT_PID-$U\t" "$MNT/attached/attached")
assert_eq "attached: uprobe row" \
	"$BT_PID-$U	uprobe	$TGT	$OFF_A	-	-	-	$(cat "$MNT/attached/$BT_PID-$U/prog_id")	1" \
	"$row"
assert_eq "attached: header" \
	"ID	TYPE	NAME	OFFSET	ADDR	CONFIG	COOKIE	PROG_ID	COUNT" \
	"$(head -1 "$MNT/attached/attached")"
python3 - "$MNT/attached/attached.json" "$BT_PID-$TP" "$BT_PID" \
	"$(cat "$MNT/attached/$BT_PID-$TP/prog_id")" <<'PY' ||
import json, sys
v = json.load(open(sys.argv[1]))
e = [o for o in v if o["id"] == sys.argv[2]]
assert len(e) == 1, e
e = e[0]
assert e["pid"] == int(sys.argv[3]) and e["comm"] == "bpftrace", e
assert e["prog_id"] == int(sys.argv[4]) and e["type"] == "tracepoint", e
assert e["name"] == "sys_enter_getppid", e
PY
	fail "attached.json: the tracepoint object"
ok

# read-only, and not ours to remove
D=$MNT/attached/$BT_PID-$U
assert_true "write to a file refused" bash -c "! echo 1 >'$D/prog_id' 2>/dev/null"
out=$(rmdir "$D" 2>&1)
assert_match "rmdir refused with EPERM" "Operation not permitted" "$out"
assert_true "still there after rmdir" test -d "$D"
out=$(rmdir "$MNT/attached" 2>&1)
assert_match "rmdir attached/ refused" "Operation not permitted" "$out"
assert_true "mkdir refused" bash -c "! mkdir '$MNT/attached/1-1' 2>/dev/null"
assert_true "no entry for a bad name" bash -c "! ls '$MNT/attached/01-1' 2>/dev/null"

# --- setbpf: a uprobe and a software event, from a copy whose name (its
# comm) is UTF-8
SB_NAME=$'s\xc3\xa9tbpf'
cp "$SETBPF" "$WORK/$SB_NAME" || die "copy of setbpf"
exec {sb_in}> >(exec "$WORK/$SB_NAME" "uprobe:$TGT:$OFF_B" software:cpu-clock \
	>"$WORK/setbpf.out" 2>"$WORK/setbpf.err")
wait_for -q 15 grep -qx ready "$WORK/setbpf.out" ||
	die "setbpf: $(cat "$WORK/setbpf.err")"
SB_PID=$!
read -r SB_U SB_U_PROG < <(sed -n 1p "$WORK/setbpf.out")
read -r SB_E SB_E_PROG < <(sed -n 2p "$WORK/setbpf.out")
check_like_bpftool setbpf "$SB_PID"
D=$MNT/attached/$SB_PID-$SB_U
check_entry "setbpf uprobe" "$D" prog_id "$SB_U_PROG"
assert_num_eq "setbpf uprobe: offset (readelf)" "$OFF_B" "$(cat "$D/offset")"
D=$MNT/attached/$SB_PID-$SB_E
check_entry "setbpf software" "$D" type event
check_entry "setbpf software" "$D" name software:cpu-clock
check_entry "setbpf software" "$D" config 0
check_entry "setbpf software" "$D" prog_id "$SB_E_PROG"
check_entry "setbpf software" "$D" comm "$SB_NAME"
python3 - "$MNT/attached/attached.json" "$SB_PID-$SB_E" "$SB_NAME" <<'PY' ||
import json, os, sys
e = [o for o in json.load(open(sys.argv[1])) if o["id"] == sys.argv[2]]
assert len(e) == 1 and e[0]["comm"] == os.fsdecode(os.fsencode(sys.argv[3])), e
assert e[0]["type"] == "event" and e[0]["config"] == 0, e
PY
	fail "attached.json: the UTF-8 comm"
ok
# a comm that is not UTF-8: the byte as \u00XX, as links.json does
cp "$SETBPF" "$WORK/"$'s\xffb' || die "copy of setbpf"
exec {bad_in}> >(exec "$WORK/"$'s\xffb' software:cpu-clock \
	>"$WORK/bad.out" 2>"$WORK/bad.err")
BAD_PID=$!
wait_for -q 15 grep -qx ready "$WORK/bad.out" || die "setbpf: $(cat "$WORK/bad.err")"
assert_true "attached.json: a non-UTF-8 byte as \\u00ff" grep -qF \
	"\"comm\":\"s\\u00ffb\"" "$MNT/attached/attached.json"
exec {bad_in}>&-
wait_for 5 bl_gone "$BAD_PID"
assert_eq "setbpf software: files" \
	"comm config event_type holders name pid prog_id prog_name type" "$(ls "$D" | xargs)"

# --- perf events that links hold do not show
mkl_start held --keep-perf-fd "uprobe:$TGT:$OFF_A:0" \
	tracepoint:syscalls:sys_enter_getppid:0
MKL=${MKL_PID[held]}
assert_true "mklinks holds perf event fds" bash -c \
	"ls -l /proc/$MKL/fd | grep -q 'anon_inode:\[perf_event\]'"
assert_eq "mklinks' perf events (link-held): none in attached/" "" \
	"$(entries_of "$MKL")"
ids=$(ctl_create "u:$TGT:bpflinkfs_target_a"$'\n') || fail "control: create"
assert_eq "control's link: none of the daemon's in attached/" "" \
	"$(entries_of "$BL_DAEMON_PID")"
# metrics.prom takes the links' perf events from its own walk of the links
assert_eq "metrics.prom: none of mklinks' or the daemon's link-held perf events" "" \
	"$(grep -a -E "^bpflinkfs_attached_info\{pid=\"($MKL|$BL_DAEMON_PID)\"" \
		"$MNT/metrics.prom")"
mkl_stop held

# --- gone within a second of the holder's exit, never stale
D=$MNT/attached/$BT_PID-$U
kill -INT "$BT_PID"
wait "$BT_PID"
BT_PID=
bt=$(basename "$D" | cut -d- -f1)
# a listing reads the kernel: the entries go with the process (5 s: margin)
wait_for -q 5 bash -c "! ls '$MNT/attached' | grep -q '^$bt-'"
assert_eq "bpftrace's entries gone" "" \
	"$(ls "$MNT/attached" | grep -F "$bt-")"
out=$(cat "$D/prog_id" 2>&1)
assert_match "a vanished entry: ENOENT" "No such file" "$out"
assert_true "not in attached" bash -c \
	"! grep -q '^$(basename "$D")	' '$MNT/attached/attached'"
exec {sb_in}>&-
wait_for 5 bl_gone "$SB_PID"
wait_for -q 5 eval '[ -z "$(entries_of "$SB_PID")" ]'
assert_eq "setbpf's entries gone" "" "$(entries_of "$SB_PID")"
SB_PID=
finish
