#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The VM lane's guest subset, run by /init inside the guest (busybox, bash,
# util-linux setpriv; no python, meson or compilers). Programs are in
# /opt/bl; guest.env (written on the host) holds values the host derived
# with readelf. Expected values come from the kernel (/proc/kallsyms,
# fdinfo, tracefs) or from what the test itself asked for, never from the
# daemon. Checks of fields this kernel lacks (see `features`) expect the
# file to be absent instead.
#
# Prints "ok - ", "FAIL - ", "skip - " lines and, last, the line
# "BPFLINKFS-RESULT pass=N fail=M skip=K" that tests/vm/run.sh reads.

set -u
BL=/opt/bl
MNT=/mnt/bl
WORK=/tmp/bl
PASS=0
FAILS=0
SKIPS=0
DAEMON_PID=
MKL_PID=
. "$BL/guest.env"
export MKLINKS=$BL/mklinks TARGET=$BL/bpflinkfs_target

ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
fail() { FAILS=$((FAILS + 1)); echo "FAIL - $*"; }
skip() { SKIPS=$((SKIPS + 1)); echo "skip - $*"; }

# eq WHAT EXPECTED ACTUAL
eq() {
	if [ "$2" == "$3" ]; then ok "$1"; else fail "$1: expected '$2', got '$3'"; fi
}

# num_eq WHAT EXPECTED ACTUAL: as numbers (0x hex or decimal)
num_eq() {
	if [[ $3 =~ ^(0x[0-9a-fA-F]+|[0-9]+)$ ]] && (($2 == $3)); then
		ok "$1"
	else
		fail "$1: expected $2, got '$3'"
	fi
}

# rd FILE: the file's content, read with read(2) by bash (busybox cat
# uses sendfile, which sees nothing in size-0 direct_io files), or "<absent>"
rd() {
	if [ -e "$1" ]; then echo "$(<"$1")"; else echo "<absent>"; fi
}

feature() { sed -n "s/^$1 //p" "$MNT/features"; }

# run_prog NAME CMD...: a test program's result: its exit status, and a
# skip where its TAP output (tests/check.h) says "1..0 # SKIP why".
run_prog() {
	local name=$1 rc=0 out why
	shift
	out=$(timeout 60 "$@" 2>&1) || rc=$?
	echo "$out" | sed 's/^/    /'
	why=$(echo "$out" | sed -n 's/^1\.\.0 # SKIP //p')
	case $rc in
	0) if [ -n "$why" ]; then skip "$name: $why"; else ok "$name"; fi ;;
	77) skip "$name: $(echo "$out" | tail -n1)" ;;
	*) fail "$name (exit $rc)" ;;
	esac
}

# ctl SPEC: create through control; prints the new id (last line read
# back) or nothing; the write's error goes to $WORK/ctl.err.
ctl() {
	local rc=0
	(
		exec 3<>"$MNT/control" || exit 1
		printf '%s\n' "$1" >&3 || exit 1
		read -r -t 10 id <&3 && echo "$id"
	) 2>"$WORK/ctl.err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		sed -i 's/^.*write error: //' "$WORK/ctl.err"
		tail -n3 "$MNT/error_log" | tr '\n' ' ' >>"$WORK/ctl.err"
	fi
	return "$rc"
}

# ctl_rm ID: remove an own link; 0 when the write succeeded.
ctl_rm() { printf -- '-%s\n' "$1" >"$MNT/control" 2>/dev/null; }

# ksym NAME [MODULE]: the address of a text symbol in /proc/kallsyms
# (read with kptr_restrict 0, so it is the real one).
ksym() {
	if [ -n "${2:-}" ]; then
		awk -v n="$1" -v m="[$2]" '$3 == n && $4 == m && $2 ~ /^[tT]$/ {
			print "0x" $1; exit }' /proc/kallsyms
	else
		awk -v n="$1" 'NF == 3 && $3 == n && $2 ~ /^[tT]$/ {
			print "0x" $1; exit }' /proc/kallsyms
	fi
}

# nobody_rd FILE: rd as user nobody (no capabilities)
nobody_rd() {
	/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups \
		/bin/bash -c 'echo "$(<"$1")"' _ "$1" 2>&1
}

start_daemon() {
	local i
	mkdir -p "$MNT" "$WORK"
	chmod 755 "$MNT"
	"$BL/bpflinkfs" "$MNT" -f -o allow_other 2>"$WORK/daemon.log" &
	DAEMON_PID=$!
	for i in $(seq 100); do
		[ -e "$MNT/features" ] && return 0
		kill -0 "$DAEMON_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$WORK/daemon.log"
	return 1
}

stop_all() {
	[ -n "$MKL_PID" ] && kill "$MKL_PID" 2>/dev/null
	[ -e "$MNT/control" ] && printf -- '-*\n' >"$MNT/control" 2>/dev/null
	umount "$MNT" 2>/dev/null
	[ -n "$DAEMON_PID" ] && kill "$DAEMON_PID" 2>/dev/null
	wait 2>/dev/null
}

# check_field DIR FILE EXPECTED KNOWN WHAT: when KNOWN is 1 the file must
# hold EXPECTED (compared as a number when it is one); else it must be
# absent, since the daemon may not guess.
check_field() {
	local v
	v=$(rd "$1/$2")
	if [ "$4" != 1 ]; then
		eq "$5 $2 absent (not known on this kernel)" "<absent>" "$v"
	elif [[ $3 =~ ^(0x[0-9a-fA-F]+|[0-9]+)$ ]]; then
		num_eq "$5 $2" "$3" "$v"
	else
		eq "$5 $2" "$3" "$v"
	fi
}

