#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# busy_host.sh - make this host look like one that other people use, for as
# long as it runs: processes that are not bpflinkfs hold BPF links whose
# paths, pin names and holder names carry the bytes that break naive readers
# (0xff, newline, tab, backslash), and links come and go every 50 ms.
# scripts/test.sh runs the integration suites beside it, so that every test
# proves it asserts only on its own links and reads the rest as bytes.
#
# Usage: busy_host.sh TOOLS STATE_DIR
#   TOOLS  the build's tests/tools: mklinks makes the links, setbpf attaches
#          a program by ioctl (no link, as bcc does), bpflinkfs_target is the
#          probed binary (copied under the odd names into STATE_DIR)
# It prints "ready" once the held links exist, then churns until SIGTERM,
# and removes its files, pins and links on the way out.

set -u

MKLINKS=$1/mklinks
SETBPF=$1/setbpf
TARGET=$1/bpflinkfs_target
STATE=$2
PIN=/sys/fs/bpf/bpflinkfs-busy-host-$$
# Names no holder of a real host is forbidden to use: a 0xff byte (not
# UTF-8), a newline, a tab and a backslash.
ODD_NAMES=($'odd\xffname' $'new\nline' $'tab\there' 'back\slash')
HOLDER_NAME=$'bh\xff\t\nholder'
CHILDREN=()

cleanup() {
	local p
	trap - TERM INT EXIT
	for p in "${CHILDREN[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$PIN" "$STATE"
	exit 0
}
trap cleanup TERM INT EXIT

# file_offset FILE SYMBOL: SYMBOL's file offset (its value less its
# PT_LOAD's vaddr, plus that segment's file offset), from readelf.
file_offset() {
	python3 - "$1" "$2" <<'EOF'
import re, subprocess, sys
path, sym = sys.argv[1:]
syms = subprocess.run(["readelf", "-sW", path], capture_output=True).stdout
phdrs = subprocess.run(["readelf", "-lW", path], capture_output=True).stdout
v = [int(f[1], 16) for f in (l.split() for l in syms.splitlines())
     if len(f) >= 8 and f[7] == sym.encode()][0]
for l in phdrs.decode().splitlines():
    m = re.match(r'\s*LOAD\s+(0x\S+)\s+(0x\S+)\s+\S+\s+(0x\S+)', l)
    if m:
        off, vaddr, filesz = (int(x, 16) for x in m.groups())
        if vaddr <= v < vaddr + filesz:
            print(hex(v - vaddr + off))
EOF
}

mkdir -p "$STATE" "$PIN" || exit 1
OFF=$(file_offset "$TARGET" bpflinkfs_target_a) || exit 1
[ -n "$OFF" ] || exit 1
# The holders run under a name with the odd bytes (comm is the executable's
# base name, cut to 15 bytes).
ln -sf "$(readlink -f "$MKLINKS")" "$STATE/$HOLDER_NAME" || exit 1
ln -sf "$(readlink -f "$SETBPF")" "$STATE/${HOLDER_NAME}2" || exit 1
HOLDER=$STATE/$HOLDER_NAME
SPECS=()
IOCTL_SPECS=()
for n in "${ODD_NAMES[@]}"; do
	cp "$TARGET" "$STATE/$n" || exit 1
	SPECS+=("uprobe:$STATE/$n:$OFF:7" "uprobe_multi:$STATE/$n:$OFF:8")
	IOCTL_SPECS+=("uprobe:$STATE/$n:$OFF")
done

# Held links: one process holds a uprobe and a uprobe_multi link on each
# odd path for as long as this script runs (it exits at EOF of the fifo,
# which this script's exit closes, however it ends).
mkfifo "$STATE/hold" || exit 1
"$HOLDER" --keep-perf-fd "${SPECS[@]}" <"$STATE/hold" \
	>"$STATE/held.out" 2>&1 &
CHILDREN+=($!)
# ... and another holds a uprobe attached by ioctl on each odd path.
"$HOLDER"2 "${IOCTL_SPECS[@]}" <"$STATE/hold" >"$STATE/setbpf.out" 2>&1 &
CHILDREN+=($!)
exec {hold_fd}>"$STATE/hold"
# A pinned link under a pin name with the odd bytes, held by no process.
"$HOLDER" --pin "$PIN" "uprobe:$STATE/${ODD_NAMES[0]}:$OFF:9" \
	>/dev/null 2>&1 </dev/null
for p in "$PIN"/link_*; do
	[ -e "$p" ] && mv "$p" "$PIN/pin"$'\xff\t\n'"${p##*/}" 2>/dev/null
done
for out in held setbpf; do
	for _ in $(seq 100); do
		grep -q '^ready' "$STATE/$out.out" 2>/dev/null && break
		sleep 0.1
	done
	grep -q '^ready' "$STATE/$out.out" || {
		echo "busy_host: $out failed: $(cat "$STATE/$out.out")" >&2
		exit 1
	}
done
echo ready

# Churn: every 50 ms a short-lived process makes a link and drops it, so
# links come and go while the tests list the host: raw tracepoint links
# (released at once) mostly, and every second a uprobe on an odd path. The
# kernel releases a uprobe or tracepoint link only after an RCU tasks grace
# period (0.1 s to seconds on a loaded host): churners whose release is
# still pending are not added to, so the churn never piles up behind them.
i=0
while :; do
	if [ $((i % 20)) -eq 0 ]; then
		spec="uprobe:$STATE/${ODD_NAMES[i / 20 % ${#ODD_NAMES[@]}]}:$OFF:$i"
	else
		spec="raw_tracepoint:sched_process_hang:$i"
	fi
	if [ "$(jobs -rp | wc -l)" -lt 8 ]; then
		"$HOLDER" "$spec" </dev/null >/dev/null 2>&1 &
	fi
	sleep 0.05
	i=$((i + 1))
done
