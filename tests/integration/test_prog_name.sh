#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# prog_name shows a program's whole name, as bpftool 7.5 does: the kernel
# keeps 15 bytes of it, the program's BTF all of it. A program with a long
# function name (tests/tools/long_name.bpf.c, loaded with bpftool) runs in
# a link made by mklinks and in a perf event set by setbpf (no link); its
# name in ID/prog_name, links.json, metrics.prom and attached/ must
# be the one in the object's BTF (bpftool btf dump file), in the loaded
# program's BTF (bpftool btf dump id) and in the source.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"

SB_PID=
pn_cleanup() {
	[ -n "$SB_PID" ] && kill "$SB_PID" 2>/dev/null && wait "$SB_PID"
	SB_PID=
	rm -rf "$PIN"
	bl_cleanup
}

bl_setup
PIN=/sys/fs/bpf/bpflinkfs-progname-$$
trap pn_cleanup EXIT
[ -n "${LONG_NAME_OBJ:-}" ] && [ -f "$LONG_NAME_OBJ" ] ||
	skip "\$LONG_NAME_OBJ is not built"
[ -n "${SETBPF:-}" ] && [ -x "$SETBPF" ] || skip "\$SETBPF is not set"
grep -q ' /sys/fs/bpf bpf ' /proc/mounts ||
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null ||
	skip "no bpffs at /sys/fs/bpf"

# btf_funcs: the names of the FUNCs in a `bpftool btf dump` on stdin
btf_funcs() {
	sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/\1/p"
}

FULL=$(bpftool btf dump file "$LONG_NAME_OBJ" | btf_funcs)
assert_eq "the object's one function (its BTF) is the source's" \
	"$(sed -n 's/^int \([a-z_]*\)(void \*ctx)$/\1/p' \
		"$HERE/../tools/long_name.bpf.c")" "$FULL"
[ "${#FULL}" -gt 15 ] || die "the fixture's name is not past 15 bytes"

mkdir "$PIN" || die "mkdir $PIN"
bpftool prog load "$LONG_NAME_OBJ" "$PIN/prog" type perf_event ||
	die "bpftool prog load $LONG_NAME_OBJ"
read -r PROG BTF < <(bpftool -j prog show pinned "$PIN/prog" |
	python3 -c 'import json,sys; p=json.load(sys.stdin)
print(p["id"], p.get("btf_id", 0))')
[ "$BTF" -gt 0 ] || skip "the kernel kept no BTF for the program"
assert_eq "the loaded program's BTF names it so" "$FULL" \
	"$(bpftool btf dump id "$BTF" | btf_funcs)"
# Debian 12's bpftool 7.1 has bpftool 7.5's full names, older ones not
name=$(bpftool -j prog show id "$PROG" | python3 -c \
	'import json,sys; print(json.load(sys.stdin)["name"])')
[ "$name" = "$FULL" ] ||
	echo "note: $(bpftool version | head -1) names it $name" >&2
if bl_bpftool75; then
	assert_eq "bpftool 7.5 names it so" "$FULL" \
		"$(bpftool75 -j prog show id "$PROG" | python3 -c \
			'import json,sys; print(json.load(sys.stdin)["name"])')"
fi

mkl_start long --prog "$PIN/prog" software:cpu-clock:0:7
read -r ID _ _ _ _ LPROG < <(mkl_lines long)
assert_eq "mklinks' link runs the loaded program" "$PROG" "$LPROG"
# setbpf holds its event until EOF on its stdin, a fifo kept open here
mkfifo "$WORK/sb.in" || die "mkfifo"
"$SETBPF" --prog "$PIN/prog" software:cpu-clock <"$WORK/sb.in" \
	>"$WORK/sb.out" 2>"$WORK/sb.err" &
SB_PID=$!
exec {SB_IN}>"$WORK/sb.in"
wait_for -q 10 grep -qx ready "$WORK/sb.out" 2>/dev/null
grep -qx ready "$WORK/sb.out" ||
	die "setbpf --prog: not ready: $(cat "$WORK/sb.err")"
read -r SB_FD SB_PROG <"$WORK/sb.out"
assert_eq "setbpf's event runs the loaded program" "$PROG" "$SB_PROG"

bl_mount

assert_eq "$ID/prog_name: the whole name" "$FULL" \
	"$(t cat "$MNT/$ID/prog_name")"
assert_eq "links.json: prog_name" "$FULL" \
	"$(t cat "$MNT/links.json" | python3 -c '
import json, sys
for l in json.load(sys.stdin):
    if l["id"] == int(sys.argv[1]):
        print(l["prog_name"])' "$ID")"
assert_match "metrics.prom: bpflinkfs_link_info prog_name" \
	"^bpflinkfs_link_info\\{id=\"$ID\",.*prog_name=\"$FULL\"\\} 1\$" \
	"$(t cat "$MNT/metrics.prom" | grep -a "^bpflinkfs_link_info{id=\"$ID\",")"

D=$MNT/attached/$SB_PID-$SB_FD
wait_for -q 5 test -d "$D"
assert_eq "attached/$SB_PID-$SB_FD/prog_name: the whole name" "$FULL" \
	"$(t cat "$D/prog_name")"
assert_eq "attached.json: prog_name" "$FULL" \
	"$(t cat "$MNT/attached/attached.json" | python3 -c '
import json, sys
for e in json.load(sys.stdin):
    if e["id"] == sys.argv[1]:
        print(e["prog_name"])' "$SB_PID-$SB_FD")"
assert_match "metrics.prom: bpflinkfs_attached_info prog_name" \
	"prog_name=\"$FULL\"\\} 1\$" \
	"$(t cat "$MNT/metrics.prom" |
		grep -a "^bpflinkfs_attached_info{pid=\"$SB_PID\",fd=\"$SB_FD\",")"

# a name of 15 bytes or fewer is the kernel's own: mklinks' programs
mkl_start short software:cpu-clock:0:8
read -r SID _ _ _ _ SPROG < <(mkl_lines short)
assert_eq "$SID/prog_name: a short name as the kernel has it" \
	"$(bpftool -j prog show id "$SPROG" | python3 -c \
		'import json,sys; print(json.load(sys.stdin)["name"])')" \
	"$(t cat "$MNT/$SID/prog_name")"
finish
