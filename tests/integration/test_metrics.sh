#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# metrics.prom (bpflinkfs(8), metrics.prom) read by the real tools of the Prometheus
# stack, started here on loopback ports: promtool accepts the file with
# links of several kinds, among them uprobes whose paths hold '"', '\', a
# newline and bytes that are not UTF-8; node-exporter's textfile collector
# pointed at the mount serves every family with no scrape error and the
# hits of the hits file; a Prometheus server scraping it answers PromQL
# with the right value and a positive rate while the fixture runs. With
# kernel.bpf_stats_enabled=1 the built-in program's run count (bpftool's
# run_cnt) grows by at least the hits; with 0 the family is absent and
# features says so. The sysctl is restored afterwards.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"
source "$HERE/lib_control.sh"

bl_setup
for tool in promtool prometheus prometheus-node-exporter; do
	command -v $tool >/dev/null ||
		skip "$tool is not installed (scripts/deps.sh installs it)"
done
[ -d /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"
[ -r /proc/sys/kernel/bpf_stats_enabled ] ||
	skip "no kernel.bpf_stats_enabled sysctl"
TRACEFS=$(bl_tracefs) || skip "tracefs is not mounted and cannot be mounted"

OLD_STATS=$(cat /proc/sys/kernel/bpf_stats_enabled)
FIX_PID= NE_PID= PROM_PID=
metrics_cleanup() {
	local p
	for p in $FIX_PID $NE_PID $PROM_PID; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	echo "$OLD_STATS" >/proc/sys/kernel/bpf_stats_enabled
	bl_cleanup
}
trap metrics_cleanup EXIT

# free_port: a TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# http_get URL: the body, or nothing and status 1.
http_get() {
	python3 - "$1" <<'EOF'
import sys, urllib.request
try:
    sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read()
                     .decode("utf-8", "surrogateescape"))
except Exception as e:
    sys.stderr.write("%s: %s\n" % (sys.argv[1], e))
    sys.exit(1)
EOF
}

# wait_http WHAT URL PID: until URL answers (30 s) while PID runs.
wait_http() {
	local url=$2 pid=$3
	wait_for -q 30 eval 'http_get "$url" >/dev/null 2>&1 || bl_gone "$pid"'
	http_get "$2" >/dev/null 2>&1 && return 0
	die "$1 does not answer on $2"
}

# sample_value FILE METRIC LABEL VALUE: the value of the sample of METRIC
# whose label LABEL is VALUE (raw, unescaped), parsed by this test's own
# reading of the format; nothing when there is none.
sample_value() {
	python3 - "$@" <<'EOF'
import re, sys
path, metric, label, want = sys.argv[1:]
text = open(path, "rb").read().decode("utf-8")
lab = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
def unescape(v):
    return re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else
                  m.group(1), v)
for line in text.splitlines():
    if not line.startswith(metric + "{"):
        continue
    labels, value = line[len(metric) + 1:].rsplit("} ", 1)
    d = {k: unescape(v) for k, v in lab.findall(labels)}
    if d.get(label) == want:
        print(value)
        break
EOF
}

# A copy of the fixture that only this test runs, so hits are exact, and
# copies under hostile directory names: '"', '\', a newline (reached
# through a symlink: a control line cannot hold one, the canonical path
# does) and bytes that are not UTF-8.
mkdir "$WORK/tgt" || die "mkdir"
TGT=$WORK/tgt/bpflinkfs_target
cp "$(readlink -f "$TARGET")" "$TGT" || die "copy of the target"
NLDIR=$WORK/$'nl"q\\b\nx\xffy'
QDIR=$WORK/$'q"b\\c\xfe\xc3\xa9'
mkdir "$NLDIR" "$QDIR" || die "mkdir of the hostile dirs"
cp "$TGT" "$NLDIR/t" && cp "$TGT" "$QDIR/t" || die "copies of the target"
ln -s "$NLDIR" "$WORK/nl" || die "symlink"

