#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# test_files.sh RUN_SH: the vm lane (RUN_SH, tests/vm/run.sh) gives the
# guest the files of the build that runs it, whatever that build's folder
# is called: the daemon, the tools, and the USDT fixture where this build
# has one (else the guest's USDT checks skip). Asked with
# BPFLINKFS_VM_LIST=1, which lists the files without booting. Once with
# the environment meson gives the lane, once with only the programs'
# paths (as a user runs it by hand). MESON_BUILD_ROOT: this build.

set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

run=$1
build=${MESON_BUILD_ROOT:?run through meson test}
src=$(cd "$(dirname "$run")" && pwd)
command -v readelf >/dev/null || skip "no readelf"
# this build's fixture, found in its folder, not from the lane's variables
fixture=$(find "$build/tests/tools" -maxdepth 1 -type f \
	-name bpflinkfs_usdt_fixture -perm -u+x 2>/dev/null)

# check WHAT ENV...: run the lane's listing under ENV and check the list
check() {
	local what=$1 list f n=0
	shift
	list=$(env "$@" BPFLINKFS_VM_LIST=1 bash "$run" 2>"$build/vm_files.err")
	[ -n "$list" ] || {
		fail "$what: no list: $(tail -n3 "$build/vm_files.err")"
		return
	}
	while read -r f; do
		case $f in
		"$src"/*) ;; # the guest's script
		/tmp/bpflinkfs-vm.*/guest.env) ;;
		"$build"/*) n=$((n + 1)) ;;
		*) fail "$what: $f is not of this build ($build)" ;;
		esac
	done <<<"$list"
	[ "$n" -ge 4 ] && ok "$what: $n files of this build" ||
		fail "$what: only $n files of this build"
	if [ -n "$fixture" ]; then
		grep -qxF "$fixture" <<<"$list" ||
			fail "$what: the USDT fixture $fixture is not given"
		grep -qF "usdt fixture: $fixture" "$build/vm_files.err" ||
			fail "$what: the log does not name $fixture"
	fi
	rm -f "$build/vm_files.err"
}

check "meson's environment"
check "the programs' paths only" -u BUILD -u USDT_FIXTURE -u SETBPF
[ -n "$fixture" ] || echo "note: this build has no USDT fixture" >&2
finish