# Links made by mklinks (no daemon code) with their perf fds kept, so a
# pre-6.6 kernel can be answered through BPF_TASK_FD_QUERY.
test_foreign() {
	local pli src tfd id type name off cookie prog d i
	pli=$(feature perf_link_info)
	src=$(feature info_source)
	[ "$src" = task_fd_query ] && tfd=1 || tfd=0
	mkfifo "$WORK/mkl.in"
	"$MKLINKS" --keep-perf-fd "uprobe:$TARGET:$TGT_A_OFF:11" \
		tracepoint:sched:sched_process_exec:12 software:cpu-clock:0:13 \
		<"$WORK/mkl.in" >"$WORK/mkl.out" 2>&1 &
	MKL_PID=$!
	exec 4>"$WORK/mkl.in"
	for i in $(seq 50); do
		grep -q '^ready' "$WORK/mkl.out" && break
		sleep 0.1
	done
	if ! grep -q '^ready' "$WORK/mkl.out"; then
		fail "mklinks: $(cat "$WORK/mkl.out")"
		return
	fi
	while IFS=$'\t' read -r id type name off cookie prog; do
		[ "$id" = ready ] && break
		d=$MNT/$id
		if [ ! -d "$d" ]; then
			fail "foreign $type link $id listed"
			continue
		fi
		ok "foreign $type link $id listed"
		eq "foreign $type prog_id" "$prog" "$(rd "$d/prog_id")"
		case $type in
		uprobe)
			eq "foreign uprobe prog_name" mkl_uprobe "$(rd "$d/prog_name")"
			check_field "$d" type uprobe $((pli | tfd)) "foreign uprobe"
			check_field "$d" name "$name" $((pli | tfd)) "foreign uprobe"
			check_field "$d" offset "$off" $((pli | tfd)) "foreign uprobe"
			;;
		tracepoint)
			eq "foreign tp prog_name" mkl_tracepoint "$(rd "$d/prog_name")"
			check_field "$d" type tracepoint $((pli | tfd)) "foreign tp"
			check_field "$d" name "${name#*:}" $((pli | tfd)) "foreign tp"
			;;
		software)
			eq "foreign event prog_name" mkl_event "$(rd "$d/prog_name")"
			# BPF_TASK_FD_QUERY does not answer for perf_event programs
			check_field "$d" type event "$pli" "foreign event"
			check_field "$d" config "$name" "$pli" "foreign event"
			;;
		esac
		[ "$(feature cookie)" = 1 ] &&
			eq "foreign $type cookie" "$cookie" "$(rd "$d/cookie")"
	done <"$WORK/mkl.out"
	exec 4>&-
	wait "$MKL_PID"
	MKL_PID=
	sleep 0.3
	for id in $(cut -f1 "$WORK/mkl.out" | grep -v ready); do
		[ -d "$MNT/$id" ] && fail "foreign link $id still listed after exit" ||
			ok "foreign link $id gone after mklinks exit"
	done
}

test_control() {
	local id d hits
	id=$(ctl "uprobe:$TARGET:bpflinkfs_target_a")
	if [ -z "$id" ]; then
		fail "control uprobe: $(cat "$WORK/ctl.err")"
	else
		d=$MNT/$id
		eq "control uprobe type" uprobe "$(rd "$d/type")"
		eq "control uprobe name" "$TARGET" "$(rd "$d/name")"
		num_eq "control uprobe offset" "$TGT_A_OFF" "$(rd "$d/offset")"
		eq "control uprobe spec" "uprobe:$TARGET:bpflinkfs_target_a" \
			"$(rd "$d/spec")"
		"$TARGET" 5 >/dev/null
		num_eq "control uprobe hits after 5 calls" 5 "$(rd "$d/hits")"
		ctl_rm "$id" && ok "control uprobe removed" ||
			fail "control uprobe: -$id refused"
		[ -d "$d" ] && fail "removed uprobe $id still listed" ||
			ok "removed uprobe gone"
	fi
	id=$(ctl tracepoint:sched:sched_process_exec)
	if [ -z "$id" ]; then
		fail "control tracepoint: $(cat "$WORK/ctl.err")"
	else
		d=$MNT/$id
		eq "control tracepoint type" tracepoint "$(rd "$d/type")"
		eq "control tracepoint name" sched_process_exec "$(rd "$d/name")"
		eq "control tracepoint category" sched "$(rd "$d/category")"
		/bin/true
		/bin/true
		hits=$(rd "$d/hits")
		[[ $hits =~ ^[0-9]+$ ]] && ((hits >= 2)) &&
			ok "control tracepoint hits ($hits)" ||
			fail "control tracepoint hits: '$hits' after 2 execs"
		ctl_rm "$id" && [ ! -d "$d" ] && ok "control tracepoint removed" ||
			fail "control tracepoint removal"
	fi
	id=$(ctl software:cpu-clock)
	if [ -z "$id" ]; then
		fail "control software: $(cat "$WORK/ctl.err")"
	else
		d=$MNT/$id
		eq "control software type" event "$(rd "$d/type")"
		eq "control software name" software:cpu-clock "$(rd "$d/name")"
		num_eq "control software config" 0 "$(rd "$d/config")"
		# 1 (PERF_TYPE_SOFTWARE), or the dynamic PMU newer kernels
		# forward cpu-clock to (a type above the fixed ones, 0-5)
		et=$(rd "$d/event_type")
		[[ $et =~ ^[0-9]+$ ]] && { ((et == 1)) || ((et > 5)); } &&
			ok "control software event_type ($et)" ||
			fail "control software event_type: '$et'"
		ctl_rm "$id" && [ ! -d "$d" ] && ok "control software removed" ||
			fail "control software removal"
	fi
}

