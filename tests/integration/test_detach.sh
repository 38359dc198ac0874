#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# rmdir of a link this mount did not make. Without -o detach: EPERM, and
# the link stays attached. With it: root without capabilities gets EPERM;
# root with CAP_SYS_ADMIN detaches a netns (flow dissector) link and an XDP
# link on a veth pair in namespaces of the test's own: the kernel's link
# info says detached (netns_ino 0, ifindex 0), `ip link` shows no XDP
# program, traffic on the veth passes again, and the holders live on; a
# perf uprobe link gives EOPNOTSUPP and error_log names its holder (and a
# pinned one its pin); every attempt is in the daemon's log with uid, pid
# and comm; a link this mount made is removed as before.
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib_control.sh"

bl_setup
[ -x "${XDP_LINK:-}" ] || skip "\$XDP_LINK is not set (run through meson test)"
for tool in ip setpriv; do
	command -v "$tool" >/dev/null || skip "$tool is not installed"
done
NS=bpflinkfs-detach-$$
PINS=/sys/fs/bpf/bpflinkfs-detach-$$
XDP_PID=

cleanup() {
	[ -n "$XDP_PID" ] && kill "$XDP_PID" 2>/dev/null && wait "$XDP_PID"
	ip netns del "${NS}a" 2>/dev/null
	ip netns del "${NS}b" 2>/dev/null
	rm -f "$PINS"/* 2>/dev/null
	rmdir "$PINS" 2>/dev/null
	bl_cleanup
}
trap cleanup EXIT

# rmdir_errno PATH [CMD PREFIX...]: OK or the errno name of rmdir(2)
rmdir_errno() {
	local path=$1
	shift
	timeout 30 "$@" python3 -c '
import errno, os, sys
try:
    os.rmdir(sys.argv[1])
    print("OK")
except OSError as e:
    print("EOPNOTSUPP" if e.errno == errno.EOPNOTSUPP
          else errno.errorcode.get(e.errno, str(e.errno)))' "$path"
}

# link_json ID KEY: KEY of `bpftool -j link show id ID` (the kernel's info)
link_json() {
	bpftool -j link show id "$1" 2>/dev/null | python3 -c '
import json, sys
print(json.load(sys.stdin).get(sys.argv[1], "none"))' "$2"
}

# --- links made outside bpflinkfs -------------------------------------
mkl_start fd flow_dissector
FD_ID=$(mkl_lines fd | cut -f1)
OFF=$(elf_file_offset "$TARGET" bpflinkfs_target_a) || die "offset"
mkl_start up "uprobe:$TARGET:$OFF:7"
UP_ID=$(mkl_lines up | cut -f1)
[ -n "$FD_ID" ] && [ -n "$UP_ID" ] || die "mklinks made no links"
FD_NS=$(link_json "$FD_ID" netns_ino)
[ "$FD_NS" != 0 ] && [ "$FD_NS" != none ] ||
	die "flow dissector link $FD_ID: no netns ($FD_NS)"

# veth pair between two namespaces of our own; UDP from a to b
ip netns add "${NS}a" && ip netns add "${NS}b" || die "ip netns add"
ip link add va netns "${NS}a" type veth peer name vb netns "${NS}b" ||
	die "ip link add veth"
ip -n "${NS}a" addr add 10.254.0.1/24 dev va
ip -n "${NS}b" addr add 10.254.0.2/24 dev vb
ip -n "${NS}a" link set va up
ip -n "${NS}b" link set vb up
# udp_passes: does a datagram from a reach b (1 s)?
udp_passes() {
	ip netns exec "${NS}b" python3 - <<'PY' &
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.254.0.2", 9999))
s.settimeout(1.5)
try:
    s.recv(16)
except socket.timeout:
    raise SystemExit(1)
PY
	local rx=$! i
	for i in $(seq 15); do
		ip netns exec "${NS}a" python3 -c '
import socket
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("10.254.0.2", 9999))' \
			2>/dev/null
		kill -0 "$rx" 2>/dev/null || break
		sleep 0.1 # kept: the send rate while the receiver listens
	done
	wait "$rx"
}
udp_dropped() { ! udp_passes; }
# wait until the veth carries traffic (the peer's address is settled)
for _ in $(seq 5); do udp_passes && break; done
assert_true "UDP passes the veth before XDP" udp_passes

mkfifo "$WORK/xdp.in"
ip netns exec "${NS}b" "$XDP_LINK" vb <"$WORK/xdp.in" >"$WORK/xdp.out" \
	2>"$WORK/xdp.err" &
XDP_PID=$!
exec {XDP_FD}>"$WORK/xdp.in"
wait_for -q 10 grep -qx ready "$WORK/xdp.out" 2>/dev/null
XDP_ID=$(head -n1 "$WORK/xdp.out" | cut -f1)
[ -n "$XDP_ID" ] || die "xdp_link: $(cat "$WORK/xdp.err")"
assert_match "ip link shows the XDP program" "prog/xdp" \
	"$(ip -n "${NS}b" link show vb)"
assert_true "the XDP program drops the veth's traffic" \
	udp_dropped

# --- without -o detach: EPERM, nothing changes -------------------------
bl_mount
assert_eq "rmdir foreign netns link without -o detach" EPERM \
	"$(rmdir_errno "$MNT/$FD_ID")"
assert_eq "rmdir foreign perf link without -o detach" EPERM \
	"$(rmdir_errno "$MNT/$UP_ID")"
assert_eq "netns link still attached" "$FD_NS" "$(link_json "$FD_ID" netns_ino)"
bl_stop_daemon
rmdir "$MNT"
assert_match "refusal logged" \
	"detach of link $FD_ID \(netns\) asked by uid 0 pid [0-9]+ comm python3: refused, EPERM" \
	"$(cat "$WORK/daemon.log")"

# --- with -o detach ------------------------------------------------------
bl_mount -o detach
# root without capabilities
assert_eq "rmdir by root without capabilities" EPERM \
	"$(rmdir_errno "$MNT/$FD_ID" setpriv --inh-caps=-all \
		--ambient-caps=-all --bounding-set=-all)"
# root with CAP_BPF and CAP_PERFMON but not CAP_SYS_ADMIN
assert_eq "rmdir by root without CAP_SYS_ADMIN" EPERM \
	"$(rmdir_errno "$MNT/$FD_ID" setpriv --inh-caps=-all \
		--ambient-caps=-all --bounding-set=-all,+bpf,+perfmon)"
assert_eq "netns link still attached after the refusals" "$FD_NS" \
	"$(link_json "$FD_ID" netns_ino)"

assert_eq "rmdir of the netns link" OK "$(rmdir_errno "$MNT/$FD_ID")"
assert_eq "kernel: netns link detached" 0 "$(link_json "$FD_ID" netns_ino)"
assert_true "its holder lives on" kill -0 "${MKL_PID[fd]}"
assert_match "the defunct link lives on" "^$FD_ID\$" \
	"$(link_json "$FD_ID" id)"

assert_eq "rmdir of the XDP link" OK "$(rmdir_errno "$MNT/$XDP_ID")"
assert_true "ip link: no XDP program on the veth" \
	bash -c "! ip -n ${NS}b link show vb | grep -q prog/xdp"
assert_true "UDP passes the veth again" udp_passes
assert_true "the XDP link's holder lives on" kill -0 "$XDP_PID"
if bl_bpftool75; then
	assert_eq "kernel: XDP link detached (ifindex)" 0 \
		"$(bpftool75 -j link show id "$XDP_ID" | python3 -c '
import json, sys
print(json.load(sys.stdin).get("ifindex", "none"))')"
else
	echo "note: no bpftool 7.5; the XDP link's ifindex is not checked"
fi

# a perf uprobe link: the kernel cannot detach it; error_log names whom
assert_eq "rmdir of a perf uprobe link" EOPNOTSUPP \
	"$(rmdir_errno "$MNT/$UP_ID")"
assert_true "the uprobe link stays" bpftool link show id "$UP_ID"
IFS=$'\t' read -r _ ename _ _ cmd msg < <(errlog_entries | tail -n1)
assert_eq "error_log entry" "EOPNOTSUPP rmdir $UP_ID" "$ename $cmd"
assert_match "error_log names the holder" \
	"held by ${MKL_PID[up]} mklinks \(-\); not pinned" "$msg"

# a pinned one names its pin
if grep -q ' /sys/fs/bpf bpf ' /proc/mounts && mkdir "$PINS"; then
	out=$("$MKLINKS" --pin "$PINS" "uprobe:$TARGET:$OFF:8" 2>&1) ||
		fail "mklinks --pin: $out"
	PIN_ID=$(sed -n 1p <<<"$out" | cut -f1)
	assert_eq "rmdir of a pinned uprobe link" EOPNOTSUPP \
		"$(rmdir_errno "$MNT/$PIN_ID")"
	IFS=$'\t' read -r _ ename _ _ cmd msg < <(errlog_entries | tail -n1)
	assert_match "error_log names the pin" \
		"held by no process; pinned at $PINS/link_$PIN_ID\$" "$msg"
	rm -f "$PINS"/*
fi

# a link this mount made: removed as before
OWN=$(ctl_create "u:$TARGET:bpflinkfs_target_b"$'\n') || fail "create"
assert_eq "rmdir of an own link" OK "$(rmdir_errno "$MNT/$OWN")"
bl_link_gone "own link $OWN gone" "$OWN"

assert_true "daemon alive" bl_daemon_alive
bl_stop_daemon
log=$(cat "$WORK/daemon.log")
assert_match "done logged" \
	"detach of link $FD_ID \(netns\) asked by uid 0 pid [0-9]+ comm python3: done" "$log"
assert_match "XDP done logged" \
	"detach of link $XDP_ID \(xdp\) asked by uid 0 pid [0-9]+ comm python3: done" "$log"
assert_match "EOPNOTSUPP logged" \
	"detach of link $UP_ID \(uprobe\) asked by uid 0 pid [0-9]+ comm python3: refused, EOPNOTSUPP" "$log"
assert_match "capability refusal logged" \
	"detach of link $FD_ID \(netns\) asked by uid 0 pid [0-9]+ comm python3: refused, EPERM: the requester lacks CAP_SYS_ADMIN" "$log"
exec {XDP_FD}>&-
finish
