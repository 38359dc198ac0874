#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# -o pin_dir= while mounted (bpflinkfs(8), OWNERSHIP AND LIFETIME): removing
# the pin_dir (rm -r) or one pin by hand detaches those links and they leave
# the owned list; new links work again, pinned in a pin_dir made again with
# its maps, so a restart adopts them; a pin_dir that cannot be made again
# says why. Start-up refusals name the real cause: bpffs refuses a '.' in
# names, a pinned link or map is not a directory. Expected values come from
# bpftool and ls of bpffs, not from the daemon.

source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

bl_setup
grep -q ' /sys/fs/bpf bpf ' /proc/mounts ||
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null ||
	skip "no bpffs at /sys/fs/bpf"
PIN=/sys/fs/bpf/bpflinkfs-life-$$
BASE=/sys/fs/bpf/bpflinkfs-life-base-$$
trap 'rm -rf "$PIN" "$BASE" /sys/fs/bpf/bpflinkfs-new-$$; bl_cleanup' EXIT
TGT=$(readlink -f "$TARGET")

# pinned_id PATH: the id of the link pinned at PATH, from bpftool
pinned_id() {
	bpftool -j link show pinned "$1" 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
}

# wait_detached ID: until bpftool no longer finds link ID (10 s at most)
wait_detached() {
	wait_for -q 10 bl_no_link "$1"
}

# meta_keys: the link ids recorded in PIN/meta (u32 keys, little-endian)
meta_keys() {
	bpftool -j map dump pinned "$PIN/meta" | python3 -c '
import json, sys
for e in json.load(sys.stdin):
    print(int.from_bytes(bytes(int(b, 16) for b in e["key"]), "little"))
' | sort -n
}

# owned_ids: the id column of `cat control` (a handle that has not written)
owned_ids() {
	t cut -f1 "$MNT/control"
}

# create SPEC: make a link through control; its id on stdout
create() {
	local id
	exec 3<>"$MNT/control" || return 1
	echo "$1" >&3 || {
		exec 3>&-
		return 1
	}
	read -r id <&3
	exec 3>&-
	echo "$id"
}

### one pin, then the whole pin_dir, removed by hand while mounted

bl_mount -o "pin_dir=$PIN"
printf '%s\n' "u:$TGT:bpflinkfs_target_a" 's:cpu-clock cpu=0' \
	's:cpu-clock cpu=0' >"$MNT/control" || die "create through control"
OLD=()
for f in "$PIN"/link_*; do
	OLD+=("$(pinned_id "$f")")
done
assert_eq "three links pinned in the pin_dir" 3 "${#OLD[@]}"
assert_eq "control lists the pinned links" \
	"$(printf '%s\n' "${OLD[@]}" | sort -n)" "$(owned_ids | sort -n)"

ONE=${OLD[2]}
OLD=("${OLD[@]:0:2}")
rm "$PIN/link_$ONE" || die "rm $PIN/link_$ONE"
assert_true "link $ONE detached by rm of its pin" wait_detached "$ONE"
assert_eq "control no longer lists $ONE" \
	"$(printf '%s\n' "${OLD[@]}" | sort -n)" "$(owned_ids | sort -n)"
assert_match "log says the pin was removed" "removed by hand" \
	"$(cat "$WORK/daemon.log")"

rm -r "$PIN" || die "rm -r $PIN"
for id in "${OLD[@]}"; do
	assert_true "link $id detached by rm -r" wait_detached "$id"
done
assert_eq "control lists no link after rm -r" "" "$(owned_ids)"
ls_ids=$(t ls "$MNT")
for id in "${OLD[@]}"; do
	assert_true "$id gone from the tree" \
		bash -c "! grep -qx '$id' <<<'$ls_ids'"
done

NEW=$(create "u:$TGT:bpflinkfs_target_a") || NEW=
if [ -z "$NEW" ]; then
	fail "a new link after rm -r: $(cat "$MNT/error_log")"
else
	assert_true "pin_dir made again" test -d "$PIN"
	assert_eq "new link pinned in it" "$NEW" \
		"$(pinned_id "$PIN/link_$NEW")"
	assert_eq "control lists only the new link" "$NEW" "$(owned_ids)"
	# the pinned hits map is the one the new link's program counts into
	prog=$(bpftool -j link show id "$NEW" | python3 -c \
		'import json,sys; print(json.load(sys.stdin)["prog_id"])')
	hits_id=$(bpftool -j map show pinned "$PIN/hits" | python3 -c \
		'import json,sys; print(json.load(sys.stdin)["id"])')
	assert_match "pinned hits map used by the program" \
		"(^| )$hits_id( |$)" "$(bpftool -j prog show id "$prog" |
			python3 -c 'import json,sys
print(" ".join(map(str, json.load(sys.stdin).get("map_ids", []))))')"
	assert_eq "meta holds the new link only" "$NEW" "$(meta_keys)"
	bl_second_daemon "the pin_dir made again is locked" "$PIN"
	"$TGT" 7 >/dev/null
	assert_eq "new link counts" 7 "$(cat "$MNT/$NEW/hits")"
fi

# the pin_dir made again is whole: a restart adopts the new link
bl_stop_daemon
bl_mount -o "pin_dir=$PIN"
assert_eq "adopted after restart" "$NEW" "$(owned_ids)"
[ -n "$NEW" ] && assert_eq "hits kept across the restart" 7 \
	"$(cat "$MNT/$NEW/hits")"

