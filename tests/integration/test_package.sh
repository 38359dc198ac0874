#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The Debian package: `dpkg-buildpackage -b -us -uc` in a copy of the tree
# makes bpflinkfs_VERSION_ARCH.deb (VERSION from debian/changelog, ARCH
# from dpkg) holding the daemon in /usr/sbin, the man page, the systemd
# unit and its /etc/default file, and nothing else but its docs; Depends
# is fuse3 and the packages of the libraries the daemon is linked against
# (readelf's NEEDED, their owners from dpkg -S); lintian finds no error.
# The unpacked daemon mounts and makes a link bpftool sees; the unit's
# commands, expanded as systemd does with the /etc/default file's
# MOUNTPOINT and ARGS, mount there with those arguments and unmount.
# Installed (apt-get install ./DEB; purged at exit), the unit is not
# enabled, `systemd-analyze verify` accepts it, and `mount -t
# fuse.bpflinkfs none MNT` and an /etc/fstab line through `mount MNT` run
# /usr/sbin/bpflinkfs from mount(8)'s PATH.

source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib_control.sh"
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib_lifecycle.sh"
SRC=$(readlink -f "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../..")

FSTAB=/etc/fstab
FSTAB_LINE=
FSTAB_NEW=0
INSTALLED=0
pkg_cleanup() {
	local rest
	if [ -n "$FSTAB_LINE" ] && [ -f "$FSTAB" ]; then
		# only our line goes: others may edit the file meanwhile
		rest=$(grep -vxF -- "$FSTAB_LINE" "$FSTAB")
		if [ "$FSTAB_NEW" -eq 1 ] && [ -z "$rest" ]; then
			rm -f "$FSTAB"
		else
			printf '%s\n' "$rest" >"$FSTAB"
		fi
	fi
	[ "$INSTALLED" -eq 1 ] &&
		apt-get purge -y -qq -o DPkg::Lock::Timeout=120 bpflinkfs \
			</dev/null >/dev/null 2>&1
	lc_cleanup
}

lc_setup
trap pkg_cleanup EXIT
for tool in dpkg-buildpackage dpkg-checkbuilddeps dpkg-parsechangelog; do
	command -v "$tool" >/dev/null || skip "$tool is not installed (dpkg-dev)"
done
command -v dh >/dev/null ||
	skip "debhelper is not installed (scripts/deps.sh --test installs it)"
for tool in mount umount apt-get; do
	command -v "$tool" >/dev/null || skip "$tool is not installed"
done
[ -d /sys/bus/event_source/devices/software ] || skip "no software PMU"
# The package is built from the tree with its own flags: the sanitizer
# build's run (scripts/test.sh) would only do the same again.
readelf -d "$BPFLINKFS" 2>/dev/null | grep -q 'NEEDED.*libasan' &&
	skip "a sanitizer build: the package is checked in the plain build's run"
out=$(cd "$SRC" && dpkg-checkbuilddeps 2>&1) ||
	skip "the package's build dependencies are missing: $out"

# ---- the build, from a copy of the tree (tracked and new files) ----
mkdir -p "$WORK/src"
if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$SRC" ls-files -z -co --exclude-standard |
		tar -C "$SRC" --null --ignore-failed-read -T - -cf - 2>/dev/null |
		tar -C "$WORK/src" -xf -
else
	tar -C "$SRC" --exclude=./.git --exclude='./build*' --exclude='./obj-*' \
		-cf - . | tar -C "$WORK/src" -xf -
fi
[ -f "$WORK/src/debian/rules" ] || die "copying the tree to $WORK/src failed"
VERSION=$(dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version)
ARCH=$(dpkg --print-architecture)
DEB=$WORK/bpflinkfs_${VERSION}_${ARCH}.deb
start=$SECONDS
(cd "$WORK/src" && timeout 400 dpkg-buildpackage -b -us -uc) \
	>"$WORK/build.log" 2>&1 ||
	{ tail -n 40 "$WORK/build.log"; die "dpkg-buildpackage failed"; }
