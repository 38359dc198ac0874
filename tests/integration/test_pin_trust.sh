#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# -o pin_dir= must be root's alone: whoever owns or may write the pin_dir
# (or replace it through a parent) could unpin root's links. Such a
# pin_dir is refused with a line saying why, at start and when it is made
# again after rm -r while mounted. And a start that fails (a bad FUSE
# option, a mount the kernel refuses) leaves the pin_dir as it was: gone
# if it was not there, its earlier pins and maps untouched if it was.
# Expected values come from stat, ls of bpffs and bpftool.

source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

bl_setup
grep -q ' /sys/fs/bpf bpf ' /proc/mounts ||
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null ||
	skip "no bpffs at /sys/fs/bpf"
BASE=/sys/fs/bpf/bpflinkfs-trust-$$
trap 'rm -rf "$BASE"; bl_cleanup' EXIT
mkdir "$BASE" || die "mkdir $BASE"

# start PIN_DIR [OPTS]: start the daemon (it must fail); its stderr in
# OUT, its exit status in RC. The mount point is left empty.
start() {
	local m
	m=$(mktemp -d /tmp/bpflinkfs-mnt.XXXXXX)
	RC=0
	OUT=$(timeout 15 "$BPFLINKFS" "$m" -f -o "pin_dir=$1${2:+,$2}" 2>&1) ||
		RC=$?
	if [ "$RC" -eq 0 ] || [ "$RC" -eq 124 ]; then
		fail "pin_dir=$1${2:+,$2}: started (status $RC)"
		fusermount3 -u "$m" 2>/dev/null
	fi
	rmdir "$m"
}

# as_nobody CMD...: run CMD as uid/gid 65534 with no capabilities
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all "$@"
}

# map_id PATH: the id of the map pinned at PATH (bpftool)
map_id() {
	bpftool -j map show pinned "$1" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
}

### a start that fails leaves nothing

P=$BASE/fresh
start "$P" bogus
assert_eq "bogus option: exit status 1" 1 "$RC"
assert_match "bogus option: FUSE names it" "bogus" "$OUT"
assert_true "bogus option: no pin_dir left" test ! -e "$P"

start "$BASE/deep/er" bogus
assert_true "bogus option: no parent left" test ! -e "$BASE/deep"

# the kernel refuses blksize= on a FUSE mount that is not fuseblk: the
# failure comes after the pin_dir and its maps were made
start "$P" blksize=4096
assert_eq "refused mount: exit status 1" 1 "$RC"
assert_match "refused mount: says so" "mount failed" "$OUT"
assert_true "refused mount: no pin_dir left" test ! -e "$P"

mkdir "$P" || die "mkdir $P"
start "$P" bogus
assert_true "an empty pin_dir that was there stays" test -d "$P"
assert_eq "and stays empty" "" "$(ls -A "$P")"
rmdir "$P"

