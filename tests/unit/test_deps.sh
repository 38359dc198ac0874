#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What the README's two commands install on a machine that has nothing:
# scripts/mount.sh and scripts/test.sh run from a copy of scripts/ with
# apt-get replaced by a stub that records the packages asked for,
# dpkg-query answering "not installed" for every package, and meson a stub
# that fails, so that each stops after its set-up. The mount command must
# ask for exactly scripts/packages-run.txt (no test tool of
# packages-test.txt), which must be debian/control's Build-Depends
# (debhelper aside) and fuse3; the test command for both lists. No root
# needed: `id -u` answers 0 and nothing is mounted or loaded.

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
SRC=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../..
for f in scripts/mount.sh scripts/test.sh scripts/deps.sh \
	scripts/packages-run.txt scripts/packages-test.txt debian/control; do
	[ -r "$SRC/$f" ] || die "no $f"
done
WORK=$(mktemp -d /tmp/bpflinkfs-deps.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/tree" "$WORK/bin"
cp -r "$SRC/scripts" "$WORK/tree/"

# The stubs. apt-get: "install" appends its package arguments (not its
# options) to $WORK/asked, one a line; every call goes to $WORK/apt.log.
cat >"$WORK/bin/apt-get" <<'STUB'
#!/bin/bash
echo "$*" >>"$STUB_DIR/apt.log"
[ "${1:-}" = install ] || exit 0
shift
for a in "$@"; do
	case $a in -*) ;; *) echo "$a" >>"$STUB_DIR/asked" ;; esac
done
STUB
cat >"$WORK/bin/dpkg-query" <<'STUB'
#!/bin/sh
echo "$STUB_DPKG_STATUS"
STUB
cat >"$WORK/bin/id" <<'STUB'
#!/bin/sh
[ "$1" = -u ] && { echo "$STUB_UID"; exit 0; }
exec /usr/bin/id "$@"
STUB
# meson and ninja fail: the command stops after its set-up. mountpoint says
# everything is mounted already; mount and modprobe fail.
for s in meson ninja mount modprobe; do
	printf '#!/bin/sh\necho "stub: %s $*" >&2\nexit 1\n' "$s" >"$WORK/bin/$s"
done
printf '#!/bin/sh\nexit 0\n' >"$WORK/bin/mountpoint"
chmod +x "$WORK/bin/"*

# words FILE: the package names of a list, sorted, one a line.
words() {
	sed 's/#.*//' "$1" | tr -s ' \t' '\n\n' | sed '/^$/d' | sort -u
}
words "$SRC/scripts/packages-run.txt" >"$WORK/run"
words "$SRC/scripts/packages-test.txt" >"$WORK/test"
sort -u "$WORK/run" "$WORK/test" >"$WORK/both"
[ -s "$WORK/run" ] || fail "packages-run.txt lists no package"
[ -s "$WORK/test" ] || fail "packages-test.txt lists no package"
both=$(comm -12 "$WORK/run" "$WORK/test" | xargs)
[ -z "$both" ] || fail "in both lists: $both"

# run_cmd NAME STATUS UID [ARGS]: run scripts/NAME with the stubs; the
# packages it asked for are in $WORK/asked (sorted), its output in
# $WORK/out. Prints its exit status.
run_cmd() {
	local name=$1 status=$2 uid=$3 rc=0
	shift 3
	rm -f "$WORK/asked" "$WORK/apt.log"
	: >"$WORK/asked"
	STUB_DIR=$WORK STUB_DPKG_STATUS=$status STUB_UID=$uid \
		PATH="$WORK/bin:$PATH" timeout 60 \
		bash "$WORK/tree/scripts/$name" "$@" </dev/null \
		>"$WORK/out" 2>&1 || rc=$?
	sort -o "$WORK/asked" "$WORK/asked"
	echo "$rc"
}

# diff_sets WHAT EXPECTED ACTUAL: fail with what is missing and extra.
diff_sets() {
	local missing extra
	missing=$(comm -23 "$2" "$3" | xargs)
	extra=$(comm -13 "$2" "$3" | xargs)
	[ -z "$missing$extra" ] && return 0
	fail "$1: missing [$missing], extra [$extra]"
}

# 1: the mount command on a machine with nothing installed.
rc=$(run_cmd mount.sh not-installed 0)
grep -q 'stub: meson' "$WORK/out" ||
	fail "mount.sh did not go on to meson after its set-up (exit $rc): $(tail -5 "$WORK/out")"
diff_sets "mount.sh asked apt-get for" "$WORK/run" "$WORK/asked"
tools=$(comm -12 "$WORK/asked" "$WORK/test" | xargs)
[ -z "$tools" ] || fail "mount.sh installs test tools: $tools"
[ "$(head -n 1 "$WORK/apt.log" 2>/dev/null | cut -d' ' -f1)" = update ] ||
	fail "mount.sh did not run apt-get update before installing"
echo "mount.sh installs: $(xargs <"$WORK/asked")"

# 2: the test command installs both lists.
rc=$(run_cmd test.sh not-installed 0)
grep -q 'stub: meson' "$WORK/out" ||
	fail "test.sh did not go on to meson after its set-up (exit $rc): $(tail -5 "$WORK/out")"
diff_sets "test.sh asked apt-get for" "$WORK/both" "$WORK/asked"

# 3: everything installed: no apt-get at all.
rc=$(run_cmd deps.sh installed 0 --test)
[ "$rc" -eq 0 ] || fail "deps.sh --test with everything installed: exit $rc"
[ -e "$WORK/apt.log" ] && fail "deps.sh ran apt-get with everything installed: $(xargs <"$WORK/apt.log")"

# 4: not root: a message naming the missing packages, exit 1, no apt-get.
rc=$(run_cmd deps.sh not-installed 1000)
[ "$rc" -eq 1 ] || fail "deps.sh as a user with packages missing: exit $rc, expected 1"
grep -q "missing packages: .*fuse3.*run as root" "$WORK/out" ||
	fail "deps.sh as a user does not name the packages: $(cat "$WORK/out")"
[ -e "$WORK/apt.log" ] && fail "deps.sh as a user ran apt-get"

# 5: a bad argument.
rc=$(run_cmd deps.sh installed 0 --bogus)
[ "$rc" -eq 2 ] || fail "deps.sh --bogus: exit $rc, expected 2"

# 6: packages-run.txt is what debian/control says building needs, debhelper
# aside (the package build's own tool), and fuse3.
python3 - "$SRC/debian/control" >"$WORK/bdeps" <<'PY' || fail "cannot read Build-Depends"
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"^Build-Depends:(.*(?:\n[ \t].*)*)", text, re.M)
for dep in m.group(1).split(","):
    name = re.split(r"[\s(\[<:]", dep.strip())[0]
    if name and not name.startswith("debhelper"):
        print(name)
PY
echo fuse3 >>"$WORK/bdeps"
sort -u -o "$WORK/bdeps" "$WORK/bdeps"
sed -i '/^build-essential$/d' "$WORK/bdeps"
grep -v '^build-essential$' "$WORK/run" >"$WORK/run_nobe"
diff_sets "packages-run.txt (but build-essential) against Build-Depends + fuse3" \
	"$WORK/bdeps" "$WORK/run_nobe"

finish
