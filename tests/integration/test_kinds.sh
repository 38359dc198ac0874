#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# More probe kinds from control: rawtracepoint counts the test's
# execs; fentry/fexit either count a syscall the test drives (a kernel
# that loads trampoline programs) or fail with a clear error and no link
# (this host: whether the kernel loads a fentry program at all is found
# independently with bpftool); USDT probes of a <sys/sdt.h> fixture, with
# offsets and semaphore offsets from `readelf -n`/`readelf -lW`, hits equal
# to the calls, the semaphore raised in the process while linked (read
# through /proc/PID/mem) and lowered after removal; errors with the caret;
# removal by -ID, rmdir, -* and unmount; pin_dir adoption.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"
source "$HERE/lib_control.sh"

bl_setup
for tool in gcc clang readelf bpftool python3; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
[ -r /sys/kernel/btf/vmlinux ] || skip "no kernel BTF"
SDT_H=$(echo '#include <sys/sdt.h>' | gcc -E -M - 2>/dev/null | grep -o '[^ ]*sys/sdt.h')
[ -n "$SDT_H" ] || skip "no <sys/sdt.h> (Debian: systemtap-sdt-dev)"
grep -q ' /sys/fs/bpf bpf ' /proc/mounts ||
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null ||
	skip "no bpffs at /sys/fs/bpf"
PIN=/sys/fs/bpf/bpflinkfs-kinds-$$
trap 'rm -rf "$PIN" "/sys/fs/bpf/bpflinkfs-fentry-$$"; bl_cleanup' EXIT

# err_at WHAT ERRNO COLUMN NEEDLE SPEC: writing SPEC fails with ERRNO, the
# newest error_log entry has its caret at COLUMN and holds NEEDLE.
err_at() {
	local got last
	got=$(ctl_write "$5"$'\n')
	assert_eq "$1: errno" "$2" "$got"
	last=$(errlog_entries | tail -n 1)
	assert_eq "$1: caret" "$3" "$(cut -f4 <<<"$last")"
	assert_match "$1: message" "$4" "$(cut -f6 <<<"$last")"
}

# bpftool_link_field ID KEY: a field of `bpftool link show id ID -j`
bpftool_link_field() {
	bpftool link show id "$1" -j | python3 -c '
import json, sys
print(json.load(sys.stdin).get(sys.argv[1], ""))' "$2"
}

bl_mount

# ---- rawtracepoint: counts the test's execs ----
mapfile -t RT < <(ctl_create "rawtracepoint:sched_process_exec"$'\n') ||
	fail "rawtracepoint:sched_process_exec refused: $(tail -n 3 "$MNT/error_log")"
RT_ID=${RT[0]:-0}
assert_eq "raw_tracepoint link type (bpftool)" raw_tracepoint \
	"$(bpftool_link_field "$RT_ID" type)"
assert_eq "raw_tracepoint name (bpftool)" sched_process_exec \
	"$(bpftool_link_field "$RT_ID" tp_name)"
assert_eq "rt spec" "rawtracepoint:sched_process_exec" "$(cat "$MNT/$RT_ID/spec")"
assert_true "rt link listed in the root" bash -c "ls '$MNT' | grep -qx '$RT_ID'"
assert_true "rt link in links" bash -c "cut -f1 '$MNT/links' | grep -qx '$RT_ID'"
before=$(cat "$MNT/$RT_ID/hits")
N=25
for ((i = 0; i < N; i++)); do /bin/true; done
after=$(cat "$MNT/$RT_ID/hits")
assert_true "rt hits grew by at least $N ($before -> $after)" \
	test $((after - before)) -ge $N
# a second one on the same raw tracepoint counts too (its own instance)
mapfile -t RT2 < <(ctl_create "rt:sched_process_exec"$'\n')
/bin/true
assert_true "second rt link counts" test "$(cat "$MNT/${RT2[0]:-0}/hits")" -ge 1
# read-back, where the tree shows type and name of raw tracepoint links
if [ -e "$MNT/$RT_ID/type" ] && [ -e "$MNT/$RT_ID/name" ]; then
	mapfile -t RB < <(ctl_create "$(cat "$MNT/$RT_ID/type"):$(cat "$MNT/$RT_ID/name")"$'\n')
	assert_eq "read-back makes a raw tracepoint link" raw_tracepoint \
		"$(bpftool_link_field "${RB[0]:-0}" type)"
