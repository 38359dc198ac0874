#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# metrics.sh [N] [--runs R]
#
# metrics.prom beside links.json: `cat metrics.prom` and
# `cat links.json` over the same N foreign links (default 10,000), in the
# same run, and the scrape of node-exporter's textfile collector pointed at
# the mount beside a scrape of node-exporter with an empty textfile
# directory (its own floor). The set is N software cpu-clock events with a
# period that never fires, made by mklinks --set and pinned: unlike uprobe
# links, the kernel releases them at once, so the run stays short on a
# shared host. Needs root, hyperfine, curl, prometheus-node-exporter and
# the build (ninja -C build). Writes bench/results/metrics-DATE-KERNEL.txt.
# Exit 77 when it cannot run here.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
daemon=${BPFLINKFS:-$root/build/fs/bpflinkfs}
mklinks=$root/build/tests/tools/mklinks
target=$root/build/tests/tools/bpflinkfs_target
n=10000
runs=20

while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?}; shift ;;
	[0-9]*) n=$1 ;;
	*) echo "usage: metrics.sh [N] [--runs R]" >&2; exit 2 ;;
	esac
	shift
done

skip() { echo "metrics.sh: SKIP: $*" >&2; exit 77; }
note() { echo "metrics.sh: $*" >&2; }

[ "$(id -u)" = 0 ] || skip "needs root (BPF links, FUSE mounts)"
for t in hyperfine curl python3 fusermount3 mountpoint \
	prometheus-node-exporter; do
	command -v "$t" >/dev/null || skip "$t not found"
done
for f in "$daemon" "$mklinks" "$target"; do
	[ -x "$f" ] || skip "no $f (ninja -C build)"
done
mountpoint -q /sys/fs/bpf || skip "bpffs not mounted on /sys/fs/bpf"

work=$(mktemp -d /tmp/bpflinkfs-bench-metrics.XXXXXX)
mnt=$work/mnt
pins=/sys/fs/bpf/bpflinkfs-bench-metrics-$$
daemon_pid= ne_pid= ne0_pid=
cleanup() {
	local p
	set +e
	# node-exporters are children of start_ne's subshell: no wait
	for p in $ne_pid $ne0_pid; do
		kill "$p" 2>/dev/null
	done
	if mountpoint -q "$mnt" 2>/dev/null; then
		fusermount3 -u "$mnt" || fusermount3 -uz "$mnt"
	fi
	[ -n "$daemon_pid" ] && wait "$daemon_pid" 2>/dev/null
	rm -rf "$pins" "$work"
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# start_ne DIR: node-exporter's textfile collector alone on DIR; prints
# its pid and port as "PID PORT".
start_ne() {
	local port i pid
	port=$(free_port)
	prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$1" </dev/null >>"$work/ne.log" 2>&1 &
	pid=$!
	for i in $(seq 100); do
		curl -sf "http://127.0.0.1:$port/metrics" >/dev/null && break
		sleep 0.1
	done
	echo "$pid $port"
}

mkdir -p "$mnt" "$pins" "$work/empty"
note "making $n software links in $pins"
t0=$(date +%s.%N)
"$mklinks" --set "$pins" "$target" bpflinkfs_target_ 0 0 "$n" >&2
note "made in $(python3 -c "import time; print('%.1f s' % (time.time() - $t0))")"

"$daemon" "$mnt" -f >/dev/null 2>"$work/daemon.log" &
daemon_pid=$!
for i in $(seq 100); do
	mountpoint -q "$mnt" && break
	sleep 0.1
done
mountpoint -q "$mnt" || { cat "$work/daemon.log" >&2; exit 1; }
rows=$(grep -c '^bpflinkfs_link_info{' "$mnt/metrics.prom")
note "metrics.prom: $rows link rows, $(wc -c <"$mnt/metrics.prom") bytes;" \
	"links.json: $(wc -c <"$mnt/links.json") bytes"

read -r ne_pid ne_port < <(start_ne "$mnt")
read -r ne0_pid ne0_port < <(start_ne "$work/empty")
curl -s "http://127.0.0.1:$ne_port/metrics" |
	grep -q '^node_textfile_scrape_error 0' ||
	note "warning: node-exporter reports a scrape error"

hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/h.json" \
	"cat $mnt/metrics.prom" "cat $mnt/links.json" \
	"curl -s -o /dev/null http://127.0.0.1:$ne_port/metrics" \
	"curl -s -o /dev/null http://127.0.0.1:$ne0_port/metrics" >&2

mkdir -p "$here/results"
out=$here/results/metrics-$(date +%Y%m%d-%H%M)-$(uname -r).txt
python3 - "$work/h.json" "$n" "$rows" <<'EOF' | tee "$out"
import json, sys
res = json.load(open(sys.argv[1]))["results"]
n, rows = sys.argv[2], sys.argv[3]
ms = [r["mean"] * 1e3 for r in res]
sd = [r["stddev"] * 1e3 for r in res]
print("metrics.prom at %s links (%s link rows; software events, pinned)" %
      (n, rows))
print("| what | mean | reference | ratio |")
print("| --- | --- | --- | --- |")
print("| `cat metrics.prom` | %.1f ms (sd %.1f) | `cat links.json`: %.1f ms "
      "(sd %.1f) | %.2fx |" % (ms[0], sd[0], ms[1], sd[1], ms[0] / ms[1]))
print("| node-exporter scrape, textfile dir = the mount | %.1f ms (sd %.1f) "
      "| the same, empty dir: %.1f ms (sd %.1f) | %.2fx |" %
      (ms[2], sd[2], ms[3], sd[3], ms[2] / ms[3]))
EOF
note "table written to $out"
