#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Mounting through mount.fuse3 (bpflinkfs(8), OPTIONS): `mount -t
# fuse.bpflinkfs none MNT`, the same with `-o allow_other`, and an fstab
# line `none MNT fuse.bpflinkfs defaults 0 0` (through `mount -T FILE`,
# which reads that line as mount(8) reads /etc/fstab).
#
# mount(8) runs helpers without PATH, so /bin/sh finds `bpflinkfs` only on
# its default path (/usr/local/sbin ... /bin): the test puts a symlink to
# the built daemon in /usr/local/sbin and removes it at exit.

source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib_control.sh"
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib_lifecycle.sh"

LINK=/usr/local/sbin/bpflinkfs
OUR_LINK=
helper_cleanup() {
	lc_cleanup
	[ -n "$OUR_LINK" ] && [ -L "$LINK" ] &&
		[ "$(readlink "$LINK")" = "$OUR_LINK" ] && rm -f "$LINK"
	return 0
}

lc_setup
trap helper_cleanup EXIT
for tool in mount umount setpriv; do
	command -v "$tool" >/dev/null || skip "$tool is not installed"
done
[ -x /sbin/mount.fuse3 ] || [ -x /usr/sbin/mount.fuse3 ] ||
	skip "no mount.fuse3 (install fuse3)"
[ -d /sys/bus/event_source/devices/software ] || skip "no software PMU"
EXE=$(readlink -f "$BPFLINKFS")
if [ -e "$LINK" ] || [ -L "$LINK" ]; then
	[ "$(readlink -f "$LINK")" = "$EXE" ] ||
		skip "$LINK exists and is not this build's daemon"
else
	mkdir -p /usr/local/sbin || skip "cannot make /usr/local/sbin"
	ln -s "$EXE" "$LINK" || skip "cannot make $LINK"
	OUR_LINK=$EXE
fi

# daemon_of DIR: the pid of the daemon serving DIR (its exe is this build's
# daemon and DIR is one of its arguments).
daemon_of() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/exe" 2>/dev/null)" = "$EXE" ] || continue
		tr '\0' '\n' <"$p/cmdline" 2>/dev/null | grep -qxF "$1" &&
			echo "${p#/proc/}"
	done
}

as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
}

# helper_mount WHAT HOW [OPTIONS]: mount a new MNT through the helper, by
# `mount -t` (HOW t) or by an fstab line read with `mount -T` (HOW fstab),
# and check the result; sets MNT and HPID (the daemon's pid).
helper_mount() {
	local what=$1 how=$2 opts=${3:-} rc=0 i
	MNT=$(lc_newmnt)
	LC_MNTS+=("$MNT")
	chmod 755 "$MNT"
	if [ "$how" = fstab ]; then
		printf 'none %s fuse.bpflinkfs %s 0 0\n' "$MNT" "${opts:-defaults}" \
			>"$WORK/fstab"
		set -- mount -T "$WORK/fstab" "$MNT"
	else
		set -- mount -t fuse.bpflinkfs none "$MNT" ${opts:+-o "$opts"}
	fi
	t "$@" >"$WORK/mount.out" 2>&1 || rc=$?
	assert_eq "$what: mount exit status ($(xargs <"$WORK/mount.out"))" \
		0 "$rc"
	wait_for -q 5 lc_answers "$MNT"
	lc_answers "$MNT" && ok || fail "$what: the mount does not answer"
	assert_eq "$what: fstype" fuse.bpflinkfs \
		"$(findmnt -n -o FSTYPE --mountpoint "$MNT")"
	HPID=$(daemon_of "$MNT")
	assert_eq "$what: daemons serving $MNT" 1 "$(wc -w <<<"$HPID")"
}

# helper_umount WHAT: umount MNT, wait (15 s) until the daemon has exited
# and check that the link it made is gone.
helper_umount() {
	local what=$1 id i
	id=$(ctl_create "s:cpu-clock cpu=0"$'\n') || fail "$what: create"
	assert_eq "$what: bpftool lists the new link" "$id" "$(lc_present "$id")"
	t umount "$MNT" || fail "$what: umount $MNT failed"
	# 30 s: a sanitizer build's exit (LeakSanitizer) takes a while
	wait_for -q 30 lc_gone "$HPID"
	if lc_gone "$HPID"; then
		ok
		assert_eq "$what: owned link left" "" "$(lc_present "$id")"
	else
		fail "$what: daemon $HPID still runs 30 s after umount:" \
			"$(tr '\0' ' ' <"/proc/$HPID/cmdline" 2>/dev/null)" \
			"$(grep State "/proc/$HPID/status" 2>/dev/null)"
	fi
	assert_eq "$what: mount left" "" "$(findmnt -n --mountpoint "$MNT")"
}

# mount -t, no options: only root sees the tree.
helper_mount "mount -t" t
as_nobody cat "$MNT/features" >/dev/null 2>&1 &&
	fail "mount -t: nobody reads features without allow_other" || ok
helper_umount "mount -t"

# mount -t -o allow_other: everyone reads, only root writes control.
helper_mount "allow_other" t allow_other
opts=$(findmnt -n -o OPTIONS --mountpoint "$MNT")
assert_match "allow_other: mount options" "(^|,)allow_other(,|$)" "$opts"
assert_match "allow_other: mount options" "(^|,)default_permissions(,|$)" \
	"$opts"
got=$(as_nobody cat "$MNT/features" 2>&1 | head -c 200)
assert_eq "allow_other: nobody reads features" \
	"$(head -c 200 "$MNT/features")" "$got"
as_nobody sh -c "echo s:cpu-clock >'$MNT/control'" 2>/dev/null &&
	fail "allow_other: nobody could write control" || ok
helper_umount "allow_other"

# The fstab line of the issue, as mount(8) reads it from /etc/fstab.
helper_mount "fstab defaults" fstab
helper_umount "fstab defaults"
helper_mount "fstab allow_other" fstab allow_other
assert_match "fstab allow_other: mount options" "(^|,)allow_other(,|$)" \
	"$(findmnt -n -o OPTIONS --mountpoint "$MNT")"
helper_umount "fstab allow_other"
finish
