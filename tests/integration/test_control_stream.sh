#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The control stream (bpflinkfs(8), What a write does and ERRORS): a failed line split across
# writes does not poison the next write on the handle (while a writer's
# retry of a short write still never runs the failed line's tail); every
# accepted command is kept whole as its links' spec, a longer one is
# refused up front; a writer killed by a signal in the middle of a line
# runs nothing of it, while a normal close or exit runs it.
# Expected values come from the kernel (bpftool, /proc fdinfo), never from
# the daemon's own view of what it made.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"
source "$HERE/lib_control.sh"

bl_setup
[ -d /sys/bus/event_source/devices/software ] || skip "no software PMU"
TGT=$(readlink -f "$TARGET")
bl_mount

# nothing_made WHAT: no link owned, none held by the daemon (fdinfo).
nothing_made() {
	assert_eq "$1: owned listing" "" "$(owned_listing)"
	assert_eq "$1: link fds of the daemon" "" "$(daemon_link_ids | xargs)"
}

# clean: remove every owned link (and check that none is left).
clean() {
	echo '-*' >"$MNT/control" || fail "-* failed"
	assert_eq "clean: owned listing" "" "$(owned_listing)"
}

# last_log_message: the message of the newest error_log entry.
last_log_message() {
	errlog_entries | tail -n 1 | cut -f6
}

# The writer: each argument a Python bytes expression written with one
# write(2) on one O_RDWR handle (errors do not stop it); prints one result
# a write (OK, SHORT:N or the errno name), then the ids read back.
cat >"$WORK/writes.py" <<'EOF'
import errno, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
out = []
for expr in sys.argv[2:]:
    data = eval(expr)
    try:
        n = os.write(fd, data)
        out.append("OK" if n == len(data) else "SHORT:%d" % n)
    except OSError as e:
        out.append(errno.errorcode.get(e.errno, str(e.errno)))
ids = b"".join(iter(lambda: os.read(fd, 4096), b""))
os.close(fd)
print(" ".join(out + ids.decode().split()))
EOF
writes() {
	timeout 60 python3 "$WORK/writes.py" "$MNT/control" "$@"
	[ $? -eq 124 ] && fail "hang (60 s) in writes $*"
}

# --- 1. a failed line split across writes, then a good write -----------
read -r -a r <<<"$(writes 'b"s:cpu-clock"' 'b" bogus=1\n"' \
	'b"s:cpu-clock cpu=0\n"')"
assert_eq "split line: start accepted" OK "${r[0]}"
assert_eq "split line: its end fails" EINVAL "${r[1]}"
assert_eq "the next good write on the handle" OK "${r[2]}"
assert_eq "one id read back" 4 "${#r[@]}"
assert_eq "that id is the daemon's one link" "${r[3]:-none}" \
	"$(daemon_link_ids | xargs)"
assert_match "the failed line is logged" "unknown option 'bogus'" \
	"$(errlog_entries | cut -f6)"
assert_eq "and nothing more" 1 "$(errlog_entries | grep -c .)"
clean
t sh -c "echo > '$MNT/error_log'"

# the same when the failed request carries more lines after the newline
read -r -a r <<<"$(writes 'b"s:cpu-cl"' 'b"ock bogus=1\ns:cpu-clock cpu=0\n"' \
	'b"s:cpu-clock cpu=0\n"' 'b"s:cpu-clock"' 'b" cpu=0\n"')"
assert_eq "failed request with more lines, then two good ones" \
	"OK EINVAL OK OK OK" "${r[*]:0:5}"
assert_eq "two ids read back" 7 "${#r[@]}"
assert_eq "the daemon's links" "$(printf '%s\n' "${r[@]:5}" | sort -n | xargs)" \
	"$(daemon_link_ids | xargs)"
clean