# check_kprobe ID TYPE NAME OFFSET ADDR
check_kprobe() {
	local d=$MNT/$1 m
	eq "$2 $3+$4 type" "$2" "$(rd "$d/type")"
	m=$(rd "$d/name")
	[[ $m == "$3" || $m == *":$3" ]] && ok "$2 $3 name ($m)" ||
		fail "$2 name: expected $3, got '$m'"
	num_eq "$2 $3+$4 offset" "$4" "$(rd "$d/offset")"
	if [ "$(feature perf_link_info)" = 0 ] && [ ! -e "$d/addr" ]; then
		skip "$2 $3+$4 addr: absent (kernel cannot tell)"
	else
		num_eq "$2 $3+$4 addr" "$5" "$(rd "$d/addr")"
	fi
	if [ "$(feature missed)" = 1 ]; then
		m=$(rd "$d/missed")
		[[ $m =~ ^[0-9]+$ ]] && ok "$2 missed ($m)" || fail "$2 missed '$m'"
	fi
	if [ "$(feature cookie)" = 1 ]; then
		m=$(rd "$d/cookie")
		[[ $m =~ ^[0-9]+$ ]] && ok "$2 cookie ($m)" || fail "$2 cookie '$m'"
	fi
}

# expect_ctl_error SPEC WHAT: the write must fail and error_log say why.
expect_ctl_error() {
	local id
	id=$(ctl "$1")
	if [ -n "$id" ]; then
		fail "$2: '$1' was accepted (link $id)"
		ctl_rm "$id"
		return
	fi
	ok "$2: refused ($(tr -d '\n' <"$WORK/ctl.err"))"
	grep -qF "$1" "$MNT/error_log" && ok "$2: in error_log" ||
		fail "$2: error_log lacks '$1': $(tail -n3 "$MNT/error_log")"
}

# addr_rule ID ADDR: kptr_restrict 0/1/2 for root and nobody (bpflinkfs(8), NOTES).
addr_rule() {
	local d=$MNT/$1 real=$2 zero=0x0000000000000000 kr par r n
	local old_kr old_par
	old_kr=$(cat /proc/sys/kernel/kptr_restrict)
	old_par=$(cat /proc/sys/kernel/perf_event_paranoid)
	for kr in 0 1 2; do
		for par in 2 1; do
			echo "$kr" >/proc/sys/kernel/kptr_restrict
			echo "$par" >/proc/sys/kernel/perf_event_paranoid
			r=$zero
			n=$zero
			[ "$kr" -lt 2 ] && r=$real
			[ "$kr" -eq 0 ] && [ "$par" -le 1 ] && n=$real
			num_eq "addr kptr_restrict=$kr paranoid=$par root" "$r" \
				"$(rd "$d/addr")"
			num_eq "addr kptr_restrict=$kr paranoid=$par nobody" "$n" \
				"$(nobody_rd "$d/addr")"
		done
	done
	echo "$old_kr" >/proc/sys/kernel/kptr_restrict
	echo "$old_par" >/proc/sys/kernel/perf_event_paranoid
}

# attached/: perf events with a program and no link, made by setbpf (the
# ioctl): a kprobe, a uprobe and a software event; addr per reader.
test_attached() {
	local fn=do_nanosleep addr pid d i kfd kprog ufd uprog efd eprog par
	[ -x "$BL/setbpf" ] || { skip "attached/: setbpf not built"; return; }
	par=$(cat /proc/sys/kernel/perf_event_paranoid)
	echo 0 >/proc/sys/kernel/kptr_restrict
	addr=$(ksym "$fn")
	rm -f "$WORK/sb.in"
	mkfifo "$WORK/sb.in"
	"$BL/setbpf" "kprobe:$fn" "uprobe:$TARGET:$TGT_A_OFF" software:cpu-clock \
		<"$WORK/sb.in" >"$WORK/sb.out" 2>"$WORK/sb.err" &
	pid=$!
	exec 7>"$WORK/sb.in"
	for i in $(seq 100); do
		grep -qx ready "$WORK/sb.out" 2>/dev/null && break
		sleep 0.1
	done
	if ! grep -qx ready "$WORK/sb.out"; then
		fail "attached/: setbpf: $(cat "$WORK/sb.err")"
		exec 7>&-
		return
	fi
	# (no /dev/fd in the guest: no process substitution)
	{
		read -r kfd kprog
		read -r ufd uprog
		read -r efd eprog
	} <"$WORK/sb.out"
	d=$MNT/attached/$pid-$kfd
	eq "attached kprobe type" kprobe "$(rd "$d/type")"
	eq "attached kprobe name" "$fn" "$(rd "$d/name")"
	num_eq "attached kprobe offset" 0 "$(rd "$d/offset")"
	eq "attached kprobe prog_id" "$kprog" "$(rd "$d/prog_id")"
	eq "attached kprobe pid" "$pid" "$(rd "$d/pid")"
	eq "attached kprobe comm" setbpf "$(rd "$d/comm")"
	if [ ! -e "$d/addr" ]; then
		skip "attached kprobe addr: the kernel gives none for a named probe"
	else
		num_eq "attached kprobe addr (root)" "$addr" "$(rd "$d/addr")"
		# kptr_restrict 2: the kernel tells the daemon no address either,
		# so the file is hidden (0) or absent (not known), never real
		echo 2 >/proc/sys/kernel/kptr_restrict
		i=$(rd "$d/addr")
		[ "$i" = "<absent>" ] || [ "$((i))" = 0 ] &&
			ok "attached kprobe addr (root, kptr_restrict 2): $i" ||
			fail "attached kprobe addr (root, kptr_restrict 2): $i"
		echo 0 >/proc/sys/kernel/kptr_restrict
		echo 2 >/proc/sys/kernel/perf_event_paranoid
		num_eq "attached kprobe addr (nobody)" 0 "$(nobody_rd "$d/addr")"
		echo "$par" >/proc/sys/kernel/perf_event_paranoid
	fi
	d=$MNT/attached/$pid-$ufd
	eq "attached uprobe type" uprobe "$(rd "$d/type")"
	eq "attached uprobe name" "$TARGET" "$(rd "$d/name")"
	num_eq "attached uprobe offset" "$TGT_A_OFF" "$(rd "$d/offset")"
	eq "attached uprobe prog_id" "$uprog" "$(rd "$d/prog_id")"
	d=$MNT/attached/$pid-$efd
	eq "attached software type" event "$(rd "$d/type")"
	eq "attached software name" software:cpu-clock "$(rd "$d/name")"
	eq "attached software prog_id" "$eprog" "$(rd "$d/prog_id")"
	grep -q "^$pid-$kfd	kprobe	$fn	" "$MNT/attached/attached" &&
		ok "attached table: kprobe row" || fail "attached table: no kprobe row"
	exec 7>&-
	wait "$pid"
	[ ! -e "$MNT/attached/$pid-$kfd" ] && ok "attached: gone after exit" ||
		fail "attached: $pid-$kfd still there after exit"
}

