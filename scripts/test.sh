#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build bpflinkfs and run every test: ./scripts/test.sh (as root; without root
# the tests that need it are skipped). Steps: scripts/deps.sh, meson setup
# (first time only), ninja, the meson suites unit and integration, then the
# fuzzers (tests/fuzz/run.sh, FUZZ_SECONDS each, default 60).
#
# A test that exits 77 counts as skipped (meson's rule), not failed.
# Exit status: 0 if every step passed, 1 otherwise.

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
FUZZ_DIR=$BUILD/fuzz
export FUZZ_SECONDS=${FUZZ_SECONDS:-60}

cd "$ROOT" || exit 1

declare -A RESULT=()
STEPS=(deps setup build tests fuzz)
FAILED=0

# step NAME CMD...: run CMD, record ok or FAIL for NAME.
step() {
	local name=$1 rc=0
	shift
	printf '\n== %s: %s\n' "$name" "$*"
	"$@" || rc=$?
	if [ "$rc" -eq 0 ]; then
		RESULT[$name]=ok
		return 0
	fi
	RESULT[$name]="FAIL (exit $rc)"
	FAILED=1
	return 1
}

setup_build() {
	if [ -f "$BUILD/meson-private/coredata.dat" ]; then
		echo "using the existing $BUILD"
		return 0
	fi
	meson setup "$BUILD"
}

# Run the suites; keep meson's exit status and pick out its summary counts.
TEST_LOG=$(mktemp)
trap 'rm -f "$TEST_LOG"' EXIT
run_tests() {
	local rc

	meson test -C "$BUILD" --print-errorlogs --suite unit \
		--suite integration 2>&1 | tee "$TEST_LOG"
	rc=${PIPESTATUS[0]}
	return "$rc"
}

test_counts() {
	local key n out=""

	for key in Ok Fail Skipped Timeout; do
		n=$(awk -v k="$key:" '$1 == k && $2 ~ /^[0-9]+$/ { n = $2 }
			END { print n }' "$TEST_LOG")
		[ -n "$n" ] && out+="${out:+, }$key $n"
	done
	printf '%s' "$out"
}

# run.sh exits 77 when clang cannot build fuzzers: a skip, as for tests.
run_fuzz() {
	local rc=0

	bash tests/fuzz/run.sh "$FUZZ_DIR" || rc=$?
	[ "$rc" -eq 77 ] && FUZZ_SKIPPED=1 && return 0
	return "$rc"
}
FUZZ_SKIPPED=0

if step deps bash scripts/deps.sh &&
	step setup setup_build &&
	step build ninja -C "$BUILD"; then
	step tests run_tests
	counts=$(test_counts)
	[ -n "$counts" ] && RESULT[tests]+=" ($counts)"
	if [ -f tests/fuzz/run.sh ]; then
		if step fuzz run_fuzz; then
			RESULT[fuzz]+=" (FUZZ_SECONDS=$FUZZ_SECONDS each)"
			[ "$FUZZ_SKIPPED" -eq 1 ] &&
				RESULT[fuzz]="skipped (run.sh exit 77)"
		fi
	else
		RESULT[fuzz]="not present (no tests/fuzz/run.sh)"
	fi
fi

printf '\n== summary\n'
for s in "${STEPS[@]}"; do
	printf '  %-6s %s\n' "$s" "${RESULT[$s]:-not run}"
done
if [ "$FAILED" -ne 0 ]; then
	echo "RESULT: FAIL"
	exit 1
fi
echo "RESULT: PASS"
