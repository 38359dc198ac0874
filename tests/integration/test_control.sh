#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Creating links through MNT/control (bpflinkfs(8), CONTROL LANGUAGE and Reading control): every kind this
# kernel has, checked through the tree and against readelf, objdump,
# bpftool, fdinfo and sysfs; exact uprobe hit counts; read-back; the
# owned listing; O_TRUNC; prog=; removal and unmount.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"
source "$HERE/lib_control.sh"

bl_setup
PIN_DIR=/sys/fs/bpf/bpflinkfs-test-control-$$  # bpffs names have no dots
ctl_cleanup() {
	[ -e "$PIN_DIR" ] && rm -rf "$PIN_DIR"
	bl_cleanup
}
trap ctl_cleanup EXIT
TRACEFS=$(bl_tracefs) || skip "tracefs is not mounted and cannot be mounted"
FIELDS=$(btf_link_info_fields) || skip "cannot read struct bpf_link_info BTF"
has_field() { grep -qx "$1" <<<"$FIELDS"; }
has_field perf_event.type || skip "the kernel has no perf-link info"
[ -d /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"
for tool in objdump taskset; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done

# A copy of the fixture that only this test runs, so hits are exact.
mkdir "$WORK/tgt" || die "mkdir"
TGT=$WORK/tgt/bpflinkfs_target
cp "$(readlink -f "$TARGET")" "$TGT" || die "copy of the target"
OFF_A=$(elf_file_offset "$TGT" bpflinkfs_target_a) || die "offset of a"
OFF_B=$(elf_file_offset "$TGT" bpflinkfs_target_b) || die "offset of b"
OFF_C=$(elf_file_offset "$TGT" bpflinkfs_target_c) || die "offset of c"
# The third instruction of a (objdump), as an offset from its entry.
INSN=$(objdump -d --no-show-raw-insn "$TGT" |
	awk '/<bpflinkfs_target_a>:$/ { f = 1; next }
	     f && /^$/ { exit }
	     f { sub(":", "", $1); print $1 }' | sed -n '1p;3p' | xargs)
INSN=$(printf 0x%x $((0x${INSN#* } - 0x${INSN%% *}))) || INSN=
[ -n "$INSN" ] && [ "$((INSN))" -gt 0 ] || die "no third instruction in a"

mapfile -t CPUS < <(online_cpus)
NCPU=${#CPUS[@]}
[ "$NCPU" -ge 1 ] || die "no online CPUs"
NAMED_TYPES=" $(cat /sys/bus/event_source/devices/*/type | tr '\n' ' ') "

bl_mount

declare -A SPEC KIND EXP_NAME EXP_OFF EXP_SYM EXP_CONFIG EXP_CAT
ALL_IDS=()

# add KIND NAME OFFSET SYMBOL CONFIG CATEGORY -- LINE: create LINE (one link)
# and record what its files must say.
add() {
	local kind=$1 name=$2 off=$3 sym=$4 config=$5 cat=$6 line=$8 ids
	ids=$(ctl_create "$line"$'\n') || {
		fail "creating '$line' failed"
		return 1
	}
	if [ "$(echo "$ids" | wc -l)" -ne 1 ] || [ -z "$ids" ]; then
		fail "'$line' gave ids '$ids', want one"
		return 1
	fi
	record "$ids" "$kind" "$name" "$off" "$sym" "$config" "$cat" "$line"
	LAST=$ids
}

record() {
	KIND[$1]=$2 EXP_NAME[$1]=$3 EXP_OFF[$1]=$4 EXP_SYM[$1]=$5
	EXP_CONFIG[$1]=$6 EXP_CAT[$1]=$7 SPEC[$1]=$8
	ALL_IDS+=("$1")
}

add uprobe "$TGT" "$OFF_A" bpflinkfs_target_a+0x0 - - -- \
	"u:$TGT:bpflinkfs_target_a" && U_A=$LAST
add uretprobe "$TGT" "$OFF_A" bpflinkfs_target_a+0x0 - - -- \
	"ur:$TGT:bpflinkfs_target_a" && UR_A=$LAST
add uprobe "$TGT" "$(printf 0x%x $((OFF_A + INSN)))" \
	"bpflinkfs_target_a+$INSN" - - -- \
	"uprobe:$TGT:bpflinkfs_target_a+$INSN" && U_AOFF=$LAST
add uprobe "$TGT" "$OFF_B" bpflinkfs_target_b+0x0 - - -- \
	"u:$TGT:$OFF_B" && U_B=$LAST
add uretprobe "$TGT" "$OFF_C" bpflinkfs_target_c+0x0 - - -- \
	"uretprobe:$TGT:$OFF_C" && UR_C=$LAST
# a relative path is resolved against the writer's cwd
(cd "$WORK/tgt" && add uprobe x x x - - -- \
	"u:./bpflinkfs_target:bpflinkfs_target_c" && echo "$LAST" \
	>"$WORK/rel.id")
U_REL=$(cat "$WORK/rel.id" 2>/dev/null)
[ -n "$U_REL" ] && record "$U_REL" uprobe "$TGT" "$OFF_C" \
	bpflinkfs_target_c+0x0 - - "u:./bpflinkfs_target:bpflinkfs_target_c"

add tracepoint sched_switch - - - sched -- "t:sched:sched_switch" &&
	TP1=$LAST
# a second built-in link on the same tracepoint counts too (3.3)
add tracepoint sched_switch - - - sched -- \
	"tracepoint:sched:sched_switch" && TP2=$LAST
TP_GETPID=
if [ -d "$TRACEFS/events/syscalls/sys_enter_getpid" ]; then
	add tracepoint sys_enter_getpid - - - syscalls -- \
		"t:syscalls:sys_enter_getpid" && TP_GETPID=$LAST
fi

CFG_CPU=$(sw_config cpu-clock) CFG_TASK=$(sw_config task-clock)
CFG_PF=$(sw_config page-faults)
[ -n "$CFG_CPU" ] && [ -n "$CFG_TASK" ] && [ -n "$CFG_PF" ] ||
	die "no PERF_COUNT_SW_* in /usr/include/linux/perf_event.h"
add event software:task-clock - - "$CFG_TASK" - -- \
	"software:task-clock cpu=0" && EV_TASK=$LAST
add event software:cpu-clock - - "$CFG_CPU" - -- \
	"s:cpu-clock freq=1000 cpu=0" && EV_FREQ=$LAST

# per-CPU: one link per online CPU, each with its own spec
# per_cpu LINE NAME CONFIG: sets PER_CPU_IDS
per_cpu() {
	local id specs=() ids
	PER_CPU_IDS=()
	ids=$(ctl_create "$1"$'\n') || {
		fail "creating '$1' failed"
		return
	}
	mapfile -t PER_CPU_IDS <<<"$ids"
	assert_eq "'$1': one link per online CPU" "$NCPU" "${#PER_CPU_IDS[@]}"
	for id in "${PER_CPU_IDS[@]}"; do
		specs+=("$(cat "$MNT/$id/spec")")
	done
	assert_eq "'$1': specs" "$(printf "$1 cpu=%s\n" "${CPUS[@]}" | sort)" \
		"$(printf '%s\n' "${specs[@]}" | sort)"
	for id in "${PER_CPU_IDS[@]}"; do
		record "$id" event "$2" - - "$3" - "$(cat "$MNT/$id/spec")"
	done
}
per_cpu "s:cpu-clock" software:cpu-clock "$CFG_CPU"
EV_CPU=("${PER_CPU_IDS[@]}")
per_cpu "s:page-faults:10" software:page-faults "$CFG_PF"
EV_PF=("${PER_CPU_IDS[@]}")

t ls "$MNT" >"$WORK/root.ls" || fail "ls $MNT"
daemon_link_ids >"$WORK/held"

# check_link ID: files, values, bpftool, fdinfo.
check_link() {
	local id=$1 kind=${KIND[$1]} f v prog
	local -A want=([type]=$kind [name]=${EXP_NAME[$1]} [spec]=${SPEC[$1]}
		[prog_id]=x [prog_name]=x [hits]=x [events]=x [pids]=x [pinned]=x
		[holders]=x [prog_run_cnt]=x [prog_run_time_ns]=x
		[prog_recursion_misses]=x)
	grep -qx "$id" "$WORK/root.ls" || fail "link $id not in ls $MNT"
	grep -qx "$id" "$WORK/held" || fail "link $id: the daemon holds no fd"
	case $kind in
	uprobe | uretprobe)
		want[offset]=${EXP_OFF[$id]} want[symbol]=${EXP_SYM[$id]}
		has_field perf_event.uprobe.ref_ctr_offset &&
			want[ref_ctr_offset]=0x0
		has_field perf_event.uprobe.cookie && want[cookie]=x
		;;
	tracepoint)
		want[category]=${EXP_CAT[$id]}
		has_field perf_event.tracepoint.cookie && want[cookie]=x
		;;
	event)
		want[config]=${EXP_CONFIG[$id]} want[event_type]=x
		has_field perf_event.event.cookie && want[cookie]=x
		;;
	esac
	assert_eq "ls $MNT/$id (${SPEC[$id]})" \
		"$(printf '%s\n' "${!want[@]}" | sort | xargs)" \
		"$(t ls "$MNT/$id" | sort | xargs)"
	prog=$(cat "$MNT/$id/prog_id" 2>/dev/null)
	for f in "${!want[@]}"; do
		[ "$f" == events ] && continue # a stream: test_events.sh
		v=$(t cat "$MNT/$id/$f") || {
			fail "cat $id/$f"
			continue
		}
		case $f in
		offset | ref_ctr_offset)
			assert_match "$id/$f is 0x hex" '^0x[0-9a-f]+$' "$v"
			assert_num_eq "$id/$f" "${want[$f]}" "$v"
			;;
		symbol)
			# readelf/objdump give the number; compare it as one
			assert_eq "$id/symbol" "${want[$f]%%+*}" "${v%%+*}"
			assert_num_eq "$id/symbol offset" "${want[$f]#*+}" \
				"${v#*+}"
			;;
		prog_name)
			assert_eq "$id/prog_name" "$(bpftool prog show id \
				"$prog" -j | python3 -c 'import json,sys
print(json.load(sys.stdin).get("name", ""))')" "$v"
			;;
		prog_id | cookie | hits | prog_run_cnt | prog_run_time_ns | \
			prog_recursion_misses) # prog_*: test_top.sh
			assert_match "$id/$f is decimal" '^[0-9]+$' "$v" ;;
		pids) # the daemon holds the links it made
			assert_true "$id/pids has the daemon" grep -qx \
				"$BL_DAEMON_PID"$'\t'bpflinkfs <<<"$v"
			;;
		holders)
			assert_true "$id/holders has the daemon" grep -q \
				"^$BL_DAEMON_PID"$'\t'bpflinkfs$'\t' <<<"$v"
			;;
		pinned) assert_eq "$id/pinned (no pin_dir)" "" "$v" ;;
		event_type)
			if [ "$v" == 1 ] || { [[ "$v" =~ ^[0-9]+$ ]] &&
				[ "$v" -ge 6 ] && [[ "$NAMED_TYPES" != *" $v "* ]]; }
			then ok
			else fail "$id/event_type '$v' is not a software PMU"
			fi
			;;
		*) assert_eq "$id/$f" "${want[$f]}" "$v" ;;
		esac
	done
	bpftool link show id "$id" -j >"$WORK/bt.json" 2>/dev/null ||
		fail "bpftool link show id $id"
	assert_eq "bpftool: link $id" "$id perf_event $prog" "$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print(j["id"], j["type"], j["prog_id"])' "$WORK/bt.json" 2>/dev/null)"
}

