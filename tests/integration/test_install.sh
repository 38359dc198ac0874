#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `meson install --destdir` puts the daemon in sbindir, the man page in
# mandir/man8 and the systemd unit in systemd_unit_dir; the paths come from
# `meson introspect` of the build directory, the contents from the source
# tree. The unit's ExecStart must name the installed daemon (absolute, or a
# bare name that systemd finds on its fixed search path).

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
SRC=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../..
[ -n "${BPFLINKFS:-}" ] && [ -x "$BPFLINKFS" ] ||
	skip "\$BPFLINKFS is not set (run through meson test)"
command -v meson >/dev/null || skip "meson is not installed"
# BPFLINKFS is BUILD/fs/bpflinkfs
BUILD=$(dirname "$(dirname "$(readlink -f "$BPFLINKFS")")")
[ -f "$BUILD/meson-private/coredata.dat" ] ||
	skip "$BUILD is not a meson build directory"

WORK=$(mktemp -d /tmp/bpflinkfs-install.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT
D=$WORK/dest

meson introspect "$BUILD" --buildoptions >"$WORK/opts.json" ||
	die "meson introspect"
opt() {
	python3 -c '
import json, sys
for o in json.load(open(sys.argv[1])):
    if o["name"] == sys.argv[2]:
        print(o["value"])' "$WORK/opts.json" "$1"
}
# abs DIR: DIR under the prefix unless it is absolute (meson's rule).
abs() {
	case $1 in
	/*) echo "$1" ;;
	*) echo "$PREFIX/$1" ;;
	esac
}
PREFIX=$(opt prefix)
SBIN=$(abs "$(opt sbindir)")
MAN8=$(abs "$(opt mandir)")/man8
UNITDIR=$(abs "$(opt systemd_unit_dir)")
VERSION=$(meson introspect "$BUILD" --projectinfo | python3 -c '
import json, sys; print(json.load(sys.stdin)["version"])')

timeout 120 meson install -C "$BUILD" --no-rebuild --destdir "$D" \
	>"$WORK/install.log" 2>&1 ||
	{ cat "$WORK/install.log" >&2; die "meson install"; }
echo "installed: $(cd "$D" && find . -type f -o -type l | sort | xargs)"

bin=$D$SBIN/bpflinkfs
if [ -x "$bin" ]; then
	got=$("$bin" --version 2>&1)
	[ "$got" = "bpflinkfs $VERSION" ] ||
		fail "$SBIN/bpflinkfs --version: '$got', expected 'bpflinkfs $VERSION'"
else
	fail "no executable $SBIN/bpflinkfs"
fi
cmp -s "$D$MAN8/bpflinkfs.8" "$SRC/man/bpflinkfs.8" ||
	fail "$MAN8/bpflinkfs.8 missing or not the source's man page"
unit=$D$UNITDIR/bpflinkfs.service
cmp -s "$unit" "$SRC/fs/bpflinkfs.service" ||
	fail "$UNITDIR/bpflinkfs.service missing or not the source's unit"

# ExecStart: systemd (>= 239) looks a bare name up in its fixed path.
exec_start=$(sed -n 's/^ExecStart=[-@:+!]*//p' "$unit" 2>/dev/null)
prog=${exec_start%% *}
case $prog in
/*) [ "$prog" = "$SBIN/bpflinkfs" ] ||
	fail "ExecStart runs $prog, not the installed $SBIN/bpflinkfs" ;;
bpflinkfs)
	sd_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin
	case ":$sd_path:" in
	*":$SBIN:"*) ;;
	*) fail "ExecStart=bpflinkfs, but $SBIN is not on systemd's path" ;;
	esac ;;
*) fail "ExecStart runs '$prog', not bpflinkfs" ;;
esac
grep -q 'systemctl enable' "$SRC/README.md" ||
	fail "README.md does not say how to enable the unit (systemctl enable)"

echo "unit ExecStart: $exec_start"
finish