test_kprobe() {
	local fn=do_nanosleep addr id off bl h
	echo 0 >/proc/sys/kernel/kptr_restrict
	addr=$(ksym "$fn")
	[ -n "$addr" ] || { fail "no $fn in /proc/kallsyms"; return; }
	id=$(ctl "kprobe:$fn")
	if [ -z "$id" ]; then
		fail "kprobe:$fn: $(cat "$WORK/ctl.err")"
	else
		check_kprobe "$id" kprobe "$fn" 0 "$addr"
		sleep 0.05
		h=$(rd "$MNT/$id/hits")
		[[ $h =~ ^[0-9]+$ ]] && ((h >= 1)) && ok "kprobe hits after sleep" ||
			fail "kprobe hits: '$h'"
		# hits is direct_io with size 0 (bpflinkfs(8), THE TREE): sendfile(2),
		# which busybox cat uses, reads such FUSE files through the page
		# cache and sees nothing; read(2) is what counts
		:
		addr_rule "$id" "$addr"
		ctl_rm "$id" && [ ! -d "$MNT/$id" ] && ok "kprobe removed" ||
			fail "kprobe removal"
	fi
	id=$(ctl "kretprobe:$fn")
	[ -n "$id" ] && check_kprobe "$id" kretprobe "$fn" 0 "$addr" ||
		fail "kretprobe:$fn: $(cat "$WORK/ctl.err")"
	# +offset: the first offset that is an instruction boundary (endbr64
	# and the fentry call differ between builds)
	for off in 4 5 9 1 8; do
		id=$(ctl "kprobe:$fn+$off") && [ -n "$id" ] && break
	done
	[ -n "$id" ] && check_kprobe "$id" kprobe "$fn" "$off" \
		"$(printf '0x%x' $((addr + off)))" ||
		fail "kprobe:$fn+OFF: no offset of 4 5 9 1 8 accepted"
	# MODULE:FUNC only where the kernel's own kprobe_events takes it, so
	# a refusal there is not counted against the daemon
	if ! grep -q '^crc7 ' /proc/modules; then
		skip "MODULE:FUNC kprobe: module crc7 not loaded"
	elif ! echo 'p:bl_modtest crc7:crc7_be' \
		>>/sys/kernel/tracing/kprobe_events 2>/dev/null; then
		skip "MODULE:FUNC kprobe: tracefs kprobe_events refuses crc7:crc7_be"
	else
		echo '-:bl_modtest' >>/sys/kernel/tracing/kprobe_events
		id=$(ctl kprobe:crc7:crc7_be)
		[ -n "$id" ] &&
			check_kprobe "$id" kprobe crc7_be 0 "$(ksym crc7_be crc7)" ||
			fail "kprobe:crc7:crc7_be: $(cat "$WORK/ctl.err")"
	fi
	expect_ctl_error kprobe:bpflinkfs_no_such_function "missing function"
	bl=$(awk 'NF >= 2 { print $2; exit }' \
		/sys/kernel/debug/kprobes/blacklist 2>/dev/null)
	[ -n "$bl" ] && expect_ctl_error "kprobe:$bl" "blacklisted $bl" ||
		skip "non-traceable function: no kprobes blacklist in debugfs"
	printf -- '-*\n' >"$MNT/control"
}

