#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The daemon keeps the heap pages a table read freed, for the next read,
# and gives them back once the reads stop (fs/heap_trim.c, every 2 s): after
# links.json over 3,000 foreign links, its RSS (/proc/PID/status VmRSS)
# falls within 6 s by at least half the size of what was read. Not in a
# sanitizer build, whose allocator is not glibc's.

source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

bl_setup
if ldd "$BPFLINKFS" 2>/dev/null | grep -q 'libasan\|libubsan'; then
	skip "a sanitizer build: its allocator is not glibc's"
fi
ulimit -n 20000 || skip "cannot raise the fd limit for 3,000 links"
bl_mount

specs=()
for i in $(seq 3000); do
	specs+=("software:dummy:-1:$i")
done
mkl_start set "${specs[@]}"

rss() { awk '/^VmRSS:/ { print $2 }' /proc/"$BL_DAEMON_PID"/status; }

bytes=$(wc -c <"$MNT/links.json")
# reads: a trim, then three reads of links.json; sets before and after, the
# RSS before and after the reads. A trim may land between the last read and
# the RSS read after it (a 2 s period on a busy machine): then the reads'
# pages were never seen, and the reads are tried again.
reads() {
	# kept: the trimmer runs every 2 s and says nothing when it has; 2.5 s
	# lets one run after the earlier reads, whose caches stay
	sleep 2.5
	before=$(rss)
	for i in 1 2 3; do
		cat "$MNT/links.json" >/dev/null
	done
	after=$(rss)
}
for try in 1 2 3; do
	reads
	[ $((after - before)) -ge $((bytes / 2048)) ] && break
done
assert_true "three reads of links.json ($((bytes / 1024)) KiB) raise RSS by half of that ($before KiB before, $after after, try $try)" \
	[ $((after - before)) -ge $((bytes / 2048)) ]
now=$after
# rss_fell: the trimmer gave back half of what the reads took. The point is
# that it does, not how soon: 20 s is ten of its periods, for a busy host
# or a sanitizer build.
rss_fell() {
	now=$(rss)
	[ $((after - now)) -ge $((bytes / 2048)) ]
}
wait_for -q 20 rss_fell
assert_true "RSS falls by half of links.json's $((bytes / 1024)) KiB ($before KiB before the reads, $after after, $now then)" \
	[ $((after - now)) -ge $((bytes / 2048)) ]

mkl_stop set
finish
