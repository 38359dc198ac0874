#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# create_remove.sh [N [REPEAT]]
#
# Creation and removal of N (default 1000) uprobe links through the
# bpflinkfs control file, against a bare loop (bare_uprobes.c: perf_event_open
# + bpf_link_create) making and closing the same N links, and against the
# loop a libbpf user writes (bpf_program__attach_uprobe_opts by function
# name, bpf_link__destroy). Builds the fixture and the loops with gcc (the
# BPF object with clang; without clang the libbpf rows are left out), mounts bpflinkfs on a temporary directory, prints a table and writes
# it to bench/results/create_remove-DATE-KERNEL.txt.
#
# Round 1 measures everything; rounds 2..REPEAT (default 3) repeat only the
# main figures (one-write creation, `-*` removal, bare create and close
# with BARE_THREADS_LATER threads, libbpf by name), since every release of N uprobe links
# costs the kernel ~0.1 s per link. Before each creation it waits until the
# host's count of perf-event links is stable (nobody else releasing uprobes,
# which would make creation wait on the kernel's uprobe mutex).
#
# Environment: BPFLINKFS (daemon binary), BARE_THREADS (round 1 close
# strategies, default 1,8), BARE_THREADS_LATER (default 1),
# TASKSET=0 to run unpinned (default: daemon on the last CPU, clients on
# CPU 0), KEEP=1 to keep the work directory. Exit 77 when it cannot run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
n=${1:-1000}
repeat=${2:-3}
bare_threads=${BARE_THREADS:-1,8}
bare_threads_later=${BARE_THREADS_LATER:-1}
daemon=${BPFLINKFS:-$root/build/fs/bpflinkfs}

skip() {
	echo "create_remove.sh: SKIP: $*" >&2
	exit 77
}

[ "$(id -u)" -eq 0 ] || skip "needs root (BPF links, FUSE mount)"
for tool in gcc python3 fusermount3 mountpoint nm; do
	command -v "$tool" >/dev/null 2>&1 || skip "$tool not found"
done
[ -e /dev/fuse ] || skip "no /dev/fuse"
[ -r /sys/bus/event_source/devices/uprobe/type ] || skip "no uprobe PMU"
case $n$repeat in
*[!0-9]*) echo "usage: create_remove.sh [N [REPEAT]]" >&2; exit 2 ;;
esac
if [ ! -x "$daemon" ] && [ -f "$root/build/build.ninja" ]; then
	ninja -C "$root/build" >&2 || true
fi
[ -x "$daemon" ] || skip "no daemon at $daemon (ninja -C build)"

ncpu=$(nproc)
pin_daemon=() pin_client=()
if [ "${TASKSET:-1}" = 1 ] && command -v taskset >/dev/null &&
	[ "$ncpu" -ge 2 ]; then
	pin_daemon=(taskset -c "$((ncpu - 1))")
	pin_client=(taskset -c 0)
fi

work=$(mktemp -d /tmp/bench-create-remove.XXXXXX)
mnt=$work/mnt
raw=$work/raw.tsv
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

echo "building fixture ($n functions) and bare loop in $work" >&2
"$here/fixture_gen.sh" "$work" "$n"
gcc -O2 -Wall -o "$work/bare_uprobes" "$here/bare_uprobes.c" \
	-lbpf -lelf -lpthread
bare=$work/bare_uprobes
bpfobj=
if command -v clang >/dev/null 2>&1; then
	cat >"$work/prog.bpf.c" <<'EOF'
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
SEC("uprobe") int p(void *ctx) { return 0; }
char LICENSE[] SEC("license") = "GPL";
EOF
	clang -O2 -g -target bpf -I"/usr/include/$(gcc -print-multiarch)" \
		-c "$work/prog.bpf.c" -o "$work/prog.bpf.o" &&
		bpfobj=$work/prog.bpf.o
fi
[ -n "$bpfobj" ] || echo "warning: no BPF object (clang): no libbpf rows" >&2
sed "s|^|uprobe:$work/fixture:|" "$work/symbols.txt" >"$work/specs.txt"