### a removal that has returned stays removed, even if the daemon is then
### killed before its reaper ran (else a restart would adopt the pins)

for i in $(seq 40); do echo "u:$TGT:bpflinkfs_target_b"; done >"$MNT/control" ||
	die "40 links through control"
assert_eq "40 more links pinned" 41 "$(ls "$PIN" | grep -c '^link_')"
echo '-*' >"$MNT/control"
kill -9 "$BL_DAEMON_PID"
wait "$BL_DAEMON_PID" 2>/dev/null
BL_DAEMON_PID=
fusermount3 -uz "$MNT" 2>/dev/null
assert_eq "no pin left once -* returned" 0 "$(ls "$PIN" | grep -c '^link_')"
assert_eq "no record left once -* returned" "" "$(meta_keys)"
bl_mount -o "pin_dir=$PIN"
assert_eq "a restart adopts none of them" "" "$(owned_ids)"
bl_stop_daemon
bl_mount -o "pin_dir=$PIN"

### a pin_dir that cannot be made again says why, and nothing changes

rm -r "$PIN"
bpftool map create "$PIN" type hash key 4 value 4 entries 1 name blocker ||
	die "bpftool map create"
if create 's:cpu-clock cpu=0' >/dev/null 2>&1; then
	fail "a link was made while $PIN is a pinned map"
fi
assert_match "error_log says the pin_dir is gone and what is there" \
	"removed while mounted.*$PIN is a pinned BPF map, not a directory" \
	"$(cat "$MNT/error_log")"
assert_eq "control lists nothing" "" "$(owned_ids)"
rm -f "$PIN"
NEW2=$(create 's:cpu-clock cpu=0') || NEW2=
assert_true "a link once the path is free again" test -n "$NEW2"
[ -n "$NEW2" ] && assert_eq "pinned in the new pin_dir" "$NEW2" \
	"$(pinned_id "$PIN/link_$NEW2")"
bl_stop_daemon
rm -rf "$PIN"

### start-up refusals name the real cause

# daemon_err PIN_DIR: start the daemon with it (it must refuse); its
# stderr in OUT. The mount point is left empty.
daemon_err() {
	local m
	m=$(mktemp -d /tmp/bpflinkfs-mnt.XXXXXX)
	if OUT=$(timeout 15 "$BPFLINKFS" "$m" -f -o "pin_dir=$1" 2>&1); then
		fail "pin_dir=$1 accepted"
	fi
	fusermount3 -u "$m" 2>/dev/null
	rmdir "$m"
}

# does bpffs take a '.' in a name here? ask it
before=$(ls -a /sys/fs/bpf)
if mkdir "/sys/fs/bpf/bpflinkfs-dot.$$" 2>"$WORK/mkdir.err"; then
	rmdir "/sys/fs/bpf/bpflinkfs-dot.$$"
	bl_mount -o "pin_dir=/sys/fs/bpf/bpflinkfs-dot.$$"
	assert_true "a '.' in pin_dir works where bpffs takes it" \
		test -d "/sys/fs/bpf/bpflinkfs-dot.$$"
	bl_stop_daemon
	rm -rf "/sys/fs/bpf/bpflinkfs-dot.$$"
else
	assert_match "bpffs refuses the name" "Operation not permitted" \
		"$(cat "$WORK/mkdir.err")"
	for d in "/sys/fs/bpf/a.b-$$" "/sys/fs/bpf/bpflinkfs-new-$$/a.b"; do
		daemon_err "$d"
		assert_match "dot: the message names bpffs' rule" \
			"pin_dir $d: bpffs does not allow '\.' in names" "$OUT"
		assert_true "dot: not 'not in a BPF file system'" \
			bash -c "! grep -q 'not in a BPF file system' <<<'$OUT'"
	done
	assert_eq "dot: nothing made in bpffs" "$before" "$(ls -a /sys/fs/bpf)"
fi

mkdir "$BASE" || die "mkdir $BASE"
"$MKLINKS" --pin "$BASE" software:cpu-clock:0:9 >"$WORK/pinned.out" \
	</dev/null || die "mklinks --pin"
LINK=$(ls "$BASE")
assert_true "bpftool sees a pinned link at $BASE/$LINK" \
	bash -c "bpftool link show pinned '$BASE/$LINK' >/dev/null"
daemon_err "$BASE/$LINK"
assert_match "pinned link: the message says so" \
	"pin_dir $BASE/$LINK is a pinned BPF link, not a directory" "$OUT"
assert_true "pinned link: not 'in use by another bpflinkfs'" \
	bash -c "! grep -q 'in use' <<<'$OUT'"
daemon_err "$BASE/$LINK/sub"
assert_match "below a pinned link: the message names it" \
	"$BASE/$LINK is a pinned BPF link, not a directory" "$OUT"
bpftool map create "$BASE/amap" type hash key 4 value 4 entries 1 \
	name amap || die "bpftool map create"
daemon_err "$BASE/amap"
assert_match "pinned map: the message says so" \
	"pin_dir $BASE/amap is a pinned BPF map, not a directory" "$OUT"
assert_eq "refusals changed nothing in $BASE" \
	"$(printf '%s\n' "$LINK" amap | sort)" "$(ls "$BASE" | sort)"
finish
