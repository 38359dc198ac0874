#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# listing.sh [--big] [--keep] [--runs R] [--no-profile]
#
# The listing benchmark: bpflinkfs against bpftool 7.5, a C
# syscall floor and a trivial FUSE filesystem, all in the same run over the
# same pinned set of foreign links, plus the daemon's memory with foreign
# and with owned links. See bench/LISTING.md.
#
#   --big         also run N=10,000 (releasing that set takes the kernel
#                 ~18 minutes, done in the background after the run)
#   --keep        keep the pinned sets in /sys/fs/bpf/bpflinkfs-bench for
#                 the next run (which reuses a complete set)
#   --runs R      hyperfine runs per command (default 20)
#   --no-profile  skip perf record / strace of the daemon
#
# Writes bench/results/listing-DATE-KERNEL.txt (the table) and
# listing-DATE-KERNEL-profile.txt. Exit 77 when it cannot run here.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
daemon=${BPFLINKFS:-$root/build/fs/bpflinkfs}
cache=$here/cache
bin=$cache/bin
pins=/sys/fs/bpf/bpflinkfs-bench
sizes="1000"
keep=0
runs=20
profile=1
ntp=8  # tracepoint links per set
nsw=8  # software event links per set

while [ $# -gt 0 ]; do
	case $1 in
	--big) sizes="1000 10000" ;;
	--keep) keep=1 ;;
	--runs) runs=${2:?}; shift ;;
	--no-profile) profile=0 ;;
	*) echo "usage: listing.sh [--big] [--keep] [--runs R]" \
		"[--no-profile]" >&2; exit 2 ;;
	esac
	shift
done

skip() { echo "listing.sh: SKIP: $*" >&2; exit 77; }
note() { echo "listing.sh: $*" >&2; }

[ "$(id -u)" = 0 ] || skip "needs root (BPF links, FUSE mounts)"
for t in hyperfine gcc python3 taskset fusermount3 mountpoint pkg-config; do
	command -v "$t" >/dev/null || skip "$t not found (apt-get install $t)"
done
[ -x "$daemon" ] || skip "no daemon at $daemon (ninja -C build)"
mountpoint -q /sys/fs/bpf || skip "bpffs not mounted on /sys/fs/bpf"
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || skip "placement tests need 2 CPUs"

stamp=$(date +%Y%m%d-%H%M)
kernel=$(uname -r)
out=$here/results/listing-$stamp-$kernel.txt
prof_out=$here/results/listing-$stamp-$kernel-profile.txt
work=$(mktemp -d /tmp/bpflinkfs-listing.XXXXXX)
tsv=$work/results.tsv
: >"$tsv"
mounts=()
pids=()