round=0
record() { printf '%s\t%s\t%s\n' "$1" "$2" "$round" >>"$raw"; }
record_load() { record "load $1" "$(cut -d' ' -f1 /proc/loadavg)"; }

# Waits until the host's perf-event link count has not moved for 2 s (at
# most QUIET_MAX s, default 180): a release elsewhere holds the kernel's
# uprobe mutex and would make our creation wait. Records count and wait.
wait_quiet() {
	local tag=$1 t0=$EPOCHREALTIME c last= same=0 i
	for i in $(seq "$((${QUIET_MAX:-180} * 2))"); do
		c=$("$bare" --count-perf-links)
		if [ "$c" = "$last" ]; then
			same=$((same + 1))
			[ "$same" -ge 4 ] && break
		else
			same=0 last=$c
		fi
		sleep 0.5
	done
	[ "$same" -ge 4 ] ||
		echo "warning: perf-event links still moving ($c) before $tag" >&2
	echo "  $c perf-event links on the host before $tag" >&2
	record "quiet $tag count" "$c"
	record "quiet $tag wait" "$(python3 -c "print($EPOCHREALTIME - $t0)")"
}

mount_daemon() {
	"${pin_daemon[@]}" "$daemon" "$mnt" -f 2>>"$work/daemon.log" &
	dpid=$!
	for _ in $(seq 100); do
		mountpoint -q "$mnt" && [ -e "$mnt/control" ] && return 0
		kill -0 "$dpid" 2>/dev/null || break
		sleep 0.05
	done
	echo "create_remove.sh: bpflinkfs did not mount; log:" >&2
	cat "$work/daemon.log" >&2
	exit 1
}

# All specs in one write(2); the ids come back on the same handle (3.4).
create_one_write() {
	"${pin_client[@]}" python3 - "$mnt/control" "$work/specs.txt" \
		"$work/ids.txt" "$n" <<'EOF'
import os, sys, time
ctl, specs, ids_out, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
data = open(specs, 'rb').read()
fd = os.open(ctl, os.O_RDWR)
t0 = time.monotonic()
done = os.write(fd, data)
t1 = time.monotonic()
ids = b''
while True:
    chunk = os.read(fd, 1 << 20)
    if not chunk:
        break
    ids += chunk
os.close(fd)
ids = ids.split()
if done != len(data) or len(ids) != n:
    sys.exit(f'one write: wrote {done}/{len(data)} bytes, '
             f'got {len(ids)}/{n} ids')
open(ids_out, 'wb').write(b'\n'.join(ids) + b'\n')
print(f'{t1 - t0:.6f}')
EOF
}

# One `echo spec > control` per link, as a shell user would.
create_echo_loop() {
	"${pin_client[@]}" bash -c '
		ctl=$1 specs=$2
		t0=$EPOCHREALTIME
		while IFS= read -r s; do echo "$s" >"$ctl"; done <"$specs"
		t1=$EPOCHREALTIME
		python3 -c "print(f\"{$t1 - $t0:.6f}\")"' _ "$mnt/control" \
		"$work/specs.txt"
	# A handle that has not written lists the owned links: ID TAB SPEC.
	cut -f1 "$mnt/control" >"$work/ids.txt"
}

# `-*`, then poll until the kernel lists none of the ids, then unmount and
# wait for the daemon to exit (its reapers have closed every fd by then).
remove_all() {
	local tag=$1 t0 t1 t2 t3 left
	t0=$EPOCHREALTIME
	echo '-*' >"$mnt/control"
	t1=$EPOCHREALTIME
	while :; do
		left=$("${pin_client[@]}" "$bare" --count-ids "$work/ids.txt")
		[ "$left" -eq 0 ] && break
		sleep 0.05
	done
	t2=$EPOCHREALTIME
	fusermount3 -u "$mnt"
	wait "$dpid"
	dpid=
	t3=$EPOCHREALTIME
	record "$tag remove_return" "$(python3 -c "print($t1 - $t0)")"
	record "$tag remove_ids_gone" "$(python3 -c "print($t2 - $t0)")"
	record "$tag remove_unmounted" "$(python3 -c "print($t3 - $t0)")"
}

