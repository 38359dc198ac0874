#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run.sh [--big] [--quick] [--vm]
#
# The whole benchmark in one command: create_remove.sh (creating
# 1,000 uprobes through control against a bare loop and libbpf's by-name
# attach, and removing them), then churn_listing.sh (listing while owned
# uprobes are released), then listing.sh (bpftool 7.5, the C floor,
# the FUSE floor, memory), then cost_per_hit.sh (ns per probed call: no
# probe, an empty program, the built-in counter, bpftrace count(), the
# counter with an events reader, bpftrace printf), then every.sh
# (links.json of 1,000 and 10,000 mixed links, glob creation
# against libbpf, funcs of a 10,000-target link), then top_cost.sh (what
# run statistics add per program run, and a `top` reader's CPU at 1,000
# and 10,000 links; with --quick at 1,000). The tables go to stdout and together to
# bench/results/bench-DATE-KERNEL.txt; each script also writes its own.
#
#   --big    listing at N = 10,000 too (the kernel then needs ~18 minutes
#            to release that set, in the background), and every.sh at
#            1,000 and 10,000 links with --quick too
#   --quick  creation/removal with N = 200 instead of 1,000 (~2 minutes
#            instead of ~11), cost per hit with 1,000,000 calls a run and
#            3 rounds instead of 10,000,000 and 5, every.sh at 1,000
#            links only
#   --vm     also the fentry row of cost per hit, in the qemu lanes
#            (cost_per_hit.sh --vm, a few minutes per kernel)
#
# Needs root; exits 77 (with the reason) when either part cannot run.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
listing_args=()
cost_args=()
every_args=()
create_n=1000
vm=0
quick=0
big=0

for a in "$@"; do
	case $a in
	--big) listing_args+=(--big) big=1 ;;
	--quick) create_n=200 quick=1 cost_args+=(--quick) every_args+=(--quick) ;;
	--vm) vm=1 ;;
	*) echo "usage: run.sh [--big] [--quick] [--vm]" >&2; exit 2 ;;
	esac
done
# after --quick, which would leave every.sh at 1,000 links
[ "${listing_args[*]-}" = --big ] && every_args+=(--sizes "1000 10000")

out=$here/results/bench-$(date +%Y%m%d-%H%M)-$(uname -r).txt
mkdir -p "$here/results"
# creation first: the listing's sets are released in the background after
# it, and creating uprobes meanwhile would wait behind those releases
bash "$here/create_remove.sh" "$create_n" 1 | tee "$out"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || exit "$rc"
echo | tee -a "$out"
# before the listing: its sets are released in the background afterwards
# (minutes at N = 10,000), and a "quiet" listing meanwhile is not quiet
bash "$here/churn_listing.sh" 300 4 | tee -a "$out"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo | tee -a "$out"
links_now() { bpftool link show 2>/dev/null | grep -c '^[0-9]'; }
links_before=$(links_now)
bash "$here/listing.sh" "${listing_args[@]}" | tee -a "$out"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
# listing.sh unpins its sets in the background (bpffs "gone-*" directories),
# and the kernel releases the unpinned links later still, in a work queue
# (~0.1 s a uprobe link, serialised): the parts after it wait until the
# host has no more links than before the listing, since a link released
# meanwhile is paid for by whoever holds its last fd, bpftool's listing
# included (runs that did not wait had bpftool at 375 and 594 ms for 1,000
# links)
for _ in $(seq 360); do
	! compgen -G "/sys/fs/bpf/bpflinkfs-bench/gone-*" >/dev/null &&
		[ "$(links_now)" -le "$links_before" ] && break
	sleep 5
done
echo | tee -a "$out"
bash "$here/cost_per_hit.sh" "${cost_args[@]}" | tee -a "$out"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
if [ "$vm" = 1 ]; then
	echo | tee -a "$out"
	bash "$here/cost_per_hit.sh" --vm "${cost_args[@]}" | tee -a "$out"
	[ "${PIPESTATUS[0]}" = 0 ] || rc=1
fi
echo | tee -a "$out"
# every link in view: links.json of mixed links, glob creation, funcs (every.sh)
bash "$here/every.sh" "${every_args[@]}" | tee -a "$out"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo | tee -a "$out"
# what statistics and a top reader cost (top_cost.sh)
if [ "$quick" = 1 ] && [ "$big" = 0 ]; then
	bash "$here/top_cost.sh" 10 1000 | tee -a "$out"
else
	bash "$here/top_cost.sh" | tee -a "$out"
fi
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "run.sh: both tables: $out" >&2
exit "$rc"
