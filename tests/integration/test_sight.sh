#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# latency and by= (the options of a probe line that show more than a
# count): two processes with known call counts give exactly those hits_by
# lines (their pids from $!, their comm, their cgroup from /proc); a
# fixture built with frame pointers gives its call chain in stacks, a
# system call's kernel stack passes through the syscall entry; a
# function that sleeps a known time lands its calls in the bucket that
# time falls in, and Debian's bpftrace (uprobe/uretprobe, nsecs, hist())
# finds the same busiest bucket for the same calls; a pattern gives one
# histogram per target hit; what cannot be done here is refused with its
# errno and a caret; a link without the options runs the counter program;
# with -o latency_pairs an entry and a return link do what a session does,
# and removing either removes both.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"

bl_setup
NE_PID= PROM_PID=
sight_cleanup() {
	local p
	for p in $NE_PID $PROM_PID; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	bl_cleanup
}
trap sight_cleanup EXIT
[ -d /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"
[ -x "${SIGHT_FIXTURE:-}" ] || skip "\$SIGHT_FIXTURE is not set"
FIX=$(readlink -f "$SIGHT_FIXTURE")
COMM=$(basename "$FIX" | cut -c1-15)
bl_mount

# mk SPEC: make a link, echo its id
mk() {
	local id
	exec {fd}<>"$MNT/control"
	echo "$1" >&$fd || {
		exec {fd}>&-
		return 1
	}
	read -r id <&$fd
	exec {fd}>&-
	echo "$id"
}

# --- a link without options runs the counter, as before ---
id=$(mk "u:$FIX:sight_hit") || fail "plain link"
assert_eq "plain link: counter program" counter_kprobe \
	"$(cat "$MNT/$id/prog_name")"
assert_true "plain link: no hits_by" test ! -e "$MNT/$id/hits_by"
assert_true "plain link: no latency" test ! -e "$MNT/$id/latency"
echo "-$id" >"$MNT/control"

# --- by=pid: two processes, 5 and 9 calls ---
id=$(mk "u:$FIX:sight_hit by=pid") || fail "by=pid link"
"$FIX" wait "$WORK/go" hit 5 >/dev/null &
pa=$!
"$FIX" wait "$WORK/go" hit 9 >/dev/null &
pb=$!
touch "$WORK/go"
wait $pa $pb
want=$(printf '%s\t%s\t9\n%s\t%s\t5' "$pb" "$COMM" "$pa" "$COMM")
assert_eq "by=pid: one line per process, busiest first" "$want" \
	"$(cat "$MNT/$id/hits_by")"
assert_eq "by=pid: hits" 14 "$(cat "$MNT/$id/hits")"
echo "-$id" >"$MNT/control"

# --- by=pid past its 10,240 keys: the least recently hit are evicted and
# summed in `# other N`; the lines and other add up to hits ---
id=$(mk "u:$FIX:sight_hit by=pid") || fail "by=pid bound link"
"$FIX" fork 10400 || fail "fixture: 10,400 processes"
hb=$(cat "$MNT/$id/hits_by")
lines=$(grep -vc '^#' <<<"$hb")
other=$(sed -n 's/^# other //p' <<<"$hb")
sum=$(grep -v '^#' <<<"$hb" | awk -F'\t' '{ s += $NF } END { print s + 0 }')
assert_eq "by=pid bound: hits" 10400 "$(cat "$MNT/$id/hits")"
assert_true "by=pid bound: at most 10,240 lines ($lines)" test "$lines" -le 10240
assert_true "by=pid bound: # other is last" test "$(tail -1 <<<"$hb" | cut -c1-8)" = "# other "
assert_eq "by=pid bound: lines + other = hits" 10400 $((sum + ${other:-0}))
echo "-$id" >"$MNT/control"

# --- by=comm and by=cgroup: the same calls, other keys ---
id=$(mk "u:$FIX:sight_hit by=comm") || fail "by=comm link"
"$FIX" hit 4 >/dev/null
"$FIX" hit 3 >/dev/null
assert_eq "by=comm" "$(printf '%s\t7' "$COMM")" "$(cat "$MNT/$id/hits_by")"
echo "-$id" >"$MNT/control"
id=$(mk "u:$FIX:sight_hit by=cgroup") || fail "by=cgroup link"
"$FIX" hit 6 >/dev/null
cg=$(sed -n 's/^0:://p' /proc/self/cgroup)
assert_eq "by=cgroup: the cgroup of /proc/PID/cgroup" \
	"$(printf '%s\t6' "$cg")" "$(cat "$MNT/$id/hits_by")"
echo "-$id" >"$MNT/control"

# --- by= on a tracepoint: the lines add up to hits ---
id=$(mk "t:syscalls:sys_enter_getppid by=comm") || fail "tracepoint by="
for i in 1 2 3; do "$FIX" hit 1 >/dev/null; done
sum=$(grep -v '^# other' "$MNT/$id/hits_by" | awk -F'\t' '{s += $NF} END {print s + 0}')
other=$(sed -n 's/^# other //p' "$MNT/$id/hits_by")
hits=$(cat "$MNT/$id/hits")
assert_true "tracepoint by=: lines + other ($sum + ${other:-0}) <= hits ($hits)" \
	test $((sum + ${other:-0})) -le "$hits"
echo "-$id" >"$MNT/control"

# --- latency: 20 calls of a 3 ms sleep, in [2M, 4M) ns ---
id=$(mk "u:$FIX:sight_sleep latency") || fail "latency link"
have_bt=0
bt=
# stop_bt: SIGINT (it prints its maps), SIGKILL if it has not ended in 20 s
stop_bt() {
	kill -INT "$bt" 2>/dev/null
	wait_for -q 20 bl_gone "$bt"
	kill -0 "$bt" 2>/dev/null && kill -9 "$bt" && echo "# bpftrace killed" >&2
	wait "$bt" 2>/dev/null
	bt=
}
if command -v bpftrace >/dev/null; then
	# "ready" once its probes fire (it says Attaching before they do)
	bpftrace -e "uprobe:$FIX:sight_hit { printf(\"ready\\n\"); }
		uprobe:$FIX:sight_sleep { @s[tid] = nsecs; }
		uretprobe:$FIX:sight_sleep /@s[tid]/ {
			@h = hist(nsecs - @s[tid]); delete(@s[tid]); }" \
		>"$WORK/bt.out" 2>"$WORK/bt.err" &
	bt=$!
	wait_for -q 15 eval '"$FIX" hit 1 >/dev/null; grep -q ready "$WORK/bt.out"'
	grep -q ready "$WORK/bt.out" && have_bt=1
fi
"$FIX" sleep 20 3000 >"$WORK/fix.out"
assert_eq "latency: a uprobe session link" uprobe_session \
	"$(cat "$MNT/$id/type")"
lat=$(cat "$MNT/$id/latency")
assert_eq "latency: calls" 20 "$(cat "$MNT/$id/hits")"
# "LOW COUNT" of each bucket line, LOW in ns ("[2M, 4M)" is 2097152)
buckets() {
	sed -n 's/^\[\([0-9]*\)\([KMGTPE]\?\)[],)].* \([0-9][0-9]*\) |.*/\1:\2:\3/p' |
		awk -F: '{ e = index("KMGTPE", $2); v = $1;
			for (i = 0; $2 != "" && i < e; i++) v *= 1024;
			print v, $3 }'
}
busiest() {
	buckets | awk '$2 > m { m = $2; b = $1 } END { print b }'
}
assert_eq "latency: the counts add up to the calls" 20 \
	"$(buckets <<<"$lat" | awk '{ s += $2 } END { print s + 0 }')"