fi
rmdir "$MNT/${RT2[0]}" || fail "rmdir of a rt link"
bl_link_gone "rmdir detaches the rt link" "${RT2[0]}"
rm_id=$RT_ID
ctl_write "-$rm_id"$'\n' >/dev/null
bl_link_gone "-ID detaches the rt link" "$rm_id"
err_at "unknown raw tracepoint" ENOENT 3 "no raw tracepoint" \
	"rt:bpflinkfs_no_such_tp"
err_at "unknown module of a raw tracepoint" ENOENT 3 "no module" \
	"rt:bpflinkfs_no_mod:sched_switch"

# ---- fentry/fexit ----
case $(uname -m) in
x86_64) SYSFN=__x64_sys_getppid ;;
aarch64) SYSFN=__arm64_sys_getppid ;;
*) SYSFN= ;;
esac
# does this kernel load a fentry program at all? (bpftool, not the daemon)
cat >"$WORK/f.bpf.c" <<EOF
#include <linux/bpf.h>
#define SEC(n) __attribute__((section(n), used))
SEC("fentry/$SYSFN") int f(void *ctx) { return 0; }
char LICENSE[] SEC("license") = "GPL";
EOF
clang -g -O2 -target bpf -I/usr/include/$(gcc -print-multiarch) \
	-c "$WORK/f.bpf.c" -o "$WORK/f.bpf.o" || die "clang fentry object"
if bpftool prog load "$WORK/f.bpf.o" "/sys/fs/bpf/bpflinkfs-fentry-$$" \
	2>"$WORK/fentry.err"; then
	FENTRY=1
	rm -f "/sys/fs/bpf/bpflinkfs-fentry-$$"
else
	FENTRY=0
fi
assert_eq "features fentry (bpftool prog load says $FENTRY)" "fentry $FENTRY" \
	"$(grep '^fentry ' "$MNT/features")"
assert_eq "features rawtracepoint" "rawtracepoint 1" \
	"$(grep '^rawtracepoint ' "$MNT/features")"
assert_eq "features usdt" "usdt 1" "$(grep '^usdt ' "$MNT/features")"
if [ "$FENTRY" = 1 ] && [ -n "$SYSFN" ]; then
	for kind in fentry fexit; do
		mapfile -t F < <(ctl_create "$kind:$SYSFN"$'\n')
		assert_eq "$kind link type (bpftool)" tracing \
			"$(bpftool_link_field "${F[0]:-0}" type)"
		before=$(cat "$MNT/${F[0]}/hits")
		python3 -c 'import os
for i in range(1000): os.getppid()'
		after=$(cat "$MNT/${F[0]}/hits")
		assert_true "$kind hits grew by at least 1000 ($before -> $after)" \
			test $((after - before)) -ge 1000
		ctl_write "-${F[0]}"$'\n' >/dev/null
		bl_link_gone "$kind link removed" "${F[0]}"
	done
