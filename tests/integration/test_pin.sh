#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# -o pin_dir= (bpflinkfs(8), OWNERSHIP AND LIFETIME): owned links and the hits map are pinned;
# a restarted daemon adopts them with spec, cookie and hits; a second daemon
# on the same pin_dir is refused; foreign pins are left alone; removal
# unpins; rm -r of the pin_dir detaches what it holds.

source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib_control.sh"

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
wait_for -q 5 test ! -e "$PIN/link_$UPROBE"
assert_true "pin of $UPROBE removed" test ! -e "$PIN/link_$UPROBE"
bl_link_gone "link $UPROBE detached" "$UPROBE"

# rm -r of the pin_dir detaches what it holds, once the daemon is gone
bl_stop_daemon
rm -rf "$PIN"
for id in "${IDS[@]:1}"; do
	bl_link_gone "link $id detached by rm -r" "$id"
done

# A link removed from a mount without pin_dir while a pin made by hand
# (bpftool link pin) still holds it: it lives on, counting into its slot,
# so no new link may be given that slot (its hits would count the old
# probe's). And a process holding it through an fd got from that pin (a
# "bpf-link" anonymous inode, not "bpf_link") is one of its pids.
bl_mount
HAND=/sys/fs/bpf/bpflinkfs-hand-$$
trap 'rm -rf "$PIN" "$HAND"; bl_cleanup' EXIT
id=$(ctl_create "u:$TGT:bpflinkfs_target_a"$'\n') || die "uprobe link"
bpftool link pin id "$id" "$HAND" || die "bpftool link pin"
python3 -c '
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
path = ctypes.create_string_buffer(sys.argv[1].encode())
attr = (ctypes.c_uint64 * 2)(ctypes.addressof(path), 0)
fd = libc.syscall(321, 7, ctypes.byref(attr), 16)  # bpf(BPF_OBJ_GET)
if fd < 0:
    sys.exit("BPF_OBJ_GET: %s" % os.strerror(ctypes.get_errno()))
print("held", flush=True)
time.sleep(60)' "$HAND" >"$WORK/objget.out" &
OBJGET=$!
wait_for 5 grep -qx held "$WORK/objget.out"
grep -q "link_id:[[:space:]]*$id\$" /proc/$OBJGET/fdinfo/* ||
	die "the BPF_OBJ_GET holder has no fd of link $id (fdinfo)"
assert_match "$id/pids: the process holding it through its pin" \
	"^$OBJGET"$'\t'"python3\$" "$(cat "$MNT/$id/pids" | grep -v bpflinkfs)"
ctl_write "-$id"$'\n' >/dev/null || fail "removing $id"
# the reaper waits up to 5 s for the kernel to let go, then says the slot
# stays taken: what follows checks the state after that
wait_for 20 grep -q "link $id was removed but is still held elsewhere" \
	"$WORK/daemon.log"
assert_true "link $id lives on its pin" bpftool link show id "$id"
new=$(ctl_create 'tracepoint:syscalls:sys_enter_getppid'$'\n') ||
	die "tracepoint link"
before=$(cat "$MNT/$new/hits")
"$TGT" 1000
after=$(cat "$MNT/$new/hits")
assert_true "$new/hits did not take the removed link's 1000 hits" \
	test "$((after - before))" -lt 1000
kill "$OBJGET" 2>/dev/null
wait "$OBJGET" 2>/dev/null
rm -f "$HAND"
bl_link_gone "link $id detached with its pin" "$id"
bl_stop_daemon

# a pin_dir outside bpffs is refused with a message
out=$(timeout 15 "$BPFLINKFS" "$WORK" -f -o "pin_dir=$WORK/pins" 2>&1) &&
	fail "pin_dir outside bpffs accepted"
assert_match "pin_dir outside bpffs message" "not in a BPF file system" "$out"

# the same with a path of 3000 bytes: quoted cut, the cause still said
long=$WORK/pins
while [ ${#long} -lt 3000 ]; do long+=/$(printf 'd%.0s' {1..200}); done
out=$(timeout 15 "$BPFLINKFS" "$WORK" -f -o "pin_dir=$long" 2>&1) &&
	fail "a long pin_dir outside bpffs accepted"
assert_match "pin_dir of ${#long} bytes outside bpffs: the cause" \
	"not in a BPF file system.*mount -t bpf" "$out"
assert_true "pin_dir of ${#long} bytes: nothing made" test ! -e "$WORK/pins"
finish
