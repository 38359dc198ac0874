#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The guest side of cost_per_hit_vm.sh, run by the VM lane's /init in place
# of guest_tests.sh (busybox, bash; no compilers, python or bpftool). In
# /opt/bl: the daemon, hit_fixture, empty.bpf.o, empty_attach (built on the
# host), cost.env (CALLS, ROUNDS, FUNCS: candidate kernel functions behind
# getpid, first that this kernel's BTF and ftrace both have wins) and
# bpftrace when the host put it in.
#
# Rows, on the getpid loop of hit_fixture (CPU 0; everything else on CPU 1):
#   fentry      fentry on FUNC, the function getpid runs
#   tracepoint  syscalls:sys_enter_getpid, for scale against the host's row
# each under none, empty (empty.bpf.c loaded by empty_attach), counter
# (control: fentry:FUNC / tracepoint:...), bpftrace `@ = count()` when
# /opt/bl/bpftrace exists. Prints "BLCOST ROUND ROW HOW MEAN FASTEST"
# lines (ns per call: see run_fixture) for the host, "BLCOST-FUNC FUNC" and, last, "BPFLINKFS-RESULT pass=N fail=M
# skip=K" for tests/vm/run.sh: a fail is a probe that did not fire (the
# counter's hits, bpftrace's @, the empty program's run_cnt, counted with
# kernel.bpf_stats_enabled on for a short loop after the timed one).

set -u
BL=/opt/bl
MNT=/mnt/bl
WORK=/tmp/bl
PASS=0 FAILS=0 SKIPS=0
DPID= HPID=
. "$BL/cost.env"
export PATH=$BL:$PATH

say_result() {
	echo "BPFLINKFS-RESULT pass=$PASS fail=$FAILS skip=$SKIPS"
}

# rd FILE: read with read(2) (busybox cat's sendfile sees nothing in
# direct_io files)
rd() { echo "$(<"$1")"; }

start_daemon() {
	local i
	mkdir -p "$MNT" "$WORK"
	taskset -c 1 "$BL/bpflinkfs" "$MNT" -f 2>"$WORK/daemon.log" &
	DPID=$!
	for i in $(seq 100); do
		[ -e "$MNT/features" ] && return 0
		sleep 0.1
	done
	cat "$WORK/daemon.log"
	return 1
}

# ctl SPEC: a link through control; prints its id, or nothing
ctl() {
	(
		exec 3<>"$MNT/control" || exit 1
		printf '%s\n' "$1" >&3 || exit 1
		read -r -t 10 id <&3 && echo "$id"
	) 2>/dev/null
}

# run_fixture [N]: "MEAN FASTEST", ns per call over the loop and over its
# fastest of CHUNKS parts (the guest's clock runs on while the host has
# its vCPU descheduled; a part without such a gap shows the cost alone)
run_fixture() {
	taskset -c 0 "$BL/hit_fixture" getpid "$CALLS" "${CHUNKS:-100}" |
		cut -d' ' -f1,3
}

# probe ROW: the spec of the row's probe, for control and for bpftrace
spec_of() {
	case $1 in
	fentry) echo "fentry:$FUNC" ;;
	tracepoint) echo "tracepoint:syscalls:sys_enter_getpid" ;;
	esac
}
bt_probe_of() {
	case $1 in
	fentry) echo "kfunc:$FUNC" ;; # bpftrace 0.17's name for fentry
	tracepoint) echo "tracepoint:syscalls:sys_enter_getpid" ;;
	esac
}

