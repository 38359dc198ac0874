#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# cost_per_hit.sh [--quick] [--vm] [ROUNDS]
#
# Nanoseconds per call of a probed function, in paired rounds, under:
#   none     no probe
#   empty    the same probe with an empty program (`return 0`), attached
#            with libbpf (empty_attach.c, empty.bpf.c)
#   counter  bpflinkfs's built-in counter, made through control
#   bpftrace Debian's bpftrace with `{ @ = count(); }` on the same probe
#   events   the built-in counter with a reader draining `cat ID/events`
#            (into awk, which counts the lines and `# lost N`)
#   btprintf bpftrace `printf("%d %d %s\n", pid, tid, comm)` on the same
#            probe, its output drained the same way
# for two rows: uprobe (hit_fixture calls an empty noinline function that
# starts with `push %rbp`) and tracepoint (syscalls:sys_enter_getpid, the
# fixture calls getpid). The fixture runs on CPU 0 (taskset), everything
# else on the last CPU. Overhead per hit = time per call - none's;
# reported: counter/empty and counter/bpftrace (medians over rounds of the
# ratio paired within each round), whether the counter's own cost above
# the empty program is at most half of bpftrace's, and events/btprintf.
# Each run is checked: the counter's hits and bpftrace's @ must hold the
# calls made (a probe that did not fire would make a cheap, false figure);
# the events stream's lines + `# lost N` must account for the hits, and
# bpftrace's printed lines + its "Lost N events" for the calls.
#
# A second pass (kernel.bpf_stats_enabled, STATS_CALLS calls a run) takes
# each program's own time per hit under empty, counter, bpftrace and the
# floor: the least any counting program can do (empty.bpf.c's floor_*,
# one global in .bss plus one; its count checked), so the report can say
# whether counter/empty's goal lies below what counting costs at all.
#
# --vm runs the fentry row instead, in the qemu lanes (cost_per_hit_vm.sh).
#
# N calls per run: 10,000,000 (--quick: 1,000,000; CALLS=N sets it).
# ROUNDS default 5 (--quick 3). Needs root, gcc, clang, libbpf, bpftrace,
# the daemon (BPFLINKFS or build/fs/bpflinkfs); exits 77 when it cannot.
# Table to stdout and bench/results/cost_per_hit-DATE-KERNEL.txt.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
daemon=${BPFLINKFS:-$root/build/fs/bpflinkfs}
calls=10000000
rounds=5
for a in "$@"; do
	case $a in
	--quick) calls=1000000 rounds=3 ;;
	--vm)
		args=()
		for b in "$@"; do [ "$b" = --vm ] || args+=("$b"); done
		exec bash "$here/cost_per_hit_vm.sh" "${args[@]}" ;;
	[0-9]*) rounds=$a ;;
	*) echo "usage: cost_per_hit.sh [--quick] [--vm] [ROUNDS]" >&2; exit 2 ;;
	esac
done
calls=${CALLS:-$calls}

skip() {
	echo "cost_per_hit.sh: SKIP: $*" >&2
	exit 77
}
[ "$(id -u)" -eq 0 ] || skip "needs root"
for t in gcc clang bpftrace taskset objdump fusermount3 python3; do
	command -v "$t" >/dev/null || skip "$t not found"