assert_eq "latency: no call shorter than the sleep's bucket [2M, 4M)" \
	2097152 "$(buckets <<<"$lat" | awk '$2 > 0 { print $1; exit }')"
# the fixture's own clock around each call: its busiest bucket
fixb=$(awk '$1 != "sink" && $2 > m { m = $2; b = $1 } END { print b }' \
	"$WORK/fix.out")
assert_eq "latency: busiest bucket as the fixture timed its calls" \
	"$((1 << (fixb - 1)))" "$(busiest <<<"$lat")"
if [ "$have_bt" = 1 ]; then
	stop_bt
	grep -q '^\[' "$WORK/bt.out" || cat "$WORK/bt.out" "$WORK/bt.err" >&2
	assert_eq "latency: bpftrace's busiest bucket" \
		"$(busiest <"$WORK/bt.out")" "$(busiest <<<"$lat")"
else
	[ -n "${bt:-}" ] && stop_bt
	echo "# bpftrace not runnable here: its comparison skipped"
fi

# --- links.json and metrics.prom of the latency link ---
python3 - "$MNT/links.json" "$id" "$WORK/fix.out" <<'PY' ||
import json, sys
links = json.loads(open(sys.argv[1], "rb").read())
lat = [l for l in links if l["id"] == int(sys.argv[2])][0]["latency"]
fix = {}
for line in open(sys.argv[3]):
    k, v = line.split()
    if k != "sink":
        fix[int(k)] = int(v)
