#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build the libFuzzer targets with meson (clang, -Dfuzz=true -Dwerror=true:
# see tests/fuzz/meson.build) and run each for FUZZ_SECONDS.
# Usage: tests/fuzz/run.sh [OUTDIR]   (default /tmp/bpflinkfs-fuzz)
# The build dir is OUTDIR/build; each target's log, corpus and crash inputs
# are OUTDIR/fuzz_NAME.log, OUTDIR/corpus-NAME, OUTDIR/artifacts-NAME.
# Exit: 0 all clean, 1 a crash, leak, sanitizer report or build failure,
# 77 when clang or its libFuzzer runtime is missing.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-/tmp/bpflinkfs-fuzz}
seconds=${FUZZ_SECONDS:-60}
cc=${CLANG:-clang}
build=$out/build

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "skip: $cc not found"
	exit 77
fi
mkdir -p "$out"
probe=$out/probe.c
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){return 0;}' \
	>"$probe"
if ! "$cc" -fsanitize=fuzzer "$probe" -o "$out/probe" 2>/dev/null; then
	echo "skip: $cc cannot link -fsanitize=fuzzer (libFuzzer runtime missing)"
	exit 77
fi

echo "== build: $build (CC=$cc, -Dfuzz=true)"
if [ -f "$build/meson-private/coredata.dat" ]; then
	set -- meson configure "$build" -Dfuzz=true -Dwerror=true
else
	set -- meson setup "$build" "$root" -Dfuzz=true -Dwerror=true
fi
if ! CC=$cc "$@" >"$out/setup.log" 2>&1; then
	tail -n 20 "$out/setup.log"
	echo "FAIL: $* (log $out/setup.log)"
	exit 1
fi
if ! ninja -C "$build" fuzzers; then
	echo "FAIL: the fuzzers do not build"
	exit 1
fi

failed=0

# fuzz NAME BIN: run BIN on a copy of corpus/NAME, with NAME.dict if there
# is one.
fuzz() {
	name=$1
	bin=$2
	rm -rf "$out/corpus-$name"
	mkdir -p "$out/corpus-$name" "$out/artifacts-$name"
	if [ -d "$here/corpus/$name" ]; then
		cp "$here/corpus/$name"/* "$out/corpus-$name/"
	fi
	dict=
	[ -f "$here/$name.dict" ] && dict="-dict=$here/$name.dict"
	echo "== fuzz_$name: run $seconds s"
	# shellcheck disable=SC2086 # word splitting of $dict is wanted
	if ASAN_OPTIONS=detect_leaks=1 \
	   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	   "$bin" -max_total_time="$seconds" -timeout=10 -error_exitcode=1 \
		-print_final_stats=1 $dict \
		-artifact_prefix="$out/artifacts-$name/" \
		"$out/corpus-$name" >"$out/fuzz_$name.log" 2>&1; then
		tail -n 12 "$out/fuzz_$name.log"
		echo "ok: fuzz_$name"
	else
		tail -n 60 "$out/fuzz_$name.log"
		echo "FAIL: fuzz_$name (log $out/fuzz_$name.log," \
			"inputs in $out/artifacts-$name/)"
		failed=1
	fi
}

# Every target tests/fuzz/meson.build builds.
targets=0
for bin in "$build"/tests/fuzz/fuzz_*; do
	if [ -f "$bin" ] && [ -x "$bin" ]; then
		fuzz "${bin##*/fuzz_}" "$bin"
		targets=$((targets + 1))
	fi
done
if [ "$targets" -eq 0 ]; then
	echo "FAIL: no fuzz targets in $build/tests/fuzz"
	failed=1
fi

exit $failed