bl_mount
mkid() {
	local id
	id=$(ctl_create "$1"$'\n') || die "creating '$1' failed: $(tail -3 \
		"$MNT/error_log")"
	echo "$id" | head -1
}
SPEC_A="u:$TGT:bpflinkfs_target_a"
ID_A=$(mkid "$SPEC_A")
ID_RET=$(mkid "ur:$TGT:bpflinkfs_target_b")
ID_NL=$(mkid "u:$WORK/nl/t:bpflinkfs_target_a")
# quoted PATH (bpflinkfs(8), CONTROL LANGUAGE): \" and \\ inside the quotes
qpath=${QDIR//\\/\\\\}
ID_Q=$(mkid "u:\"${qpath//\"/\\\"}/t\":bpflinkfs_target_a")
ID_TP=$(mkid "t:sched:sched_switch")
ID_SW=$(mkid "s:cpu-clock")
for v in ID_A ID_RET ID_NL ID_Q ID_TP ID_SW; do
	[ -n "${!v}" ] || die "no id for $v"
done
PROG_A=$(bpftool link show id "$ID_A" -j |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["prog_id"])')

# --- the file itself: promtool, and readers that splice ---------------
echo 1 >/proc/sys/kernel/bpf_stats_enabled
"$TGT" 10 >/dev/null
t cat "$MNT/metrics.prom" >"$WORK/m.prom" || fail "cat metrics.prom"
if out=$(promtool check metrics <"$WORK/m.prom" 2>&1); then
	ok
else
	fail "promtool check metrics: $out"
	cat "$WORK/m.prom" >&2
fi
assert_eq "features: bpf_stats on" "bpf_stats 1" \
	"$(grep '^bpf_stats ' "$MNT/features")"

# one HELP and one TYPE per family, no timestamps
FAMILIES="bpflinkfs_link_info bpflinkfs_link_hits_total bpflinkfs_links
bpflinkfs_prog_run_count_total bpflinkfs_prog_run_time_seconds_total"
for fam in $FAMILIES; do
	assert_eq "$fam: one TYPE" 1 "$(grep -c "^# TYPE $fam " "$WORK/m.prom")"
	assert_eq "$fam: one HELP" 1 "$(grep -c "^# HELP $fam " "$WORK/m.prom")"
done
assert_eq "no sample with a timestamp" "" \
	"$(grep -v '^#' "$WORK/m.prom" | grep -vE '^[a-z_]+\{.*\} [0-9.e+]+$')"

# the hostile names, escaped as the format says, derived here
expect_name() {
	python3 - "$1" <<'EOF'
import os, sys
p = os.path.realpath(os.fsencode(sys.argv[1]))
out, i = "", 0
while i < len(p):
    for l in (4, 3, 2, 1):
        try:
            ch = p[i:i + l].decode("utf-8")
            if len(ch) == 1:
                break
        except UnicodeDecodeError:
            pass
    else:
        out += "\\\\x%02x" % p[i]
        i += 1
        continue
    out += {'"': '\\"', "\\": "\\\\", "\n": "\\n"}.get(ch, ch)
    i += l
print('name="%s"' % out)
EOF
}
for v in ID_NL ID_Q; do
	want=$(expect_name "$([ $v = ID_NL ] && echo "$WORK/nl/t" ||
		echo "$QDIR/t")")
	line=$(grep "^bpflinkfs_link_info{id=\"${!v}\"," "$WORK/m.prom")
	assert_true "$v: link_info has $want (line: $line)" \
		grep -qF "$want" <<<"$line"
done
for v in ID_A ID_RET ID_NL ID_Q ID_TP; do
	assert_true "link_info of $v" grep -q \
		"^bpflinkfs_link_info{id=\"${!v}\",.*} 1$" "$WORK/m.prom"
done
assert_eq "links{type=uprobe} counts ours at least" yes "$(python3 -c '
import sys; print("yes" if int(sys.argv[1] or 0) >= 3 else "no")' \
	"$(sample_value "$WORK/m.prom" bpflinkfs_links type uprobe)")"

# every reader reads it whole: splice (Rust cat), sendfile (busybox),
# shutil, a byte at a time
RUST_CAT=/usr/lib/cargo/bin/coreutils/cat
read_with() {
	local to="timeout $HANG_S"
	case $1 in
	dd) $to dd bs=1 status=none if="$MNT/metrics.prom" ;;
	shutil) $to python3 -c 'import shutil, sys
shutil.copyfile(sys.argv[1], sys.argv[2])' "$MNT/metrics.prom" /dev/stdout ;;
	rust-cat) $to "$RUST_CAT" "$MNT/metrics.prom" ;;
	busybox) $to busybox cat "$MNT/metrics.prom" ;;
	esac
}
readers=(dd shutil)
[ -x "$RUST_CAT" ] && readers+=(rust-cat)
command -v busybox >/dev/null && readers+=(busybox)
for r in "${readers[@]}"; do
	read_with "$r" >"$WORK/r.prom" 2>"$WORK/r.err" ||
		fail "reader $r failed: $(cat "$WORK/r.err")"
	assert_true "$r: promtool accepts what it read" \
		promtool check metrics <"$WORK/r.prom"
	# the last family while statistics are on: a cut read lacks it
	assert_true "$r: read it whole (up to the run time family)" \
		grep -q "^bpflinkfs_prog_run_time_seconds_total{prog_id=\"$PROG_A\"," \
		"$WORK/r.prom"