# a pin_dir too long for DIR/link_ID under PATH_MAX (4096 bytes with its
# NUL): refused before anything is made, never a pin at a cut path
long=$BASE
while [ ${#long} -lt 4085 ]; do long+=/$(printf 'd%.0s' {1..200}); done
long=${long:0:4085}
start "$long"
assert_match "pin_dir of ${#long} bytes: refused, saying why" \
	"path too long" "$OUT"
assert_eq "pin_dir of ${#long} bytes: nothing made" "" "$(ls -A "$BASE")"

# a pin_dir in use before: its pins and maps are the same ones after
TGT=$(readlink -f "$TARGET")
bl_mount -o "pin_dir=$P"
echo "u:$TGT:bpflinkfs_target_a" >"$MNT/control" || die "a link"
bl_stop_daemon
before=$(ls -A "$P")
LINK=$(ls "$P" | grep '^link_')
ids="$(map_id "$P/hits") $(map_id "$P/meta") $(map_id "$P/events_ring")"
for opt in bogus blksize=4096; do
	start "$P" "$opt"
	assert_eq "$opt: the pin_dir holds what it held" "$before" \
		"$(ls -A "$P")"
	assert_eq "$opt: the same maps" "$ids" \
		"$(map_id "$P/hits") $(map_id "$P/meta") $(map_id "$P/events_ring")"
	assert_true "$opt: the link lives on its pin" \
		bash -c "bpftool link show pinned '$P/$LINK' >/dev/null"
done
rm -r "$P"

### the pin_dir and its parents: root's alone

chmod 1777 "$BASE"
for mode in 1777 0770 0702; do
	mkdir -m "$mode" "$BASE/loose" || die "mkdir $BASE/loose"
	chmod "$mode" "$BASE/loose" # past the umask
	start "$BASE/loose"
	assert_match "pin_dir of mode $mode: refused, saying why" \
		"pin_dir $BASE/loose: $BASE/loose can be written by group or others \\(mode $mode\\)" \
		"$OUT"
	assert_eq "pin_dir of mode $mode: nothing made in it" "" \
		"$(ls -A "$BASE/loose")"
	rmdir "$BASE/loose"
done

mkdir -m 0700 "$BASE/theirs" && chown 65534:65534 "$BASE/theirs"
start "$BASE/theirs"
assert_match "pin_dir owned by another user: refused, saying why" \
	"$BASE/theirs is owned by uid 65534, not root" "$OUT"
assert_eq "nothing made in it" "" "$(ls -A "$BASE/theirs")"
start "$BASE/theirs/sub"
assert_match "parent owned by another user: refused" \
	"its parent $BASE/theirs is owned by uid 65534, not root" "$OUT"
assert_true "nothing made below it" test ! -e "$BASE/theirs/sub"

mkdir -m 0777 "$BASE/open" && chmod 0777 "$BASE/open"
start "$BASE/open/pins"
assert_match "parent others may write, not sticky: refused" \
	"its parent $BASE/open can be written by group or others \\(mode 0777, not sticky\\)" \
	"$OUT"
assert_true "nothing made in the loose parent" test ! -e "$BASE/open/pins"

if as_nobody ln -s "$BASE/open" "$BASE/link" 2>"$WORK/ln.err"; then
	start "$BASE/link/pins"
	assert_match "a symbolic link another user owns: refused" \
		"$BASE/link is a symbolic link owned by uid 65534" "$OUT"
	rm -f "$BASE/link"
else
	echo "note: no symbolic link in bpffs: $(cat "$WORK/ln.err")" >&2
fi

# a sticky parent others may write (as /sys/fs/bpf often is) is fine:
# only root may rename or remove root's entries in it
P=$BASE/pins
bl_mount -o "pin_dir=$P"
assert_eq "pin_dir below a sticky 1777 parent: root's, 0700" "0 700" \
	"$(stat -c '%u %a' "$P")"

### made again after rm -r while mounted: someone else's is refused

rm -r "$P" || die "rm -r $P"
as_nobody mkdir "$P" || die "mkdir $P as nobody"
if echo 's:cpu-clock cpu=0' >"$MNT/control" 2>/dev/null; then
	fail "a link was made in a pin_dir uid 65534 made"
fi
assert_match "error_log: the pin_dir made by another user is refused" \
	"removed while mounted.*$P is owned by uid 65534, not root" \
	"$(cat "$MNT/error_log")"
assert_eq "nothing pinned in it" "" "$(ls -A "$P")"
assert_eq "control lists nothing" "" "$(t cut -f1 "$MNT/control")"
rmdir "$P"
mkdir "$P" && chmod 0777 "$P"
if echo 's:cpu-clock cpu=0' >"$MNT/control" 2>/dev/null; then
	fail "a link was made in a pin_dir others may write"
fi
assert_match "error_log: a pin_dir others may write is refused" \
	"$P can be written by group or others \\(mode 0777\\)" \
	"$(cat "$MNT/error_log")"
rmdir "$P"
ID=$(echo 's:cpu-clock cpu=0' >"$MNT/control" && t cut -f1 "$MNT/control")
assert_true "a link once the path is free: pinned in a pin_dir made again" \
	test -n "$ID" -a -e "$P/link_$ID"
assert_eq "made again root's, 0700" "0 700" "$(stat -c '%u %a' "$P")"
finish