echo "dpkg-buildpackage: $((SECONDS - start)) s"
[ -f "$DEB" ] || die "no $(basename "$DEB") after the build: $(ls "$WORK")"

# ---- its files: exactly these ----
dpkg -c "$DEB" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./|/|' |
	sort >"$WORK/files"
UNITDIR=$(sed -n 's|^\(.*\)/bpflinkfs\.service$|\1|p' "$WORK/files")
case $UNITDIR in
/lib/systemd/system | /usr/lib/systemd/system) ok ;;
*) fail "no bpflinkfs.service in a systemd unit directory: $(xargs <"$WORK/files")" ;;
esac
printf '%s\n' /usr/sbin/bpflinkfs /usr/share/man/man8/bpflinkfs.8.gz \
	"$UNITDIR/bpflinkfs.service" /etc/default/bpflinkfs \
	/usr/share/doc/bpflinkfs/changelog.gz /usr/share/doc/bpflinkfs/copyright |
	sort >"$WORK/want"
assert_eq "dpkg -c: the package's files" "$(xargs <"$WORK/want")" \
	"$(xargs <"$WORK/files")"
R=$WORK/root
dpkg-deb -x "$DEB" "$R" || die "dpkg-deb -x failed"
DAEMON=$R/usr/sbin/bpflinkfs
[ -x "$DAEMON" ] && ok || fail "/usr/sbin/bpflinkfs is not executable"
assert_eq "bpflinkfs --version" "bpflinkfs $VERSION" "$("$DAEMON" --version 2>&1)"
zcat "$R/usr/share/man/man8/bpflinkfs.8.gz" | cmp -s - "$SRC/man/bpflinkfs.8" &&
	ok || fail "the packaged man page is not man/bpflinkfs.8"
cmp -s "$R$UNITDIR/bpflinkfs.service" "$SRC/fs/bpflinkfs.service" &&
	ok || fail "the packaged unit is not fs/bpflinkfs.service"
cmp -s "$R/etc/default/bpflinkfs" "$SRC/debian/bpflinkfs.default" &&
	ok || fail "/etc/default/bpflinkfs is not debian/bpflinkfs.default"
dpkg-deb -I "$DEB" conffiles 2>/dev/null | grep -qx /etc/default/bpflinkfs &&
	ok || fail "/etc/default/bpflinkfs is not a conffile"

# ---- Depends: fuse3 and the owners of the daemon's NEEDED libraries ----
depends=$(dpkg-deb -f "$DEB" Depends)
echo "Depends: $depends"
tr ',|' '\n\n' <<<"$depends" | sed 's/^ *//; s/[ (:].*//' | sed '/^$/d' |
	sort -u >"$WORK/depends"