# every bucket a power of two wide, the counts adding up to the calls
assert all(b["high"] == 2 * b["low"] for b in lat if b["low"]), lat
assert sum(b["count"] for b in lat) == 20, lat
assert min(b["low"] for b in lat) == 1 << 21, lat
PY
	fail "links.json: latency is not the 20 calls in power-of-two buckets"
cp "$MNT/metrics.prom" "$WORK/m.prom"
if command -v promtool >/dev/null; then
	assert_true "promtool check metrics with a latency histogram" \
		promtool check metrics <"$WORK/m.prom"
fi
# the histogram of this link: le cumulative as the latency file's buckets
python3 - "$WORK/m.prom" "$id" "$lat" <<'PY' ||
import re, sys
prom, lid, text = open(sys.argv[1], "rb").read().decode("utf-8", "replace"), sys.argv[2], sys.argv[3]
mult = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
hist = {}
for m in re.finditer(r"^\[(\d+)([KMG]?)[],)].*?(\d+) \|", text, re.M):
    hist[int(m.group(1)) * mult[m.group(2)]] = int(m.group(3))
pat = r'^bpflinkfs_link_latency_seconds_bucket\{id="%s",target="[^"]*",le="([^"]+)"\} (\d+)$' % lid
seen = 0
for m in re.finditer(pat, prom, re.M):
    le, v = m.group(1), int(m.group(2))
    if le == "+Inf":
        assert v == sum(hist.values()), (v, hist)
        continue
    upper = float(le) * 1e9
    want = sum(c for low, c in hist.items() if low < upper - 0.5)
    assert v == want, (le, v, want)
    seen += 1
assert seen > 20, seen
c = re.search(r'^bpflinkfs_link_latency_seconds_count\{id="%s",[^}]*\} (\d+)$' % lid, prom, re.M)
assert c and int(c.group(1)) == 20, c
PY
	fail "metrics.prom: the histogram is not the latency file's buckets"

# --- a real Prometheus scrapes it (node-exporter's textfile collector on
# the mount): histogram_quantile(0.5) lies in the bucket of the fixture's
# own median call ---
free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}
http_ok() {
	python3 -c 'import sys, urllib.request
urllib.request.urlopen(sys.argv[1], timeout=5).read()' "$1" 2>/dev/null
}
# promql QUERY: the value of the first result of an instant query
promql() {
	python3 - "http://127.0.0.1:$PROM_PORT/api/v1/query" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
url = sys.argv[1] + "?" + urllib.parse.urlencode({"query": sys.argv[2]})
try:
    r = json.load(urllib.request.urlopen(url, timeout=5))
except Exception as e:
    sys.exit(str(e))
res = r.get("data", {}).get("result", [])
if r.get("status") == "success" and res:
    print(res[0]["value"][1])
PY
}
if command -v prometheus >/dev/null &&
	command -v prometheus-node-exporter >/dev/null; then
	NE_PORT=$(free_port)
	prometheus-node-exporter --web.listen-address="127.0.0.1:$NE_PORT" \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$MNT" >"$WORK/ne.log" 2>&1 &
	NE_PID=$!
	PROM_PORT=$(free_port)
	cat >"$WORK/prometheus.yml" <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: bpflinkfs
    static_configs:
      - targets: ['127.0.0.1:$NE_PORT']