else
	links_before=$(daemon_link_ids)
	for spec in "fentry:vfs_read" "fexit:vfs_read" "kfunc:vfs_read"; do
		col=$((${#spec} - 8))
		err_at "$spec on a kernel that refuses trampolines" EOPNOTSUPP \
			"$col" "refuses to load" "$spec"
	done
	# a pattern: its first match is refused the same way, nothing made
	err_at "fentry pattern on a kernel that refuses trampolines" \
		EOPNOTSUPP 7 "refuses to load" "fentry:vfs_rea?"
	assert_eq "no link made by refused fentry lines" "$links_before" \
		"$(daemon_link_ids)"
fi
# fentry/fexit patterns: BTF's functions (bpftool btf dump), one link each
bpftool btf dump file /sys/kernel/btf/vmlinux | grep -o "FUNC '[^']*'" |
	sed "s/FUNC '//; s/'$//" | sort -u >"$WORK/btf_funcs"
if [ "$FENTRY" = 1 ] && [ -n "$SYSFN" ]; then
	pat=${SYSFN%getppid}getp?id
	want=$(grep -x "${SYSFN%getppid}getp.id" "$WORK/btf_funcs")
	mapfile -t FW < <(ctl_create "fentry:$pat"$'\n')
	assert_eq "fentry:$pat: one link per BTF match" "$(wc -l <<<"$want")" \
		"${#FW[@]}"
	assert_eq "fentry:$pat: their names" "$want" \
		"$(for id in "${FW[@]}"; do cat "$MNT/$id/name"; done | sort)"
	for id in "${FW[@]}"; do
		assert_eq "fentry:$pat: spec of $id" "fentry:$pat" "$(cat "$MNT/$id/spec")"
		ctl_write "-$id"$'\n' >/dev/null
	done
fi
grep -q '^bpflinkfs_nope' "$WORK/btf_funcs" && die "bpflinkfs_nope* in BTF?"
err_at "fentry pattern that matches nothing" ENOENT 7 "matches 'bpflinkfs_nope" \
	"fentry:bpflinkfs_nope*"
assert_true "BTF has more than 64 functions" test "$(wc -l <"$WORK/btf_funcs")" -gt 64
err_at "fexit pattern of more than 64 functions" E2BIG 3 "more than 64" "fr:*"
err_at "fentry pattern in a module that is not there" ENOENT 2 "no module" \
	"f:bpflinkfs_nomod:x*"
# a function that is not in BTF: ENOENT under FUNC (checked against BTF)
bpftool btf dump file /sys/kernel/btf/vmlinux | grep -q "FUNC 'bpflinkfs_nope'" &&
	die "bpflinkfs_nope is in BTF?"
err_at "fentry of a function not in BTF" ENOENT 7 "no function" \
	"fentry:bpflinkfs_nope"
err_at "fexit in a module that is not there" ENOENT 6 "no module" \
	"fexit:bpflinkfs_nomod:x"

# ---- usdt ----
S=$WORK/usdt
mkdir -p "$S"
cat >"$S/main.c" <<'EOF'
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#include <stdlib.h>
#include <unistd.h>
unsigned short kt_guarded_semaphore __attribute__((unused, section(".probes")));
void twice_a(unsigned long i);
void twice_b(unsigned long i);
int main(int argc, char **argv)
{
	unsigned long i, n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1;
	char c;

	/* "wait": a byte on stdin before the calls and one after them */
	if (argc > 2 && read(0, &c, 1) != 1)
		return 2;
	for (i = 0; i < n; i++) {
		if (kt_guarded_semaphore)
			DTRACE_PROBE1(kt, guarded, i);
		twice_a(i);
		twice_b(i);
	}
	if (argc > 2 && read(0, &c, 1) != 1)
		return 2;
	return 0;
}
EOF
cat >"$S/two.c" <<'EOF'
#include <sys/sdt.h>
static volatile unsigned long sink;
__attribute__((noinline)) void twice_a(unsigned long i)
{ DTRACE_PROBE1(kt, twice, i); DTRACE_PROBE(kt, dup); sink += i; }
__attribute__((noinline)) void twice_b(unsigned long i)
{ DTRACE_PROBE1(kt, twice, i); DTRACE_PROBE(other, dup); sink ^= i; }
EOF
gcc -O1 -o "$S/fix" "$S/main.c" "$S/two.c" || die "gcc usdt fixture"
FIX=$S/fix
# expected: readelf -n locations and semaphores, as file offsets through
# readelf -lW's PT_LOAD segments (prelink base adjustment included)
python3 "$HERE/../tools/usdt_notes.py" "$FIX" >"$S/expect" ||
	die "readelf of the usdt fixture"
[ -s "$S/expect" ] || die "no USDT notes in the fixture"
want_twice=$(awk '$1 == "kt" && $2 == "twice" {print $3}' "$S/expect" | sort)
want_guard=$(awk '$1 == "kt" && $2 == "guarded" {print $3}' "$S/expect")
want_sema=$(awk '$1 == "kt" && $2 == "guarded" {print $4}' "$S/expect")
sema_vaddr=$(awk '$1 == "kt" && $2 == "guarded" {print $5}' "$S/expect")
assert_eq "fixture: kt:twice has two locations" 2 "$(wc -l <<<"$want_twice")"
# where the kernel has uprobe_multi links, a USDT line makes one (its
# targets in funcs); else one uprobe link per location
UM=$(awk '$1 == "uprobe_multi" {print $2}' "$MNT/features")

# want_locs AWK-CONDITION: "OFFSET REF_CTR_OFFSET" of the fixture's
# locations (readelf) that match, as 0x hex, sorted
want_locs() {
	awk "$1"' {print $3, $4}' "$S/expect" | while read -r o r; do
		printf '0x%x 0x%x\n' "$o" "$r"
	done | sort
}
# funcs_col ID COLUMN: one column of ID/funcs (header dropped), by name
funcs_col() {
	awk -F'\t' -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++)
		if ($i == c) n = i; next } { print $n }' "$MNT/$1/funcs"
}
# got_locs ID: "OFFSET REF_CTR_OFFSET" of a usdt link as the tree shows
# it (funcs of a uprobe_multi link; offset and ref_ctr_offset otherwise)
got_locs() {
	if [ "$UM" = 1 ]; then
		paste -d' ' <(funcs_col "$1" OFFSET) <(funcs_col "$1" REF_CTR_OFFSET)
	else
		echo "$(cat "$MNT/$1/offset") $(cat "$MNT/$1/ref_ctr_offset" 2>/dev/null || echo 0)"
	fi | while read -r o r; do printf '0x%x 0x%x\n' "$o" "$r"; done | sort
}

mapfile -t TW < <(cd "$S" && ctl_create "U:./fix:kt:twice"$'\n')
if [ "$UM" = 1 ]; then
	assert_eq "kt:twice: one uprobe_multi link" 1 "${#TW[@]}"
	assert_eq "kt:twice type" uprobe_multi "$(cat "$MNT/${TW[0]}/type")"
	assert_eq "kt:twice count" 2 "$(cat "$MNT/${TW[0]}/count")"
	assert_eq "kt:twice funcs = readelf -n locations" \
		"$(want_locs '$1 == "kt" && $2 == "twice"')" "$(got_locs "${TW[0]}")"
else
	assert_eq "kt:twice: one link per location" 2 "${#TW[@]}"
	got=$(for id in "${TW[@]}"; do got_locs "$id"; done | sort)
	assert_eq "kt:twice offsets (readelf -n)" \
		"$(want_locs '$1 == "kt" && $2 == "twice"')" "$got"
	assert_match "kt:twice: a warning says one link per location" \
		"no uprobe_multi links" "$(tail -n 3 "$MNT/error_log")"
fi
for id in "${TW[@]}"; do
	assert_eq "kt:twice spec of $id" "U:./fix:kt:twice" "$(cat "$MNT/$id/spec")"
	assert_eq "kt:twice: control lists $id with its spec" \
		"$id"$'\t'"U:./fix:kt:twice" "$(owned_listing | grep "^$id"$'\t')"
done
mapfile -t GU < <(ctl_create "usdt:$FIX:guarded"$'\n')
G=${GU[0]:-0}
assert_eq "kt:guarded: one link" 1 "${#GU[@]}"
assert_eq "kt:guarded offset and semaphore (readelf -n, -lW)" \
	"$(want_locs '$1 == "kt" && $2 == "guarded"')" "$(got_locs "$G")"
assert_eq "kt:guarded semaphore is not 0" 1 \
	"$(want_locs '$1 == "kt" && $2 == "guarded"' | grep -vc ' 0x0$')"
# read-back: the spec recreates the same probe, semaphore included
for id in "${TW[0]}" "$G"; do
	mapfile -t RBU < <(cd "$S" && ctl_create "$(cat "$MNT/$id/spec")"$'\n')
	assert_eq "spec of $id recreates its locations and semaphores" \
		"$(got_locs "$id")" "$(for r in "${RBU[@]}"; do got_locs "$r"; done | sort)"
	for r in "${RBU[@]}"; do ctl_write "-$r"$'\n' >/dev/null; done
done
"$FIX" 7
if [ "$UM" = 1 ]; then
	assert_eq "kt:twice hits after 7 calls" 14 "$(cat "$MNT/${TW[0]}/hits")"
	assert_eq "kt:twice: 7 hits per location (funcs)" "7 7" \
		"$(funcs_col "${TW[0]}" HITS | paste -sd' ')"
else
	for id in "${TW[@]}"; do
		assert_eq "hits of $id after 7 calls" 7 "$(cat "$MNT/$id/hits")"
	done
fi
assert_eq "kt:guarded hits after 7 calls" 7 "$(cat "$MNT/$G/hits")"

# the semaphore, read in a running process while linked and after removal
# (the process waits on a fifo; its load base from /proc/PID/maps)
mkfifo "$S/in"
"$FIX" 3 wait <"$S/in" &
FPID=$!
exec {FD}>"$S/in"
sema_now() {
	python3 - "$FPID" "$FIX" "$sema_vaddr" <<'EOF'
import sys
pid, path, vaddr = sys.argv[1], sys.argv[2], int(sys.argv[3], 16)
base = None
for l in open("/proc/%s/maps" % pid):
    f = l.split()
    if len(f) >= 6 and f[5] == path and int(f[2], 16) == 0:
        base = int(f[0].split("-")[0], 16)
        break
if base is None:
    sys.exit("fixture not mapped")
with open("/proc/%s/mem" % pid, "rb") as m:
    m.seek(base + vaddr)
    print(int.from_bytes(m.read(2), "little"))
EOF
}
wait_for -q 5 grep -q "$FIX" "/proc/$FPID/maps" 2>/dev/null
assert_true "semaphore raised while linked" test "$(sema_now)" -ge 1
ctl_write "-$G"$'\n' >/dev/null
bl_link_gone "-ID detaches the usdt link" "$G"
assert_eq "semaphore back to 0 after removal" 0 "$(sema_now)"
printf 'xx' >&$FD
exec {FD}>&-
wait $FPID
if [ "$UM" = 1 ]; then
	assert_eq "twice hits with the semaphore gone" "10 10" \
		"$(funcs_col "${TW[0]}" HITS | paste -sd' ')"
else
	assert_eq "twice hits with the semaphore gone" 10 "$(cat "$MNT/${TW[0]}/hits")"
fi

cd "$S" || die cd
err_at "unknown USDT provider" ENOENT 8 "kt:guarded" "U:./fix:zz:twice"
err_at "unknown USDT provider lists the probes" ENOENT 8 "kt:twice" "U:./fix:zz:twice"
err_at "unknown USDT name" ENOENT 8 "no USDT probe 'nope'" "U:./fix:nope"
err_at "USDT name of two providers" EINVAL 8 "several providers" "U:./fix:dup"
err_at "file without USDT notes" ENOENT 2 "no USDT probes" "U:/bin/true:x"
err_at "no such file" ENOENT 2 "" "U:./nofile:kt:twice"
# the provider exists: the caret under NAME, which matches nothing
err_at "USDT pattern that matches nothing" ENOENT 11 \
	"no USDT probe matches 'kt:zz\\*'" "U:./fix:kt:zz*"
err_at "USDT pattern that matches nothing lists the probes" ENOENT 11 \
	"kt:twice" "U:./fix:kt:zz*"
err_at "USDT pattern with an unclosed [" EINVAL 11 "unclosed" "U:./fix:kt:[ab"
# USDT patterns: every location of every probe that matches, one link
if [ "$UM" = 1 ]; then
	for pat in 'kt:*:$1 == "kt"' '*:$1 != ""' '*:dup:$2 == "dup"' \
		'k?:[dt]*:$1 == "kt" && ($2 == "dup" || $2 == "twice")'; do
		spec=U:./fix:${pat%:*}
		mapfile -t W < <(ctl_create "$spec"$'\n')
		assert_eq "$spec: one uprobe_multi link" 1 "${#W[@]}"
		assert_eq "$spec: funcs = readelf -n locations and semaphores" \
			"$(want_locs "${pat##*:}")" "$(got_locs "${W[0]:-0}")"
		assert_eq "$spec: spec" "$spec" "$(cat "$MNT/${W[0]:-0}/spec")"
	done
	"$FIX" 2
	assert_eq "$spec: 2 hits per location" "2 2 2" \
		"$(funcs_col "${W[0]:-0}" HITS | paste -sd' ')"
fi
cd / || die cd
PYL=()
mapfile -t DUP < <(ctl_create "U:$FIX:other:dup"$'\n')
assert_eq "other:dup: one location" 1 "${#DUP[@]}"
# a USDT probe of a program Debian ships: python3's gc__start (semaphore
# guarded), driven by gc.collect(); other Python processes may add hits
# (the daemon finds a bare command on its fixed PATH: /usr/bin/python3)
PY=$(readlink -f /usr/bin/python3)
if [ -x "$PY" ] && readelf -nW "$PY" | grep -q "Name: gc__start"; then
	mapfile -t PYL < <(ctl_create "U:python3:python:gc__start"$'\n')
	assert_true "python3 gc__start link" test -n "${PYL[0]:-}"
	/usr/bin/python3 -c 'import gc
for i in range(20): gc.collect()'
	assert_true "python3 gc__start counts 20 gc.collect() calls" \
		test "$(cat "$MNT/${PYL[0]:-0}/hits")" -ge 20
else
	echo "note: $PY has no gc__start USDT probe; not checked"
fi
ctl_write "-*"$'\n' >/dev/null
for id in "${TW[@]}" "${DUP[@]}" "${RB[@]}" "${PYL[@]}"; do
	bl_link_gone "-* detaches $id" "$id"
done

# ---- pin_dir adoption, and unmount detaches ----
bl_stop_daemon
bl_mount -o "pin_dir=$PIN"
mapfile -t P < <(ctl_create "rt:sched_process_exec"$'\n'"U:$FIX:kt:twice"$'\n')
if [ "$UM" = 1 ]; then
	assert_eq "pinned: two links" 2 "${#P[@]}"
else
	assert_eq "pinned: three links" 3 "${#P[@]}"
fi
"$FIX" 2
bl_stop_daemon
bl_mount -o "pin_dir=$PIN"
assert_eq "adopted after restart" "$(printf '%s\n' "${P[@]}")" \
	"$(cut -f1 "$MNT/control")"
assert_eq "adopted rt spec" "rt:sched_process_exec" "$(cat "$MNT/${P[0]}/spec")"
before=$(cat "$MNT/${P[0]}/hits")
/bin/true
assert_true "adopted rt link still counts" \
	test "$(cat "$MNT/${P[0]}/hits")" -gt "$before"
"$FIX" 3
if [ "$UM" = 1 ]; then
	assert_eq "adopted usdt link kept its hits" 10 "$(cat "$MNT/${P[1]}/hits")"
	assert_eq "adopted usdt link: hits per location" "5 5" \
		"$(funcs_col "${P[1]}" HITS | paste -sd' ')"
else
	assert_eq "adopted usdt link kept its hits" 5 "$(cat "$MNT/${P[1]}/hits")"
fi
ctl_write "-*"$'\n' >/dev/null
for id in "${P[@]}"; do bl_link_gone "pinned $id removed" "$id"; done
bl_stop_daemon
bl_mount
mapfile -t U < <(ctl_create "rt:sched_process_exec"$'\n')
bl_stop_daemon
bl_link_gone "unmount detaches the rt link" "${U[0]:-0}"
finish