for id in "${ALL_IDS[@]}"; do
	check_link "$id"
done

# hits: exact on the private fixture, rising elsewhere
declare -A H0
snap() {
	local id
	for id in "${ALL_IDS[@]}"; do
		H0[$id]=$(cat "$MNT/$id/hits" 2>/dev/null)
	done
}
# delta ID: hits now minus the snapshot
delta() {
	echo $(($(cat "$MNT/$1/hits") - ${H0[$1]}))
}
for run in 5 3; do
	snap
	"$TGT" "$run" x >/dev/null || fail "running the fixture"
	assert_eq "hits of '${SPEC[$U_A]}' after $run calls" "$run" \
		"$(delta "$U_A")"
	assert_eq "hits of '${SPEC[$UR_A]}' after $run calls" "$run" \
		"$(delta "$UR_A")"
	assert_eq "hits of '${SPEC[$U_AOFF]}' after $run calls" "$run" \
		"$(delta "$U_AOFF")"
	assert_eq "hits of '${SPEC[$U_B]}' (called once)" 1 "$(delta "$U_B")"
	assert_eq "hits of '${SPEC[$UR_C]}' (called once)" 1 \
		"$(delta "$UR_C")"
	[ -n "$U_REL" ] && assert_eq "hits of '${SPEC[$U_REL]}' (called once)" \
		1 "$(delta "$U_REL")"
