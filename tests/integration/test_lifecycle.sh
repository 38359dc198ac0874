#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Stopping the daemon (bpflinkfs(8), OWNERSHIP AND LIFETIME and OPTIONS, without pin_dir):
# `fusermount3 -u`, SIGTERM and SIGINT detach every owned link, kill -9
# leaks none once the process is gone, and a start on the dead mount that
# kill -9 leaves clears it and mounts. Foreign links survive every path.
# Then the one-line prerequisite messages. Link ids come from bpftool.

source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib_control.sh"
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib_lifecycle.sh"

lc_setup
[ -d /sys/bus/event_source/devices/software ] || skip "no software PMU"
[ -d /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"
command -v setpriv >/dev/null || skip "setpriv is not installed"
LC_TP=
if TRACEFS=$(bl_tracefs) && [ -d "$TRACEFS/events/sched/sched_switch" ]; then
	LC_TP=sched:sched_switch
else
	echo "note: no tracefs sched:sched_switch; no tracepoint links"
fi
NOWNED=$((5 + ${LC_TP:+1}))

TGT=$(readlink -f "$TARGET")
OFF_C=$(elf_file_offset "$TGT" bpflinkfs_target_c) || die "offset of c"

# Foreign links, made without bpflinkfs: they must outlive every daemon.
foreign_specs=("software:cpu-clock:-1:4242" "uprobe:$TGT:$OFF_C:4343")
[ -n "$LC_TP" ] && foreign_specs+=("tracepoint:sched:sched_switch:4444")
mkl_start foreign "${foreign_specs[@]}"
FOREIGN=$(mkl_lines foreign | cut -f1 | xargs)
assert_eq "foreign links made" "${#foreign_specs[@]}" "$(wc -w <<<"$FOREIGN")"

check_foreign() {
	# shellcheck disable=SC2086
	assert_eq "foreign links present after $1" "$FOREIGN" \
		"$(lc_present $FOREIGN | xargs)"
}

# make_owned: OWNED = the ids of a fresh set of owned links, checked
# against bpftool and `cat control`.
make_owned() {
	local listed
	OWNED=$(lc_make_owned "$TGT" | sort -n | xargs) ||
		fail "$1: creating owned links failed"
	assert_eq "$1: owned links made" "$NOWNED" "$(wc -w <<<"$OWNED")"
	# shellcheck disable=SC2086
	assert_eq "$1: bpftool lists the owned links" "$OWNED" \
		"$(lc_present $OWNED | xargs)"
	listed=$(t cat "$MNT/control" | cut -f1 | sort -n | xargs)
	assert_eq "$1: cat control lists the owned links" "$OWNED" "$listed"
}

# stop_path HOW: mount, make owned links, stop the daemon by HOW
# (fusermount, TERM, INT, KILL), wait for it to exit and check the links.
stop_path() {
	local how=$1 m rc left
	m=$(lc_newmnt)
	lc_start "$m"
	make_owned "$how"
	case $how in
	fusermount)
		rc=0
		t fusermount3 -u "$m" || rc=$?
		assert_eq "fusermount3 -u exit status" 0 "$rc"
		;;
	*) kill -"$how" "$BL_DAEMON_PID" ;;
	esac
	if ! lc_wait_exit "$BL_DAEMON_PID" 15; then
		fail "$how: the daemon still runs 15 s later (log: $(xargs \
			<"$LC_LOG"))"
		return
	fi
	echo "$how: daemon exited with status $LC_RC"
	[ "$how" = fusermount ] &&
		assert_eq "$how: daemon exit status" 0 "$LC_RC"
	# shellcheck disable=SC2086
	left=$(lc_present $OWNED | xargs)
	assert_eq "$how: owned links left once the daemon is gone" "" "$left"
	check_foreign "$how"
	if [ "$how" != KILL ]; then
		assert_eq "$how: mount left on $m" "" \
			"$(findmnt -n --mountpoint "$m")"
	fi
	BL_DAEMON_PID=
	STOPPED_MNT=$m
}

for how in fusermount TERM INT KILL; do
	stop_path "$how"
done

# kill -9 left a dead mount; a new daemon on it clears it and mounts.
m=$STOPPED_MNT
err=$(stat "$m" 2>&1 >/dev/null)
assert_match "stat on the killed daemon's mount" \
	"Transport endpoint is not connected" "$err"
start=$SECONDS
lc_start "$m"
echo "restart on the dead mount: up after $((SECONDS - start)) s;" \
	"log: $(xargs <"$LC_LOG")"
assert_eq "mounts on $m after the restart" 1 \
	"$(awk -v m="$m" '$5 == m' /proc/self/mountinfo | wc -l)"
assert_eq "fstype after the restart" fuse.bpflinkfs \
	"$(findmnt -n -o FSTYPE --mountpoint "$m")"
make_owned restarted
t fusermount3 -u "$m" || fail "fusermount3 -u after the restart"
if lc_wait_exit "$BL_DAEMON_PID" 15; then
	# shellcheck disable=SC2086
	assert_eq "restarted: owned links left" "" "$(lc_present $OWNED | xargs)"
else
	fail "restarted daemon still runs 15 s after fusermount3 -u"
fi
BL_DAEMON_PID=
check_foreign "the restart"

# Prerequisites: one line on stderr, nothing on stdout, non-zero exit,
# the fix named, and no mount made.
# prereq WHAT ERE CMD...
prereq() {
	local what=$1 ere=$2 rc=0
	shift 2
	t "$@" >"$WORK/pre.out" 2>"$WORK/pre.err" || rc=$?
	[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && ok ||
		fail "$what: exit status $rc"
	assert_eq "$what: stdout" "" "$(cat "$WORK/pre.out")"
	assert_eq "$what: lines on stderr" 1 "$(wc -l <"$WORK/pre.err")"
	assert_match "$what: message" "$ere" "$(cat "$WORK/pre.err")"
	echo "$what: rc $rc: $(cat "$WORK/pre.err")"
}

m=$(lc_newmnt)
LC_MNTS+=("$m")
chmod 755 "$m"
prereq "not root" "root.*sudo bpflinkfs $m" \
	setpriv --reuid=65534 --regid=65534 --clear-groups -- \
	"$BPFLINKFS" "$m" -f
assert_eq "not root: mount made" "" "$(findmnt -n --mountpoint "$m")"
prereq "missing mountpoint" "$WORK/nosuch.*mkdir -p $WORK/nosuch" \
	"$BPFLINKFS" "$WORK/nosuch" -f
touch "$WORK/file"
prereq "mountpoint not a directory" "$WORK/file.*not a directory" \
	"$BPFLINKFS" "$WORK/file" -f
assert_eq "not a directory: mount made" "" \
	"$(findmnt -n --mountpoint "$WORK/file")"

mkl_stop foreign
finish