# A write(2) over 1 MiB is split by the kernel into requests; when a line
# that crosses into the second request fails, write(2) returns short and a
# writer sends the rest again: its first bytes, the failed line's tail,
# must not run as a command of their own. The buffer is page aligned
# (mmap), so the first request ends after exactly 1 MiB.
res=$(timeout 60 python3 - "$MNT/control" <<'EOF'
import errno, mmap, os, sys
head = b"#" * ((1 << 20) - 6) + b"\nXXXX"
data = head + b"s:cpu-clock cpu=0\n"
buf = mmap.mmap(-1, len(data))
buf.write(data)
fd = os.open(sys.argv[1], os.O_RDWR)
out = []
n = os.write(fd, memoryview(buf))
out.append("%d" % n)
for d in (memoryview(buf)[n:], b"s:cpu-clock cpu=1\n"):
    try:
        os.write(fd, d)
        out.append("OK")
    except OSError as e:
        out.append(errno.errorcode[e.errno])
print(" ".join(out + os.read(fd, 100).decode().split()))
EOF
)
read -r -a r <<<"$res"
assert_eq "short write: the first request is taken" $((1 << 20)) "${r[0]}"
assert_eq "the retried tail of the failed line" EINVAL "${r[1]:-}"
assert_eq "a new line after it" OK "${r[2]:-}"
assert_eq "only the new line made a link" 4 "${#r[@]}"
assert_eq "the daemon's link" "${r[3]:-none}" "$(daemon_link_ids | xargs)"
assert_match "the retry is logged" "written again" "$(last_log_message)"
clean

# --- 2. command length: whole everywhere, or refused up front ----------
LIMIT=8000
# cmd N: a software event command of exactly N bytes (blanks between
# words count; none around it)
cmd() {
	printf 's:cpu-clock%*scpu=0' $(($1 - 16)) ''
}
for n in $((LIMIT + 1)) 9000 100000; do
	assert_eq "a command of $n bytes" EINVAL "$(ctl_write "$(cmd $n)
")"
	assert_match "its message" "over the limit of $LIMIT bytes" \
		"$(last_log_message)"
	nothing_made "a command of $n bytes"
done
# a blank-padded line stays within the limit: blanks around do not count
long=$(cmd $LIMIT)
assert_eq "a command of $LIMIT bytes in a longer line" OK \
	"$(ctl_write "      $long      
")"
id=$(cut -f1 "$MNT/control")
assert_eq "one link for it" "$id" "$(daemon_link_ids | xargs)"
assert_eq "its spec, whole" "$long" "$(t cat "$MNT/$id/spec")"
assert_eq "ls -l shows every file" 0 \
	"$(ls -l "$MNT/$id" 2>&1 | grep -c '?')"
assert_eq "cat control, whole" "$id	$long" "$(owned_listing)"
assert_eq "links.json, whole" "$long" "$(t cat "$MNT/links.json" |
	python3 -c 'import json, sys
for o in json.load(sys.stdin):
    if o["id"] == int(sys.argv[1]):
        print(o.get("spec", "(no spec)"))' "$id")"
clean

# with pin_dir the spec lives in bpffs: adopted whole by the next mount
if grep -q ' /sys/fs/bpf bpf ' /proc/mounts ||
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null; then
	PIN=/sys/fs/bpf/bpflinkfs-stream-$$
	trap 'rm -rf "$PIN"; bl_cleanup' EXIT
	bl_stop_daemon
	bl_mount -o "pin_dir=$PIN"
	assert_eq "pin_dir: a command of $LIMIT bytes" OK "$(ctl_write "$long
")"
	assert_eq "pin_dir: a command of 9000 bytes" EINVAL \
		"$(ctl_write "$(cmd 9000)
")"
	bl_stop_daemon
	bl_mount -o "pin_dir=$PIN"
	id=$(cut -f1 "$MNT/control")
	assert_match "pin_dir: one link adopted" '^[0-9]+$' "$id"
	assert_eq "pin_dir: its spec, whole" "$long" "$(t cat "$MNT/$id/spec")"
	clean
	bl_stop_daemon
	rm -rf "$PIN"
	bl_mount
else
	echo "note: no bpffs at /sys/fs/bpf; pin_dir part not run"
fi