YML
	prometheus --config.file="$WORK/prometheus.yml" \
		--storage.tsdb.path="$WORK/tsdb" \
		--web.listen-address="127.0.0.1:$PROM_PORT" >"$WORK/prom.log" 2>&1 &
	PROM_PID=$!
	q=
	# median_up: Prometheus answers the median, a number
	median_up() {
		http_ok "http://127.0.0.1:$PROM_PORT/-/ready" &&
			q=$(promql "histogram_quantile(0.5, bpflinkfs_link_latency_seconds_bucket{id=\"$id\"})")
		[ -n "$q" ] && [ "$q" != NaN ]
	}
	wait_for -q 30 median_up
	# the fixture's median call: the bucket where its count reaches 10
	mb=$(awk '$1 != "sink" { c += $2; if (c >= 10) { print $1; exit } }' \
		"$WORK/fix.out")
	assert_true "Prometheus: histogram_quantile(0.5) ($q s) in [2^$((mb - 1)), 2^$mb) ns" \
		python3 -c 'import sys
q, b = float(sys.argv[1]), int(sys.argv[2])
sys.exit(not 2 ** (b - 1) * 1e-9 <= q <= 2 ** b * 1e-9)' "${q:-nan}" "$mb"
	kill "$PROM_PID" "$NE_PID"
	wait "$PROM_PID" "$NE_PID" 2>/dev/null
	PROM_PID= NE_PID=
else
	echo "# prometheus or node-exporter not installed: no PromQL check"
fi

echo "-$id" >"$MNT/control"

# --- latency on a pattern: one histogram per target hit ---
id=$(mk "u:$FIX:sight_* latency") || fail "latency pattern"
"$FIX" sleep 3 3000 >/dev/null
"$FIX" hit 2 >/dev/null
lat=$(cat "$MNT/$id/latency")
# the targets named as funcs names them (SYMBOL)
assert_match "pattern: @[sight_sleep+0x0]: then its first bucket" \
	'@\[sight_sleep\+0x0\]:'$'\n''\[2M, 4M\) +[0-9]+ \|' "$lat"
assert_eq "pattern: sight_sleep's calls" 3 "$(sed -n '/^@\[sight_sleep/,/^$/p' \
	<<<"$lat" | buckets | awk '{ s += $2 } END { print s }')"
assert_eq "pattern: sight_hit's calls" 2 "$(sed -n '/^@\[sight_hit/,/^$/p' \
	<<<"$lat" | buckets | awk '{ s += $2 } END { print s }')"
assert_eq "pattern: hits" 5 "$(cat "$MNT/$id/hits")"
echo "-$id" >"$MNT/control"

# --- stacks=user: main -> sight_outer -> sight_middle -> sight_leaf, built
# with frame pointers, named after the fixture has exited ---
id=$(mk "u:$FIX:sight_leaf stacks=user") || fail "stacks=user link"
"$FIX" chain 7 >/dev/null
st=$(cat "$MNT/$id/stacks")
chain=$(grep -o 'main+0x[0-9a-f]*;sight_outer+0x[0-9a-f]*;sight_middle+0x[0-9a-f]*;sight_leaf+0x0 [0-9]*$' <<<"$st")
assert_match "stacks=user: the folded chain, outermost first, 7 calls" \
	' 7$' "$chain"