done
[ -x "$daemon" ] || skip "no daemon at $daemon (ninja -C build)"
[ -e /dev/fuse ] || skip "no /dev/fuse"

ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || skip "needs 2 CPUs (fixture and the rest apart)"
last=$((ncpu - 1))
work=$(mktemp -d /tmp/bench-cost.XXXXXX)
mnt=$work/mnt
dpid= hpid=
cleanup() {
	[ -n "$hpid" ] && kill "$hpid" 2>/dev/null && wait "$hpid" 2>/dev/null
	if [ -n "$dpid" ]; then
		mountpoint -q "$mnt" && fusermount3 -u "$mnt" 2>/dev/null
		wait "$dpid" 2>/dev/null || true
	fi
	[ "${KEEP:-0}" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$mnt"

fix=$work/hit_fixture
gcc -O2 -o "$fix" "$here/hit_fixture.c"
first=$(objdump -d --no-show-raw-insn "$fix" |
	awk '/<hot_fn>:$/ {getline; print $2; exit}')
[ "$first" = push ] || skip "hot_fn starts with '$first', not push"
clang -O2 -g -target bpf -I"/usr/include/$(gcc -print-multiarch)" -c "$here/empty.bpf.c" -o "$work/empty.bpf.o"
gcc -O2 -o "$work/empty_attach" "$here/empty_attach.c" -lbpf
taskset -c "$last" "$daemon" "$mnt" -f 2>"$work/daemon.log" &
dpid=$!
for _ in $(seq 100); do
	[ -e "$mnt/control" ] && break
	sleep 0.1
done
[ -e "$mnt/control" ] || skip "the daemon did not mount: $(cat "$work/daemon.log")"

# run_fixture MODE: ns per call on CPU 0. With $stats_out set, the run
# has the kernel's BPF run statistics on, and the time per run of the
# probe's program (of the programs whose run_cnt grew by the calls at
# least, as `bpftool -j prog show` reports it, the one that grew least:
# another helper's program on a busier hook, such as every system call,
# grows more) and its name are appended to $stats_out.
run_fixture() {
	local was
	if [ -n "${stats_out:-}" ]; then
		was=$(sysctl -n kernel.bpf_stats_enabled)
		bpftool -j prog show >"$work/progs0.json"
		sysctl -qw kernel.bpf_stats_enabled=1
	fi
	taskset -c 0 "$fix" "$1" "$calls" | cut -d' ' -f1
	[ -n "${stats_out:-}" ] || return 0
	sysctl -qw kernel.bpf_stats_enabled="$was"
	bpftool -j prog show >"$work/progs1.json"
	python3 - "$work/progs0.json" "$work/progs1.json" "$calls" \
		>>"$stats_out" <<-'PY'
	import json, sys
	before = {p["id"]: p for p in json.load(open(sys.argv[1]))}
	best = None
	for p in json.load(open(sys.argv[2])):
	    q = before.get(p["id"], {})
	    cnt = p.get("run_cnt", 0) - q.get("run_cnt", 0)
	    ns = p.get("run_time_ns", 0) - q.get("run_time_ns", 0)
	    if cnt >= int(sys.argv[3]) and (best is None or cnt < best[0]):
	        best = (cnt, ns, p.get("name", "-"))
	print("%.3f\t%s" % (best[1] / best[0], best[2]) if best else "nan\t-")
	PY
}

fixture_mode() { [ "$1" = uprobe ] && echo uprobe || echo getpid; }
probe_of() {
	[ "$1" = uprobe ] && echo "uprobe:$fix:hot_fn" ||
		echo "tracepoint:syscalls:sys_enter_getpid"
}

# make_counter ROW: a counter link through control; prints its id
make_counter() {
	local id
	exec 3<>"$mnt/control"
	echo "$(probe_of "$1")" >&3
	read -r id <&3
	exec 3>&-
	echo "$id"
}

# A reader's drain: awk counts the lines of a stream (LINES: all the
# records, FIX: those of the fixture's comm, LOST: the sum of `# lost N`
# and bpftrace's "Lost N events"), and notes bpftrace's "Attaching" line.
# It writes its count every 65536 lines, so the caller can see it settle.
count_stream() {
	taskset -c "$last" awk -v f="$work/count" -v a="$work/attached" '
	function dump() { printf "%d %d %d\n", n, fx, lost > f; close(f) }
	/^Attaching/ { print > a; close(a); next }
	/^# lost / { lost += $3; next }
	/^Lost [0-9]+ events/ { lost += $2; next }
	/^$/ { next } # bpftrace ends with an empty line
	{ n++; if ($NF == "hit_fixture") fx++; if (n % 65536 == 0) dump() }
	END { dump() }'
}

# settle: wait until the drain's count has not moved for 0.5 s (at most 30 s)
settle() {
	local prev= cur i
	for i in $(seq 60); do
		sleep 0.5
		cur=$(cat "$work/count" 2>/dev/null)
		[ "$cur" = "$prev" ] && return
		prev=$cur
	done
}

# check_stream HOW ROW H: the drain's count against the calls (and, for the
# events stream, H hits counted between before the open and after the close);
# appends to checks.tsv, prints the verdict
check_stream() {
	local how=$1 row=$2 h=$3 lines fx lost ok=yes
	read -r lines fx lost <"$work/count"
	# every call of the fixture is a line or a counted loss
	[ $((fx + lost)) -ge "$calls" ] || ok=no
	# nothing printed that was not hit (the events stream)
	[ "$how" = events ] && [ $((lines + lost)) -gt "$h" ] && ok=no
	# only the fixture calls hot_fn: exact
	[ "$row" = uprobe ] && [ $((lines + lost)) -ne "$calls" ] && ok=no
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$row" "$how" \
		"$lines" "$fx" "$lost" "$h" "$ok" >>"$work/checks.tsv"
	[ "$ok" = yes ] || echo "$how $row: lines $lines (fixture $fx) lost $lost" \
		"hits $h for $calls calls: not accounted" >&2
}

# measure ROW HOW: ns per call, after checking the probe fired
measure() {
	local row=$1 how=$2 mode ns id hits h0 out apid pre
	mode=$(fixture_mode "$row")
	rm -f "$work/count" "$work/attached" "$work/drain"
	case $how in
	none) run_fixture "$mode" ;;
	empty | floor)
		# floor: the floor- program (n++ on a global), its count checked
		pre=
		[ "$how" = floor ] && pre=floor-
		if [ "$row" = uprobe ]; then
			set -- "${pre}uprobe" "$fix" hot_fn
		else
			set -- "${pre}tracepoint" syscalls sys_enter_getpid
		fi
		# a simple command (so unnamed), so COPROC_PID is the program
		coproc taskset -c "$last" "$work/empty_attach" \
			"$work/empty.bpf.o" "$@" 2>"$work/attach.err"
		hpid=$COPROC_PID
		read -r out <&"${COPROC[0]}"
		[ "$out" = ready ] || { echo "empty_attach failed" >&2; exit 1; }
		ns=$(run_fixture "$mode")
		kill "$hpid"; wait "$hpid" 2>/dev/null || true; hpid=
		if [ "$how" = floor ]; then
			# its n++ is not atomic: getpid on the other CPU can
			# lose a few of the fixture's; half shows it fired
			hits=$(sed -n 's/^hits //p' "$work/attach.err")
			[ "${hits:-0}" -ge $((calls / 2)) ] || { echo "floor:" \
				"${hits:-no} hits for $calls calls" >&2; exit 1; }
		fi
		echo "$ns" ;;
	counter)
		id=$(make_counter "$row")
		ns=$(run_fixture "$mode")
		hits=$(cat "$mnt/$id/hits")
		echo "-$id" >"$mnt/control"
		[ "$hits" -ge "$calls" ] ||
			{ echo "counter: $hits hits < $calls calls" >&2; exit 1; }
		echo "$ns" ;;
	bpftrace)
		taskset -c "$last" bpftrace -e \
			"$(probe_of "$row") { @ = count(); }" >"$work/bt.out" 2>&1 &
		hpid=$!
		for _ in $(seq 300); do
			grep -qs Attaching "$work/bt.out" && break
			sleep 0.1
		done
		sleep 2 # it prints before it attaches
		ns=$(run_fixture "$mode")
		kill -INT "$hpid"; wait "$hpid" 2>/dev/null || true; hpid=
		hits=$(sed -n 's/^@: //p' "$work/bt.out")
		[ "${hits:-0}" -ge "$calls" ] ||
			{ echo "bpftrace: @ ${hits:-none} < $calls calls" >&2; exit 1; }
		echo "$ns" ;;
	events)
		id=$(make_counter "$row")
		mkfifo "$work/drain"
		count_stream <"$work/drain" & apid=$!
		h0=$(cat "$mnt/$id/hits")
		taskset -c "$last" cat "$mnt/$id/events" >"$work/drain" &
		hpid=$!
		sleep 1 # the open switches recording on
		ns=$(run_fixture "$mode")
		settle
		kill "$hpid"; wait "$hpid" 2>/dev/null || true; hpid=
		wait "$apid"
		hits=$(cat "$mnt/$id/hits")
		echo "-$id" >"$mnt/control"
		check_stream events "$row" $((hits - h0))
		echo "$ns" ;;
	btprintf)
		mkfifo "$work/drain"
		count_stream <"$work/drain" & apid=$!
		taskset -c "$last" bpftrace -e "$(probe_of "$row") \
			{ printf(\"%d %d %s\\n\", pid, tid, comm); }" \
			>"$work/drain" 2>"$work/bt.err" &
		hpid=$!
		for _ in $(seq 300); do
			[ -e "$work/attached" ] && break
			sleep 0.1
		done
		sleep 2 # it prints before it attaches
		ns=$(run_fixture "$mode")
		settle
		kill -INT "$hpid"; wait "$hpid" 2>/dev/null || true; hpid=
		wait "$apid"
		# bpftrace may say "Lost N events" on stderr
		lost=$(sed -n 's/.*Lost \([0-9]*\) events.*/\1/p' "$work/bt.err" |
			awk '{ s += $1 } END { print s + 0 }')
		read -r lines fx l2 <"$work/count"
		echo "$lines $fx $((l2 + lost))" >"$work/count"
		check_stream btprintf "$row" 0
		echo "$ns" ;;
	esac
}