# test_multi: wildcard lines (bpflinkfs(8), CONTROL LANGUAGE). A uprobe glob on the
# fixture makes one uprobe_multi link where the kernel has them, else one
# uprobe link per match with a warning in error_log (6.1); a kprobe glob
# makes a kprobe_multi link whose funcs are the functions tracefs lists
# for the pattern, at their kallsyms addresses, and whose hits count.
test_multi() {
	local ids id n sum h want got line f a
	ids=$( (
		exec 3<>"$MNT/control" || exit 1
		printf '%s\n' "uprobe:$TARGET:bpflinkfs_target_[abc]" >&3 || exit 1
		while read -r -t 2 id <&3; do echo "$id"; done
	) 2>"$WORK/ctl.err")
	n=$(echo "$ids" | grep -c '^[0-9]')
	"$TARGET" 5 x >/dev/null # a 5 times, b and c once each
	if [ "$(feature uprobe_multi)" = 1 ]; then
		eq "uprobe glob: one link" 1 "$n"
		id=$(echo "$ids" | head -n1)
		eq "uprobe glob: type" uprobe_multi "$(rd "$MNT/$id/type")"
		num_eq "uprobe glob: count" 3 "$(rd "$MNT/$id/count")"
		num_eq "uprobe glob: hits" 7 "$(rd "$MNT/$id/hits")"
	else
		eq "uprobe glob without uprobe_multi: a link per match" 3 "$n"
		sum=0
		for id in $ids; do
			eq "uprobe glob fallback: type" uprobe "$(rd "$MNT/$id/type")"
			h=$(rd "$MNT/$id/hits")
			sum=$((sum + ${h//[^0-9]/}))
		done
		num_eq "uprobe glob fallback: hits" 7 "$sum"
		grep -q "warning: .*no uprobe_multi links" "$MNT/error_log" &&
			ok "uprobe glob fallback: warning in error_log" ||
			fail "uprobe glob fallback: no warning: $(tail -n3 "$MNT/error_log")"
	fi
	printf -- '-*\n' >"$MNT/control"
	if [ "$(feature kprobe_multi)" != 1 ]; then
		skip "kprobe glob: no kprobe_multi links on this kernel"
		return
	fi
	id=$(ctl 'kprobe:vfs_read*')
	if [ -z "$id" ]; then
		fail "kprobe glob: $(cat "$WORK/ctl.err")"
		return
	fi
	eq "kprobe glob: type" kprobe_multi "$(rd "$MNT/$id/type")"
	want=$(awk '$1 ~ /^vfs_read/ && NF == 1 { print $1 }' \
		/sys/kernel/tracing/available_filter_functions | sort -u)
	got=$(tail -n +2 "$MNT/$id/funcs" | cut -f1 | sort)
	eq "kprobe glob: funcs = tracefs's functions" "$want" "$got"
	num_eq "kprobe glob: count" "$(echo "$want" | wc -l)" \
		"$(rd "$MNT/$id/count")"
	tail -n +2 "$MNT/$id/funcs" | while IFS=$'\t' read -r f a line; do
		[ "$((a))" = "$(($(ksym "$f")))" ] || echo "$f $a"
	done >"$WORK/kaddr"
	eq "kprobe glob: ADDR = kallsyms" "" "$(cat "$WORK/kaddr")"
	cat /proc/version /proc/version >/dev/null
	h=$(rd "$MNT/$id/hits")
	[[ $h =~ ^[0-9]+$ ]] && ((h >= 2)) && ok "kprobe glob hits ($h)" ||
		fail "kprobe glob hits: '$h'"
	sum=$(tail -n +2 "$MNT/$id/funcs" | awk -F'\t' '{ s += $4 } END { print s }')
	[ "$sum" -ge "$h" ] && ok "kprobe glob: HITS add up" ||
		fail "kprobe glob: HITS sum $sum < hits $h"
	ctl_rm "$id" && [ ! -d "$MNT/$id" ] && ok "kprobe glob removed" ||
		fail "kprobe glob removal"
}

# fentry/fexit/rawtracepoint: count execs the test drives where
# the kernel has them (features), else a clear error and no link.
test_kinds() {
	local spec id want sys hits i ids
	case $(uname -m) in
	x86_64) sys=__x64_sys_execve ;;
	aarch64) sys=__arm64_sys_execve ;;
	*) skip "fentry: no syscall name for $(uname -m)"; return ;;
	esac
	for spec in "fentry:$sys" "fexit:$sys" rawtracepoint:sched_process_exec; do
		want=$(feature fentry)
		[ "${spec%%:*}" = rawtracepoint ] && want=$(feature rawtracepoint)
		if [ "$want" != 1 ]; then
			expect_ctl_error "$spec" "$spec without kernel support"
			continue
		fi
		id=$(ctl "$spec")
		if [ -z "$id" ]; then
			fail "$spec: $(cat "$WORK/ctl.err")"
			continue
		fi
		eq "$spec spec" "$spec" "$(rd "$MNT/$id/spec")"
		for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true; done
		hits=$(rd "$MNT/$id/hits")
		[[ $hits =~ ^[0-9]+$ ]] && ((hits >= 10)) &&
			ok "$spec hits ($hits) after 10 execs" ||
			fail "$spec hits: '$hits' after 10 execs"
		ctl_rm "$id" && [ ! -d "$MNT/$id" ] && ok "$spec removed" ||
			fail "$spec removal"
	done
	expect_ctl_error "fentry:bpflinkfs_no_such_function" "fentry not in BTF"
	expect_ctl_error "fentry:bpflinkfs_no_such_fun*" "fentry pattern matching nothing"
	if [ "$(feature fentry)" = 1 ]; then
		ids=$(ctl_ids "fentry:bpf_fentry_test[12]")
		eq "fentry pattern: a link per BTF match" \
			"bpf_fentry_test1 bpf_fentry_test2" \
			"$(for id in $ids; do rd "$MNT/$id/name"; done | sort | paste -sd' ')"
		printf -- '-*\n' >"$MNT/control"
	fi
}