check_created() {
	local got
	got=$(wc -l <"$work/ids.txt")
	[ "$got" -eq "$n" ] || {
		echo "create_remove.sh: expected $n owned links, got $got" >&2
		exit 1
	}
	got=$("$bare" --count-ids "$work/ids.txt")
	[ "$got" -eq "$n" ] || {
		echo "create_remove.sh: kernel lists $got of $n links" >&2
		exit 1
	}
}

run_bare() {
	"${pin_client[@]}" "$bare" --threads "$1" "$work/fixture" "$n" |
		while read -r _ what a b c rest; do
			case $what in
			create) record "bare create" "${b#s=}" ;;
			close)
				record "bare close_threads_${a#threads=}" \
					"${c#s=}" ;;
			esac
			case $what/$rest in
			close/*ids_left=0) ;;
			close/*) echo "warning: bare: ids left: $rest" >&2 ;;
			esac
		done
}

run_libbpf() {
	"${pin_client[@]}" "$bare" --libbpf-by-name "$bpfobj" "$work/fixture" \
		"$n" | while read -r _ what _ b c rest; do
		case $what in
		create) record "libbpf create" "${b#s=}" ;;
		destroy) record "libbpf destroy" "${c#s=}" ;;
		esac
		case $what/$rest in
		destroy/*ids_left=0) ;;
		destroy/*) echo "warning: libbpf: ids left: $rest" >&2 ;;
		esac
	done
}

: >"$raw"
for r in $(seq "$repeat"); do
	round=$r
	record_load start
	echo "round $r/$repeat: control, one write" >&2
	mount_daemon
	wait_quiet control
	record "control create_one_write" "$(create_one_write)"
	check_created
	remove_all control
	if [ "$r" -eq 1 ]; then
		echo "round $r/$repeat: control, $n echo writes" >&2
		mount_daemon
		wait_quiet echo
		record "control create_echo" "$(create_echo_loop)"
		check_created
		remove_all echo
	fi
	threads=$bare_threads
	[ "$r" -eq 1 ] || threads=$bare_threads_later
	echo "round $r/$repeat: bare loop, close threads $threads" >&2
	wait_quiet bare
	run_bare "$threads"
	if [ -n "$bpfobj" ]; then
		echo "round $r/$repeat: libbpf attach by name" >&2
		wait_quiet libbpf
		run_libbpf
	fi
	record_load end
done

mkdir -p "$here/results"
suffix=
[ "$n" -eq 1000 ] || suffix=-n$n
out=$here/results/create_remove-$(date +%Y%m%d)-$(uname -r)$suffix.txt
python3 - "$raw" "$n" "$ncpu" "${pin_client[*]:-unpinned}" \
	>"$work/table.txt" <<'EOF'
import statistics, sys, time, os
raw, n, ncpu, pin = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
runs, byround = {}, {}
for line in open(raw):
    key, val, rnd = line.rstrip('\n').split('\t')
    runs.setdefault(key, []).append(float(val))
    byround.setdefault(int(rnd), {}).setdefault(key, float(val))
med = {k: statistics.median(v) for k, v in runs.items()}
rows = [
    ('control create_one_write', 'create: control, one write of N lines'),
    ('control create_echo', 'create: control, N echo writes'),
    ('bare create', 'create: bare perf_event_open+link'),
    ('libbpf create', 'create: libbpf attach by func_name'),
    ('control remove_return', 'remove: control -* write returns'),
    ('control remove_ids_gone', 'remove: control -*, until no id left'),
    ('control remove_unmounted', 'remove: control -*, ids gone + unmount'),
    ('echo remove_unmounted', 'remove: same, after the echo run'),
]
closes = sorted((k for k in runs if k.startswith('bare close_threads_')),
                key=lambda k: int(k.rsplit('_', 1)[1]))
for k in closes:
    t = k.rsplit('_', 1)[1]
    rows.append((k, f'remove: bare close, {t} thread' + ('s' * (t != '1'))))
rows.append(('libbpf destroy', 'remove: libbpf bpf_link__destroy'))
u = os.uname()
print(f'bpflinkfs create/remove benchmark, N={n} uprobe links')
print(f'date {time.strftime("%Y-%m-%d %H:%M")}, kernel {u.release}, '
      f'{ncpu} CPUs, clients {pin}')
print()
print(f'{"measurement":42} {"runs":>4} {"median s":>10} {"links/s":>9}'
      f' {"ms/link":>8}  all runs (s)')
for k, label in rows:
    if k not in runs:
        continue
    m = med[k]
    rate = f'{n / m:9.1f}' if 'return' not in k else f'{"-":>9}'
    per = f'{m / n * 1e3:8.3f}'
    allr = ' '.join(f'{v:.3f}' for v in runs[k])
    print(f'{label:42} {len(runs[k]):4} {m:10.3f} {rate} {per}  {allr}')
print()
# Paired per round: other work on the host (other uprobe users share the
# kernel's event_mutex) moves both sides of a round together.
def pair(r, num, den, invert):
    d = byround[r]
    if num not in d or den not in d:
        return None
    return d[den] / d[num] if invert else d[num] / d[den]
goals = [
    ('creation, one write: control rate / bare rate',
     'control create_one_write', 'bare create', True, 0.8, '>='),
    ('creation, one write: control / libbpf-by-name',
     'control create_one_write', 'libbpf create', True, 1.0, '>=', 2.0),
    ('creation, echo writes: control rate / bare rate',
     'control create_echo', 'bare create', True, 0.8, '>='),
    ('creation, echo writes: control / libbpf-by-name',
     'control create_echo', 'libbpf create', True, 1.0, '>=', 2.0),
    ('removal (ids gone + unmount) / best bare close',
     'control remove_unmounted', 'best close', False, 1.1, '<='),
    ('removal (ids gone) / best bare close',
     'control remove_ids_gone', 'best close', False, 1.1, '<='),
]
for r, d in byround.items():
    c = [v for k, v in d.items() if k.startswith('bare close_threads_')]
    if c:
        d['best close'] = min(c)
print('ratios, paired within each round; headline = median over rounds')
for label, num, den, inv, goal, op, *stretch in goals:
    per = [(r, pair(r, num, den, inv)) for r in sorted(byround)]
    per = [(r, v) for r, v in per if v is not None]
    if not per:
        continue
    m = statistics.median(v for _, v in per)
    ok = m >= goal if op == '>=' else m <= goal
    rr = ' '.join(f'r{r}={v:.2f}' for r, v in per)
    st = (f', {stretch[0]}: {"met" if m >= stretch[0] else "not met"}'
          if stretch else '')
    print(f'{label:50} {m:5.2f} (goal {op} {goal}: '
          f'{"met" if ok else "NOT met"}{st})  {rr}')
if 'bare close_threads_1' in med and len(closes) > 1:
    r1 = byround[min(byround)]
    print('round 1, close from T threads, speed vs one thread: ' + ', '.join(
        f'T={k.rsplit("_", 1)[1]} {r1["bare close_threads_1"] / r1[k]:.2f}x'
        for k in closes if k in r1))
for r, d in sorted(byround.items()):
    q = [(k.split()[1], d[k], d.get(k[:-5] + 'wait', 0))
         for k in d if k.startswith('quiet ') and k.endswith(' count')]
    if q:
        print(f'r{r} perf-event links on the host before creating '
              '(wait until stable): ' + ', '.join(
                  f'{t} {c:.0f} ({w:.1f} s)' for t, c, w in q))
loads = ' '.join(f'r{r}={d.get("load start", 0):.1f}'
                 f'..{d.get("load end", 0):.1f}'
                 for r, d in sorted(byround.items()))
print(f'1-min load average at round start..end: {loads}'
      + ('  (busy host: figures are noisy)'
         if any(v > float(ncpu) for v in runs.get('load start', []) +
                runs.get('load end', [])) else ''))
EOF
tee "$out" <"$work/table.txt"
echo "written to $out" >&2