: >"$WORK/needed"
for lib in $(readelf -d "$DAEMON" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
	path=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
	[ -n "$path" ] || { fail "ldconfig does not know $lib"; continue; }
	owner=$(dpkg -S "$path" 2>/dev/null || dpkg -S "/usr$path" 2>/dev/null ||
		dpkg -S "$(readlink -f "$path")" 2>/dev/null)
	owner=$(head -n 1 <<<"$owner")
	owner=${owner%%:*}
	[ -n "$owner" ] || { fail "no package owns $path ($lib)"; continue; }
	echo "$owner" >>"$WORK/needed"
done
echo fuse3 >>"$WORK/needed"
assert_eq "Depends against fuse3 and the NEEDED libraries' packages" \
	"$(sort -u "$WORK/needed" | xargs)" "$(xargs <"$WORK/depends")"
tools=$(sed 's/#.*//' "$SRC/scripts/packages-test.txt" | xargs -n1 |
	grep -xFf - "$WORK/depends" | xargs)
assert_eq "test tools in Depends" "" "$tools"

# ---- lintian: no error (warnings are listed) ----
if command -v lintian >/dev/null; then
	timeout 300 lintian --pedantic -I "$DEB" >"$WORK/lintian" 2>&1
	rc=$?
	grep -v 'root privileges is not recommended' "$WORK/lintian"
	assert_eq "lintian exit status" 0 "$rc"
	assert_eq "lintian errors" "" "$(grep '^E:' "$WORK/lintian")"
else
	echo "note: lintian is not installed; not run"
fi

# ---- the unpacked daemon mounts ----
BPFLINKFS=$DAEMON # lc_start's daemon
export BPFLINKFS
lc_start "$(lc_newmnt)"
id=$(ctl_create "s:cpu-clock cpu=0"$'\n') || fail "unpacked daemon: create"
assert_eq "unpacked daemon: bpftool lists the new link" "$id" "$(lc_present "$id")"
fusermount3 -u "$MNT" || fail "unpacked daemon: fusermount3 -u $MNT failed"
lc_wait_exit "$BL_DAEMON_PID" 30 && ok ||
	fail "unpacked daemon still runs 30 s after the unmount"
assert_eq "unpacked daemon: exit status" 0 "${LC_RC:-}"
assert_eq "unpacked daemon: its link left" "" "$(lc_present "$id")"
BL_DAEMON_PID=

# unit_cmd KEY ENVFILE: the unit's KEY= command (its first), expanded as
# systemd does: Environment= then ENVFILE's assignments, ${X} as one word,
# $X split at whitespace; NUL-terminated words, a bare bpflinkfs as $DAEMON.
unit_cmd() {
	python3 - "$R$UNITDIR/bpflinkfs.service" "$1" "$2" "$DAEMON" <<'EOF'
import re, shlex, sys
unit, key, envfile, daemon = sys.argv[1:]
env, cmd = {}, None
for line in open(unit):
    line = line.strip()
    if line.startswith("Environment="):
        for w in shlex.split(line[len("Environment="):]):
            k, _, v = w.partition("=")
            env[k] = v
    elif line.startswith(key + "=") and cmd is None:
        cmd = line[len(key) + 1:].lstrip("-@:+!")
for line in open(envfile):
    line = line.strip()
    if line and not line.startswith("#") and "=" in line:
        k, _, v = line.partition("=")
        env[k.strip()] = " ".join(shlex.split(v))
words = []
for w in shlex.split(cmd):
    m = re.fullmatch(r"\$([A-Za-z_][A-Za-z0-9_]*)", w)
    if m:
        words += env.get(m.group(1), "").split()
        continue
    words.append(re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}",
                        lambda m: env.get(m.group(1), ""), w))
if words[0] == "bpflinkfs":
    words[0] = daemon
sys.stdout.write("".join(w + "\0" for w in words))
EOF
}

# ---- the unit's commands with the default file's MOUNTPOINT ----
SMNT=$(lc_newmnt)
rmdir "$SMNT" # ExecStartPre makes it
LC_MNTS+=("$SMNT")
grep -qxF EnvironmentFile=-/etc/default/bpflinkfs "$R$UNITDIR/bpflinkfs.service" &&
	ok || fail "the unit does not read /etc/default/bpflinkfs (EnvironmentFile=-)"
sed -e "s|^MOUNTPOINT=.*|MOUNTPOINT=$SMNT|" \
	-e 's|^ARGS=.*|ARGS="-o allow_other"|' "$R/etc/default/bpflinkfs" >"$WORK/default"
grep -qxF "MOUNTPOINT=$SMNT" "$WORK/default" ||
	fail "/etc/default/bpflinkfs sets no MOUNTPOINT"
grep -qxF 'ARGS="-o allow_other"' "$WORK/default" ||
	fail "/etc/default/bpflinkfs sets no ARGS"
mapfile -d '' pre < <(unit_cmd ExecStartPre "$WORK/default")
mapfile -d '' start < <(unit_cmd ExecStart "$WORK/default")
mapfile -d '' stop < <(unit_cmd ExecStop "$WORK/default")
echo "unit: ${pre[*]}; ${start[*]}; ${stop[*]}"
"${pre[@]}" && [ -d "$SMNT" ] && ok || fail "ExecStartPre did not make $SMNT"
"${start[@]}" 2>"$WORK/unit.log" &
BL_DAEMON_PID=$!
wait_for -q 10 eval 'lc_answers "$SMNT" || bl_gone "$BL_DAEMON_PID"'
lc_answers "$SMNT" && ok ||
	fail "the unit's ExecStart did not mount $SMNT: $(cat "$WORK/unit.log")"