# ctl_ids SPEC: the ids one line made (a line may make several links)
ctl_ids() {
	(
		exec 3<>"$MNT/control" || exit 1
		printf '%s\n' "$1" >&3 || exit 1
		while read -r -t 2 id <&3; do echo "$id"; done
	) 2>"$WORK/ctl.err"
}

# locs_of ID: "OFFSET REF_CTR_OFFSET" a usdt link shows, 0x hex, sorted
locs_of() {
	if [ -e "$MNT/$1/funcs" ]; then
		tail -n +2 "$MNT/$1/funcs" | cut -f1,3
	else
		printf '%s\t%s\n' "$(rd "$MNT/$1/offset")" \
			"$([ -e "$MNT/$1/ref_ctr_offset" ] &&
				rd "$MNT/$1/ref_ctr_offset" || echo 0)"
	fi | while IFS=$'\t' read -r o r; do printf '0x%x 0x%x\n' "$o" "$r"; done
}

# test_usdt: a USDT probe of two locations makes one
# uprobe_multi link where the kernel has them (6.12), else one uprobe link
# per location and a warning (6.1); locations and the semaphore as the
# host's readelf gives them (guest.env), hits as the fixture fires.
test_usdt() {
	local fx=$BL/bpflinkfs_usdt_fixture ids n id got sum h
	if [ ! -x "$fx" ] || [ -z "${USDT_TWICE:-}" ]; then
		skip "usdt: no fixture (the host lacks <sys/sdt.h>)"
		return
	fi
	ids=$(ctl_ids "U:$fx:kt:twice")
	n=$(echo "$ids" | grep -c '^[0-9]')
	"$fx" 4
	got=$(for id in $ids; do locs_of "$id"; done | sort)
	id=$(echo "$ids" | head -n1)
	if [ -e "$MNT/${id:-0}/funcs" ] || [ -e "$MNT/${id:-0}/ref_ctr_offset" ]; then
		eq "usdt kt:twice: locations and semaphores = readelf -n" \
			"$USDT_TWICE" "$got"
	else # 6.1: the kernel reports no ref_ctr_offset of a perf link
		eq "usdt kt:twice: locations = readelf -n" \
			"$(echo "$USDT_TWICE" | cut -d' ' -f1)" \
			"$(echo "$got" | cut -d' ' -f1)"
	fi
	if [ "$(feature uprobe_multi)" = 1 ]; then
		eq "usdt kt:twice: one link" 1 "$n"
		id=$(echo "$ids" | head -n1)
		eq "usdt kt:twice: type" uprobe_multi "$(rd "$MNT/$id/type")"
		num_eq "usdt kt:twice: hits" 8 "$(rd "$MNT/$id/hits")"
		eq "usdt kt:twice: hits per location" "4 4" \
			"$(tail -n +2 "$MNT/$id/funcs" | cut -f5 | paste -sd' ')"
	else
		eq "usdt without uprobe_multi: a link per location" 2 "$n"
		sum=0
		for id in $ids; do
			eq "usdt fallback: type" uprobe "$(rd "$MNT/$id/type")"
			h=$(rd "$MNT/$id/hits")
			sum=$((sum + ${h//[^0-9]/}))
		done
		num_eq "usdt fallback: hits" 8 "$sum"
		grep -q "warning: .*no uprobe_multi links.*USDT location" \
			"$MNT/error_log" && ok "usdt fallback: warning in error_log" ||
			fail "usdt fallback: no warning: $(tail -n3 "$MNT/error_log")"
	fi
	id=$(ctl "U:$fx:guarded")
	"$fx" 3
	got=$(locs_of "${id:-0}")
	if [ -e "$MNT/${id:-0}/funcs" ] || [ -e "$MNT/${id:-0}/ref_ctr_offset" ]; then
		eq "usdt kt:guarded: location and semaphore" "$USDT_GUARD" "$got"
	else
		eq "usdt kt:guarded: location" "${USDT_GUARD% *}" "${got% *}"
	fi
	num_eq "usdt kt:guarded: hits (semaphore raised)" 3 "$(rd "$MNT/${id:-0}/hits")"
	printf -- '-*\n' >"$MNT/control"
}

# events of a kretprobe (bpflinkfs(8), EVENTS): `sleep` processes started after the
# open show up with their pid and do_nanosleep's return value, 0.
test_kretprobe_events() {
	local id cpid pid n
	id=$(ctl "kretprobe:do_nanosleep")
	[ -n "$id" ] || { fail "kretprobe for events: $(cat "$WORK/ctl.err")"; return; }
	# dd, not cat: busybox cat copies with sendfile(2), which FUSE serves
	# from the page cache (empty for a stream); dd reads
	dd if="$MNT/$id/events" bs=65536 2>/dev/null >"$WORK/kr.out" &
	cpid=$!
	sleep 0.5
	sleep 0.01 &
	pid=$!
	wait "$pid"
	sleep 0.5
	kill "$cpid"
	wait "$cpid" 2>/dev/null
	n=$(awk -F'\t' -v p="$pid" '$3 == p && $5 == "sleep" && $6 == "0x0" &&
		NF == 6' "$WORK/kr.out" | wc -l)
	[ "$n" -ge 1 ] && ok "kretprobe events: sleep $pid with RETVAL 0x0" ||
		fail "kretprobe events: no line of sleep $pid: $(head -3 "$WORK/kr.out")"
	ctl_rm "$id"
}

# events of fentry/fexit (bpflinkfs(8), EVENTS; their per-link program instance
# records into the counter's ring): a shell whose pid the test knows
# execs /bin/true (execve returns 0, with the new comm) and then a missing
# file (execve returns -ENOENT, comm still sh). fexit's RETVAL is
# __x64_sys_execve's long return value; fentry lines have no RETVAL.
test_tracing_events() {
	local sys spec id cpid p1 p2 n want
	if [ "$(feature fentry)" != 1 ]; then
		skip "fentry/fexit events: this kernel refuses or lacks fentry"
		return
	fi
	case $(uname -m) in
	x86_64) sys=__x64_sys_execve ;;
	aarch64) sys=__arm64_sys_execve ;;
	*) skip "fexit events: no syscall name for $(uname -m)"; return ;;
	esac
	for spec in "fentry:$sys" "fexit:$sys"; do
		id=$(ctl "$spec")
		[ -n "$id" ] || { fail "$spec for events: $(cat "$WORK/ctl.err")"; continue; }
		[ -e "$MNT/$id/events" ] && ok "$spec: events listed" ||
			fail "$spec: no events file"
		# dd, not cat: busybox cat copies with sendfile(2), which FUSE
		# serves from the page cache (empty for a stream); dd reads
		dd if="$MNT/$id/events" bs=65536 2>/dev/null >"$WORK/tr.out" &
		cpid=$!
		sleep 0.5
		/bin/sh -c 'echo $$ >"$1"; exec /bin/true' sh "$WORK/tr.p1"
		/bin/sh -c 'echo $$ >"$1"; exec /bpflinkfs/no/such/file' sh \
			"$WORK/tr.p2" 2>/dev/null
		sleep 0.5
		kill "$cpid"
		wait "$cpid" 2>/dev/null
		p1=$(cat "$WORK/tr.p1")
		p2=$(cat "$WORK/tr.p2")
		if [ "${spec%%:*}" = fexit ]; then
			n=$(awk -F'\t' -v p="$p1" '$3 == p && $4 == p && $5 == "true" &&
				$6 == "0x0" && NF == 6' "$WORK/tr.out" | wc -l)
			eq "$spec events: execve of true by $p1, RETVAL 0x0" 1 "$n"
			want=0xfffffffffffffffe # -ENOENT as a long
			n=$(awk -F'\t' -v p="$p2" -v r="$want" '$3 == p && $5 == "sh" &&
				$6 == r && NF == 6' "$WORK/tr.out" | wc -l)
			eq "$spec events: failed execve by $p2, RETVAL -ENOENT" 1 "$n"
		else
			n=$(awk -F'\t' -v p="$p1" '$3 == p && $4 == p && $5 == "sh" &&
				NF == 5' "$WORK/tr.out" | wc -l)
			eq "$spec events: execve by $p1 (comm sh, before exec)" 1 "$n"
			n=$(awk -F'\t' -v p="$p2" '$3 == p && $5 == "sh" &&
				NF == 5' "$WORK/tr.out" | wc -l)
			eq "$spec events: execve by $p2 (comm sh)" 1 "$n"
		fi
		ctl_rm "$id"
	done
	# a function returning void: RETVAL `-` (nothing the kernel lets a
	# fexit program read); cat's open of /proc/version installs an fd
	id=$(ctl "fexit:fd_install")
	[ -n "$id" ] || { fail "fexit:fd_install: $(cat "$WORK/ctl.err")"; return; }
	# dd, not cat: busybox cat copies with sendfile(2), which FUSE serves
	# from the page cache (empty for a stream); dd reads
	dd if="$MNT/$id/events" bs=65536 2>/dev/null >"$WORK/tr.out" &
	cpid=$!
	sleep 0.5
	/bin/sh -c 'echo $$ >"$1"; exec cat /proc/version' sh "$WORK/tr.p1" \
		>/dev/null
	sleep 0.5
	kill "$cpid"
	wait "$cpid" 2>/dev/null
	p1=$(cat "$WORK/tr.p1")
	n=$(awk -F'\t' -v p="$p1" '$3 == p && $5 == "cat" && $6 == "-" &&
		NF == 6' "$WORK/tr.out" | wc -l)
	[ "$n" -ge 1 ] && ok "fexit:fd_install events: RETVAL - ($n lines of cat $p1)" ||
		fail "fexit:fd_install events: no line of cat $p1: $(head -3 "$WORK/tr.out")"
	eq "fexit:fd_install events: no other RETVAL" 0 \
		"$(awk -F'\t' -v p="$p1" '$3 == p && $6 != "-"' "$WORK/tr.out" | wc -l)"
	ctl_rm "$id"
}

# A fentry link made by mklinks: type by attach type, name the
# function mklinks was told (the kernel gives its BTF id), attach_type,
# COUNT 1, its holder. The host of the other lanes refuses fentry loads.
test_tracing() {
	local id d i
	if [ "$(feature fentry)" != 1 ]; then
		skip "fentry: this kernel refuses or lacks it"
		return
	fi
	mkfifo "$WORK/mkt.in"
	"$MKLINKS" fentry:bpf_fentry_test1 <"$WORK/mkt.in" >"$WORK/mkt.out" 2>&1 &
	MKL_PID=$!
	exec 5>"$WORK/mkt.in"
	for i in $(seq 50); do
		grep -q '^ready' "$WORK/mkt.out" && break
		sleep 0.1
	done
	if ! grep -q '^ready' "$WORK/mkt.out"; then
		fail "mklinks fentry: $(cat "$WORK/mkt.out")"
	else
		id=$(head -n1 "$WORK/mkt.out" | cut -f1)
		d=$MNT/$id
		eq "fentry type" fentry "$(rd "$d/type")"
		eq "fentry name (BTF target)" bpf_fentry_test1 "$(rd "$d/name")"
		eq "fentry attach_type" trace_fentry "$(rd "$d/attach_type")"
		eq "fentry prog_name" mkl_fentry "$(rd "$d/prog_name")"
		eq "fentry COUNT" 1 "$(awk -F'\t' -v id="$id" \
			'$1 == id { print $9 }' "$MNT/links")"
		eq "fentry pids" "$MKL_PID"$'\t'mklinks \
			"$(grep -v $'\tbpflinkfs$' "$d/pids")"
		eq "fentry pinned" "" "$(rd "$d/pinned")"
	fi
	exec 5>&-
	wait "$MKL_PID"
	MKL_PID=
}

# A kprobe_multi link made by mklinks, not by the daemon:
# bpf_fentry_test* from tracefs's available_filter_functions, attached by
# the addresses mklinks read from /proc/kallsyms, cookies 500 on. type,
# count and each funcs line (FUNC, ADDR, COOKIE) must be what mklinks
# attached, ADDR also what kallsyms says here; prog_id and pids too.
test_kprobe_multi_foreign() {
	local id type pat targets cookies prog d i want got t c
	if [ "$(feature kprobe_multi)" != 1 ]; then
		skip "foreign kprobe_multi: no kprobe_multi links on this kernel"
		return
	fi
	mkfifo "$WORK/mkk.in"
	"$MKLINKS" 'kprobe_multi:bpf_fentry_test*:500' <"$WORK/mkk.in" \
		>"$WORK/mkk.out" 2>&1 &
	MKL_PID=$!
	exec 5>"$WORK/mkk.in"
	# a TCG guest on a busy host: reading tracefs's function list and
	# kallsyms may take seconds
	for i in $(seq 300); do
		grep -q '^ready' "$WORK/mkk.out" && break
		sleep 0.1
	done
	if ! grep -q '^ready' "$WORK/mkk.out"; then
		fail "mklinks kprobe_multi: no ready in 30 s: $(cat "$WORK/mkk.out")"
	else
		IFS=$'\t' read -r id type pat targets cookies prog <"$WORK/mkk.out"
		d=$MNT/$id
		eq "foreign kprobe_multi type" kprobe_multi "$(rd "$d/type")"
		eq "foreign kprobe_multi prog_id" "$prog" "$(rd "$d/prog_id")"
		IFS=, read -r -a t <<<"$targets"
		IFS=, read -r -a c <<<"$cookies"
		num_eq "foreign kprobe_multi count" "${#t[@]}" "$(rd "$d/count")"
		want=$(for i in "${!t[@]}"; do
			echo "${t[i]%%=*} $((${t[i]#*=})) ${c[i]}"
		done | sort)
		got=$(tail -n +2 "$d/funcs" | while IFS=$'\t' read -r f a k; do
			echo "$f $((a)) $k"
		done | sort)
		eq "foreign kprobe_multi funcs = what mklinks attached" "$want" "$got"
		got=$(tail -n +2 "$d/funcs" | while IFS=$'\t' read -r f a k; do
			[ "$((a))" = "$(($(ksym "$f")))" ] || echo "$f $a"
		done)
		eq "foreign kprobe_multi: ADDR = kallsyms" "" "$got"
		eq "foreign kprobe_multi pids" "$MKL_PID"$'\t'mklinks \
			"$(grep -v $'\tbpflinkfs$' "$d/pids")"
	fi
	exec 5>&-
	wait "$MKL_PID"
	MKL_PID=
}

main() {
	echo "# kernel $(uname -r)"
	run_prog "ABI offsets vs BTF (test_abi)" "$BL/test_abi"
	if [ -x "$BL/test_taskfd" ]; then
		run_prog "task fd query fallback (test_taskfd)" "$BL/test_taskfd"
	else
		skip "test_taskfd: not built"
	fi
	# the fd-table scan: it loads from 6.2 on and says so before
	if [ -x "$BL/test_fd_scan" ]; then
		SETBPF=$BL/setbpf run_prog "fd-table scan (test_fd_scan)" \
			"$BL/test_fd_scan"
	else
		skip "test_fd_scan: not built"
	fi
	if start_daemon; then
		ok "daemon mounted"
		sed 's/^/    /' "$MNT/features"
		test_foreign
		test_control
		test_multi
		test_kinds
		test_usdt
		test_tracing
		test_tracing_events
		test_kprobe_multi_foreign
		if [ "$(feature kprobe)" = 1 ]; then
			test_kprobe
			test_attached
			test_kretprobe_events
		else
			skip "kprobes: not in this kernel"
		fi
		kill -0 "$DAEMON_PID" && ok "daemon alive at the end" ||
			fail "daemon died: $(tail -n5 "$WORK/daemon.log")"
	else
		fail "daemon mount"
	fi
	stop_all
	echo "BPFLINKFS-RESULT pass=$PASS fail=$FAILS skip=$SKIPS"
}

main
