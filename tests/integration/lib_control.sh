# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the control-file tests (source after lib.sh). Expected values
# come from the kernel (fdinfo, bpftool, sysfs), never from the daemon.

# ctl_write DATA: write DATA to MNT/control in one write(2) and close;
# prints OK or the errno name (EINVAL ...), then " close:ENAME" if close
# failed.
ctl_write() {
	timeout 30 python3 - "$MNT/control" "$1" <<'EOF'
import errno, os, sys
def name(e):
    # ENOTSUP and EOPNOTSUPP are one number on Linux; the man page says the latter
    if e == errno.EOPNOTSUPP:
        return "EOPNOTSUPP"
    return errno.errorcode.get(e, str(e))
fd = os.open(sys.argv[1], os.O_WRONLY)
r = "OK"
try:
    os.write(fd, os.fsencode(sys.argv[2]))
except OSError as e:
    r = name(e.errno)
try:
    os.close(fd)
except OSError as e:
    r += " close:" + name(e.errno)
print(r)
EOF
	[ $? -eq 124 ] && fail "hang (30 s) writing to control"
	return 0
}

# ctl_create DATA: write DATA in one write(2) on an O_RDWR handle, then read
# the ids back until EOF and print them one a line. Fails (and prints the
# errno name on stderr) if the write fails.
ctl_create() {
	local rc=0
	timeout 30 python3 - "$MNT/control" "$1" <<'EOF' || rc=$?
import errno, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
try:
    os.write(fd, os.fsencode(sys.argv[2]))
except OSError as e:
    sys.stderr.write("write: %s\n" % errno.errorcode.get(e.errno, e.errno))
    sys.exit(1)
out = b"".join(iter(lambda: os.read(fd, 4096), b""))
os.close(fd)
sys.stdout.write(out.decode())
EOF
	[ $rc -eq 124 ] && fail "hang (30 s) in ctl_create"
	return $rc
}

# daemon_link_ids: the BPF link ids the daemon holds fds of, from
# /proc/PID/fdinfo (the kernel's view, "link_id:" lines), sorted; all but
# its iter links (over bpf_link: bpf/read/link_ids.c, bpf/read/link_progs.c;
# over task_file: bpf/holders/task_files.c), which it always holds.
daemon_link_ids() {
	local f
	for f in /proc/"$BL_DAEMON_PID"/fdinfo/*; do
		grep -q '^target_name:' "$f" 2>/dev/null && continue
		sed -n 's/^link_id:[[:space:]]*//p' "$f" 2>/dev/null
	done | sort -n
}

# bpftool_link_ids: every link id of the host, from bpftool.
bpftool_link_ids() {
	bpftool link show -j | python3 -c '
import json, sys
for l in json.load(sys.stdin):
    print(l["id"])' | sort -n
}

# wait_links_gone SECONDS ID...: wait until none of the ids is in
# `bpftool link show`; prints the ones left after SECONDS.
wait_links_gone() {
	local secs=$1 left ids
	shift
	ids=("${@/#/-e}")
	wait_for -q "$secs" eval 'left=$(bpftool_link_ids | grep -xF "${ids[@]}"); [ -z "$left" ]' &&
		return 0
	echo "$left" | xargs
	return 1
}

# online_cpus: the online CPU numbers, one a line, from sysfs.
online_cpus() {
	python3 -c '
for r in open("/sys/devices/system/cpu/online").read().strip().split(","):
    a, _, b = r.partition("-")
    for c in range(int(a), int(b or a) + 1):
        print(c)'
}

# sw_config NAME: the PERF_COUNT_SW_* value of a software event (the uapi
# header of the system, an ABI that never changes).
sw_config() {
	local macro
	macro=PERF_COUNT_SW_$(echo "$1" | tr 'a-z-' 'A-Z_')
	case $1 in
	page-faults) macro=PERF_COUNT_SW_PAGE_FAULTS ;;
	esac
	sed -n "s/^[[:space:]]*$macro[[:space:]]*=[[:space:]]*\([0-9]*\),.*/\1/p" \
		/usr/include/linux/perf_event.h
}

# busy CPU SECONDS: keep CPU busy (and faulting pages) for a while.
busy() {
	taskset -c "$1" timeout "$2" sh -c 'while :; do :; done' 2>/dev/null
	return 0
}

# assert_errno WHAT WANT DATA: writing DATA to control fails with WANT.
assert_errno() {
	local got
	got=$(ctl_write "$3")
	assert_eq "$1 ($3)" "$2" "$got"
}

# owned_listing: `cat MNT/control` on a fresh handle.
owned_listing() {
	t cat "$MNT/control"
}

# errlog_entries: parse MNT/error_log; print one line per entry,
# SECS<TAB>ENAME<TAB>LINE<TAB>CARET_COLUMN<TAB>COMMAND<TAB>MESSAGE, where
# CARET_COLUMN is 0-based in COMMAND. Exits 1 (with the reason on stderr)
# if an entry is not in the format of bpflinkfs(8), ERRORS.
errlog_entries() {
	timeout 15 cat "$MNT/error_log" >"$WORK/errlog" || return 1
	python3 - "$WORK/errlog" <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8", errors="replace").read()
if lines and not lines.endswith("\n"):
    sys.exit("error_log does not end with a newline")
lines = lines.splitlines()
if len(lines) % 3:
    sys.exit("error_log has %d lines, not 3 per entry" % len(lines))
head = re.compile(r"^\[(\d+\.\d{6})\] (E[A-Z0-9]+|warning): line (\d+): (.+)$")
for i in range(0, len(lines), 3):
    h, c, k = lines[i:i + 3]
    m = head.match(h)
    if not m:
        sys.exit("bad entry head line: %r" % h)
    if not c.startswith("  Command: "):
        sys.exit("bad Command line: %r" % c)
    if not re.match(r"^ *\^$", k):
        sys.exit("bad caret line: %r" % k)
    col = len(k) - 1 - len("  Command: ")
    if col < 0:
        sys.exit("caret left of the command: %r" % k)
    print("\t".join([m.group(1), m.group(2), m.group(3), str(col),
                     c[len("  Command: "):], m.group(4)]))
PY
}

# daemon_prog_ids: ids of the BPF programs the daemon holds (fdinfo).
daemon_prog_ids() {
	local f
	for f in /proc/"$BL_DAEMON_PID"/fdinfo/*; do
		sed -n 's/^prog_id:[[:space:]]*//p' "$f" 2>/dev/null
	done | sort -nu
}

# links_of_progs PROG_ID...: ids of host links running one of the programs
# (bpftool), sorted; iter links left out (the daemon's own link iterator).
links_of_progs() {
	bpftool link show -j | python3 -c '
import json, sys
progs = set(int(p) for p in sys.argv[1:])
for l in json.load(sys.stdin):
    if l.get("prog_id") in progs and l.get("type") != "iter":
        print(l["id"])' "$@" | sort -n
}
