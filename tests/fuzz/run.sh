#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build the libFuzzer targets with clang and run each for FUZZ_SECONDS.
# Usage: tests/fuzz/run.sh [OUTDIR]   (default /tmp/bpflinkfs-fuzz)
# Exit: 0 all clean, 1 a crash, leak, sanitizer report or build failure,
# 77 when clang or its libFuzzer runtime is missing.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-/tmp/bpflinkfs-fuzz}
seconds=${FUZZ_SECONDS:-60}
cc=${CLANG:-clang}
cflags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
	-D_GNU_SOURCE -I$root -I$root/fs -I$root/bpf"

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

failed=0

# fuzz NAME SOURCE...: build tests/fuzz/fuzz_NAME.c with SOURCEs (relative
# to the tree's root) and run it on a copy of corpus/NAME, with NAME.dict
# if there is one.
fuzz() {
	name=$1
	shift
	bin=$out/fuzz_$name
	srcs=
	for s in "$@"; do srcs="$srcs $root/$s"; done
	echo "== fuzz_$name: build"
	# shellcheck disable=SC2086 # word splitting of flags is wanted
	if ! "$cc" $cflags "$here/fuzz_$name.c" $srcs -o "$bin"; then
		echo "FAIL: fuzz_$name does not build"
		failed=1
		return
	fi
	rm -rf "$out/corpus-$name"
	mkdir -p "$out/corpus-$name" "$out/artifacts-$name"
	if [ -d "$here/corpus/$name" ]; then
		cp "$here/corpus/$name"/* "$out/corpus-$name/"
	fi
	dict=
	[ -f "$here/$name.dict" ] && dict="-dict=$here/$name.dict"
	echo "== fuzz_$name: run $seconds s"
	# shellcheck disable=SC2086
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

# One line per target.
fuzz parse fs/parse.c bpf/perf_names.c
fuzz write fs/control.c fs/parse.c bpf/perf_names.c

exit $failed
