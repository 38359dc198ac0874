#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build bpflinkfs and run every test: ./scripts/test.sh (as root; without root
# the tests that need it are skipped). Steps: scripts/deps.sh --test (what
# building, running and the tests need), meson setup (first time
# only; every build here, fuzzers included, has -Dwerror=true: a compiler
# warning fails the run), ninja, the meson suites unit, kernel, vm and
# integration, then unit, kernel and integration on a sanitizer build
# (build-asan: ASan + UBSan; a sanitizer report in a test or in the
# daemon's log fails it; ASAN=0 skips this), then the fuzzers
# (tests/fuzz/run.sh: a clang build with -Dfuzz=true, FUZZ_SECONDS each,
# default 60).
#
# A test that cannot run here is skipped, not failed: it says
# "1..0 # SKIP why" and exits 0 (tests/check.h, tests/tap.sh: meson counts
# any other exit of a TAP test as an error); a step that is no test (the
# fuzzers' run.sh) exits 77.
# Exit status: 0 if every step passed, 1 otherwise.

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
ASAN_BUILD=$ROOT/build-asan
FUZZ_DIR=$BUILD/fuzz
export FUZZ_SECONDS=${FUZZ_SECONDS:-60}

cd "$ROOT" || exit 1

declare -A RESULT=()
STEPS=(deps setup build tests asan fuzz)
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
		meson configure "$BUILD" -Dwerror=true
		return
	fi
	meson setup "$BUILD" -Dwerror=true
}

# The busy host (tests/tools/busy_host.sh): while the suites run, processes
# that are not bpflinkfs hold and churn links whose paths, pins and holder
# names carry 0xff, newline, tab and backslash bytes, as on a host that other
# people use. BUSY_HOST=0 runs the suites on a quiet host instead.
BUSY_PID=
busy_host_start() {
	local tools=$1/tests/tools state

	[ "${BUSY_HOST:-1}" != 0 ] || return 0
	state=$(mktemp -d /tmp/bpflinkfs-busy.XXXXXX)
	coproc BUSY { exec bash "$ROOT/tests/tools/busy_host.sh" "$tools" \
		"$state" 2>&1; }
	if read -r -t 30 line <&"${BUSY[0]}" && [ "$line" = ready ]; then
		echo "busy host: foreign links held and churning (pid $BUSY_PID)"
		return 0
	fi
	echo "busy host: did not start: ${line:-no answer}" >&2
	busy_host_stop
	return 1
}
busy_host_stop() {
	[ -n "$BUSY_PID" ] || return 0
	kill "$BUSY_PID" 2>/dev/null
	wait "$BUSY_PID" 2>/dev/null
	BUSY_PID=
}

# Run the suites of build dir $1; keep meson's exit status and pick out its
# summary counts.
TEST_LOG=$(mktemp)
ASAN_LOG=$(mktemp)
trap 'busy_host_stop; rm -f "$TEST_LOG" "$ASAN_LOG"' EXIT
run_tests() {
	local rc

	busy_host_start "${1:-$BUILD}" || return 1
	meson test -C "${1:-$BUILD}" --print-errorlogs --suite unit \
		--suite kernel --suite vm --suite integration 2>&1 |
		tee "${2:-$TEST_LOG}"
	rc=${PIPESTATUS[0]}
	busy_host_stop
	return "$rc"
}

# The sanitizer build: its own build dir, the same suites but vm. The C
# tests halt on a report (exit 1); the integration tests' cleanup (lib.sh)
# fails a test whose daemon or mklinks logged one. Timeouts are doubled,
# since ASan makes everything slower.
run_asan() {
	local rc=0

	if [ ! -f "$ASAN_BUILD/meson-private/coredata.dat" ]; then
		meson setup "$ASAN_BUILD" -Db_sanitize=address,undefined \
			-Db_lundef=false -Dwerror=true || return 1
	fi
	meson configure "$ASAN_BUILD" -Dwerror=true || return 1
	ninja -C "$ASAN_BUILD" || return 1
	busy_host_start "$ASAN_BUILD" || return 1
	ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=0 \
		meson test -C "$ASAN_BUILD" --print-errorlogs --suite unit \
		--suite kernel --suite integration --timeout-multiplier 2 2>&1 |
		tee "$ASAN_LOG"
	rc=${PIPESTATUS[0]}
	busy_host_stop
	# a C test that only printed a UBSan report still exited 0
	if grep -qE 'ERROR: AddressSanitizer|LeakSanitizer|runtime error:' \
		"$ASAN_BUILD/meson-logs/testlog.txt"; then
		echo "sanitizer reports in $ASAN_BUILD/meson-logs/testlog.txt"
		rc=1
	fi
	return "$rc"
}

# count KEY LOG: meson's summary figure KEY (Ok, Fail, ...) in LOG, or 0
count() {
	awk -v k="$1:" '$1 == k && $2 ~ /^[0-9]+$/ { n = $2 } END { print n + 0 }' \
		"$2" 2>/dev/null || echo 0
}

test_counts() {
	local key n out="" log=${1:-$TEST_LOG}

	for key in Ok Fail Skipped Timeout; do
		n=$(awk -v k="$key:" '$1 == k && $2 ~ /^[0-9]+$/ { n = $2 }
			END { print n }' "$log")
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

if step deps bash scripts/deps.sh --test &&
	step setup setup_build &&
	step build ninja -C "$BUILD"; then
	step tests run_tests
	counts=$(test_counts)
	[ -n "$counts" ] && RESULT[tests]+=" ($counts)"
	if [ "${ASAN:-1}" != 0 ]; then
		step asan run_asan
		counts=$(test_counts "$ASAN_LOG")
		[ -n "$counts" ] && RESULT[asan]+=" ($counts)"
	else
		RESULT[asan]="skipped (ASAN=0)"
	fi
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

# failures BUILD: the name and the last lines of output of every test of
# BUILD that failed or timed out (meson's testlog.json), so that the tail of
# the run, which is what CI keeps, says what failed and why.
failures() {
	local json=$1/meson-logs/testlog.json

	[ -f "$json" ] || return 0
	python3 - "$json" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t.get("result") not in ("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS"):
        continue
    print(f"\n== failed: {t['name']} ({t['result']}, exit {t.get('returncode')})")
    out = ((t.get("stdout") or "") + (t.get("stderr") or "")).splitlines()
    print("\n".join(out[-40:]))
PY
}

if [ "$FAILED" -ne 0 ]; then
	failures "$BUILD"
	[ "${ASAN:-1}" != 0 ] && failures "$ASAN_BUILD"
fi

printf '\n== summary\n'
for s in "${STEPS[@]}"; do
	printf '  %-6s %s\n' "$s" "${RESULT[$s]:-not run}"
done
# the plain closing line CI reads: every meson test of both builds
passed=$(($(count Ok "$TEST_LOG") + $(count Ok "$ASAN_LOG")))
failed=$(($(count Fail "$TEST_LOG") + $(count Fail "$ASAN_LOG") +
	$(count Timeout "$TEST_LOG") + $(count Timeout "$ASAN_LOG")))
skipped=$(($(count Skipped "$TEST_LOG") + $(count Skipped "$ASAN_LOG")))
if [ "$FAILED" -ne 0 ]; then
	echo "RESULT: FAIL"
	[ "$failed" -eq 0 ] && failed=1 # a step failed outside meson test
	echo "$passed passed, $failed failed, $skipped skipped"
	exit 1
fi
echo "RESULT: PASS"
echo "$passed passed, $failed failed, $skipped skipped"