done
snap
python3 -c 'import os
for i in range(200): os.getpid()'
for c in "${CPUS[@]}"; do
	busy "$c" 0.3
	python3 -c 'x = bytearray(1 << 24)' # page faults
done
# tp_event_fired: every tracepoint and event link has counted since snap
# (a software event's sample may land a moment after the load that made it)
tp_event_fired() {
	local id
	for id in "${ALL_IDS[@]}"; do
		case ${KIND[$id]} in tracepoint | event) ;; *) continue ;; esac
		[ "$(delta "$id")" -gt 0 ] || return 1
	done
}
wait_for -q 5 tp_event_fired
for id in "${ALL_IDS[@]}"; do
	case ${KIND[$id]} in tracepoint | event) ;; *) continue ;; esac
	d=$(delta "$id")
	if [ "$id" == "$TP_GETPID" ]; then
		[ "$d" -ge 200 ] && ok ||
			fail "'${SPEC[$id]}': $d hits after 200 getpid()"
	else
		[ "$d" -gt 0 ] && ok || fail "'${SPEC[$id]}' ($id) never fired"
	fi
done

# read-back on a handle that has written (bash, a byte at a time)
exec 3<>"$MNT/control"
echo "software:cpu-clock cpu=0" >&3
IFS= read -r -t 10 rb1 <&3 || fail "read-back: no id"
assert_match "read-back id" '^[0-9]+$' "${rb1:-}"
if IFS= read -r -t 10 extra <&3; then
	fail "read-back: '$extra' after the only id, not EOF"
