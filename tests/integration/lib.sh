# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for the bpflinkfs integration tests (source it from bash):
# the mount, mklinks, ELF and BTF helpers. The checks, the TAP output and
# wait_for come from tests/tap.sh, which this sources.
#
# Environment: BPFLINKFS (the daemon), MKLINKS and TARGET (tests/tools).
# Output: TAP on stdout (tests/tap.sh); exit 0 pass or skip, 1 fail.

. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

BL_DAEMON_PID=
MNT=
WORK=
declare -A MKL_PID MKL_FD MKL_OUT
# The hang detector's limit: 15 s, and 1 s more per 200 links on the host
# (a whole listing or glob of thousands of other processes' links by
# several readers at once takes longer, without hanging).
HANG_S=$((15 + $(bpftool link list 2>/dev/null | grep -c '^[0-9]') / 200))
export HANG_S

# t CMD...: run CMD with the hang detector; a hang is a failure of its own.
t() {
	local rc=0
	timeout "$HANG_S" "$@" || rc=$?
	if [ "$rc" -eq 124 ]; then
		fail "hang ($HANG_S s) in: $*"
	fi
	return "$rc"
}

bl_require() {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	[ -c /dev/fuse ] || skip "no /dev/fuse (modprobe fuse)"
	local v
	for v in BPFLINKFS MKLINKS TARGET; do
		[ -n "${!v:-}" ] || skip "\$$v is not set (run through meson test)"
		[ -x "${!v}" ] || skip "\$$v=${!v} is not executable"
	done
	local tool
	for tool in fusermount3 mountpoint python3 readelf bpftool timeout; do
		command -v "$tool" >/dev/null || skip "$tool is not installed"
	done
}

# bl_bpftool75: define bpftool75() as bpftool 7.5 from bookworm-backports
# (scripts/bpftool_bpo.sh), which decodes perf and multi links as Debian
# 12's 7.1 does not; 1 (and bpftool75 is the system's bpftool) when it
# cannot be had.
bl_bpftool75() {
	local out
	if out=$(bash "$(dirname "${BASH_SOURCE[0]}")/../../scripts/bpftool_bpo.sh" \
		2>/dev/null); then
		BPFTOOL75_BIN=$(sed -n 1p <<<"$out")
		BPFTOOL75_LIB=$(sed -n 2p <<<"$out")
		bpftool75() {
			LD_LIBRARY_PATH=$BPFTOOL75_LIB "$BPFTOOL75_BIN" "$@"
		}
		return 0
	fi
	bpftool75() { bpftool "$@"; }
	return 1
}

# bl_tracefs: print the tracefs root, mounting it if needed. It is left
# mounted, since other programs on the host may use it too.
bl_tracefs() {
	local d
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		if [ -d "$d/events" ]; then
			echo "$d"
			return 0
		fi
	done
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || return 1
	echo /sys/kernel/tracing
}

# Sanitizer builds (scripts/test.sh's build-asan): report everything, and
# let the daemon's report reach its log (bl_san_check reads it).
: "${ASAN_OPTIONS:=detect_leaks=1:abort_on_error=0:halt_on_error=1}"
: "${UBSAN_OPTIONS:=print_stacktrace=1:halt_on_error=0}"
export ASAN_OPTIONS UBSAN_OPTIONS
# Logs that must hold no sanitizer report; tests may append their own.
BL_SAN_LOGS=()

# bl_san_check: print every sanitizer report in the daemon's and mklinks'
# stderr (and BL_SAN_LOGS); return 1 if there is one.
bl_san_check() {
	local f bad=0
	[ -n "$WORK" ] || return 0
	for f in "$WORK/daemon.log" "$WORK"/mkl.*.err "${BL_SAN_LOGS[@]}"; do
		[ -f "$f" ] || continue
		if grep -qE 'ERROR: AddressSanitizer|LeakSanitizer|runtime error:' \
			"$f"; then
			echo "FAIL: sanitizer report in $f:" >&2
			grep -E -A 40 'ERROR: AddressSanitizer|LeakSanitizer|runtime error:' \
				"$f" | head -n 200 >&2
			bad=1
		fi
	done
	return $bad
}

# bl_gone PID: process PID has exited (or never was).
bl_gone() {
	! kill -0 "$1" 2>/dev/null
}