cleanup() {
	local m p
	for m in "${mounts[@]}"; do
		mountpoint -q "$m" && fusermount3 -u "$m" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

build_tools() {
	local w="-O2 -g -Wall -D_GNU_SOURCE"

	mkdir -p "$bin"
	# the link maker of the tests (tests/tools/mklinks.c), its --set mode
	gcc $w -o "$bin/mklinks" "$root/tests/tools/mklinks.c" -lbpf -lelf
	gcc $w -o "$bin/floor" "$here/floor.c" -lbpf
	gcc $w $(pkg-config --cflags fuse3) -o "$bin/fusefloor" \
		"$here/fusefloor.c" $(pkg-config --libs fuse3)
}

# bpftool 7.5+ from bookworm-backports, unpacked into the cache without
# touching the machine's apt sources, lists or package cache.
get_bpftool() {
	local d=$cache/bpftool-bpo
	local a=(-o "Dir::Etc::SourceList=$d/sources.list"
		-o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/apt")

	bpftool75=$d/root/usr/sbin/bpftool
	bpftool_note=""
	if [ ! -x "$bpftool75" ]; then
		mkdir -p "$d/lists/partial" "$d/apt/archives/partial" "$d/debs"
		echo "deb http://deb.debian.org/debian bookworm-backports main" \
			>"$d/sources.list"
		if apt-get -qq "${a[@]}" update >&2 &&
			(cd "$d/debs" && apt-get -qq "${a[@]}" download \
				bpftool/bookworm-backports >&2); then
			dpkg -x "$d"/debs/bpftool_*.deb "$d/root"
		fi
	fi
	if ! "$bpftool75" version >/dev/null 2>&1 &&
		[ -e "$d/root" ]; then
		# A newer bpftool may want the backports libbpf beside it.
		(cd "$d/debs" && apt-get -qq "${a[@]}" download \
			libbpf1/bookworm-backports >&2) &&
			dpkg -x "$d"/debs/libbpf1_*.deb "$d/root"
		export LD_LIBRARY_PATH=$d/root/usr/lib/x86_64-linux-gnu
	fi
	if ! "$bpftool75" version >/dev/null 2>&1; then
		bpftool75=$(command -v bpftool)
		bpftool_note="bpftool 7.5 could not be had; using $bpftool75"
		note "$bpftool_note"
	fi
	bpftool75_ver=$("$bpftool75" version | sed -n 1p)
}

# The pinned set for size n: n uprobes, $ntp tracepoints, $nsw events.
make_set() {
	local n=$1 dir=$pins/n$1 fix=$cache/fixture-$1 t0
	local want=$((n + ntp + nsw))

	[ -x "$fix/fixture" ] || sh "$here/fixture_gen.sh" "$fix" "$n" >&2
	if [ -d "$dir" ] && [ "$(ls "$dir" | wc -l)" -eq "$want" ]; then
		note "reusing the pinned set in $dir"
		set_secs=reused
		return 0
	fi
	[ -d "$dir" ] && release_set "$dir"
	mkdir -p "$dir"
	t0=$(date +%s.%N)
	"$bin/mklinks" --set "$dir" "$fix/fixture" bench_fn_ "$n" "$ntp" "$nsw" \
		>&2
	set_secs=$(echo "$(date +%s.%N) - $t0" | bc)
}

# Unpin in the background: the kernel needs ~0.1 s per uprobe link.
release_set() {
	local gone=$pins/gone-$$-$RANDOM

	mv "$1" "$gone"
	nohup rm -rf "$gone" >/dev/null 2>&1 &
	note "releasing $1 in the background (pid $!, ~0.1 s per uprobe)"
}

# mount_fs MNT CMD...: start a FUSE server in the foreground, wait for it.
mount_fs() {
	local m=$1 i
	shift
	mkdir -p "$m"
	"$@" "$m" -f >>"$work/servers.log" 2>&1 &
	fs_pid=$!
	pids+=("$fs_pid")
	mounts+=("$m")
	for i in $(seq 100); do
		mountpoint -q "$m" && return 0
		sleep 0.1
	done
	echo "listing.sh: $* did not mount" >&2
	cat "$work/servers.log" >&2
	exit 1
}

umount_fs() {
	fusermount3 -u "$1"
	wait "$2" 2>/dev/null || true
}

# hf KEY CMD: hyperfine one shell command, record median/p25/p75 (s).
hf() {
	local key=$1 cmd=$2 j=$work/hf.json

	hyperfine -N -i --style none --warmup 3 --runs "$runs" \
		--export-json "$j" "$cmd" >/dev/null 2>&1 ||
		hyperfine -i --style none --warmup 3 --runs "$runs" \
			--export-json "$j" "$cmd" >/dev/null
	python3 - "$j" "$key" >>"$tsv" <<-'EOF'
	import json, sys, statistics as st
	t = sorted(json.load(open(sys.argv[1]))["results"][0]["times"])
	q = st.quantiles(t, n=4) if len(t) > 1 else [t[0]] * 3
	print(f"{sys.argv[2]}\t{st.median(t)}\t{q[0]}\t{q[2]}")
	EOF
}

# hfsh KEY CMD: the same through sh -c (globs); hyperfine subtracts the
# shell's own start-up. -i everywhere: other processes' links may vanish
# between readdir and open (ENOENT, as the contract says).
hfsh() {
	local key=$1 cmd=$2 j=$work/hf.json

	hyperfine -i --style none --warmup 3 --runs "$runs" \
		--export-json "$j" "$cmd" >/dev/null
	python3 - "$j" "$key" >>"$tsv" <<-'EOF'
	import json, sys, statistics as st
	t = sorted(json.load(open(sys.argv[1]))["results"][0]["times"])
	q = st.quantiles(t, n=4) if len(t) > 1 else [t[0]] * 3
	print(f"{sys.argv[2]}\t{st.median(t)}\t{q[0]}\t{q[2]}")
	EOF
}

rec() { printf '%s\t%s\t\t\n' "$1" "$2" >>"$tsv"; }

# In-process floor: median and quartiles of 31 passes, in s.
c_floor() {
	"$bin/floor" links 31 | python3 -c '
import sys, statistics as st
rows = [l.split() for l in sys.stdin]
t = sorted(int(r[5]) / 1e9 for r in rows)
q = st.quantiles(t, n=4)
print(f"'"$1"'.floor\t{st.median(t)}\t{q[0]}\t{q[2]}")
print(f"'"$1"'.links\t{rows[-1][1]}\t\t")
print(f"'"$1"'.perf\t{rows[-1][3]}\t\t")' >>"$tsv"
}

# per_file KEY CPU FILES...: open+read+close per file (s), reader on CPU.
per_file() {
	local key=$1 cpu=$2
	shift 2
	taskset -c "$cpu" "$bin/floor" read 11 "$@" | awk -v k="$key" \
		'{ printf "%s\t%g\t%g\t%g\n", k, $4/1e9, $6/1e9, $8/1e9
		   printf "%s.missing\t%d\t\t\n", k, $10 }' \
		>>"$tsv"
}

# Start-up (BTF parsing) sets a high VmHWM: reset it to the current RSS
# so that it then shows the peak of what follows.
hwm_reset() { echo 5 >"/proc/$1/clear_refs"; }

vm() { awk -v k="$2:" '$1 == k { print $2 * 1024 }' "/proc/$1/status"; }

# The commands users run, on bpflinkfs (d) and on the FUSE floor (f).
listing_cmds() {
	local p=$1 m=$2 one=$3

	hf "$p.cat_json" "cat $m/links.json"
	hf "$p.cat_links" "cat $m/links"
	hf "$p.ls" "ls $m"
	hf "$p.ls_l" "ls -l $m"
	hfsh "$p.cat_names" "cat $m/*/name >/dev/null"
	hf "$p.grep_one" "grep -r . $m/$one"
}

# Per-file cost with the server on CPU 0, the reader on CPU 0 and on 1.
placement() {
	local p=$1 pid=$2 m=$3
	local all
	all=$(seq -s, 0 $((ncpu - 1)))

	taskset -a -p -c 0 "$pid" >/dev/null
	per_file "$p.file_same" 0 "$m"/*/name
	per_file "$p.file_cross" 1 "$m"/*/name
	taskset -a -p -c "$all" "$pid" >/dev/null
}

profile_json() {
	local n=$1 pid=$2 m=$3 i

	{
		echo "== perf record -g on the daemon during cat links.json," \
			"N=$n, $(date -Is), $kernel"
		perf record -q -g -p "$pid" -o "$work/perf.data" -- \
			sh -c "for i in \$(seq 200); do cat $m/links.json \
				>/dev/null; done" 2>&1 | tail -2
		echo "== top symbols (self), daemon threads"
		perf report -i "$work/perf.data" --stdio --no-children \
			--sort sym --percent-limit 0.7 -g none 2>/dev/null |
			grep -v '^#' | grep -v '^$' | sed -n 1,40p
		echo "== by DSO"
		perf report -i "$work/perf.data" --stdio --no-children \
			--sort dso -g none 2>/dev/null | grep -v '^#' |
			grep -v '^$' | sed -n 1,12p
		echo "== syscalls of the daemon for 20 x cat links.json" \
			"(strace -c -f)"
		strace -c -f -p "$pid" -o "$work/strace.txt" &
		local st=$!
		sleep 1
		for i in $(seq 20); do cat "$m/links.json" >/dev/null; done
		sleep 0.5
		kill -INT "$st"
		wait "$st" 2>/dev/null || true
		head -25 "$work/strace.txt"
		echo "== paths the daemon stats/opens during one cat links.json"
		strace -f -e trace=newfstatat,openat,getdents64 -p "$pid" \
			-o "$work/paths.txt" &
		st=$!
		sleep 1
		cat "$m/links.json" >/dev/null
		sleep 0.5
		kill -INT "$st"
		wait "$st" 2>/dev/null || true
		echo "links on the host at that time: $("$bin/floor" links 1)"
		grep -o '"[^"]*"' "$work/paths.txt" |
			sed -E 's|/events/[^/"]+/[^/"]+|/events/*/*|; s|[0-9]+|N|g' |
			sort | uniq -c | sort -rn | sed -n 1,12p
	} >>"$prof_out" 2>&1
}

run_foreign() {
	local n=$1 d=$work/d$1 f=$work/f$1 dpid fpid one dirs size

	make_set "$n"
	rec "$n.set_secs" "$set_secs"
	one=("$pins/n$n"/link_*)
	one=${one[0]##*/link_}
	mount_fs "$d" "$daemon"
	dpid=$fs_pid
	rec "$n.rss_start" "$(vm "$dpid" VmRSS)"
	hwm_reset "$dpid"
	cat "$d/links.json" >/dev/null
	rec "$n.rss_json" "$(vm "$dpid" VmRSS)"
	rec "$n.hwm_json" "$(vm "$dpid" VmHWM)"
	c_floor "$n"
	hf "$n.bpftool75" "$bpftool75 -j link show"
	hf "$n.bpftool71" "/usr/sbin/bpftool -j link show"
	listing_cmds "$n.d" "$d" "$one"
	c_floor "$n.after"
	dirs=$(ls "$d" | grep -c '^[0-9]')
	size=$(wc -c <"$d/links.json")
	rec "$n.dirs" "$dirs"
	# the floor's directories hold as many files as the link grep reads
	nfiles=$(ls "$d/$one" | wc -l)
	rec "$n.one_files" "$nfiles"
	mount_fs "$f" "$bin/fusefloor" -o "ndirs=$dirs,nfiles=$nfiles,table=$size"
	fpid=$fs_pid
	listing_cmds "$n.f" "$f" 1
	placement "$n.d" "$dpid" "$d"
	placement "$n.f" "$fpid" "$f"
	rec "$n.rss_end" "$(vm "$dpid" VmRSS)"
	rec "$n.hwm_end" "$(vm "$dpid" VmHWM)"
	if [ "$profile" = 1 ] && [ "$n" = 1000 ]; then
		if command -v perf >/dev/null && command -v strace >/dev/null; then
			profile_json "$n" "$dpid" "$d" ||
				note "profiling failed, see $prof_out"
		else
			note "no perf or strace: no profile"
		fi
	fi
	umount_fs "$f" "$fpid"
	umount_fs "$d" "$dpid"
}

# Memory with 1,000 owned links: software cpu-clock events made through
# control, alternating CPUs, with a period (1000 s) that never fires, so
# neither the run nor the release disturbs the machine.
run_owned() {
	local d=$work/owned dpid i t0 ids

	mount_fs "$d" "$daemon"
	dpid=$fs_pid
	rec owned.rss_start "$(vm "$dpid" VmRSS)"
	hwm_reset "$dpid"
	for i in $(seq 1000); do
		echo "software:cpu-clock:1000000000000 cpu=$((i % ncpu))"
	done >"$work/owned.txt"
	t0=$(date +%s.%N)
	cat "$work/owned.txt" >"$d/control"
	rec owned.create_secs "$(echo "$(date +%s.%N) - $t0" | bc)"
	ids=$(cat "$d/control" | wc -l)
	rec owned.count "$ids"
	rec owned.rss "$(vm "$dpid" VmRSS)"
	rec owned.hwm "$(vm "$dpid" VmHWM)"
	echo '-*' >"$d/control"
	umount_fs "$d" "$dpid"
}

build_tools
get_bpftool
# A private copy: a rebuild during the run must not change the daemon
# under test or leave perf with a deleted binary to resolve.
cp "$daemon" "$work/bpflinkfs"
daemon=$work/bpflinkfs
mkdir -p "$pins" "$here/results"
: >"$prof_out"
for n in $sizes; do
	run_foreign "$n"
done
run_owned
python3 "$here/listing_table.py" "$tsv" "$sizes" "$bpftool75_ver" \
	"$bpftool_note" "$kernel" "$ncpu" "$runs" | tee "$out"
cp "$tsv" "${out%.txt}.tsv"
[ -s "$prof_out" ] && note "profile: $prof_out" || rm -f "$prof_out"
note "table: $out"
if [ "$keep" = 0 ]; then
	for n in $sizes; do
		release_set "$pins/n$n"
	done
fi
