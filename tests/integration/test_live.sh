#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every value is as of the read: between two reads of the same file (a
# link's pids and pinned, and links.json) a new holder (a process that
# opens the link, and its forked child), a new pin (in the bpffs root and
# in a new subdirectory, made at once after a read), a pin removed, a
# holder gone and a link removed all show in the second read. The daemon
# keeps its last walk of the pins and asks the kernel for one link's
# holders alone: this is what proves neither answers from the past.
# Expected values come from /proc's fdinfo and from ls of bpffs.

source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

bl_setup
[ "$(uname -m)" = x86_64 ] || skip "the holder's bpf(2) number is x86_64's"
grep -q ' /sys/fs/bpf bpf ' /proc/mounts ||
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null ||
	skip "no bpffs at /sys/fs/bpf"
PIN=/sys/fs/bpf/bpflinkfs-live-$$
HOLDER=
trap '[ -n "$HOLDER" ] && kill "$HOLDER" 2>/dev/null; rm -rf "$PIN" \
	"$PIN-top"; bl_cleanup' EXIT
bl_mount

mkl_start a software:cpu-clock:0:11
id=$(mkl_lines a | cut -f1)
[ -n "$id" ] || die "mklinks made no link"
MKL=${MKL_PID[a]}

# fdinfo_pids ID: the processes with an fd of link ID, from /proc (every
# thread's fd table, each process once), the daemon left out
fdinfo_pids() {
	grep -lx "link_id:[[:space:]]*$1" /proc/[0-9]*/task/*/fdinfo/* \
		2>/dev/null | cut -d/ -f3 | sort -n | uniq |
		grep -vx "$BL_DAEMON_PID"
}

# pids_of ID: the pid column of MNT/ID/pids, the daemon left out
pids_of() {
	t cut -f1 "$MNT/$1/pids" | grep -vx "$BL_DAEMON_PID" | sort -n
}

# json ID KEY: links.json's KEY of link ID (pids: the pids, sorted, the
# daemon left out; pinned: the paths), one a line
json() {
	t cat "$MNT/links.json" >"$WORK/links.json" || return 1
	python3 - "$1" "$2" "$BL_DAEMON_PID" "$WORK/links.json" <<'PY'
import json, sys
lid, key, daemon = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for o in json.load(open(sys.argv[4], "rb")):
    if o["id"] != lid:
        continue
    if key == "pids":
        v = sorted(p["pid"] for p in o.get("pids", []) if p["pid"] != daemon)
    else:
        v = o.get(key, [])
    for x in v:
        print(x)
    sys.exit(0)
print("absent")
PY
}

# size_in_ls ID FILE: the size `ls -l MNT/ID` gives FILE (ls -l keeps
# the kernel's dentries of the link's files: this is what proves their
# sizes are still asked for anew)
size_in_ls() {
	t ls -l "$MNT/$1" | awk -v f="$2" '$NF == f { print $5 }'
}

# line_len PID: the length of PID's line in a pids file, PID<TAB>COMM
line_len() {
	local comm
	comm=$(cat "/proc/$1/comm") || return 1
	echo $((${#1} + 1 + ${#comm} + 1))
}

# first reads: mklinks alone holds it, no pin
assert_eq "pids: mklinks alone" "$MKL" "$(pids_of "$id")"
assert_eq "links.json pids: mklinks alone" "$MKL" "$(json "$id" pids)"
assert_eq "pinned: none" "" "$(t cat "$MNT/$id/pinned")"
assert_eq "links.json pinned: none" "" "$(json "$id" pinned)"

# a new pin, made right after the read above (within the coarse clock's
# tick of the directory's last change when the host is quick)
bpftool link pin id "$id" "$PIN" || die "bpftool link pin"
assert_eq "pinned: the new pin" "$PIN" "$(t cat "$MNT/$id/pinned")"
assert_eq "links.json pinned: the new pin" "$PIN" "$(json "$id" pinned)"

# one thread stats pids, then becomes a holder (BPF_OBJ_GET of the pin),
# then reads pids at once: the read shows it (the stat's render must not
# be handed to the open that follows it without a LOOKUP of its own)
assert_eq "stat, hold, read in one thread: the read shows the holder" ok \
	"$(python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
path = ctypes.create_string_buffer(sys.argv[2].encode())
attr = (ctypes.c_uint64 * 2)(ctypes.addressof(path), 0)
os.stat(sys.argv[1])
fd = libc.syscall(321, 7, ctypes.byref(attr), 16)  # bpf(BPF_OBJ_GET)
if fd < 0:
    sys.exit("BPF_OBJ_GET: %s" % os.strerror(ctypes.get_errno()))
with open(sys.argv[1], "rb") as f:
    pids = [l.split(b"\t")[0] for l in f.read().splitlines()]
print("ok" if str(os.getpid()).encode() in pids else "missing: %r" % pids)
' "$MNT/$id/pids" "$PIN")"

# sizes before the new holder; ls -l keeps the files' dentries
ls_pids=$(size_in_ls "$id" pids)
stat_pids=$(t stat -c %s "$MNT/$id/pids")
ls_holders=$(size_in_ls "$id" holders)
assert_eq "ls -l pids: the size of its value" "$(t cat "$MNT/$id/pids" |
	wc -c)" "$ls_pids"

# the same for a root file, whose dentry the kernel keeps as well:
# error_log after this thread's bad control line, between its stat and
# its read
assert_eq "stat, bad control line, read error_log: the new error" ok \
	"$(t python3 -c '
import os, sys
log, ctl, token = sys.argv[1], sys.argv[2], sys.argv[3].encode()
os.stat(log)
try:
    with open(ctl, "wb", buffering=0) as f:
        f.write(token + b"\n")
except OSError:
    pass
print("ok" if token in open(log, "rb").read() else "not in error_log")
' "$MNT/error_log" "$MNT/control" "live_bogus_$$")"

# a new holder and its forked child: they open the link through the pin
coproc holder { python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
path = ctypes.create_string_buffer(sys.argv[1].encode())
attr = (ctypes.c_uint64 * 2)(ctypes.addressof(path), 0)
fd = libc.syscall(321, 7, ctypes.byref(attr), 16)  # bpf(BPF_OBJ_GET)
if fd < 0:
    sys.exit("BPF_OBJ_GET: %s" % os.strerror(ctypes.get_errno()))
print(os.getpid(), flush=True)
sys.stdin.readline()  # forks on the first line, exits on EOF
q = os.fork()
if q == 0:
    sys.stdin.read()
    os._exit(0)
print(q, flush=True)
sys.stdin.read()
os.waitpid(q, 0)' "$PIN"; }
HOLDER=$holder_PID
read -r -u "${holder[0]}" p || die "the holder did not start"
# no stat since the ls -l above: a sendfile reader takes up to the size
# the kernel holds, which the open itself must bring up to date
assert_eq "sendfile of pids: the new holder's line too" \
	$((ls_pids + $(line_len "$p"))) "$(t python3 -c '
import os, sys
i = os.open(sys.argv[1], os.O_RDONLY)
o = os.open("/dev/null", os.O_WRONLY)
n = total = 0
while True:
    n = os.sendfile(o, i, None, 1 << 20)
    if n <= 0:
        break
    total += n
print(total)' "$MNT/$id/pids")"
assert_eq "ls -l pids: grown by the new holder's line" \
	$((ls_pids + $(line_len "$p"))) "$(size_in_ls "$id" pids)"
assert_eq "stat pids: grown by the new holder's line" \
	$((stat_pids + $(line_len "$p"))) "$(t stat -c %s "$MNT/$id/pids")"
assert_true "ls -l holders: grown with the new holder" \
	[ "$(size_in_ls "$id" holders)" -gt "$ls_holders" ]
assert_eq "fdinfo: mklinks and the holder" "$(printf '%s\n' "$MKL" "$p" |
	sort -n)" "$(fdinfo_pids "$id")"
assert_eq "pids: the new holder" "$(fdinfo_pids "$id")" "$(pids_of "$id")"
assert_eq "links.json pids: the new holder" "$(fdinfo_pids "$id")" \
	"$(json "$id" pids)"
echo fork >&"${holder[1]}"
read -r -u "${holder[0]}" q || die "the holder did not fork"
assert_eq "ls -l pids: grown by the forked child's line" \
	$((ls_pids + $(line_len "$p") + $(line_len "$q"))) \
	"$(size_in_ls "$id" pids)"
assert_eq "fdinfo: the forked child too" "$(printf '%s\n' "$MKL" "$p" "$q" |
	sort -n)" "$(fdinfo_pids "$id")"
assert_eq "pids: the forked child" "$(fdinfo_pids "$id")" "$(pids_of "$id")"
assert_eq "links.json pids: the forked child" "$(fdinfo_pids "$id")" \
	"$(json "$id" pids)"

# a second pin in a new subdirectory, then the first removed
mkdir "$PIN-top" || die "mkdir $PIN-top"
mkdir "$PIN-top/sub" || die "mkdir $PIN-top/sub"
bpftool link pin id "$id" "$PIN-top/sub/l" || die "bpftool link pin (sub)"
assert_eq "pinned: the pin in a new subdirectory" \
	"$(printf '%s\n' "$PIN" "$PIN-top/sub/l" | sort)" \
	"$(t cat "$MNT/$id/pinned" | sort)"
assert_eq "links.json pinned: the pin in a new subdirectory" \
	"$(printf '%s\n' "$PIN" "$PIN-top/sub/l" | sort)" \
	"$(json "$id" pinned | sort)"
rm "$PIN"
assert_eq "pinned: one pin removed" "$PIN-top/sub/l" \
	"$(t cat "$MNT/$id/pinned")"
assert_eq "links.json pinned: one pin removed" "$PIN-top/sub/l" \
	"$(json "$id" pinned)"
# renamed within its directory: only the directory's times say so
mv "$PIN-top/sub/l" "$PIN-top/sub/m"
assert_eq "pinned: a pin renamed" "$PIN-top/sub/m" \
	"$(t cat "$MNT/$id/pinned")"

# the holders go: mklinks and the holder exit, the pin goes, the link too
fd=${holder[1]}
exec {fd}>&-
wait "$HOLDER"
HOLDER=
mkl_stop a
assert_eq "pids: the holders gone (fdinfo: $(fdinfo_pids "$id" | xargs))" \
	"" "$(pids_of "$id")"
assert_eq "links.json pids: the holders gone" "" "$(json "$id" pids)"
t ls -l "$MNT/$id" >/dev/null # the kernel keeps the files' dentries
rm -r "$PIN-top"
bl_link_gone "link $id released once its last pin went" "$id"
assert_true "stat MNT/$id/pids: gone with the link, after ls -l" \
	bash -c "! stat '$MNT/$id/pids' >/dev/null 2>&1"
assert_true "ls -l MNT/$id: gone with the link" \
	bash -c "! ls -l '$MNT/$id' >/dev/null 2>&1"
assert_true "MNT/$id/pids: gone with the link" \
	bash -c "! cat '$MNT/$id/pids' 2>/dev/null"
assert_true "MNT/$id/pinned: gone with the link" \
	bash -c "! cat '$MNT/$id/pinned' 2>/dev/null"
assert_eq "links.json: the link removed" absent "$(json "$id" pids)"
assert_true "ls MNT: the link removed" bash -c "! ls '$MNT' | grep -qx $id"

# An fd opened on a link's file before the link went still reads, and
# fstat(2) on it answers (the value that fd holds), as for a deleted
# regular file: `exec 4<FILE; ...; cat <&4` works. A path still fails.
echo 's:cpu-clock cpu=0' >"$MNT/control" || fail "a software event link"
sid=$(tail -n1 "$MNT/control" | cut -f1)
want=$(cat "$MNT/$sid/spec")
exec {sfd}<"$MNT/$sid/spec"
echo "-$sid" >"$MNT/control" || fail "removing link $sid"
bl_link_gone "link $sid removed" "$sid"
assert_eq "cat <&FD of a removed link's file" "$want" "$(cat <&"$sfd")"
assert_eq "fstat of that fd: the size of what it holds" \
	"$(($(printf '%s' "$want" | wc -c) + 1))" \
	"$(stat -L -c %s "/proc/self/fd/$sfd")"
assert_true "stat by path: gone" \
	bash -c "! stat '$MNT/$sid/spec' >/dev/null 2>&1"
exec {sfd}<&-

bl_stop_daemon
finish
