#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build bpflinkfs and mount it: ./scripts/mount.sh [MOUNTPOINT]
# (default /mnt/bpflinkfs). Run as root. First installs what building and
# running need and is missing (scripts/deps.sh, the list packages-run.txt;
# no test tools). If bpflinkfs is already mounted there, says so and exits
# 0; a stale mount of a daemon that died is lazily unmounted first.

set -euo pipefail

MNT=${1:-/mnt/bpflinkfs}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build

die() {
	printf 'mount.sh: %s\n' "$*" >&2
	exit 1
}

if [ "$#" -gt 1 ] || [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
	echo "usage: $0 [MOUNTPOINT]   (default /mnt/bpflinkfs)" >&2
	exit 2
fi
[ "$(id -u)" -eq 0 ] || die "must run as root (sudo $0)"

bash "$ROOT/scripts/deps.sh"

# quiet WHAT CMD...: run CMD, show its output only if it fails.
quiet() {
	local what=$1 out
	shift
	if ! out=$("$@" 2>&1); then
		printf '%s\n' "$out" >&2
		die "$what failed"
	fi
}

cd "$ROOT"
if [ -f "$BUILD/meson-private/coredata.dat" ]; then
	quiet "meson setup --reconfigure" meson setup --reconfigure "$BUILD"
else
	quiet "meson setup" meson setup "$BUILD"
fi
# the daemon only: the tests and their tools are the test command's
quiet "the build (ninja -C $BUILD fs/bpflinkfs)" ninja -C "$BUILD" fs/bpflinkfs
echo "built $BUILD/fs/bpflinkfs"
DAEMON=$BUILD/fs/bpflinkfs
[ -x "$DAEMON" ] || die "no $DAEMON after the build"

# fstype of whatever is mounted exactly at $MNT, empty if nothing is.
mounted_type() {
	findmnt -n -o FSTYPE --mountpoint "$1" 2>/dev/null | tail -n 1 || true
}

mkdir -p "$MNT" 2>/dev/null || true
type=$(mounted_type "$MNT")
case $type in
"") ;;
fuse | fuse.*)
	# stat of the mount point itself can succeed on a dead mount; a listing
	# cannot.
	err=$(ls -A -- "$MNT" 2>&1 >/dev/null) || true
	case $err in
	*"not connected"*)
		echo "removing a stale mount at $MNT (its daemon has died)"
		fusermount3 -uz "$MNT" || umount -l "$MNT"
		;;
	*)
		if [ -e "$MNT/control" ] && [ -e "$MNT/features" ]; then
			echo "bpflinkfs is already mounted at $MNT"
			exit 0
		fi
		die "another FUSE file system ($type) is mounted at $MNT"
		;;
	esac
	;;
*) die "$MNT already has a $type file system mounted" ;;
esac
[ -d "$MNT" ] || die "cannot create the mount point $MNT"

# Without -f the daemon detaches once the mount is in place.
"$DAEMON" "$MNT" || die "bpflinkfs failed to mount $MNT (exit $?)"
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ -e "$MNT/control" ] && break
	sleep 0.5
done
[ -e "$MNT/control" ] || die "bpflinkfs started but $MNT/control is missing"

cat <<EOF
bpflinkfs mounted at $MNT; try:
  ls $MNT
  cat $MNT/links
unmount with: fusermount3 -u $MNT
EOF