# fired PID: whether the program PID holds runs on the fixture's calls:
# with kernel.bpf_stats_enabled on for a short loop after the timed one,
# run_cnt in the fdinfo of its program fd must grow by the loop's calls
fired() {
	local f n=1000 before after
	f=$(grep -l '^run_cnt:' /proc/"$1"/fdinfo/* 2>/dev/null | head -n1)
	[ -n "$f" ] || return 1
	echo 1 >/proc/sys/kernel/bpf_stats_enabled
	before=$(sed -n 's/^run_cnt:[[:space:]]*//p' "$f")
	taskset -c 0 "$BL/hit_fixture" getpid "$n" >/dev/null
	after=$(sed -n 's/^run_cnt:[[:space:]]*//p' "$f")
	echo 0 >/proc/sys/kernel/bpf_stats_enabled
	[ $((after - before)) -ge "$n" ]
}

# stop_bpftrace: SIGINT (it prints its maps), SIGKILL after 60 s: a 6.1
# guest once made no progress for 10 minutes at a bpftrace run
stop_bpftrace() {
	local i
	kill -INT "$HPID" 2>/dev/null
	for i in $(seq 120); do
		kill -0 "$HPID" 2>/dev/null || break
		sleep 0.5
	done
	kill -KILL "$HPID" 2>/dev/null
	wait "$HPID" 2>/dev/null
	HPID=
}

# measure ROW HOW: ns per call, or nothing (and a fail) when the probe
# did not fire or could not be made
measure() {
	local row=$1 how=$2 ns id hits out
	case $how in
	none) run_fixture ;;
	empty)
		if [ "$row" = fentry ]; then
			set -- fentry "$FUNC"
		else
			set -- tracepoint syscalls sys_enter_getpid
		fi
		coproc taskset -c 1 "$BL/empty_attach" "$BL/empty.bpf.o" "$@"
		HPID=$COPROC_PID
		read -r out <&"${COPROC[0]}"
		if [ "$out" != ready ]; then
			echo "FAIL - empty $row: empty_attach did not attach" >&2
			return
		fi
		ns=$(run_fixture)
		if ! fired "$HPID"; then
			kill "$HPID"; wait "$HPID" 2>/dev/null; HPID=
			echo "FAIL - empty $row: the program did not run" >&2
			return
		fi
		kill "$HPID"; wait "$HPID" 2>/dev/null; HPID=
		echo "$ns" ;;
	counter)
		id=$(ctl "$(spec_of "$row")")
		if [ -z "$id" ]; then
			echo "FAIL - counter $row: $(tail -n2 "$MNT/error_log")" >&2
			return
		fi
		ns=$(run_fixture)
		hits=$(rd "$MNT/$id/hits")
		printf -- '-%s\n' "$id" >"$MNT/control"
		if [ "${hits:-0}" -lt "$CALLS" ]; then
			echo "FAIL - counter $row: $hits hits < $CALLS calls" >&2
			return
		fi
		echo "$ns" ;;
	bpftrace)
		taskset -c 1 "$BL/bpftrace" -e \
			"$(bt_probe_of "$row") { @ = count(); }" >"$WORK/bt.out" 2>&1 &
		HPID=$!
		for _ in $(seq 1200); do
			grep -qs Attaching "$WORK/bt.out" && break
			kill -0 "$HPID" 2>/dev/null || break
			sleep 0.1
		done
		if ! grep -qs Attaching "$WORK/bt.out"; then
			stop_bpftrace
			echo "FAIL - bpftrace $row: did not attach:" \
				"$(tail -n3 "$WORK/bt.out")" >&2
			return
		fi
		sleep 5 # it prints before it attaches; slower under emulation
		ns=$(run_fixture)
		stop_bpftrace
		hits=$(sed -n 's/^@: //p' "$WORK/bt.out")
		if [ "${hits:-0}" -lt "$CALLS" ]; then
			echo "FAIL - bpftrace $row: @ ${hits:-none} < $CALLS calls:" \
				"$(tail -n3 "$WORK/bt.out")" >&2
			return
		fi
		echo "$ns" ;;
	esac
}

main() {
	local f id hows row r k how ns
	echo "# kernel $(uname -r), $(nproc) CPUs, $CALLS calls a run, $ROUNDS rounds"
	echo "# clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	if ! start_daemon; then
		FAILS=1
		say_result
		return
	fi
	FUNC=
	for f in $FUNCS; do
		id=$(ctl "fentry:$f")
		if [ -n "$id" ]; then
			printf -- '-%s\n' "$id" >"$MNT/control"
			FUNC=$f
			break
		fi
		# error_log: the message, the command, the caret
		echo "# fentry:$f: $(tail -n3 "$MNT/error_log" | head -n1)"
	done
	rows="tracepoint"
	if [ -n "$FUNC" ]; then
		echo "BLCOST-FUNC $FUNC"
		rows="fentry tracepoint"
	else
		echo "skip - fentry: none of $FUNCS can be attached"
		SKIPS=$((SKIPS + 1))
	fi
	hows=(none empty counter)
	if [ -x "$BL/bpftrace" ]; then
		hows+=(bpftrace)
	else
		echo "# no bpftrace in the guest: row (d) is not measured"
	fi
	for r in $(seq "$ROUNDS"); do
		for row in $rows; do
			# rotate the order each round, so drift favours no one
			for k in "${!hows[@]}"; do
				how=${hows[$(((k + r) % ${#hows[@]}))]}
				ns=$(measure "$row" "$how")
				if [ -n "$ns" ]; then
					echo "BLCOST $r $row $how $ns"
					PASS=$((PASS + 1))
				else
					echo "FAIL - $r $row $how"
					FAILS=$((FAILS + 1))
				fi
			done
		done
	done
	printf -- '-*\n' >"$MNT/control" 2>/dev/null
	umount "$MNT" 2>/dev/null
	kill "$DPID" 2>/dev/null
	wait 2>/dev/null
	say_result
}

main