done

# mtime: when the content was made, not the mount's
now=$(date +%s)
assert_true "mtime is now ($(stat -c %Y "$MNT/metrics.prom") vs $now)" \
	test $((now - $(stat -c %Y "$MNT/metrics.prom"))) -le 2

# --- per-target hits of a multi link (where this build makes them) -----
ID_M=$(ctl_create "u:$TGT:bpflinkfs_target_[bc]"$'\n' 2>/dev/null | head -1)
if [ -n "$ID_M" ] && [ -r "$MNT/$ID_M/funcs" ]; then
	"$TGT" 3 x >/dev/null # a 3 times, b and c once each
	cat "$MNT/metrics.prom" >"$WORK/multi.prom"
	for f in b c; do
		assert_eq "target hits of bpflinkfs_target_$f" 1 "$(python3 - \
			"$WORK/multi.prom" "$ID_M" "bpflinkfs_target_$f" <<'EOF'
import re, sys
path, id, sym = sys.argv[1:]
for l in open(path):
    m = re.match(r'bpflinkfs_link_target_hits_total\{id="(\d+)",'
                 r'target="([^"]*)"\} (\d+)$', l)
    # the target as funcs writes SYMBOL: func+0xOFF
    if m and m.group(1) == id and m.group(2) in (sym, sym + "+0x0"):
        print(m.group(3))
EOF
)"
	done
	assert_true "promtool accepts it with a multi link" \
		promtool check metrics <"$WORK/multi.prom"
	echo "-$ID_M" >"$MNT/control"
else
	echo "note: no multi link made here; per-target hits not checked"
fi

# --- run statistics: the built-in program's run count -----------------
stats() { # run_cnt of PROG_A from bpftool, and from metrics.prom
	bpftool prog show id "$PROG_A" -j | python3 -c '
import json, sys; print(json.load(sys.stdin).get("run_cnt", 0))'
}
h0=$(cat "$MNT/$ID_A/hits")
c0=$(sample_value "$MNT/metrics.prom" bpflinkfs_prog_run_count_total \
	prog_id "$PROG_A")
"$TGT" 500 >/dev/null
c1=$(sample_value "$MNT/metrics.prom" bpflinkfs_prog_run_count_total \
	prog_id "$PROG_A")
b1=$(stats)
h1=$(cat "$MNT/$ID_A/hits")
assert_eq "hits of the fixture's 500 calls" 500 $((h1 - h0))
assert_true "run count grew by the hits at least ($c0 -> $c1)" \
	test $((c1 - c0)) -ge $((h1 - h0))
assert_true "run count at most bpftool's after it ($c1 <= $b1)" \
	test "$c1" -le "$b1"
assert_match "run time in seconds" '^[0-9]+\.[0-9]{9}$' \
	"$(sample_value "$MNT/metrics.prom" \
		bpflinkfs_prog_run_time_seconds_total prog_id "$PROG_A")"

# --- node-exporter's textfile collector on the mount ------------------
NE_PORT=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$NE_PORT" \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$MNT" >"$WORK/ne.log" 2>&1 &
NE_PID=$!
wait_http node-exporter "http://127.0.0.1:$NE_PORT/metrics" "$NE_PID"
# the fixture is still: hits read before and after the scrape bracket it
ha=$(cat "$MNT/$ID_A/hits")
ta=$(date +%s)
http_get "http://127.0.0.1:$NE_PORT/metrics" >"$WORK/ne.prom" ||
	fail "scrape of node-exporter"
tb=$(date +%s)
hb=$(cat "$MNT/$ID_A/hits")
assert_eq "node_textfile_scrape_error" 0 "$(sed -n \
	's/^node_textfile_scrape_error \([0-9.e+-]*\)$/\1/p' "$WORK/ne.prom")"
for fam in $FAMILIES; do
	assert_true "node-exporter serves $fam" grep -q "^$fam{" "$WORK/ne.prom"
done
hn=$(sample_value "$WORK/ne.prom" bpflinkfs_link_hits_total spec "$SPEC_A")
assert_true "node-exporter's hits ($hn) within the hits file ($ha..$hb)" \
	test -n "$hn" -a "${hn:-0}" -ge "$ha" -a "${hn:-0}" -le "$hb"