# --- 3. a writer that dies in the middle of a line ---------------------
# The half line written: the writer meant pid=12345, but pid=1 is all that
# reached the daemon.
HALF="u:$TGT:bpflinkfs_target_a pid=1"
cat >"$WORK/half.py" <<'EOF'
import os, sys, threading, time
ctl, half, how = sys.argv[1], sys.argv[2].encode(), sys.argv[3]
fd = os.open(ctl, os.O_WRONLY)
if how == "thread":  # another thread writes; the whole process dies
    t = threading.Thread(target=os.write, args=(fd, half))
    t.start()
    t.join()
else:
    os.write(fd, half)
if how == "close":
    os.close(fd)
    sys.exit(0)
if how == "exit3":
    sys.exit(3)  # the handle still open: closed by the exit
if how == "fork":  # a child shares the handle and outlives its writer
    if os.fork() == 0:
        time.sleep(1.5)
        os._exit(0)
print("ready", flush=True)
time.sleep(60)
EOF
# half_killed SIGNAL HOW: a writer of the half line, killed by SIGNAL
half_killed() {
	local pid before
	before=$(timeout 15 tail -n 3 "$MNT/error_log")
	rm -f "$WORK/half.out"
	python3 "$WORK/half.py" "$MNT/control" "$HALF" "$2" >"$WORK/half.out" &
	pid=$!
	wait_for 15 grep -q ready "$WORK/half.out"
	kill -"$1" "$pid"
	wait "$pid" 2>/dev/null
	# the last holder's close (a forked child's after its 1.5 s) releases
	# the handle, and the half line's entry is logged
	wait_for 15 eval '[ "$(timeout 15 tail -n 3 "$MNT/error_log")" != "$before" ]'
}
for how in wait thread fork; do
	for sig in KILL TERM; do
		half_killed "$sig" "$how"
		nothing_made "writer ($how) killed by SIG$sig"
		IFS=$'\t' read -r _ ename _ _ line msg \
			<<<"$(errlog_entries | tail -n 1)"
		assert_eq "SIG$sig ($how): logged" EINTR "$ename"
		assert_match "SIG$sig ($how): the log says why" \
			"killed by signal $(kill -l "$sig") \\(SIG$sig\\).*not run" \
			"$msg"
		assert_eq "SIG$sig ($how): the log shows the half line" "$HALF" \
			"$line"
	done
done

# a normal close, an exit with the handle open: the line runs
for how in close exit3; do
	timeout 30 python3 "$WORK/half.py" "$MNT/control" "$HALF" "$how"
	id=$(cut -f1 "$MNT/control")
	assert_eq "$how: one link" "${id:-none}" "$(daemon_link_ids | xargs)"
	assert_eq "$how: the line it ran" "$HALF" "$(t cat "$MNT/$id/spec")"
	assert_eq "$how: a perf_event link (bpftool)" perf_event \
		"$(bpftool link show id "${id:-0}" -j | python3 -c '
import json, sys
print(json.load(sys.stdin).get("type"))' 2>&1)"
	clean
done
# bash's exit 0 with control as its standard output
timeout 30 bash -c 'exec 1>"$1"; printf "%s" "$2"; exit 0' _ \
	"$MNT/control" "$HALF"
assert_eq "bash exit 0: the line it ran" "$HALF" \
	"$(owned_listing | cut -f2)"
assert_eq "bash exit 0: one link" "$(owned_listing | cut -f1)" \
	"$(daemon_link_ids | xargs)"
clean

# a forked child killed by a signal is not the writer: the line goes on
res=$(timeout 30 python3 - "$MNT/control" <<'EOF'
import os, signal, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
os.write(fd, b"s:cpu-clock")
pid = os.fork()
if pid == 0:
    time.sleep(60)
    os._exit(0)
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
os.write(fd, b" cpu=0\n")
print(os.read(fd, 100).decode().strip())
os.close(fd)
EOF
)
assert_match "killed child: the writer's line made a link" '^[0-9]+$' "$res"
assert_eq "killed child: its spec" "s:cpu-clock cpu=0" \
	"$(t cat "$MNT/${res:-0}/spec")"
clean

assert_true "daemon alive" bl_daemon_alive
finish