raw=$work/raw.tsv
hows=(none empty counter bpftrace events btprintf)
: >"$work/checks.tsv"
for r in $(seq "$rounds"); do
	for row in uprobe tracepoint; do
		# rotate the order each round, so drift favours no one
		for k in "${!hows[@]}"; do
			how=${hows[$(((k + r) % ${#hows[@]}))]}
			printf '%s\t%s\t%s\t%s\n' "$r" "$row" "$how" \
				"$(measure "$row" "$how")" >>"$raw"
		done
	done
	echo "round $r/$rounds done" >&2
done

# The program's own time per hit, as the kernel measures it around each
# run (kernel.bpf_stats_enabled): the loop's figures differ by a few ns
# between the empty program and the counter, while a getpid costs ~1 us
# here and moves by hundreds of ns between rounds. Runs of STATS_CALLS
# calls (the statistics cost a clock read per run, so these runs are
# not timed for the table above). With them the floor: the least any
# counting program takes (empty.bpf.c's floor_*, n++ on one global), so
# that the report can say whether the goal is below what counting costs.
stats=$work/stats.tsv
: >"$stats"
saved_calls=$calls
calls=${STATS_CALLS:-200000}
stat_hows=(empty floor counter bpftrace)
for r in $(seq "$rounds"); do
	for row in uprobe tracepoint; do
		for k in "${!stat_hows[@]}"; do
			how=${stat_hows[$(((k + r) % ${#stat_hows[@]}))]}
			printf '%s\t%s\t%s\t' "$r" "$row" "$how" >>"$stats"
			stats_out=$stats measure "$row" "$how" >/dev/null
		done
	done
done
calls=$saved_calls

out=$here/results/cost_per_hit-$(date +%Y%m%d-%H%M)-$(uname -r).txt
mkdir -p "$here/results"
python3 - "$raw" "$work/checks.tsv" "$calls" "$rounds" "$stats" <<'PY' | tee "$out"
import collections, math, statistics, sys, os
raw, checks, calls, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
stats = collections.defaultdict(list)
names = collections.defaultdict(set)  # the programs the statistics timed
for line in open(sys.argv[5]):
    r, row, how, v, name = line.split()
    if not math.isnan(float(v)):
        stats[(row, how)].append(float(v))
        names[(row, how)].add(name)
HOWS = ("none", "empty", "counter", "bpftrace", "events", "btprintf")
ns = collections.defaultdict(dict)
for line in open(raw):
    r, row, how, v = line.split()
    ns[(row, int(r))][how] = float(v)
u = os.uname()
print("bpflinkfs cost per hit: ns per call of a probed function, %d calls a run, "
      "%d paired rounds" % (calls, rounds))
print("kernel %s, %d CPUs, fixture on CPU 0, load %s\n" % (
    u.release, os.cpu_count(), " ".join(open("/proc/loadavg").read().split()[:3])))
print("%-11s %8s %8s %8s %8s %8s %8s" % (("row",) + HOWS))
summary = []
for row in ("uprobe", "tracepoint"):
    rs = [ns[(row, r)] for r in range(1, rounds + 1)]
    med = {h: statistics.median(x[h] for x in rs) for h in HOWS}
    print("%-11s %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f" % ((row,) + tuple(med[h] for h in HOWS)))
    print("%-11s %8s %8.1f %8.1f %8.1f %8.1f %8.1f" % (("  overhead", "") + tuple(
        med[h] - med["none"] for h in HOWS[1:])))
    def paired(a, b):
        return statistics.median((x[a] - x["none"]) / (x[b] - x["none"]) for x in rs)
    # the counter's own cost above the empty program, against bpftrace's
    own = [(x["counter"] - x["empty"]) / (x["bpftrace"] - x["empty"])
           for x in rs if x["bpftrace"] > x["empty"]]
    summary.append((row, paired("counter", "empty"), paired("counter", "bpftrace"),
                    statistics.median(own) if own else None,
                    paired("events", "btprintf")))
print("\nratios of overhead per hit, paired within each round (median):")
def goal(v, lim):
    return "met" if v <= lim else "NOT met"
for row, c_e, c_b, own, e_p in summary:
    print("  %-11s counter/empty %.3f (goal <= 1.05: %s)   counter/bpftrace %.3f "
          "(goal <= 1.0: %s)" % (row, c_e, goal(c_e, 1.05), c_b, goal(c_b, 1.0)))
    print("  %-11s (counter-empty)/(bpftrace-empty) %s" % ("", "n/a (bpftrace not above "
          "the empty program in any round)" if own is None else "%.2f (moonshot <= 0.5: %s)"
          % (own, "met" if own <= 0.5 else "not met")))
    print("  %-11s events/btprintf %.3f (goal <= 1.0: %s)" % ("", e_p, goal(e_p, 1.0)))
print("  fentry: bench/cost_per_hit.sh --vm (qemu lanes; this host refuses\n"
      "  trampoline programs)")
print("\nthe program's own time per hit, from the kernel's run statistics "
      "(median of %d runs;\nempty, floor (n++ on one global), counter, "
      "bpftrace count()), and the overhead\nper hit rebuilt as the empty "
      "program's (the loop's median, above) plus the\nprogram's extra time:"
      % rounds)
for row, *_ in summary:
    t = {h: statistics.median(stats[(row, h)]) if stats[(row, h)] else None
         for h in ("empty", "floor", "counter", "bpftrace")}
    if None in t.values():
        print("  %-11s (no statistics)" % row)
        continue
    rs = [ns[(row, r)] for r in range(1, rounds + 1)]
    base = statistics.median(x["empty"] - x["none"] for x in rs)
    c_e = (base + t["counter"] - t["empty"]) / base
    f_e = (base + t["floor"] - t["empty"]) / base
    own = ((t["counter"] - t["empty"]) / (t["bpftrace"] - t["empty"])
           if t["bpftrace"] > t["empty"] else None)
    print("  %-11s program ns: empty %.1f  floor %.1f  counter %.1f  bpftrace %.1f"
          % (row, t["empty"], t["floor"], t["counter"], t["bpftrace"]))
    print("  %-11s (programs: %s)" % ("", "  ".join(
          "%s %s" % (h, ",".join(sorted(names[(row, h)])))
          for h in ("empty", "floor", "counter", "bpftrace"))))
    print("  %-11s counter/empty %.3f (goal <= 1.05: %s)   (counter-empty)/"
          "(bpftrace-empty) %s" % ("", c_e, goal(c_e, 1.05), "n/a" if own is None
          else "%.2f (moonshot <= 0.5: %s)" % (own, "met" if own <= 0.5 else "not met")))
    # the floor: the least any counting program adds here; a goal under
    # it cannot be met by any counter
    print("  %-11s floor/empty rebuilt %.3f (the least any counting program "
          "adds here%s); counter above the floor: %.1f ns" % (
          "", f_e, ": the goal 1.05 is below the floor" if f_e > 1.05 else "",
          t["counter"] - t["floor"]))
print("\nper round, ns per call (%s):" % " ".join(HOWS))
for (row, r), x in sorted(ns.items()):
    print("  %-11s r%d %s" % (row, r, " ".join("%.1f" % x[h] for h in HOWS)))
print("\nstreams, per run: lines (of the fixture), lost, hits counted while open "
      "(events), accounted")
for line in open(checks):
    r, row, how, lines, fx, lost, h, ok = line.split()
    print("  %-11s r%s %-8s lines %9s (%9s)  lost %9s  hits %9s  %s" % (
        row, r, how, lines, fx, lost, h if how == "events" else "-",
        "accounted" if ok == "yes" else "NOT ACCOUNTED"))
PY
echo "cost_per_hit.sh: written to $out" >&2
# a stream that did not account for every hit makes its figure suspect
! grep -q $'\tno$' "$work/checks.tsv"
