#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# every.sh [--quick] [--runs R] [--sizes "N..."] [--only json|glob|funcs]
#          [--cpu C]
#
# The speed of every link in view (every link type, wildcard multi links),
# each side by side with its reference in one run, in paired rounds (the
# commands alternate, the order changes every round, so a busy host
# moves all alike), reported as ratios:
#
#  1. `cat MNT/links.json` over N foreign links of mixed types against
#     `bpftool -j link show` 7.5 (built without the pid iterator here, so
#     it prints no pids and does less). N = 1,000 and 10,000 (--quick:
#     1,000). Goal at most 0.5x, moonshot 0.3x. A third command in the
#     same rounds gives the floor: `cat` of a regular file holding the
#     same bytes as links.json (copied just before, so in the page cache),
#     the least any implementation can take (process start, open, read);
#     the report says whether the goal is below it (floor / bpftool above
#     0.5) and how far links.json is above it (ms).
#     On the same set and mount, each in rounds of its own:
#     - `cat MNT/links` (the tab-separated table) against the same bpftool
#       command and its own floor (a regular file of links' bytes): rows
#       "links / bpftool" (goal at most 0.5x at 1,000, 0.3x at 10,000) and
#       "links above the floor" (ms, with floor / bpftool);
#     - `cat MNT/metrics.prom` the same way: "metrics.prom / bpftool" (the
#       same goals) and "metrics.prom above the floor";
#     - one link's files: `ls -l MNT/ID` and `grep -r . MNT/ID` (ID: the
#       first link of holder 2, a uprobe link held by a process) against
#       the same commands on FLOOR/1 of the FUSE floor (bench/fusefloor.c,
#       built here, mounted with -o ndirs=<directories in MNT>,
#       nfiles=<files in MNT/ID>,table=<bytes of links.json>): rows
#       "ls -l ID / fusefloor" and "grep -r . ID / fusefloor", goal at most
#       1.3x. The floor is unmounted at the end of each N and on exit.
#  2. One uprobe_multi link of 1,000 functions by glob through control
#     (`uprobe:FIXTURE:bench_fn_*`, the write(2) timed) against libbpf's
#     bpf_program__attach_uprobe_multi() with the same pattern (the call
#     timed, bench/glob_attach.c, built here against libbpf 1.3+ from
#     bookworm-backports, bench/libbpf_bpo.sh). Goal at least 1.0x the
#     rate, moonshot 2x. Skipped, saying why, when no such libbpf can be had.
#  3. `cat ID/funcs` of one 10,000-target uprobe_multi link (made through
#     control) against `bpftool link show id ID` 7.5. Goal at most 1.0x.
#
# The set of part 1, per N: uprobe, uretprobe and uprobe_multi links (few:
# the kernel releases one uprobe link in ~0.1 s, serialised), tracepoint
# links on rarely firing tracepoints (at most 60 a tracepoint: the kernel
# takes 64 programs), raw_tracepoint links, and software `dummy` events
# (they never fire) for the rest; made by tests/tools/mklinks, each link
# with a program of its own. 90% are held by 4 processes (one of them
# forked, so its links have two pids), 10% are pinned in bpffs and held by
# no process. Teardown (holders exit, pins removed) runs at the end; at
# N = 10,000 the kernel needs ~40 s for it.
#
# --only PART runs that part alone (the table has its rows only); with
# --only glob the table also gives the daemon's CPU time per glob write
# (the sum of its threads' /proc/PID/task/TID/schedstat run times, read
# before and after each write). --cpu C pins the daemon, the FUSE floor
# and both sides of every comparison to CPU C (taskset), so that the two
# do not differ in which CPU they get on a shared host.
#
# Needs root, the build (ninja -C build), python3, gcc, pkg-config and
# libfuse3's headers (the FUSE floor), clang (part 2), fusermount3. Writes bench/results/every-DATE-KERNEL.txt. Exit 77 when it
# cannot run here.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
daemon=${BPFLINKFS:-$root/build/fs/bpflinkfs}
mklinks=$root/build/tests/tools/mklinks
cache=$here/cache
sizes="1000 10000"
runs=20
funcs_n=10000
glob_n=1000
only=
pin=()

