#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Readers of <ID>/events (bpflinkfs(8), EVENTS and ACCESS). A seek back over what a read
# returned reads those bytes again, so GNU `head -n N` ends without
# "Illegal seek" and leaves the offset after line N for the next reader of
# the descriptor; a seek that changes nothing succeeds; a seek where the
# stream cannot go (past what it gave) fails the read with ESPIPE. bash's
# read builtin, which reads blocks of a seekable file, gets one line each. The RETVAL column of a
# uretprobe on the fixture's function (i * 3 + 7 for call i) says which
# line is which. Opening needs CAP_PERFMON or CAP_SYS_ADMIN in the initial
# user namespace: root without capabilities and root of a user namespace
# are refused, CAP_PERFMON alone is enough.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"
source "$HERE/lib_control.sh"

bl_setup
[ -d /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"
[ -x "${EVENTS_FIXTURE:-}" ] || skip "\$EVENTS_FIXTURE is not set"
for tool in setpriv unshare head; do
	command -v "$tool" >/dev/null || skip "$tool is not installed"
done
FIX=$(readlink -f "$EVENTS_FIXTURE")
bl_mount
ID=$(ctl_create "uretprobe:$FIX:bpflinkfs_events_hit"$'\n') || die "uretprobe"
EV=$MNT/$ID/events

# retvals FILE: the RETVAL column of FILE's lines, one a line
retvals() { awk -F'\t' '{ print $NF }' "$1" | xargs; }
# wait_hits N: the link's hits reach N (10 s at most)
wait_hits() {
	local n=$1
	wait_for -q 10 eval '[ "$(cat "$MNT/$ID/hits")" -ge "$n" ]' ||
		fail "hits did not reach $1"
}
# wait_ready FD: FD is readable (10 s at most)
wait_ready() {
	python3 -c 'import select, sys
p = select.poll(); p.register(int(sys.argv[1]), select.POLLIN)
sys.exit(0 if p.poll(10000) else 1)' "$1" || fail "fd $1 not readable"
}

# --- GNU head on a descriptor that stays open: each gets its own line
exec {fd}<"$EV" || die "open $EV"
"$FIX" evhead 50 >"$WORK/fix.out" || die "fixture"
read -r FPID _ <"$WORK/fix.out"
wait_hits 50
wait_ready "$fd"
t head -n 1 <&"$fd" >"$WORK/h1" 2>"$WORK/h1.err"
assert_eq "first head: exit 0, no error" "0 " "$? $(cat "$WORK/h1.err")"
t head -n 2 <&"$fd" >"$WORK/h2" 2>"$WORK/h2.err"
assert_eq "second head: exit 0, no error" "0 " "$? $(cat "$WORK/h2.err")"
assert_eq "first head: call 0" "0x7" "$(retvals "$WORK/h1")"
assert_eq "second head: calls 1 and 2" "0xa 0xd" "$(retvals "$WORK/h2")"
assert_eq "the fixture's pid" "$FPID" "$(cut -f3 "$WORK/h1")"
# the rest follows line 3: nothing lost or repeated by the seeks
t timeout 5 head -n 47 <&"$fd" >"$WORK/rest" 2>&1
assert_eq "the other 47 lines" \
	"$(python3 -c 'print(" ".join(hex(i * 3 + 7) for i in range(3, 50)))')" \
	"$(retvals "$WORK/rest")"
exec {fd}<&-

# --- bash's read takes a block and seeks back to the end of its line
exec {fd}<"$EV" || die "open $EV"
"$FIX" evread 3 >"$WORK/fix.out" || die "fixture"
wait_hits 53
wait_ready "$fd"
got=
for i in 1 2 3; do
	IFS= read -r -t 10 line <&"$fd" || fail "bash read $i"
	got+=" ${line##*$'\t'}"
done
exec {fd}<&-
assert_eq "bash read: calls 0 to 2, one each" "0x7 0xa 0xd" "${got# }"

# --- the seeks themselves, byte for byte
"$FIX" evseek 50 "$WORK/go" >"$WORK/fix.out" &
FIXPID=$!
python3 - "$EV" "$WORK/go" "$WORK/fix.out" <<'EOF' || fail "seeks on events"
import errno, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
open(sys.argv[2], "w").close()  # the fixture's calls start after the open
for _ in range(1000):  # its hits are queued by the time it is done
    if b"done" in open(sys.argv[3], "rb").read():
        break
    time.sleep(0.01)
assert os.lseek(fd, 0, os.SEEK_CUR) == 0, "SEEK_CUR 0 at the start"
pos = 0
for _ in range(100):
    got = os.read(fd, 65536)
    pos += len(got)
    assert os.lseek(fd, 0, os.SEEK_CUR) == pos, "SEEK_CUR 0 is the offset"
    if got.count(b"\n") >= 2:
        break
else:
    sys.exit("no read returned two lines or more")
first = got.index(b"\n") + 1
back = len(got) - first
assert os.lseek(fd, -back, os.SEEK_CUR) == pos - back, "seek back"
again = os.read(fd, 65536)
assert again == got[first:], "a seek back reads the same bytes again"
assert os.lseek(fd, pos, os.SEEK_SET) == pos, "SEEK_SET to the offset"
# past what was given: the stream cannot go there
os.lseek(fd, pos + 10, os.SEEK_SET)
try:
    os.read(fd, 100)
    sys.exit("a read past the stream's offset succeeded")
except OSError as e:
    assert e.errno == errno.ESPIPE, "ESPIPE, not %s" % e
EOF
wait "$FIXPID"

# --- head -n N on the file itself, as in a terminal
rm -f "$WORK/go"
"$FIX" evhead2 20 "$WORK/go" >"$WORK/fix.out" &
FIXPID=$!
t head -n 3 "$EV" >"$WORK/h3" 2>"$WORK/h3.err" &
HPID=$!
wait_for -q 5 eval 'ls -l "/proc/$HPID/fd" 2>/dev/null | grep -q "/$ID/events$"'
touch "$WORK/go"
wait "$HPID"
assert_eq "head -n 3 FILE: exit 0, no error" "0 " "$? $(cat "$WORK/h3.err")"
assert_eq "head -n 3 FILE: calls 0 to 2" "0x7 0xa 0xd" "$(retvals "$WORK/h3")"
wait "$FIXPID"

# --- who may open it
# open_as WRAPPER...: OPEN when events opens (read-only, non-blocking),
# else the errno name
open_as() {
	"$@" python3 - "$EV" <<'EOF'
import errno, os, sys
try:
    os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK))
    print("OPEN")
except OSError as e:
    print(errno.errorcode[e.errno])
EOF
}
assert_eq "root opens events" OPEN "$(open_as env)"
assert_eq "root without capabilities" EACCES \
	"$(open_as setpriv --inh-caps=-all --bounding-set=-all)"
assert_eq "root with CAP_PERFMON only" OPEN \
	"$(open_as setpriv --inh-caps=-all,+perfmon --bounding-set=-all,+perfmon)"
assert_eq "root with CAP_SYS_ADMIN only" OPEN \
	"$(open_as setpriv --inh-caps=-all,+sys_admin \
		--bounding-set=-all,+sys_admin)"
assert_eq "root of a user namespace" EACCES "$(open_as unshare -U -r)"
# the link's other files stay readable to them
assert_num_eq "root without capabilities reads hits" \
	"$(cat "$MNT/$ID/hits")" \
	"$(setpriv --inh-caps=-all --bounding-set=-all cat "$MNT/$ID/hits")"
bl_daemon_alive || fail "daemon dead or mount not answering at the end"
finish