# bl_stop_daemon: unmount and wait (BL_EXIT_WAIT s, default 60) until the
# daemon has exited by itself, so that its exit path, and LeakSanitizer in
# a sanitizer build, run; only then SIGTERM, and SIGKILL after 10 s more.
bl_stop_daemon() {
	if [ -n "$MNT" ] && mountpoint -q "$MNT" 2>/dev/null; then
		fusermount3 -u "$MNT" 2>/dev/null ||
			fusermount3 -uz "$MNT" 2>/dev/null
	fi
	[ -n "$BL_DAEMON_PID" ] || return 0
	if ! wait_for -q "${BL_EXIT_WAIT:-60}" bl_gone "$BL_DAEMON_PID"; then
		echo "note: bpflinkfs did not exit after the unmount; SIGTERM" >&2
		kill "$BL_DAEMON_PID" 2>/dev/null
		wait_for -q 10 bl_gone "$BL_DAEMON_PID" ||
			kill -9 "$BL_DAEMON_PID" 2>/dev/null
	fi
	wait "$BL_DAEMON_PID" 2>/dev/null
	BL_DAEMON_PID=
}

# bl_cleanup: stop mklinks and the daemon, remove MNT and WORK. A sanitizer
# report in their logs fails the test: then WORK is kept and this exits 1
# (so a trap that calls bl_cleanup should do its own steps first).
bl_cleanup() {
	local name pid
	for name in "${!MKL_PID[@]}"; do
		pid=${MKL_PID[$name]}
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	bl_stop_daemon
	[ -n "$MNT" ] && rmdir "$MNT" 2>/dev/null
	if ! bl_san_check; then
		[ -n "$WORK" ] && echo "(logs kept in $WORK)" >&2
		exit 1
	fi
	[ -n "$WORK" ] && rm -rf "$WORK"
	return 0
}

# bl_setup: check prerequisites, make WORK (a scratch directory) and set
# the exit trap.
bl_setup() {
	bl_require
	WORK=$(mktemp -d /tmp/bpflinkfs-test.XXXXXX) || die "mktemp"
	trap bl_cleanup EXIT
	trap 'exit 1' INT TERM
}

# bl_mount [FUSE OPTIONS...]: start the daemon in the foreground in the
# background on a fresh MNT and wait (10 s at most) until it answers.
bl_mount() {
	MNT=$(mktemp -d /tmp/bpflinkfs-mnt.XXXXXX) || die "mktemp"
	# appended: an earlier daemon's sanitizer report must stay for
	# bl_san_check
	"$BPFLINKFS" "$MNT" -f "$@" 2>>"$WORK/daemon.log" &
	BL_DAEMON_PID=$!
	wait_for -q 10 bl_mount_up
	mountpoint -q "$MNT" && return 0
	cat "$WORK/daemon.log" >&2
	bl_gone "$BL_DAEMON_PID" &&
		die "bpflinkfs exited before the mount was up"
	die "bpflinkfs: no mount on $MNT after 10 s"
}

# bl_mount_up: MNT is mounted, or the daemon has exited (no use waiting).
bl_mount_up() {
	mountpoint -q "$MNT" || bl_gone "$BL_DAEMON_PID"
}

# bl_blocked PID: PID waits for an answer of the daemon (in read, once its
# open is done): the kernel's wchan of a pending FUSE request.
bl_blocked() {
	[ "$(cat "/proc/$1/wchan" 2>/dev/null)" = request_wait_answer ]
}

# bl_daemon_alive: the daemon runs and the mount answers.
bl_daemon_alive() {
	kill -0 "$BL_DAEMON_PID" 2>/dev/null || return 1
	timeout 5 ls "$MNT" >/dev/null
}

# bl_second_daemon WHAT PIN_DIR: a second daemon on PIN_DIR must refuse to
# start ("in use"); WHAT names the check.
bl_second_daemon() {
	local m out
	m=$(mktemp -d /tmp/bpflinkfs-mnt.XXXXXX)
	if out=$(timeout 15 "$BPFLINKFS" "$m" -f -o "pin_dir=$2" 2>&1); then
		fail "$1: a second daemon on $2 was accepted"
		fusermount3 -u "$m"
	else
		assert_match "$1" "in use" "$out"
	fi
	rmdir "$m"
}

# bl_link_gone WHAT ID: link ID leaves `bpftool link show` within 5 s.
bl_link_gone() {
	if wait_for -q 5 bl_no_link "$2"; then
		ok "$1"
	else
		fail "$1: link $2 still in bpftool link show after 5 s"
	fi
}