while [ $# -gt 0 ]; do
	case $1 in
	--quick) sizes=1000 runs=10 ;;
	--runs) runs=${2:?}; shift ;;
	--sizes) sizes=${2:?}; shift ;;
	--only) only=${2:?}; shift ;;
	--cpu) pin=(taskset -c "${2:?}"); shift ;;
	*) echo "usage: every.sh [--quick] [--runs R] [--sizes \"N...\"] [--only json|glob|funcs] [--cpu C]" >&2
		exit 2 ;;
	esac
	shift
done

case $only in
'' | glob | funcs) ;;
json) ;;
*) echo "every.sh: --only json, glob or funcs" >&2; exit 2 ;;
esac
[ "$only" = glob ] || [ "$only" = funcs ] && sizes=
# part PART: whether this run has it
part() { [ -z "$only" ] || [ "$only" = "$1" ]; }

skip() { echo "every.sh: SKIP: $*" >&2; exit 77; }
note() { echo "every.sh: $*" >&2; }

[ "$(id -u)" = 0 ] || skip "needs root (BPF links, FUSE mounts)"
for t in python3 gcc pkg-config fusermount3 mountpoint readelf nm; do
	command -v "$t" >/dev/null || skip "$t not found"
done
for f in "$daemon" "$mklinks"; do
	[ -x "$f" ] || skip "no $f (ninja -C build)"
done
mountpoint -q /sys/fs/bpf || skip "bpffs not mounted on /sys/fs/bpf"
for tracefs in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -d "$tracefs/events/sched" ] && break
done
[ -d "$tracefs/events/sched" ] || skip "no tracefs"
if [ "$only" = glob ]; then
	bpftool_ver=none
else
	bpo=$(bash "$root/scripts/bpftool_bpo.sh" 2>/dev/null) ||
		skip "bpftool 7.5 from bookworm-backports cannot be had"
	bpftool75=$(sed -n 1p <<<"$bpo")
	bpftool_lib=$(sed -n 2p <<<"$bpo")
	bpftool_ver=$(LD_LIBRARY_PATH=$bpftool_lib "$bpftool75" version | sed -n 1p)
fi

stamp=$(date +%Y%m%d-%H%M)
kernel=$(uname -r)
out=$here/results/every-$stamp-$kernel.txt
work=$(mktemp -d /tmp/bpflinkfs-every.XXXXXX)
mnt=$work/mnt
floor_mnt=$work/floor
floor_pid=
pins=/sys/fs/bpf/bpflinkfs-every-$$
tsv=$work/results.tsv
: >"$tsv"
daemon_pid=
holder_fds=()
holder_pids=()

# Let the holders exit (their links go), remove the pins, unmount.
release_set() {
	local fd p t0=$SECONDS
	for fd in "${holder_fds[@]}"; do
		eval "exec $fd>&-"
	done
	for p in "${holder_pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	holder_fds=() holder_pids=()
	rm -rf "$pins"
	[ "$((SECONDS - t0))" -gt 1 ] &&
		note "released the set in $((SECONDS - t0)) s"
	return 0
}