else
	assert_eq "read-back: EOF after the id" "" "${extra:-}"
fi
echo "s:cpu-clock" >&3
RB_CPU=()
while IFS= read -r -t 10 x <&3; do RB_CPU+=("$x"); done
assert_eq "read-back: ids of s:cpu-clock" "$NCPU" "${#RB_CPU[@]}"
printf 's:task-clock cpu=0\n# c\n\ns:page-faults cpu=0\n' >&3
RB2=()
while IFS= read -r -t 10 x <&3; do RB2+=("$x"); done
exec 3>&-
assert_eq "read-back: two ids of a two-line write" 2 "${#RB2[@]}"
if [ "${#RB2[@]}" -eq 2 ]; then
	assert_eq "read-back: first id's spec" "s:task-clock cpu=0" \
		"$(cat "$MNT/${RB2[0]}/spec")"
	assert_eq "read-back: second id's spec" "s:page-faults cpu=0" \
		"$(cat "$MNT/${RB2[1]}/spec")"
fi
t ls "$MNT" >"$WORK/root.ls"
for id in "${rb1:-x}" "${RB_CPU[@]}" "${RB2[@]}"; do
	grep -qx "$id" "$WORK/root.ls" && ok || fail "read-back id $id not in ls"
	[ -n "$id" ] && [ -d "$MNT/$id" ] &&
		record "$id" event - - - - - "$(cat "$MNT/$id/spec")"
done

# the owned listing on a fresh handle: exactly our links
for id in "${ALL_IDS[@]}"; do
	printf '%s\t%s\n' "$id" "${SPEC[$id]}"
done | sort >"$WORK/want.list"
owned_listing | sort >"$WORK/got.list"
diff "$WORK/want.list" "$WORK/got.list" >&2 && ok ||
	fail "cat control does not list exactly the owned links (diff above)"

# O_TRUNC and truncate remove nothing
echo "# only a comment" >"$MNT/control" || fail "O_TRUNC write of a comment"
: >"$MNT/control" || fail "open with O_TRUNC"
truncate -s 0 "$MNT/control" && ok || fail "truncate -s 0 control"
owned_listing | sort >"$WORK/got.list"
diff "$WORK/want.list" "$WORK/got.list" >&2 && ok ||
	fail "O_TRUNC / truncate changed the owned links"

