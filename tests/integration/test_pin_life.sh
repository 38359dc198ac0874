#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# -o pin_dir= (DESIGN.md section 4, issue 12 item 5): start-up refusals
# name the real cause: bpffs refuses a '.' in names, a pinned link or map
# is not a directory. Expected values come from bpftool and ls of bpffs,
# not from the daemon.

source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

bl_setup
grep -q ' /sys/fs/bpf bpf ' /proc/mounts ||
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null ||
	skip "no bpffs at /sys/fs/bpf"
PIN=/sys/fs/bpf/bpflinkfs-life-$$
BASE=/sys/fs/bpf/bpflinkfs-life-base-$$
trap 'rm -rf "$PIN" "$BASE" /sys/fs/bpf/bpflinkfs-new-$$; bl_cleanup' EXIT
TGT=$(readlink -f "$TARGET")

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