# bl_no_link ID: the kernel has no link ID.
bl_no_link() {
	! bpftool link show id "$1" >/dev/null 2>&1
}

# mkl_start NAME SPEC...: run mklinks with a fifo as stdin and wait until
# it says "ready". Its link lines are then in ${MKL_OUT[NAME]}.
mkl_start() {
	local name=$1 base="$WORK/mkl.$1" pid fd
	shift
	rm -f "$base.in"
	mkfifo "$base.in" || die "mkfifo"
	"$MKLINKS" "$@" <"$base.in" >"$base.out" 2>"$base.err" &
	pid=$!
	# opening for writing waits for the reader, which the redirect above is
	exec {fd}>"$base.in"
	MKL_PID[$name]=$pid
	MKL_FD[$name]=$fd
	MKL_OUT[$name]="$base.out"
	wait_for -q 15 bl_ready_or_gone "$base.out" "$pid"
	grep -qx ready "$base.out" 2>/dev/null && return 0
	cat "$base.err" >&2
	bl_gone "$pid" && die "mklinks $* failed"
	die "mklinks $*: not ready after 15 s"
}

# bl_ready_or_gone FILE PID: FILE has a line "ready", or PID has exited.
bl_ready_or_gone() {
	grep -qx ready "$1" 2>/dev/null || bl_gone "$2"
}

# mkl_lines NAME: the link lines (without "ready").
mkl_lines() {
	grep -vx ready "${MKL_OUT[$1]}"
}

# mkl_stop NAME: close mklinks' stdin and wait (10 s) until it has exited,
# so its links are gone from the kernel.
mkl_stop() {
	local name=$1 pid=${MKL_PID[$1]} fd=${MKL_FD[$1]} rc=0
	exec {fd}>&-
	if ! wait_for -q 10 bl_gone "$pid"; then
		kill -9 "$pid"
		fail "mklinks $name did not exit on EOF"
	fi
	wait "$pid" || rc=$?
	unset "MKL_PID[$name]"
	[ "$rc" -eq 0 ] || fail "mklinks $name exited with $rc: $(cat \
		"$WORK/mkl.$name.err")"
}

# elf_file_offset FILE SYMBOL: the file offset of SYMBOL's address, from
# `readelf -sW` (its value) and `readelf -lW` (the PT_LOAD holding it).
elf_file_offset() {
	readelf -sW "$1" >"$WORK/syms" || return 1
	readelf -lW "$1" >"$WORK/phdrs" || return 1
	python3 - "$2" "$WORK/syms" "$WORK/phdrs" <<'EOF'
import re, sys
sym, syms, phdrs = sys.argv[1:]
vals = [int(f[1], 16) for f in (l.split() for l in open(syms))
        if len(f) >= 8 and f[7] == sym]
if len(vals) != 1:
    sys.exit("symbol %s: %d matches" % (sym, len(vals)))
v = vals[0]
for l in open(phdrs):
    m = re.match(r'\s*LOAD\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+\S+\s+'
                 r'(0x[0-9a-f]+)\s+(0x[0-9a-f]+)', l)
    if not m:
        continue
    off, vaddr, filesz, memsz = (int(x, 16) for x in m.groups())
    if vaddr <= v < vaddr + filesz:
        print(hex(v - vaddr + off))
        sys.exit(0)
sys.exit("symbol %s at %#x: in no PT_LOAD" % (sym, v))
EOF
}

# btf_link_info_fields: the members of struct bpf_link_info in the running
# kernel's BTF, one dotted path a line (perf_event.uprobe.cookie ...);
# members of anonymous structs and unions count as their parent's.
btf_link_info_fields() {
	bpftool btf dump file /sys/kernel/btf/vmlinux format c |
		python3 -c '
import re, sys
text = sys.stdin.read()
start = text.find("struct bpf_link_info {")
if start < 0:
    sys.exit("no struct bpf_link_info in BTF")
stack = [[]]
for line in text[start:].splitlines()[1:]:
    line = line.strip()
    if line.endswith("{"):
        stack.append([])
        continue
    m = re.match(r"}\s*(\w*)\s*;", line)
    if m:
        inner = stack.pop()
        if not stack:
            break
        pre = m.group(1) + "." if m.group(1) else ""
        stack[-1].extend(pre + n for n in inner)
        continue
    m = re.search(r"(\w+)(\[\w*\])?;$", line)
    if m:
        stack[-1].append(m.group(1))
for n in stack[0] if stack else inner:
    print(n)
'
}
