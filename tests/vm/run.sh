#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run.sh [LABEL...]: the kernel matrix lane. For each LABEL (default:
# bookworm backports, see fetch_kernel.sh) boot that Debian kernel in
# qemu-system-x86_64 (TCG) with an initramfs built here, run
# tests/vm/guest_tests.sh inside and take the guest's results as ours.
#
# Environment: BUILD (the meson build dir; default: the one $BPFLINKFS is
# in, else ROOT/build), or each of BPFLINKFS MKLINKS TARGET TEST_ABI
# TEST_TASKFD TEST_FD_SCAN SETBPF USDT_FIXTURE (the last four are optional): meson
# passes them all, so the guest gets the files of the build that runs the
# test, whatever its folder is called;
# BPFLINKFS_VM_CACHE (kernel cache; default /var/cache/bpflinkfs-vm when it
# can be written, else BUILD/vm-cache); BPFLINKFS_VM_TIMEOUT (seconds per
# guest, default 300); BPFLINKFS_VM_ACCEL (qemu -accel, default tcg);
# BPFLINKFS_VM=0 skips the lane; BPFLINKFS_VM_LIST=1 prints the files the
# guest would get, one a line, and exits 0 (no qemu needed). BPFLINKFS_VM_GUEST (a script to run in the
# guest in place of guest_tests.sh, e.g. bench/cost_per_hit_guest.sh) and
# BPFLINKFS_VM_FILES (more files for /opt/bl, space-separated) let a
# benchmark use the lane.
#
# Exit status: 1 if a guest failed, timed out or gave no result; 77 if no
# guest could run (the reason is printed); else 0. A kernel that cannot be
# had while another ran is reported as SKIP in the summary.

set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
if [ -z "${BUILD:-}" ] && [ -n "${BPFLINKFS:-}" ]; then
	BUILD=$(cd "$(dirname "$BPFLINKFS")/.." && pwd)
fi
BUILD=${BUILD:-$ROOT/build}
BPFLINKFS=${BPFLINKFS:-$BUILD/fs/bpflinkfs}
MKLINKS=${MKLINKS:-$BUILD/tests/tools/mklinks}
TARGET=${TARGET:-$BUILD/tests/tools/bpflinkfs_target}
TEST_ABI=${TEST_ABI:-$BUILD/tests/kernel/test_abi}
TEST_TASKFD=${TEST_TASKFD:-$BUILD/tests/kernel/test_taskfd}
TEST_FD_SCAN=${TEST_FD_SCAN:-$BUILD/tests/kernel/test_fd_scan}
TIMEOUT=${BPFLINKFS_VM_TIMEOUT:-300}
ACCEL=${BPFLINKFS_VM_ACCEL:-tcg}
QEMU=qemu-system-x86_64

skip() {
	echo "SKIP: $*"
	exit 77
}

