#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Removal frees descriptors, so it never needs one (bpflinkfs(8), OWNERSHIP AND LIFETIME and ACCESS): with
# the daemon at its fd limit (its soft RLIMIT_NOFILE lowered with prlimit
# to its lowest free descriptor, so that no open can succeed), `-ID`,
# `rmdir` and `-*` still remove links (the writer's capabilities are read
# without a descriptor), and where the daemon does need one, the answer is
# its own errno (EMFILE), never a made-up "needs CAP_SYS_ADMIN" or "no such
# link".

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"
source "$HERE/lib_control.sh"

bl_setup
command -v prlimit >/dev/null || skip "prlimit (util-linux) is not installed"
bl_mount

SPEC='s:cpu-clock cpu=0'
read -r _ _ _ SOFT HARD _ < <(grep '^Max open files' \
	"/proc/$BL_DAEMON_PID/limits")
# at_limit: the daemon's fd limit is its lowest free descriptor
at_limit() {
	local n=0
	while [ -e "/proc/$BL_DAEMON_PID/fd/$n" ]; do
		n=$((n + 1))
	done
	prlimit --pid "$BL_DAEMON_PID" --nofile="$n:$HARD" ||
		die "prlimit of the daemon"
}
unlimit() {
	prlimit --pid "$BL_DAEMON_PID" --nofile="$SOFT:$HARD" ||
		die "prlimit of the daemon back to $SOFT:$HARD"
}
# released ID: the daemon no longer holds link ID (the reaper closed it)
released() {
	local id=$1
	wait_for -q 10 eval '! daemon_link_ids | grep -qx "$id"' ||
		fail "the daemon still holds link $1 after 10 s"
}
owned_ids() { owned_listing | cut -f1 | xargs; }

read -r A B C D < <(ctl_create "$SPEC"$'\n'"$SPEC"$'\n'"$SPEC"$'\n'"$SPEC"$'\n' |
	xargs)
[ -n "$D" ] || die "four links were not made"
mkl_start foreign "software:0:0:5"
FID=$(mkl_lines foreign | cut -f1)
[ -n "$FID" ] || die "mklinks made no link"

# the premise: at the limit the daemon can open nothing
at_limit
assert_eq "a new link at the fd limit" EMFILE "$(ctl_write "$SPEC"$'\n')"
IFS=$'\t' read -r _ ename _ _ _ _ < <(errlog_entries | tail -n1)
assert_eq "error_log of the new link" EMFILE "$ename"

# -ID
at_limit
assert_eq "-ID at the fd limit" OK "$(ctl_write "-$A"$'\n')"
assert_true "A left the tree" test ! -d "$MNT/$A"
released "$A"
# rmdir
at_limit
out=$(t rmdir "$MNT/$B" 2>&1) || fail "rmdir at the fd limit: $out"
assert_true "B left the tree" test ! -d "$MNT/$B"
released "$B"
# a link that is not the mount's is looked up in the kernel: that takes a
# descriptor, and the answer says so
at_limit
assert_eq "-ID of a foreign link at the fd limit" EMFILE \
	"$(ctl_write "-$FID"$'\n')"
IFS=$'\t' read -r _ ename _ _ cmd msg < <(errlog_entries | tail -n1)
assert_eq "its error_log entry" "EMFILE -$FID" "$ename $cmd"
assert_match "its message" "Too many open files" "$msg"
# -*
at_limit
assert_eq "-* at the fd limit" OK "$(ctl_write $'-*\n')"
assert_eq "nothing owned after -*" "" "$(owned_ids)"
released "$C"
released "$D"

unlimit
left=$(wait_links_gone 10 "$A" "$B" "$C" "$D") ||
	fail "links still in the kernel: $left"
assert_true "the foreign link stays" bpftool link show id "$FID"
mkl_stop foreign
bl_daemon_alive || fail "daemon dead or mount not answering at the end"
finish
