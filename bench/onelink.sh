#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What one link's files and links.json cost the server, counted rather
# than timed (a loaded host makes wall-clock figures noise): the server's
# system calls (strace -c) and CPU time (utime + stime, in clock ticks:
# R large enough),
# and with --callgrind its instructions in user space (valgrind), for R
# repetitions of `ls -l MNT/ID`, `grep -r . MNT/ID` (ID: a link held by a
# process) and `cat MNT/links.json`, on bpflinkfs builds side by side and
# on the FUSE floor (bench/fusefloor.c), on one link set.
#
#   sudo bench/onelink.sh [--callgrind] [N [R]] [-- DAEMON...]
#
# N software-event links (default 1000), pinned by mklinks --set, plus
# one held by mklinks; R repetitions (default 100). DAEMON defaults to
# build/fs/bpflinkfs; give two to compare builds. Table to stdout.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cg=0
[ "${1:-}" = --callgrind ] && cg=1 && shift
n=${1:-1000}
reps=${2:-100}
shift $(($# < 2 ? $# : 2))
[ "${1:-}" = -- ] && shift
daemons=("$@")
[ ${#daemons[@]} -eq 0 ] && daemons=("$root/build/fs/bpflinkfs")
[ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; exit 77; }
for tool in strace fusermount3 gcc pkg-config; do
	command -v $tool >/dev/null || { echo "no $tool" >&2; exit 77; }
done
[ $cg -eq 0 ] || command -v valgrind >/dev/null ||
	{ echo "no valgrind" >&2; exit 77; }
mklinks=$root/build/tests/tools/mklinks
[ -x "$mklinks" ] || { echo "build first: ninja -C build" >&2; exit 77; }

tmp=$(mktemp -d /tmp/onelink.XXXXXX)
set_dir=/sys/fs/bpf/onelink-$$
mnt=$tmp/mnt
mkdir -p "$mnt"
holder=
cleanup() {
	mountpoint -q "$mnt" && fusermount3 -u "$mnt"
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	rm -rf "$set_dir" "$tmp"
}
trap cleanup EXIT
gcc -O2 $(pkg-config --cflags fuse3) -o "$tmp/fusefloor" \
	"$here/fusefloor.c" $(pkg-config --libs fuse3) || exit 1
mkdir -p "$set_dir"
"$mklinks" --set "$set_dir" /bin/true none_ 0 0 "$n" >/dev/null ||
	{ echo "mklinks --set failed" >&2; exit 1; }
mkfifo "$tmp/in"
"$mklinks" software:cpu-clock:0:11 <"$tmp/in" >"$tmp/held" &
holder=$!
exec 3>"$tmp/in"
for _ in $(seq 100); do grep -qx ready "$tmp/held" && break; sleep 0.1; done
id=$(grep -vx ready "$tmp/held" | cut -f1)
[ -n "$id" ] || { echo "no held link" >&2; exit 1; }
links=$(bpftool link list | grep -c '^[0-9]')

# mount_server CMD...: start a server on $mnt in the foreground; its pid
mount_server() {
	"$@" "$mnt" -f >/dev/null 2>>"$tmp/server.log" &
	local pid=$! i
	for i in $(seq 600); do
		mountpoint -q "$mnt" && break
		sleep 0.1
	done
	mountpoint -q "$mnt" || { echo "no mount: $*" >&2; exit 1; }
	echo $pid
}

# cpu_ns PID: the process's CPU time so far (utime + stime, exited
# threads included), ns
cpu_ns() {
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%.0f\n", ($14 + $15) * 1e9 / hz }' /proc/"$1"/stat
}

# measure NAME PID DIR: a row per command
measure() {
	local name=$1 pid=$2 dir=$3 cmd c0 c1 sc what
	for what in "ls -l" "grep -r" "links.json"; do
		case $what in
		"ls -l") cmd=(ls -l "$mnt/$dir") ;;
		"grep -r") cmd=(grep -r . "$mnt/$dir") ;;
		*) cmd=(cat "$mnt/links.json") ;;
		esac
		"${cmd[@]}" >/dev/null 2>&1 # warm: lookups, the kept walks
		c0=$(cpu_ns "$pid")
		for _ in $(seq "$reps"); do "${cmd[@]}" >/dev/null 2>&1; done
		c1=$(cpu_ns "$pid")
		# system calls: a second pass under strace (it slows the server)
		strace -qq -c -f -o "$tmp/sc" -p "$pid" &
		local st=$!
		sleep 1
		for _ in $(seq "$reps"); do "${cmd[@]}" >/dev/null 2>&1; done
		kill -INT $st
		wait $st 2>/dev/null
		sc=$(awk '$NF == "total" { print $(NF-2) }' "$tmp/sc")
		printf '%-28s %-11s %9.1f %10.1f\n' "$name" "$what" \
			"$(echo "($c1 - $c0) / 1000 / $reps" | bc -l)" \
			"$(echo "${sc:-0} / $reps" | bc -l)"
	done
}

echo "one link's files and links.json: $links links on the host ($n pinned" \
	"software events of the set), link $id held by mklinks, $reps reps"
echo "date $(date -u '+%Y-%m-%d %H:%M'), kernel $(uname -r), load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-28s %-11s %9s %10s\n' server command "CPU us" "syscalls"
nfiles=8
for d in "${daemons[@]}"; do
	pid=$(mount_server "$d")
	# the floor's directories: as many files as the held link shows
	nfiles=$(ls "$mnt/$id" | wc -l)
	measure "$(basename "$(dirname "$(dirname "$(dirname "$d")")")")" "$pid" "$id"
	fusermount3 -u "$mnt"
	wait "$pid" 2>/dev/null
	if [ $cg -eq 1 ]; then
		pid=$(mount_server valgrind --tool=callgrind \
			--callgrind-out-file="$tmp/cg.%p" "$d")
		# warm: the first listing parses the kernel's BTF once
		ls -l "$mnt/$id" >/dev/null 2>&1
		cat "$mnt/links.json" >/dev/null 2>&1
		for what in ls grep json; do
			callgrind_control -z "$pid" >/dev/null 2>&1
			for _ in $(seq 10); do
				case $what in
				ls) ls -l "$mnt/$id" ;;
				grep) grep -r . "$mnt/$id" ;;
				json) cat "$mnt/links.json" ;;
				esac >/dev/null 2>&1
			done
			callgrind_control -d "$what" "$pid" >/dev/null 2>&1
		done
		fusermount3 -u "$mnt"
		wait "$pid" 2>/dev/null
		# one dump per command, in order: its instructions, 10 reps
		i=0
		for what in "ls -l" "grep -r" "links.json"; do
			i=$((i + 1))
			f=$(ls "$tmp"/cg.*."$i" 2>/dev/null | head -n1)
			[ -n "$f" ] || continue
			printf '%-28s %-11s %s instructions (10 reps, callgrind)\n' \
				"" "$what" "$(callgrind_annotate "$f" 2>/dev/null |
				awk '/PROGRAM TOTALS/ { print $1 }')"
		done
		rm -f "$tmp"/cg.*
	fi
done
pid=$(mount_server "$tmp/fusefloor" -o "ndirs=$((links)),nfiles=$nfiles,table=$((links * 300))")
measure "FUSE floor" "$pid" 1
fusermount3 -u "$mnt"
wait "$pid" 2>/dev/null
