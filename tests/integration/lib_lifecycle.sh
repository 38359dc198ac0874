# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Helpers for the lifecycle tests (source after lib.sh and lib_control.sh):
# start and stop the daemon on a mountpoint of the test's choosing, and make
# owned and foreign links whose ids come from the kernel (bpftool).

LC_MNTS=()
LC_N=0

# lc_cleanup: lazily unmount every mountpoint this test used (a killed
# daemon leaves a dead mount that `mountpoint -q` does not see) and remove
# it; bl_cleanup does the rest.
lc_cleanup() {
	local m
	for m in "${LC_MNTS[@]}"; do
		if findmnt -n --mountpoint "$m" >/dev/null 2>&1; then
			fusermount3 -uz "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
		fi
		rmdir "$m" 2>/dev/null
	done
	bl_cleanup
}

# lc_setup: bl_setup with lc_cleanup as the exit trap.
lc_setup() {
	bl_setup
	command -v findmnt >/dev/null || skip "findmnt is not installed"
	trap lc_cleanup EXIT
}

# lc_newmnt: print a fresh mountpoint directory (removed at exit).
lc_newmnt() {
	local m
	m=$(mktemp -d /tmp/bpflinkfs-mnt.XXXXXX) || die "mktemp"
	echo "$m"
}

# lc_answers DIR: the mount on DIR answers (features reads) within 2 s.
lc_answers() {
	timeout 2 cat "$1/features" >/dev/null 2>&1
}

# lc_start DIR [ARGS...]: start `bpflinkfs DIR -f ARGS` in the background
# and wait (10 s) until DIR answers; sets MNT and BL_DAEMON_PID, and
# LC_LOG to its stderr. SIGINT is reset to the default first: a shell
# without job control starts background jobs with SIGINT ignored, and
# libfuse keeps an ignored signal ignored.
lc_start() {
	local dir=$1 i
	shift
	LC_N=$((LC_N + 1))
	LC_LOG=$WORK/daemon.$LC_N.log
	MNT=$dir
	LC_MNTS+=("$dir")
	python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$BPFLINKFS" "$dir" -f "$@" \
		2>"$LC_LOG" &
	BL_DAEMON_PID=$!
	wait_for -q 10 eval 'lc_answers "$dir" || bl_gone "$BL_DAEMON_PID"'
	lc_answers "$dir" && return 0
	cat "$LC_LOG" >&2
	bl_gone "$BL_DAEMON_PID" &&
		die "bpflinkfs exited before the mount on $dir was up"
	die "bpflinkfs: no mount answering on $dir after 10 s"
}

# lc_gone PID: the process is gone or a zombie (its fds are closed then).
lc_gone() {
	local st
	[ -e "/proc/$1" ] || return 0
	st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' \
		"/proc/$1/status" 2>/dev/null)
	# status unreadable for a moment (a sanitizer's exit-time tracer):
	# gone only if /proc/PID went away meanwhile
	[ -n "$st" ] || { [ -e "/proc/$1" ] && return 1; return 0; }
	[ "$st" = Z ] || [ "$st" = X ]
}

# lc_wait_exit PID SECONDS: wait until PID (a child of this shell) has
# exited and set LC_RC to its exit status. Returns 1 if it still runs
# after SECONDS. (Not in $(...): a subshell cannot reap the child.)
lc_wait_exit() {
	local pid=$1
	LC_RC=
	wait_for -q "$2" lc_gone "$pid" || return 1
	LC_RC=0
	wait "$pid" 2>/dev/null || LC_RC=$?
	return 0
}

# lc_present ID...: print the given ids that bpftool lists, one a line.
lc_present() {
	bpftool_link_ids | grep -xF "${@/#/-e}"
	return 0
}

# lc_make_owned TGT: create three software events (cpu 0), a tracepoint
# (if tracefs has sched_switch) and two uprobes on TGT through control;
# prints the new ids, one a line.
lc_make_owned() {
	local specs
	specs="s:cpu-clock cpu=0"$'\n'"s:task-clock cpu=0"$'\n'
	specs+="s:page-faults cpu=0"$'\n'
	[ -n "${LC_TP:-}" ] && specs+="t:$LC_TP"$'\n'
	specs+="u:$1:bpflinkfs_target_a"$'\n'"u:$1:bpflinkfs_target_b"$'\n'
	ctl_create "$specs"
}