assert_match "the unit's mount has ARGS' option" "(^|,)allow_other(,|$)" \
	"$(findmnt -n -o OPTIONS --mountpoint "$SMNT")"
"${stop[@]}" || fail "the unit's ExecStop failed"
lc_wait_exit "$BL_DAEMON_PID" 30 && ok ||
	fail "the unit's daemon still runs 30 s after ExecStop"
assert_eq "the unit's daemon exit status" 0 "${LC_RC:-}"
BL_DAEMON_PID=

# ---- installed ----
st=$(dpkg-query -W -f='${db:Status-Status}' bpflinkfs 2>/dev/null)
if [ -n "$st" ] && [ "$st" != not-installed ]; then
	echo "note: the bpflinkfs package is on this host ($st): install not tested"
	finish
fi
INSTALLED=1
t apt-get install -y -qq -o DPkg::Lock::Timeout=120 "$DEB" </dev/null \
	>"$WORK/apt.log" 2>&1 ||
	{ cat "$WORK/apt.log"; die "apt-get install $(basename "$DEB") failed"; }
cmp -s /usr/sbin/bpflinkfs "$DAEMON" && ok ||
	fail "/usr/sbin/bpflinkfs is not the package's daemon"
wants=$(find /etc/systemd/system -name bpflinkfs.service -printf '%p ' 2>/dev/null)
assert_eq "unit links after install (not enabled)" "" "${wants% }"
if command -v systemd-analyze >/dev/null; then
	out=$(timeout 60 systemd-analyze verify --man=no "$UNITDIR/bpflinkfs.service" 2>&1) ||
		fail "systemd-analyze verify: $out"
fi

# mount(8) runs the helper without PATH: /bin/sh's default path then.
found=$(env -i /bin/sh -c 'command -v bpflinkfs')
if [ "$found" != /usr/sbin/bpflinkfs ]; then
	echo "note: mount(8) would run $found, not the package's daemon:" \
		"mount -t and fstab not tested"
	finish
fi

# pkg_mount WHAT CMD...: CMD mounts MNT: it answers, and its daemon is
# /usr/sbin/bpflinkfs; then umount, and the daemon exits.
pkg_mount() {
	local what=$1 p pid='' _
	shift
	t "$@" >"$WORK/mount.out" 2>&1 ||
		fail "$what: exit $? ($(xargs <"$WORK/mount.out"))"
	wait_for -q 5 lc_answers "$MNT"
	lc_answers "$MNT" && ok || fail "$what: $MNT does not answer"
	assert_eq "$what: fstype" fuse.bpflinkfs \
		"$(findmnt -n -o FSTYPE --mountpoint "$MNT")"
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/exe" 2>/dev/null)" = /usr/sbin/bpflinkfs ] &&
			tr '\0' '\n' <"$p/cmdline" 2>/dev/null | grep -qxF "$MNT" &&
			pid=${p#/proc/}
	done
	[ -n "$pid" ] && ok || fail "$what: no /usr/sbin/bpflinkfs serves $MNT"
	echo "$what: served by /usr/sbin/bpflinkfs (pid ${pid:-none})"
	t umount "$MNT" || fail "$what: umount $MNT failed"
	[ -z "$pid" ] && return 0
	wait_for -q 30 lc_gone "$pid"
	lc_gone "$pid" && ok || fail "$what: daemon $pid runs 30 s after umount"
}

MNT=$(lc_newmnt)
LC_MNTS+=("$MNT")
pkg_mount "mount -t fuse.bpflinkfs" mount -t fuse.bpflinkfs none "$MNT"

MNT=$(lc_newmnt)
LC_MNTS+=("$MNT")
[ -f "$FSTAB" ] || FSTAB_NEW=1
FSTAB_LINE="none $MNT fuse.bpflinkfs defaults 0 0"
printf '%s\n' "$FSTAB_LINE" >>"$FSTAB"
pkg_mount "fstab: mount $MNT" mount "$MNT"
MNT=
finish