[ "${BPFLINKFS_VM:-1}" = 0 ] && skip "BPFLINKFS_VM=0"
[ $# -gt 0 ] || set -- bookworm backports
for v in BPFLINKFS MKLINKS TARGET TEST_ABI; do
	[ -x "${!v}" ] || skip "\$$v=${!v} is not built"
done

if [ -n "${BPFLINKFS_VM_CACHE:-}" ]; then
	CACHE=$BPFLINKFS_VM_CACHE
elif mkdir -p /var/cache/bpflinkfs-vm 2>/dev/null &&
	[ -w /var/cache/bpflinkfs-vm ]; then
	CACHE=/var/cache/bpflinkfs-vm
else
	CACHE=$BUILD/vm-cache
fi

WORK=$(mktemp -d /tmp/bpflinkfs-vm.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT

# file_offset FILE SYMBOL: a symbol's file offset, from readelf alone.
file_offset() {
	local val sec addr off
	read -r val sec < <(readelf -sW "$1" |
		awk -v s="$2" '$8 == s && $4 == "FUNC" { print $2, $7; exit }')
	[ -n "$val" ] || return 1
	read -r addr off < <(readelf -SW "$1" | sed 's/\[ */[/' |
		awk -v n="[$sec]" '$1 == n { print $4, $5 }')
	[ -n "$addr" ] || return 1
	printf '0x%x\n' $((0x$val - 0x$addr + 0x$off))
}

command -v readelf >/dev/null || skip "readelf is not installed (binutils)"
# the guest has no readelf: the offsets the guest checks come from here
{
	off=$(file_offset "$TARGET" bpflinkfs_target_a) || off=
	echo "TGT_A_OFF=$off"
} >"$WORK/guest.env"
grep -q '=0x' "$WORK/guest.env" || skip "no bpflinkfs_target_a in $TARGET"

# usdt_locs FILE PROVIDER NAME: "OFFSET REF_CTR_OFFSET" of each location
# of a USDT probe (tests/tools/usdt_notes.py: readelf's, as file
# offsets), sorted
usdt_locs() {
	python3 "$ROOT/tests/tools/usdt_notes.py" "$1" |
		awk -v p="$2" -v n="$3" '$1 == p && $2 == n {
			print $3, ($4 == "0x0" ? "0" : $4) }' | sort
}
USDT_FIXTURE=${USDT_FIXTURE:-$BUILD/tests/tools/bpflinkfs_usdt_fixture}
if [ ! -x "$USDT_FIXTURE" ]; then
	echo "usdt fixture: none at $USDT_FIXTURE (the host lacks <sys/sdt.h>?)" >&2
elif ! command -v python3 >/dev/null; then
	echo "usdt fixture: $USDT_FIXTURE, but no python3 to read its notes" >&2
else
	echo "usdt fixture: $USDT_FIXTURE" >&2
	{
		echo "USDT_TWICE='$(usdt_locs "$USDT_FIXTURE" kt twice)'"
		echo "USDT_GUARD='$(usdt_locs "$USDT_FIXTURE" kt guarded)'"
	} >>"$WORK/guest.env"
fi

GUEST=${BPFLINKFS_VM_GUEST:-$HERE/guest_tests.sh}
FILES=("$BPFLINKFS" "$MKLINKS" "$TARGET" "$TEST_ABI" "$GUEST"
	"$WORK/guest.env")
read -ra extra <<<"${BPFLINKFS_VM_FILES:-}"
FILES+=("${extra[@]}")
[ -x "$TEST_TASKFD" ] && FILES+=("$TEST_TASKFD")
[ -x "$TEST_FD_SCAN" ] && FILES+=("$TEST_FD_SCAN")
[ -x "$USDT_FIXTURE" ] && FILES+=("$USDT_FIXTURE")
SETBPF=${SETBPF:-$BUILD/tests/tools/setbpf}
[ -x "$SETBPF" ] && FILES+=("$SETBPF")
if [ "${BPFLINKFS_VM_LIST:-0}" = 1 ]; then
	printf '%s\n' "${FILES[@]}"
	exit 0
fi
command -v "$QEMU" >/dev/null ||
	skip "$QEMU is not installed (apt-get install qemu-system-x86)"
[ -x /bin/busybox ] || skip "no /bin/busybox (apt-get install busybox-static)"

declare -A RESULT=()

# modules_for KDIR: the modules the guest needs, from the kernel's config:
# fuse unless built in; crc7 (a module with no dependencies) gives kprobes
# a MODULE:FUNC target.
modules_for() {
	local cfg

	cfg=$(ls "$1"/boot/config-* | head -n1)
	grep -q '^CONFIG_FUSE_FS=m' "$cfg" && printf 'fuse '
	grep -q '^CONFIG_CRC7=m' "$cfg" && printf 'crc7 '
	return 0
}

# boot LABEL KDIR: boot the guest, print its console, record its result.
boot() {
	local label=$1 kdir=$2 img=$WORK/$1.cpio.gz log=$WORK/$1.log
	local vmlinuz rc=0 line start

	vmlinuz=$(ls "$kdir"/boot/vmlinuz-* | head -n1)
	bash "$HERE/mkinitramfs.sh" "$kdir" "$img" "$(modules_for "$kdir")" \
		"${FILES[@]}" || rc=$?
	if [ "$rc" -eq 77 ]; then
		RESULT[$label]="SKIP (initramfs: a host tool is missing)"
		return
	elif [ "$rc" -ne 0 ]; then
		RESULT[$label]="FAIL (initramfs)"
		return
	fi
	echo "== $label: booting $(basename "$vmlinuz") (timeout ${TIMEOUT} s)"
	start=$SECONDS
	# -cx16: qemu 7.2's TCG corrupts the 6.12 kernel's SLUB, which uses
	# cmpxchg16b on per-CPU data (random oopses in 3 of 4 boots here);
	# without CX16 the kernel takes its locked path.
	timeout "$TIMEOUT" "$QEMU" -accel "$ACCEL" -cpu max,-cx16 -smp 2 -m 1024 \
		-nodefaults -display none -no-reboot -serial stdio \
		-kernel "$vmlinuz" -initrd "$img" \
		-append "console=ttyS0 panic=-1 quiet bl.timeout=$((TIMEOUT - 20)) bl.guest=$(basename "$GUEST")" \
		</dev/null >"$log" 2>&1 || rc=$?
	tr -d '\r' <"$log" | sed "s/^/[$label] /"
	line=$(tr -d '\r' <"$log" | grep -a '^BPFLINKFS-RESULT ' | tail -n1)
	if [ "$rc" -eq 124 ]; then
		RESULT[$label]="FAIL (timeout after $TIMEOUT s)"
	elif [ -z "$line" ]; then
		RESULT[$label]="FAIL (no result line; qemu exit $rc)"
	elif [[ $line =~ fail=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ne 0 ]
	then
		RESULT[$label]="FAIL (${line#BPFLINKFS-RESULT })"
	elif [[ $line =~ pass=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ne 0 ]
	then
		RESULT[$label]="ok (${line#BPFLINKFS-RESULT })"
	else
		RESULT[$label]="SKIP (${line#BPFLINKFS-RESULT })"
	fi
	RESULT[$label]+=" in $((SECONDS - start)) s"
}

for label in "$@"; do
	rc=0
	kdir=$(bash "$HERE/fetch_kernel.sh" "$label" "$CACHE" 2>"$WORK/fetch") ||
		rc=$?
	cat "$WORK/fetch"
	if [ "$rc" -ne 0 ]; then
		RESULT[$label]="SKIP (no kernel: $(tail -n1 "$WORK/fetch"))"
		continue
	fi
	boot "$label" "$kdir"
done

echo "== vm summary"
status=77
for label in "$@"; do
	echo "  $label: ${RESULT[$label]}"
	case ${RESULT[$label]} in
	FAIL*) status=1 ;;
	ok*) [ "$status" -eq 77 ] && status=0 ;;
	esac
done
[ "$status" -eq 77 ] && echo "SKIP: no guest could run"
exit "$status"