want=$(expect_name "$WORK/nl/t")
assert_true "node-exporter carries the newline path ($want)" \
	grep -qF "$want" "$WORK/ne.prom"
mt=$(sed -n 's/^node_textfile_mtime_seconds{file="[^"]*metrics.prom"} //p' \
	"$WORK/ne.prom")
assert_true "node_textfile_mtime_seconds is the scrape's time ($ta <= $mt <= $tb)" \
	python3 -c 'import sys; a, m, b = map(float, sys.argv[1:])
sys.exit(not a - 1 <= m <= b + 1)' "$ta" "${mt:-0}" "$tb"

# --- a Prometheus server scraping node-exporter ------------------------
PROM_PORT=$(free_port)
cat >"$WORK/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: bpflinkfs
    static_configs:
      - targets: ['127.0.0.1:$NE_PORT']
EOF
prometheus --config.file="$WORK/prometheus.yml" \
	--storage.tsdb.path="$WORK/tsdb" \
	--web.listen-address="127.0.0.1:$PROM_PORT" >"$WORK/prom.log" 2>&1 &
PROM_PID=$!
wait_http prometheus "http://127.0.0.1:$PROM_PORT/-/ready" "$PROM_PID"
# promql QUERY: the value of the first result of an instant query
promql() {
	python3 - "http://127.0.0.1:$PROM_PORT/api/v1/query" "$1" <<'EOF'
import json, sys, urllib.parse, urllib.request
url = sys.argv[1] + "?" + urllib.parse.urlencode({"query": sys.argv[2]})
try:
    r = json.load(urllib.request.urlopen(url, timeout=5))
except Exception as e:
    sys.exit(str(e))
res = r.get("data", {}).get("result", [])
if r.get("status") == "success" and res:
    print(res[0]["value"][1])
EOF
}
Q="bpflinkfs_link_hits_total{spec=\"$SPEC_A\"}"
# the fixture runs: rate() over the hits is positive
# (kept: 0.05 s between runs of 100 calls, a steady rate for 5 s windows;
# it ends its current run and stops once fix.stop exists)
( while [ ! -e "$WORK/fix.stop" ]; do
	"$TGT" 100 >/dev/null
	sleep 0.05
done ) &
FIX_PID=$!
rate=
# rate_up: the query's rate() is positive
rate_up() {
	rate=$(promql "rate($Q[5s])")
	python3 -c 'import sys; sys.exit(not float(sys.argv[1] or 0) > 0)' \
		"${rate:-0}" 2>/dev/null
}
wait_for -q 60 rate_up # a busy host scrapes late
assert_true "PromQL rate($Q[5s]) > 0 while the fixture runs ($rate)" \
	python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > 0)' \
	"${rate:-0}"
# the fixture stops after the run it is in (a kill would leave that run
# going to its end: CI's sanitizer pass once read the hits 100 calls
# short): then the query answers the hits file's value
touch "$WORK/fix.stop"
wait "$FIX_PID" 2>/dev/null
FIX_PID=
h=$(cat "$MNT/$ID_A/hits")
v=
wait_for -q 30 eval 'v=$(promql "$Q"); [ "$v" == "$h" ]'
assert_eq "PromQL $Q" "$h" "$v"
kill "$PROM_PID" "$NE_PID"
wait "$PROM_PID" "$NE_PID" 2>/dev/null
PROM_PID= NE_PID=

# --- statistics off: the family is absent, features says so ------------
echo 0 >/proc/sys/kernel/bpf_stats_enabled
t cat "$MNT/metrics.prom" >"$WORK/off.prom" || fail "cat metrics.prom"
assert_eq "bpf_stats 0: no run count family" 0 \
	"$(grep -c 'bpflinkfs_prog_run' "$WORK/off.prom")"
assert_eq "features: bpf_stats off" "bpf_stats 0" \
	"$(grep '^bpf_stats ' "$MNT/features")"
assert_true "promtool accepts it with statistics off" \
	promtool check metrics <"$WORK/off.prom"
echo "$OLD_STATS" >/proc/sys/kernel/bpf_stats_enabled

# removed links leave the file
echo "-$ID_Q" >"$MNT/control"
assert_eq "a removed link leaves metrics.prom" 0 \
	"$(grep -c "{id=\"$ID_Q\"" "$MNT/metrics.prom")"
echo '-*' >"$MNT/control"
finish