cleanup() {
	set +e
	release_set
	umount_floor
	if mountpoint -q "$mnt" 2>/dev/null; then
		fusermount3 -u "$mnt" || fusermount3 -uz "$mnt"
	fi
	[ -n "$daemon_pid" ] && wait "$daemon_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

mount_daemon() {
	local i
	mkdir -p "$mnt"
	"${pin[@]}" "$daemon" "$mnt" -f >/dev/null 2>>"$work/daemon.log" &
	daemon_pid=$!
	for i in $(seq 100); do
		mountpoint -q "$mnt" && [ -e "$mnt/control" ] && return 0
		sleep 0.1
	done
	cat "$work/daemon.log" >&2
	echo "every.sh: the daemon did not mount" >&2
	exit 1
}

umount_daemon() {
	fusermount3 -u "$mnt"
	wait "$daemon_pid" 2>/dev/null || true
	daemon_pid=
}

fixture() { # fixture N: print the path of a fixture with N bench_fn_*
	local d=$cache/fixture-$1
	[ -x "$d/fixture" ] && [ -s "$d/symbols.txt" ] ||
		sh "$here/fixture_gen.sh" "$d" "$1" >&2
	echo "$d/fixture"
}

# paired KEY_A KEY_B CMD_A CMD_B [KEY_C CMD_C]: R rounds of the two (or
# three) commands, wall time of each run; the order within a round
# rotates every round and, with three, flips every three rounds (two:
# A B, B A, ...; three: ABC BCA CAB CBA ACB BAC), so no command is always
# first and a busy host moves all alike. Rows KEY<TAB>seconds...
paired() {
	"${pin[@]}" python3 - "$runs" "$@" >>"$tsv" <<-'EOF'
	import subprocess, sys, time
	r, ka, kb, ca, cb = int(sys.argv[1]), *sys.argv[2:6]
	keys, cmds = [ka, kb], [ca, cb]
	if len(sys.argv) > 6:
	    keys.append(sys.argv[6]); cmds.append(sys.argv[7])
	# bpftool 7.5's `link show id ID` exits 255 after printing the link
	# whole (any link type): the reference's (B's) status is not checked
	def run(c):
	    t = time.perf_counter()
	    subprocess.run(c, shell=True, stdout=subprocess.DEVNULL,
	                   check=c != cb)
	    return time.perf_counter() - t
	for c in cmds:  # warm-up
	    run(c)
	# rotations (each command in each place once every len(cmds)
	# rounds), then the same reversed (which one follows which flips)
	n = len(cmds)
	orders = [tuple((j + i) % n for j in range(n)) for i in range(n)]
	if n > 2:
	    orders += [o[::-1] for o in orders]
	ts = [[] for _ in cmds]
	for i in range(r):
	    for j in orders[i % len(orders)]:
	        ts[j].append(run(cmds[j]))
	for k, t in zip(keys, ts):
	    print(k + "\t" + " ".join("%.6f" % x for x in t))
	EOF
}

rec() { printf '%s\t%s\n' "$1" "$2" >>"$tsv"; }

# ---- part 1: links.json against bpftool -j link show ----

# specs N: print the spec lines of a set of N links (see the header).
specs() {
	local n=$1 fix
	fix=$(fixture 1000)
	python3 - "$n" "$fix" "$tracefs" <<-'EOF'
	import os, subprocess, sys
	n, fix, tfs = int(sys.argv[1]), sys.argv[2], sys.argv[3]
	# file offsets of bench_fn_* from nm's addresses and readelf's
	# PT_LOAD segments
	loads = []
	for l in subprocess.run(["readelf", "-lW", fix], capture_output=True,
	                        text=True).stdout.splitlines():
	    f = l.split()
	    if f and f[0] == "LOAD":
	        loads.append((int(f[2], 16), int(f[1], 16), int(f[4], 16)))
	offs = []
	for l in subprocess.run(["nm", "--defined-only", fix],
	                        capture_output=True, text=True).stdout.splitlines():
	    a, t, s = l.split()
	    if s.startswith("bench_fn_"):
	        va = int(a, 16)
	        for v, o, sz in loads:
	            if v <= va < v + sz:
	                offs.append(va - v + o)
	offs.sort()
	nu, nr, nm = max(n // 100, 4), max(n // 200, 2), max(n // 200, 2)
	ntp, nraw = n // 25, n // 25
	tps = [t for t in ("sched:sched_process_exec", "sched:sched_process_fork",
	                   "signal:signal_deliver", "signal:signal_generate",
	                   "module:module_load", "module:module_free",
	                   "oom:mark_victim", "task:task_rename",
	                   "power:cpu_idle_miss", "sched:sched_process_exit")
	       if os.path.exists(tfs + "/events/" + t.replace(":", "/"))]
	if ntp > 60 * len(tps):
	    sys.exit("every.sh: not enough quiet tracepoints")
	raws = [t.split(":")[1] for t in tps[:5]]
	out, c = [], 0
	for i in range(nu):
	    out.append("uprobe:%s:0x%x:%d" % (fix, offs[i], i))
	for i in range(nr):
	    out.append("uretprobe:%s:0x%x:%d" % (fix, offs[nu + i], i))
	for i in range(nm):
	    t = offs[nu + nr + 4 * i: nu + nr + 4 * i + 4]
	    out.append("uprobe_multi:%s:%s:%s" % (fix, ",".join("0x%x" % o for o in t),
	               ",".join(str(4 * i + k) for k in range(4))))
	for i in range(ntp):
	    out.append("tracepoint:%s:%d" % (tps[i % len(tps)], i))
	for i in range(nraw):
	    out.append("raw_tracepoint:%s:%d" % (raws[i % len(raws)], i))
	for i in range(n - len(out)):
	    out.append("software:dummy:-1:%d" % i)
	print("\n".join(out))
	EOF
}

# make_set N: 4 holders (the first forks) take 90%, 10% are pinned;
# spreading the kinds over all groups.
make_set() {
	local n=$1 g fd t0 i
	local -a all grp

	mapfile -t all < <(specs "$n")
	[ "${#all[@]}" = "$n" ] || { echo "every.sh: made ${#all[@]} specs" >&2; exit 1; }
	mkdir -p "$pins"
	t0=$(date +%s.%N)
	# group g of 10: 0 is pinned, 1-9 go to holders (g-1) % 4
	for g in 0 1 2 3 4; do
		grp=()
		for ((i = 0; i < n; i++)); do
			if [ "$g" = 0 ]; then
				[ $((i % 10)) = 0 ] && grp+=("${all[i]}")
			elif [ $((i % 10)) != 0 ] && [ $(((i % 10 - 1) % 4)) = $((g - 1)) ]; then
				grp+=("${all[i]}")
			fi
		done
		if [ "$g" = 0 ]; then
			"$mklinks" --pin "$pins" "${grp[@]}" >"$work/set$n.0.out"
			continue
		fi
		mkfifo "$work/hold$n.$g"
		(ulimit -n 20000
		 exec "$mklinks" $([ "$g" = 1 ] && echo --fork) "${grp[@]}" \
			<"$work/hold$n.$g" >"$work/set$n.$g.out") &
		holder_pids+=($!)
		exec {fd}>"$work/hold$n.$g"
		holder_fds+=("$fd")
	done
	for g in 1 2 3 4; do
		for i in $(seq 6000); do
			grep -qx ready "$work/set$n.$g.out" 2>/dev/null && break
			kill -0 "${holder_pids[g - 1]}" 2>/dev/null ||
				{ echo "every.sh: holder $g failed" >&2; exit 1; }
			sleep 0.1
		done
	done
	rec "$n.set_secs" "$(python3 -c "import time; print('%.1f' % (time.time() - $t0))")"
	cat "$work"/set$n.[0-4].out | grep -c '^[0-9]' >"$work/made"
	awk '/^[0-9]/ { print $1 }' "$work"/set$n.[0-4].out | sort -n >"$work/ids"
}

run_json() {
	local n=$1 got
	note "N=$n: making the set"
	make_set "$n"
	rec "$n.made" "$(cat "$work/made")"
	mount_daemon
	# the set as links.json and bpftool see it: every id, and pids
	python3 - "$mnt/links.json" "$work/ids" "$n" >>"$tsv" <<-'EOF'
	import json, sys
	links = {l["id"]: l for l in json.load(open(sys.argv[1]))}
	ids = [int(x) for x in open(sys.argv[2])]
	n = sys.argv[3]
	print(f"{n}.in_json\t{sum(i in links for i in ids)}")
	print(f"{n}.with_pids\t{sum(bool(links[i].get('pids')) for i in ids if i in links)}")
	print(f"{n}.json_total\t{len(links)}")
	EOF
	got=$(LD_LIBRARY_PATH=$bpftool_lib "$bpftool75" -j link show |
		python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
	rec "$n.bpftool_total" "$got"
	rec "$n.json_bytes" "$(wc -c <"$mnt/links.json")"
	# the floor: cat of a regular file of the same bytes (page cache)
	cp "$mnt/links.json" "$work/links$n.json"
	cat "$work/links$n.json" >/dev/null
	note "N=$n: $runs paired rounds"
	paired "$n.json" "$n.bpftool" "cat $mnt/links.json" \
		"LD_LIBRARY_PATH=$bpftool_lib $bpftool75 -j link show" \
		"$n.floor" "cat $work/links$n.json"
	# the same over the table `links` and over metrics.prom, each with a
	# floor file of its own bytes
	cp "$mnt/links" "$work/links$n.tab"
	cp "$mnt/metrics.prom" "$work/metrics$n.prom"
	cat "$work/links$n.tab" "$work/metrics$n.prom" >/dev/null
	rec "$n.links_bytes" "$(wc -c <"$work/links$n.tab")"
	rec "$n.prom_bytes" "$(wc -c <"$work/metrics$n.prom")"
	paired "$n.links" "$n.links_bpftool" "cat $mnt/links" \
		"LD_LIBRARY_PATH=$bpftool_lib $bpftool75 -j link show" \
		"$n.links_floor" "cat $work/links$n.tab"
	paired "$n.prom" "$n.prom_bpftool" "cat $mnt/metrics.prom" \
		"LD_LIBRARY_PATH=$bpftool_lib $bpftool75 -j link show" \
		"$n.prom_floor" "cat $work/metrics$n.prom"
	run_onelink "$n"
	umount_daemon
	note "N=$n: releasing the set"
	t0=$SECONDS
	release_set
	rec "$n.release_secs" "$((SECONDS - t0))"
}

# run_onelink N: `ls -l` and `grep -r .` of one held link's directory
# against the same on the FUSE floor (bench/fusefloor.c) shaped like the
# mount: as many directories, as many files in the one read, root tables
# of links.json's size.
run_onelink() {
	local n=$1 id ndirs nfiles i
	id=$(awk '/^[0-9]/ { print $1; exit }' "$work/set$n.2.out")
	[ -d "$mnt/$id" ] || { echo "every.sh: held link $id not in the mount" >&2; exit 1; }
	ndirs=$(find "$mnt" -mindepth 1 -maxdepth 1 -type d | wc -l)
	nfiles=$(find "$mnt/$id" -mindepth 1 -maxdepth 1 | wc -l)
	rec "$n.one_id" "$id"
	rec "$n.one_type" "$(cat "$mnt/$id/type")"
	rec "$n.one_nfiles" "$nfiles"
	rec "$n.one_ndirs" "$ndirs"
	mkdir -p "$floor_mnt"
	"${pin[@]}" "$work/fusefloor" "$floor_mnt" -f \
		-o "ndirs=$ndirs,nfiles=$nfiles,table=$(wc -c <"$work/links$n.json")" \
		>/dev/null 2>>"$work/floor.log" &
	floor_pid=$!
	for i in $(seq 100); do
		mountpoint -q "$floor_mnt" && break
		sleep 0.1
	done
	mountpoint -q "$floor_mnt" ||
		{ cat "$work/floor.log" >&2; echo "every.sh: the floor did not mount" >&2; exit 1; }
	[ "$(find "$floor_mnt/1" -mindepth 1 -maxdepth 1 | wc -l)" = "$nfiles" ] ||
		{ echo "every.sh: the floor's directory has not $nfiles files" >&2; exit 1; }
	paired "$n.one_ls" "$n.one_ls_floor" "ls -l $mnt/$id" "ls -l $floor_mnt/1"
	paired "$n.one_grep" "$n.one_grep_floor" "grep -r . $mnt/$id" \
		"grep -r . $floor_mnt/1"
	umount_floor
}

umount_floor() {
	if mountpoint -q "$floor_mnt" 2>/dev/null; then
		fusermount3 -u "$floor_mnt" || fusermount3 -uz "$floor_mnt"
	fi
	[ -n "$floor_pid" ] && wait "$floor_pid" 2>/dev/null
	floor_pid=
	return 0
}

# ---- part 2: glob creation against libbpf ----

build_glob_attach() {
	local lroot arch
	lroot=$(bash "$here/libbpf_bpo.sh" 2>"$work/libbpf.err") || {
		glob_skip="no libbpf 1.3+: $(tr '\n' ' ' <"$work/libbpf.err")"
		return 1
	}
	command -v clang >/dev/null || { glob_skip="no clang"; return 1; }
	arch=$(gcc -print-multiarch)
	libbpf_ver=$(awk '/define LIBBPF_(MAJOR|MINOR)_VERSION/ { printf "%s%s", s, $3; s="." }' \
		"$lroot/usr/include/bpf/libbpf_version.h")
	clang -O2 -g -target bpf -I"/usr/include/$arch" -I"$lroot/usr/include" \
		-c "$here/glob_attach.bpf.c" -o "$work/glob_attach.bpf.o" &&
		gcc -O2 -Wall -I"$lroot/usr/include" -o "$work/glob_attach" \
			"$here/glob_attach.c" "$lroot/usr/lib/$arch/libbpf.a" \
			-lelf -lz || { glob_skip="glob_attach did not build"; return 1; }
}

run_glob() {
	local fix
	glob_skip=
	build_glob_attach || { note "glob creation: SKIP: $glob_skip"; return 0; }
	fix=$(fixture "$glob_n")
	mount_daemon
	note "glob creation: $runs paired rounds"
	"${pin[@]}" python3 - "$runs" "$mnt/control" "$fix" "$work/glob_attach" \
		"$work/glob_attach.bpf.o" "$glob_n" "$daemon_pid" "${pin[@]}" >>"$tsv" <<-'EOF'
	import glob, os, subprocess, sys, time
	r, ctl, fix, tool, obj, n, dpid = sys.argv[1:8]
	r, n = int(r), int(n)
	mnt = os.path.dirname(ctl)
	cpu = []  # the daemon's CPU seconds per write
	def daemon_cpu():  # its threads' run time (ns), schedstat field 1
	    ns = 0
	    for f in glob.glob("/proc/%s/task/*/schedstat" % dpid):
	        try:
	            ns += int(open(f).read().split()[0])
	        except (OSError, ValueError, IndexError):
	            pass  # a thread that just ended
	    return ns
	def ours():
	    fd = os.open(ctl, os.O_RDWR)
	    line = ("uprobe:%s:bench_fn_*\n" % fix).encode()
	    c = daemon_cpu()
	    t = time.monotonic()
	    os.write(fd, line)
	    t = time.monotonic() - t
	    cpu.append((daemon_cpu() - c) / 1e9)
	    ids = os.read(fd, 4096).split()
	    os.close(fd)
	    cnt = int(open("%s/%s/count" % (mnt, ids[0].decode())).read())
	    if len(ids) != 1 or cnt != n:
	        sys.exit("glob: %d links, count %d, want 1 and %d" % (len(ids), cnt, n))
	    fd = os.open(ctl, os.O_WRONLY)
	    os.write(fd, b"-" + ids[0] + b"\n")
	    os.close(fd)
	    return t
	def libbpf():
	    o = subprocess.run(pin + [tool, obj, fix, "bench_fn_*"], check=True,
	                       capture_output=True, text=True).stdout.split()
	    return int(o[0]) / 1e9
	pin = sys.argv[8:]
	ta, tb = [], []
	for i in range(r + 1):
	    a, b = (ours(), libbpf()) if i % 2 else (libbpf(), ours())[::-1]
	    time.sleep(0.3)  # the released link leaves the uprobe mutex
	    if i:  # round 0 warms caches
	        ta.append(a); tb.append(b)
	print("glob.ours\t" + " ".join("%.6f" % t for t in ta))
	print("glob.libbpf\t" + " ".join("%.6f" % t for t in tb))
	print("glob.ours_cpu\t" + " ".join("%.6f" % t for t in cpu[1:]))
	EOF
	umount_daemon
}

# ---- part 3: funcs of a 10,000-target link against bpftool ----

run_funcs() {
	local fix id lines
	fix=$(fixture "$funcs_n")
	mount_daemon
	exec {cfd}<>"$mnt/control"
	echo "uprobe:$fix:bench_fn_*" >&$cfd
	read -r id <&$cfd
	exec {cfd}>&-
	rec funcs.count "$(cat "$mnt/$id/count")"
	lines=$(LD_LIBRARY_PATH=$bpftool_lib "$bpftool75" link show id "$id" |
		wc -l || true)
	rec funcs.bpftool_lines "$lines"
	rec funcs.lines "$(wc -l <"$mnt/$id/funcs")"
	note "funcs: $runs paired rounds"
	paired funcs.ours funcs.bpftool "cat $mnt/$id/funcs" \
		"LD_LIBRARY_PATH=$bpftool_lib $bpftool75 link show id $id"
	echo "-$id" >"$mnt/control"
	umount_daemon
}

mkdir -p "$here/results" "$cache"
cp "$daemon" "$work/bpflinkfs" # a rebuild meanwhile changes nothing
daemon=$work/bpflinkfs
load0=$(cut -d' ' -f1 /proc/loadavg)
if part json; then
	# the FUSE floor of one link's files, built as onelink.sh does
	# shellcheck disable=SC2046 # pkg-config's flags are words
	gcc -O2 $(pkg-config --cflags fuse3) -o "$work/fusefloor" \
		"$here/fusefloor.c" $(pkg-config --libs fuse3) ||
		{ echo "every.sh: fusefloor did not build" >&2; exit 1; }
	for n in $sizes; do
		run_json "$n"
	done
fi
glob_skip="not run (--only $only)"
part glob && run_glob
part funcs && run_funcs
load1=$(cut -d' ' -f1 /proc/loadavg)

python3 - "$tsv" "$sizes" "$runs" "$kernel" "$(nproc)" "$bpftool_ver" \
	"${libbpf_ver:-}" "$glob_skip" "$load0" "$load1" "$glob_n" "$funcs_n" \
	"$only" "${pin[*]}" <<'EOF' | tee "$out"
import statistics as st, sys, time
tsv, sizes, runs, kernel, ncpu, btv, lbv, gskip, l0, l1, gn, fn, only, pin = sys.argv[1:]
v = {}
for l in open(tsv):
    k, val = l.rstrip("\n").split("\t")
    v[k] = [float(x) for x in val.split()] if " " in val else val
def med(k): return st.median(v[k])
def q(k):
    t = sorted(v[k]); qq = st.quantiles(t, n=4) if len(t) > 1 else [t[0]] * 3
    return qq[0], qq[2]
def pr(a, b, rate=False):
    # paired per-round ratios; for a rate, b/a (time ratio inverted)
    rs = [(y / x if rate else x / y) for x, y in zip(v[a], v[b])]
    return st.median(rs), min(rs), max(rs)
def verdict(x, goal, op, moon=None):
    ok = x <= goal if op == "<=" else x >= goal
    s = "goal %s %s: %s" % (op, goal, "met" if ok else "NOT met")
    if moon is not None:
        okm = x <= moon if op == "<=" else x >= moon
        s += ", moonshot %s: %s" % (moon, "met" if okm else "not met")
    return s
print("bpflinkfs: every link in view, kernel %s, %s CPUs, %s" %
      (kernel, ncpu, time.strftime("%Y-%m-%d %H:%M")))
print("%s paired rounds each (order rotated/flipped every round); "
      "reference %s" % (runs, "libbpf " + lbv if only == "glob" else btv))
if only or pin:
    print("only %s%s" % (only or "every part", ", pinned: " + pin if pin else ""))
print("1-min load average at start..end: %s..%s%s" %
      (l0, l1, "  (busy host: figures are noisy)" if float(l0) > 2 or float(l1) > 2 else ""))
print()
print("%-48s %10s %10s %10s" % ("measurement", "median ms", "p25 ms", "p75 ms"))
rows = []
for n in sizes.split():
    rows += [(n + ".json", "cat links.json, N=%s" % n),
             (n + ".bpftool", "bpftool -j link show, N=%s" % n)]
    if n + ".floor" in v:
        rows += [(n + ".floor", "cat of a regular file of the same bytes, N=%s" % n)]
for n in sizes.split():
    if n + ".links" not in v:
        continue
    rows += [(n + ".links", "cat links, N=%s" % n),
             (n + ".links_bpftool", "bpftool -j link show (links rounds), N=%s" % n),
             (n + ".links_floor", "cat of a file of links' bytes, N=%s" % n),
             (n + ".prom", "cat metrics.prom, N=%s" % n),
             (n + ".prom_bpftool", "bpftool -j link show (prom rounds), N=%s" % n),
             (n + ".prom_floor", "cat of a file of metrics.prom's bytes, N=%s" % n),
             (n + ".one_ls", "ls -l ID, N=%s" % n),
             (n + ".one_ls_floor", "ls -l FLOOR/1 (fusefloor), N=%s" % n),
             (n + ".one_grep", "grep -r . ID, N=%s" % n),
             (n + ".one_grep_floor", "grep -r . FLOOR/1 (fusefloor), N=%s" % n)]
if not gskip:
    rows += [("glob.ours", "control glob write, %s functions" % gn),
             ("glob.libbpf", "libbpf attach_uprobe_multi glob, %s" % gn)]
    if only == "glob":
        rows += [("glob.ours_cpu", "daemon CPU per glob write")]
if "funcs.ours" in v:
    rows += [("funcs.ours", "cat ID/funcs, %s targets" % fn),
             ("funcs.bpftool", "bpftool link show id ID, %s targets" % fn)]
for k, name in rows:
    a, b = q(k)
    print("%-48s %10.2f %10.2f %10.2f" % (name, med(k) * 1e3, a * 1e3, b * 1e3))
print()
print("ratios (median of the per-round ratios, [min..max])")
for n in sizes.split():
    r = pr(n + ".json", n + ".bpftool")
    print("links.json / bpftool, N=%-6s %6.2fx [%.2f..%.2f]  %s" %
          (n, *r, verdict(r[0], 0.5, "<=", 0.3)))
for n in sizes.split():
    if n + ".floor" not in v:
        continue
    # the floor: what reading the same bytes from the page cache takes
    # (process start, open, read, write to /dev/null): no implementation
    # of links.json can be faster
    r = pr(n + ".floor", n + ".bpftool")
    print("floor / bpftool, N=%-11s %6.2fx [%.2f..%.2f]  the goal 0.5 is %s" %
          (n, *r, "below the floor: below what cat takes to read the same "
           "bytes from the page cache" if r[0] > 0.5 else
           "above the floor: cat reads the same bytes from the page cache "
           "in less"))
    d = [x - y for x, y in zip(v[n + ".json"], v[n + ".floor"])]
    print("links.json above the floor, N=%-2s %6.2f ms [%.2f..%.2f] "
          "(median of the per-round differences)" %
          (n, st.median(d) * 1e3, min(d) * 1e3, max(d) * 1e3))
for n in sizes.split():
    if n + ".links" not in v:
        continue
    # the table and the metrics against the same reference and floor:
    # goal 0.5x at 1,000 links, 0.3x from 10,000 on
    g = 0.3 if int(n) >= 10000 else 0.5
    for k, name in (("links", "links"), ("prom", "metrics.prom")):
        r = pr(n + "." + k, n + "." + k + "_bpftool")
        print("%s / bpftool, N=%-*s %6.2fx [%.2f..%.2f]  %s" %
              (name, max(0, 30 - len(name) - 14), n, *r, verdict(r[0], g, "<=")))
        f = pr(n + "." + k + "_floor", n + "." + k + "_bpftool")
        d = [x - y for x, y in zip(v[n + "." + k], v[n + "." + k + "_floor"])]
        print("%s above the floor, N=%-*s %6.2f ms [%.2f..%.2f] "
              "(median of the per-round differences; floor / bpftool %.2fx)" %
              (name, max(0, 30 - len(name) - 20), n, st.median(d) * 1e3, min(d) * 1e3,
               max(d) * 1e3, f[0]))
    for k, name in (("one_ls", "ls -l ID"), ("one_grep", "grep -r . ID")):
        r = pr(n + "." + k, n + "." + k + "_floor")
        print("%s / fusefloor, N=%-*s %6.2fx [%.2f..%.2f]  %s" %
              (name, max(0, 30 - len(name) - 16), n, *r, verdict(r[0], 1.3, "<=")))
if gskip and not only:
    print("glob creation: SKIPPED: %s" % gskip)
elif not gskip:
    r = pr("glob.ours", "glob.libbpf", rate=True)
    print("glob creation, control rate / libbpf %s rate %6.2fx [%.2f..%.2f]  %s" %
          (lbv, *r, verdict(r[0], 1.0, ">=", 2.0)))
if "funcs.ours" in v:
    r = pr("funcs.ours", "funcs.bpftool")
    print("funcs / bpftool link show id, %s targets %6.2fx [%.2f..%.2f]  %s" %
          (fn, *r, verdict(r[0], 1.0, "<=")))
print()
for n in sizes.split():
    print("N=%s: made %s links in %s s (4 holders, one forked; 10%% pinned), "
          "%s of them in links.json, %s with pids; links.json %s bytes, "
          "%s links in it, %s in bpftool's list; released in %s s" %
          (n, v[n + ".made"], v[n + ".set_secs"], v[n + ".in_json"],
           v[n + ".with_pids"], v[n + ".json_bytes"], v[n + ".json_total"],
           v[n + ".bpftool_total"], v[n + ".release_secs"]))
for n in sizes.split():
    if n + ".one_id" not in v:
        continue
    print("N=%s: links %s bytes, metrics.prom %s bytes; one link: %s (%s, "
          "held by a process), %s files, the floor with %s directories of "
          "%s files" % (n, v[n + ".links_bytes"], v[n + ".prom_bytes"],
          v[n + ".one_id"], v[n + ".one_type"], v[n + ".one_nfiles"],
          v[n + ".one_ndirs"], v[n + ".one_nfiles"]))
if "funcs.ours" in v:
    print("funcs: count %s, %s lines; bpftool link show id: %s lines" %
          (v["funcs.count"], v["funcs.lines"], v["funcs.bpftool_lines"]))
EOF
note "table: $out"