# prog=: programs this test compiles and pins itself
cat >"$WORK/p.c" <<'EOF'
#define SEC(n) __attribute__((section(n), used))
SEC("uprobe") int ctl_t_up(void *ctx) { return 0; }
SEC("tracepoint") int ctl_t_tp(void *ctx) { return 0; }
SEC("socket") int ctl_t_sock(void *ctx) { return 0; }
char _license[] SEC("license") = "GPL";
EOF
if command -v clang >/dev/null &&
	clang -O2 -target bpf -c "$WORK/p.c" -o "$WORK/p.o" 2>"$WORK/clang.err" &&
	bpftool prog loadall "$WORK/p.o" "$PIN_DIR" 2>"$WORK/bpftool.err"; then
	UA="u:$TGT:bpflinkfs_target_a"
	UP=$(bpftool prog show pinned "$PIN_DIR/ctl_t_up" -j | python3 -c '
import json, sys; print(json.load(sys.stdin)["id"])')
	line="$UA prog=$PIN_DIR/ctl_t_up cookie=42"
	ids=$(ctl_create "$line"$'\n') || fail "'$line' failed"
	if [ -n "$ids" ]; then
		assert_eq "prog= link: cookie" 42 "$(cat "$MNT/$ids/cookie")"
		assert_eq "prog= link: prog_id" "$UP" "$(cat "$MNT/$ids/prog_id")"
		assert_eq "prog= link: prog_name" ctl_t_up \
			"$(cat "$MNT/$ids/prog_name")"
		[ -e "$MNT/$ids/hits" ] && fail "prog= link $ids has a hits file"
		t ls "$MNT/$ids" | grep -qx hits && fail "ls $ids shows hits"
		record "$ids" uprobe - - - - - "$line"
		assert_eq "bpftool: prog= link's program" "$UP" "$(bpftool link \
			show id "$ids" -j | python3 -c 'import json,sys
print(json.load(sys.stdin)["prog_id"])')"
	fi
	line="t:sched:sched_switch prog=$PIN_DIR/ctl_t_tp cookie=7"
	ids=$(ctl_create "$line"$'\n') || fail "'$line' failed"
	if [ -n "$ids" ]; then
		assert_eq "prog= tracepoint: cookie" 7 "$(cat "$MNT/$ids/cookie")"
		[ -e "$MNT/$ids/hits" ] && fail "prog= link $ids has a hits file"
		record "$ids" tracepoint - - - - - "$line"
	fi
	assert_errno "prog= of a missing pin" ENOENT \
		"$UA prog=$PIN_DIR/nosuch"$'\n'
	assert_errno "prog= of a socket filter" EINVAL \
		"$UA prog=$PIN_DIR/ctl_t_sock"$'\n'
	assert_errno "prog= of a tracepoint program on a uprobe" EINVAL \
		"$UA prog=$PIN_DIR/ctl_t_tp"$'\n'
else
	echo "NOTE: prog= not tested (no clang -target bpf or bpftool" \
		"prog loadall): $(cat "$WORK/clang.err" "$WORK/bpftool.err" \
		2>/dev/null)"
fi

# removal: -ID and rmdir leave ls at once and bpftool within seconds
for how in minus rmdir; do
	if [ "$how" == minus ]; then
		id=$U_A
		echo "-$id" >"$MNT/control" || fail "-$id failed"
	else
		id=$UR_A
		t rmdir "$MNT/$id" || fail "rmdir $MNT/$id failed"
	fi
	t ls "$MNT" | grep -qx "$id" && fail "$how: $id still in ls"
	[ -e "$MNT/$id" ] && fail "$how: $MNT/$id still exists"
	owned_listing | cut -f1 | grep -qx "$id" &&
		fail "$how: $id still in cat control"
	left=$(wait_links_gone 5 "$id") || fail "$how: $id still in bpftool"
done
assert_errno "-ID of a removed link" ENOENT "-$U_A"$'\n'

# unmount detaches every owned link, and the daemon exits
mapfile -t LEFT < <(owned_listing | cut -f1)
[ "${#LEFT[@]}" -gt 10 ] || fail "only ${#LEFT[@]} owned links before unmount"
fusermount3 -u "$MNT" || fail "fusermount3 -u"
wait_for -q 15 bl_gone "$BL_DAEMON_PID"
kill -0 "$BL_DAEMON_PID" 2>/dev/null && fail "daemon still runs 15 s after unmount"
wait "$BL_DAEMON_PID" 2>/dev/null
assert_eq "daemon exit status after unmount" 0 "$?"
left=$(wait_links_gone 2 "${LEFT[@]}") ||
	fail "links left in bpftool after unmount: $left"
finish
