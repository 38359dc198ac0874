#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# -o pin_dir= (DESIGN.md section 4): owned links and the hits map are pinned;
# a restarted daemon adopts them with spec, cookie and hits; a second daemon
# on the same pin_dir is refused; foreign pins are left alone; removal
# unpins; rm -r of the pin_dir detaches what it holds.

source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

bl_setup
TRACEFS=$(bl_tracefs) || skip "tracefs is not mounted and cannot be mounted"
grep -q ' /sys/fs/bpf bpf ' /proc/mounts ||
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null ||
	skip "no bpffs at /sys/fs/bpf"
PIN=/sys/fs/bpf/bpflinkfs-test-$$
trap 'rm -rf "$PIN"; bl_cleanup' EXIT
TGT=$(readlink -f "$TARGET")

bl_mount -o "pin_dir=$PIN"
printf '%s\n' "u:$TGT:bpflinkfs_target_a" 't:sched:sched_switch' \
	's:cpu-clock cpu=0' >"$MNT/control" || die "create through control"
mapfile -t IDS < <(cut -f1 "$MNT/control")
assert_eq "three owned links" 3 "${#IDS[@]}"
for id in "${IDS[@]}"; do
	assert_true "pin of $id" test -e "$PIN/link_$id"
done
assert_true "hits map pinned" test -e "$PIN/hits"
"$TGT" 7 >/dev/null
UPROBE=${IDS[0]}
assert_eq "uprobe hits before restart" 7 "$(cat "$MNT/$UPROBE/hits")"
COOKIE=$(cat "$MNT/$UPROBE/cookie")

# a second daemon on the same pin_dir is refused
bl_second_daemon "second daemon message" "$PIN"

# restart: the links stay (the pins hold them) and come back owned
bl_stop_daemon
for id in "${IDS[@]}"; do
	assert_true "link $id survives the daemon" \
		bash -c "bpftool link show id $id >/dev/null"
done
# foreign pins in the pin_dir (one under a name of ours, with no record of
# it: a damaged entry) are reported and left alone
"$MKLINKS" --pin "$PIN" software:cpu-clock:0:9 software:cpu-clock:0:10 \
	>"$WORK/foreign.out" </dev/null || die "mklinks --pin"
mapfile -t FOREIGN < <(grep -vx ready "$WORK/foreign.out" | cut -f1)
mv "$PIN/link_${FOREIGN[1]}" "$PIN/stray" || die "rename a pin"
bl_mount -o "pin_dir=$PIN"
assert_eq "adopted links in control" "$(printf '%s\n' "${IDS[@]}")" \
	"$(cut -f1 "$MNT/control")"
assert_eq "spec kept" "u:$TGT:bpflinkfs_target_a" "$(cat "$MNT/$UPROBE/spec")"
assert_eq "cookie kept" "$COOKIE" "$(cat "$MNT/$UPROBE/cookie")"
"$TGT" 5 >/dev/null
assert_eq "hits kept and still counting" 12 "$(cat "$MNT/$UPROBE/hits")"
assert_match "stray pin reported" "stray" "$(cat "$WORK/daemon.log")"
assert_match "damaged entry reported" "link_${FOREIGN[0]}.*damaged" \
	"$(cat "$WORK/daemon.log")"
assert_true "stray pin left alone" test -e "$PIN/stray"
assert_true "damaged entry left alone" test -e "$PIN/link_${FOREIGN[0]}"
assert_true "foreign link not adopted" test ! -e "$MNT/${FOREIGN[0]}/spec"
rm -f "$PIN/stray" "$PIN/link_${FOREIGN[0]}"

# removal unpins and detaches
echo "-$UPROBE" >"$MNT/control" || fail "remove $UPROBE"
assert_true "$UPROBE gone from the tree" test ! -e "$MNT/$UPROBE"
for i in $(seq 50); do
	[ -e "$PIN/link_$UPROBE" ] || break
	sleep 0.1
done
assert_true "pin of $UPROBE removed" test ! -e "$PIN/link_$UPROBE"
bl_link_gone "link $UPROBE detached" "$UPROBE"

# rm -r of the pin_dir detaches what it holds, once the daemon is gone
bl_stop_daemon
rm -rf "$PIN"
for id in "${IDS[@]:1}"; do
	bl_link_gone "link $id detached by rm -r" "$id"
done

# a pin_dir outside bpffs is refused with a message
out=$(timeout 15 "$BPFLINKFS" "$WORK" -f -o "pin_dir=$WORK/pins" 2>&1) &&
	fail "pin_dir outside bpffs accepted"
assert_match "pin_dir outside bpffs message" "not in a BPF file system" "$out"
finish