# each return address inside its function (readelf's symbol sizes)
for f in $(tr ';' ' ' <<<"${chain% *}"); do
	sym=${f%+*}
	off=$((${f#*+}))
	size=$(readelf -sW "$FIX" | awk -v s="$sym" '$8 == s && $4 == "FUNC" { print $3; exit }')
	assert_true "stacks=user: $f within $sym ($size bytes)" \
		test -n "$size" -a "$off" -lt "$((size))"
done
echo "-$id" >"$MNT/control"

# --- stacks=kernel of a system call's tracepoint: through the syscall
# entry, every frame a function of /proc/kallsyms ---
id=$(mk "t:syscalls:sys_enter_getppid stacks=kernel") || fail "stacks=kernel"
python3 -c 'import os
for _ in range(5): os.getppid()'
st=$(cat "$MNT/$id/stacks")
assert_match "stacks=kernel: through the syscall entry" \
	'(entry_SYSCALL_64|do_syscall_64|el0_svc|invoke_syscall)' "$st"
bad=$(head -1 <<<"$st" | cut -d' ' -f1 | tr ';' '\n' | sed 's/+0x[0-9a-f]*$//' |
	while read -r fn; do
		grep -qE " [tTwW] $fn( |$)" /proc/kallsyms || echo "$fn"
	done)
assert_eq "stacks=kernel: every frame in /proc/kallsyms" "" "$bad"
hits=$(cat "$MNT/$id/hits")
sum=$(awk '/^#/ { next } { s += $NF } END { print s + 0 }' <<<"$st")
dropped=$(sed -n 's/^# dropped //p' <<<"$st")
assert_true "stacks=kernel: lines + dropped ($sum + ${dropped:-0}) <= hits ($hits)" \
	test $((sum + ${dropped:-0})) -le "$hits"
echo "-$id" >"$MNT/control"

# --- refused: errno and caret ---
err() { echo "$1" 2>&1 >"$MNT/control"; }
out=$(err "t:sched:sched_switch latency" 2>&1)
assert_match "latency on a tracepoint: EINVAL" "Invalid argument" "$out"
assert_match "latency on a tracepoint: caret" \
	"Command: t:sched:sched_switch latency"$'\n'" {32}\^" \
	"$(tail -2 "$MNT/error_log")"
out=$(err "rt:sched_switch stacks=user" 2>&1)
assert_match "stacks= on a raw tracepoint: EOPNOTSUPP" "not supported" "$out"
out=$(err "u:$FIX:sight_hit by=tid" 2>&1)
assert_match "by=tid: EINVAL" "Invalid argument" "$out"
assert_match "by=tid: its message" "by= takes pid\|comm\|cgroup" \
	"$(tail -3 "$MNT/error_log")"
out=$(err "k:vfs_read latency" 2>&1)
assert_match "latency on a kprobe: EOPNOTSUPP" "not supported" "$out"
assert_eq "nothing left made" "" "$(cat "$MNT/control")"

# --- -o latency_pairs: an entry link and a return link, as on kernels
# without uprobe session links ---
bl_stop_daemon
rmdir "$MNT"
bl_mount -o latency_pairs
id=$(mk "u:$FIX:sight_sleep latency") || fail "pair link"
"$FIX" sleep 10 3000 >"$WORK/fix.out"
lines=$(cut -f2 "$MNT/control" | sort | uniq -c | awk '{ print $1 }')
assert_eq "pair: two links with the line as spec" 2 "$lines"
rid=$(awk -F'\t' -v id="$id" '$1 != id { print $1 }' "$MNT/control")
assert_eq "pair: the entry link is a uprobe" uprobe "$(cat "$MNT/$id/type")"
assert_eq "pair: the return link is a uretprobe" uretprobe \
	"$(cat "$MNT/$rid/type")"
assert_eq "pair: bpftool sees both on the same offset" \
	"$(bpftool -j link show id "$id" | python3 -c 'import json,sys; print(json.load(sys.stdin)["offset"])')" \
	"$(bpftool -j link show id "$rid" | python3 -c 'import json,sys; print(json.load(sys.stdin)["offset"])')"
assert_eq "pair: hits on the entry link" 10 "$(cat "$MNT/$id/hits")"
assert_true "pair: no hits, no latency on the return link" \
	test ! -e "$MNT/$rid/hits" -a ! -e "$MNT/$rid/latency"
lat=$(cat "$MNT/$id/latency")
assert_eq "pair: the counts add up to the calls" 10 \
	"$(buckets <<<"$lat" | awk '{ s += $2 } END { print s + 0 }')"
assert_eq "pair: no call shorter than [2M, 4M)" 2097152 \
	"$(buckets <<<"$lat" | awk '$2 > 0 { print $1; exit }')"
fixb=$(awk '$1 != "sink" && $2 > m { m = $2; b = $1 } END { print b }' \
	"$WORK/fix.out")
assert_eq "pair: busiest bucket as the fixture timed its calls" \
	"$((1 << (fixb - 1)))" "$(busiest <<<"$lat")"
rmdir "$MNT/$rid" || fail "rmdir of the return link"
assert_eq "pair: removing the return link removes both" "" \
	"$(cat "$MNT/control")"
bl_link_gone "pair: the entry link is released" "$id"
id=$(mk "u:$FIX:sight_* latency") || fail "pair pattern"
rid=$(awk -F'\t' -v id="$id" '$1 != id { print $1 }' "$MNT/control")
assert_eq "pair pattern: a return uprobe_multi link" uretprobe_multi \
	"$(cat "$MNT/$rid/type")"
"$FIX" sleep 2 3000 >/dev/null
"$FIX" hit 4 >/dev/null
lat=$(cat "$MNT/$id/latency")
assert_eq "pair pattern: sight_sleep's calls" 2 "$(sed -n \
	'/^@\[sight_sleep/,/^$/p' <<<"$lat" | buckets | awk '{ s += $2 } END { print s }')"
assert_eq "pair pattern: sight_hit's calls" 4 "$(sed -n \
	'/^@\[sight_hit/,/^$/p' <<<"$lat" | buckets | awk '{ s += $2 } END { print s }')"
echo "-$id" >"$MNT/control"
assert_eq "pair pattern: removing the entry link removes both" "" \
	"$(cat "$MNT/control")"

# --- stacks=kernel per reader: names for root, [unknown] for a reader
# who may not see kernel addresses (the rule of addr) ---
bl_stop_daemon
rmdir "$MNT"
bl_mount -o allow_other
id=$(mk "t:syscalls:sys_enter_getppid stacks=kernel") || fail "stacks link"
python3 -c 'import os; os.getppid()'
root_st=$(cat "$MNT/$id/stacks")
assert_match "stacks per reader: root sees the syscall entry" \
	'(entry_SYSCALL_64|do_syscall_64|el0_svc|invoke_syscall)' "$root_st"
if command -v setpriv >/dev/null; then
	nobody_st=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		cat "$MNT/$id/stacks")
	assert_match "stacks per reader: nobody reads the lines" \
		'\[unknown\][^ ]* [0-9]+' "$nobody_st"
	assert_eq "stacks per reader: nobody sees no kernel name" "" \
		"$(grep -v '^#' <<<"$nobody_st" | cut -d' ' -f1 | tr ';' '\n' |
			grep -v '^\[unknown\]$' | sort -u)"
fi
python3 - "$MNT/links.json" "$id" <<'PY' || fail "links.json carries stacks"
import json, sys
l = [l for l in json.loads(open(sys.argv[1], "rb").read())
     if l["id"] == int(sys.argv[2])][0]
assert "stacks" not in l and "hits" in l, l
PY
echo "-$id" >"$MNT/control"

# --- by= on a link adopted from a pin_dir: its own map, found again ---
bl_stop_daemon
rmdir "$MNT"
PIN=/sys/fs/bpf/bpflinkfs-sight-$$
bl_mount -o "pin_dir=$PIN"
id=$(mk "u:$FIX:sight_hit by=comm") || fail "pinned by= link"
"$FIX" hit 3 >/dev/null
bl_stop_daemon
rmdir "$MNT"
bl_mount -o "pin_dir=$PIN"
"$FIX" hit 2 >/dev/null
assert_eq "adopted by=: its lines go on" "$(printf '%s\t5' "$COMM")" \
	"$(cat "$MNT/$id/hits_by" 2>&1)"
echo "-*" >"$MNT/control"
bl_stop_daemon
rm -rf "$PIN"

finish
