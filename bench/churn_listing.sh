#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# churn_listing.sh [N [READERS]]
#
# Listing while the kernel releases links: N (default 300) owned uprobe
# links are made through control, then removed with `-*`; while the kernel
# releases them (~0.1 s each, serialised), `cat links` on the mount and
# `bpftool -j link show` are timed in turn, READERS (default 1) of each at
# once. The same is timed before the removal, on a quiet host. Reported:
# the median time of each, quiet and under churn, and each one's slowdown
# (churn / quiet); the goal is bpflinkfs's slowdown at most bpftool's.
# Needs root, gcc, python3, bpftool, the daemon (BPFLINKFS or
# build/fs/bpflinkfs); exits 77 when it cannot. Table to stdout and
# bench/results/churn_listing-DATE-KERNEL.txt.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
daemon=${BPFLINKFS:-$root/build/fs/bpflinkfs}
n=${1:-300}
readers=${2:-1}

skip() {
	echo "churn_listing.sh: SKIP: $*" >&2
	exit 77
}
[ "$(id -u)" -eq 0 ] || skip "needs root"
for t in gcc python3 bpftool fusermount3 nm; do
	command -v "$t" >/dev/null || skip "$t not found"
done
[ -x "$daemon" ] || skip "no daemon at $daemon (ninja -C build)"

work=$(mktemp -d /tmp/bench-churn.XXXXXX)
mnt=$work/mnt
dpid=
cleanup() {
	if [ -n "$dpid" ]; then
		mountpoint -q "$mnt" && fusermount3 -u "$mnt" 2>/dev/null
		wait "$dpid" 2>/dev/null || true
	fi
	[ "${KEEP:-0}" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$mnt"
"$here/fixture_gen.sh" "$work" "$n" >/dev/null
"$daemon" "$mnt" -f 2>"$work/daemon.log" &
dpid=$!
for _ in $(seq 100); do
	[ -e "$mnt/control" ] && break
	sleep 0.1
done
[ -e "$mnt/control" ] || skip "the daemon did not mount"
awk -v f="$work/fixture" '{print "uprobe:" f ":" $1}' "$work/symbols.txt" \
	>"$mnt/control"

# sample WHAT SECONDS: wall times (s) of WHAT, READERS at once, in turn
# with the other tool, for SECONDS
sample() {
	python3 - "$mnt/links" "$readers" "$2" "$1" <<'PY'
import subprocess, sys, time, threading
links, readers, secs, what = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
cmds = {"cat": ["cat", links], "bpftool": ["bpftool", "-j", "link", "show"]}
out = {k: [] for k in cmds}
end = time.monotonic() + secs
def run(name):
    t = time.monotonic()
    subprocess.run(cmds[name], stdout=subprocess.DEVNULL, check=True)
    out[name].append(time.monotonic() - t)
while time.monotonic() < end:
    for name in cmds:
        ts = [threading.Thread(target=run, args=(name,)) for _ in range(readers)]
        for t in ts: t.start()
        for t in ts: t.join()
for name, v in out.items():
    for x in v:
        print(what, name, "%.6f" % x)
PY
}

sample quiet 5 >"$work/raw"
echo '-*' >"$mnt/control"
sample churn "$(python3 -c "print(max(5, $n * 0.1 * 0.8))")" >>"$work/raw"
out=$here/results/churn_listing-$(date +%Y%m%d-%H%M)-$(uname -r).txt
mkdir -p "$here/results"
python3 - "$work/raw" "$n" "$readers" <<'PY' | tee "$out"
import collections, statistics, sys
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    what, name, x = line.split()
    v[(what, name)].append(float(x))
print("listing while %s owned uprobe links are released, %s reader(s) of each at once"
      % (sys.argv[2], sys.argv[3]))
print("%-8s %10s %10s %9s %6s" % ("tool", "quiet ms", "churn ms", "slowdown", "runs"))
slow = {}
for name in ("cat", "bpftool"):
    q = statistics.median(v[("quiet", name)]) * 1e3
    c = statistics.median(v[("churn", name)]) * 1e3
    slow[name] = c / q
    print("%-8s %10.1f %10.1f %8.1fx %6d" % (name if name != "cat" else "cat links",
          q, c, slow[name], len(v[("churn", name)])))
print("bpflinkfs slowdown / bpftool slowdown: %.2f (goal <= 1.0: %s)"
      % (slow["cat"] / slow["bpftool"], "met" if slow["cat"] <= slow["bpftool"] else "NOT met"))
PY
