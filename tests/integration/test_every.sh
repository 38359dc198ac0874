#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every link type in view: links of other types made by mklinks
# (no bpflinkfs code) show exactly their applicable files, with values from
# `bpftool -j link show`, readelf and kernel BTF; pids are the holders
# found in /proc/*/fdinfo (link_id:), pinned the paths in bpffs; links and
# links.json list every link bpftool lists, with the same type and program.
# Tracing links (fentry) cannot be loaded on this host: the qemu lane
# (tests/vm/guest_tests.sh) checks them.

source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

bl_setup
command -v jq >/dev/null || skip "jq is not installed"
FIELDS=$(btf_link_info_fields) || skip "cannot read struct bpf_link_info BTF"
has_field() { grep -qx "$1" <<<"$FIELDS"; }
has_field raw_tracepoint.tp_name || skip "no raw_tracepoint link info"

TGT=$(readlink -f "$TARGET")
OFF_A=$(elf_file_offset "$TGT" bpflinkfs_target_a) || die "offset of a"
OFF_B=$(elf_file_offset "$TGT" bpflinkfs_target_b) || die "offset of b"
OFF_C=$(elf_file_offset "$TGT" bpflinkfs_target_c) || die "offset of c"
SEMA=$(elf_file_offset "$TGT" bpflinkfs_target_sema) || die "offset of sema"

# Link type names of the kernel (enum bpf_link_type in BTF), for bpftool
# versions that print a number for a type they do not know.
bpftool btf dump file /sys/kernel/btf/vmlinux format c |
	sed -n 's/^\tBPF_LINK_TYPE_\([A-Z_]*\) = \([0-9]*\),$/\2 \1/p' |
	tr 'A-Z' 'a-z' >"$WORK/link_types"
[ -s "$WORK/link_types" ] || die "no enum bpf_link_type in BTF"

bl_mount

# features first: what the kernel lets us create, found without bpflinkfs
t cat "$MNT/features" >"$WORK/features" || fail "cat features"
feat() { awk -v k="$1" '$1 == k { print $2 }' "$WORK/features"; }
assert_eq "features: no other_links" "" "$(feat other_links)"
for k in kprobe_multi uprobe_multi multi_link_info fentry rawtracepoint usdt; do
	assert_match "features: $k" '^[01]$' "$(feat "$k")"
done
has_field kprobe_multi.addrs && has_field uprobe_multi.path &&
	WANT=1 || WANT=0
assert_eq "features: multi_link_info (BTF)" "$WANT" "$(feat multi_link_info)"
[ -e /sys/bus/event_source/devices/uprobe/format/ref_ctr_offset ] &&
	WANT=1 || WANT=0
assert_eq "features: usdt (uprobe PMU with ref_ctr_offset)" "$WANT" \
	"$(feat usdt)"
if zgrep -q '^CONFIG_FPROBE=y' /proc/config.gz 2>/dev/null; then :; else
	[ -e /proc/config.gz ] &&
		assert_eq "features: kprobe_multi without CONFIG_FPROBE" 0 \
			"$(feat kprobe_multi)"
fi

# The foreign links: a raw tracepoint with a cookie and a netns link held
# by mklinks and a forked child; a uprobe_multi link (pid filter, cookies,
# a reference counter) and a uretprobe_multi link where the kernel has them
sleep 600 & # a process for the pid filter to name, not a wait
FILTER_PID=$!
mkl_start every --fork "raw_tracepoint:sys_enter:77" flow_dissector
CHILD=$(awk '$1 == "child" { print $2 }' "${MKL_OUT[every]}")
[ -n "$CHILD" ] || die "mklinks --fork printed no child"
mkl_lines every | grep -v '^child ' >"$WORK/made"
RAW=$(awk -F'\t' '$2 == "raw_tracepoint" { print $1 }' "$WORK/made")
NETNS=$(awk -F'\t' '$2 == "flow_dissector" { print $1 }' "$WORK/made")
[ -n "$RAW" ] && [ -n "$NETNS" ] || die "mklinks made no raw_tp/netns link"
assert_eq "features: rawtracepoint (mklinks made one)" 1 \
	"$(feat rawtracepoint)"

UMULTI= URMULTI=
if "$MKLINKS" --pid "$FILTER_PID" "uprobe_multi:$TGT:$OFF_A:1" \
	</dev/null >/dev/null 2>&1; then
	mkl_start multi --pid "$FILTER_PID" \
		"uprobe_multi:$TGT:$OFF_A/$SEMA,$OFF_B:11,22" \
		"uretprobe_multi:$TGT:$OFF_C:5"
	UMULTI=$(mkl_lines multi | awk -F'\t' '$2 == "uprobe_multi" { print $1 }')
	URMULTI=$(mkl_lines multi |
		awk -F'\t' '$2 == "uretprobe_multi" { print $1 }')
	has_field uprobe_multi.path && WANT=1 || WANT=0
	assert_eq "features: uprobe_multi (mklinks made one)" "$WANT" \
		"$(feat uprobe_multi)"
else
	assert_eq "features: uprobe_multi (mklinks cannot make one)" 0 \
		"$(feat uprobe_multi)"
fi

# bpftool 7.5 where it can be had (it names every link type and decodes
# multi links), else the system's
bl_bpftool75 || echo "note: bpftool 7.5 cannot be had; comparing with $(bpftool version | head -1)"
bpftool75 -j link show >"$WORK/bpftool.json" || die "bpftool -j link show"
bt() { # bt ID KEY: a key of link ID in bpftool's JSON
	jq -r --argjson id "$1" --arg k "$2" \
		'.[] | select(.id == $id) | .[$k] // empty' "$WORK/bpftool.json"
}
prog_name() {
	bpftool -j prog show id "$1" | jq -r .name
}

# check_files ID EXACT|ATLEAST FILE...: ls ID/ is exactly (or holds) FILEs
check_files() {
	local id=$1 how=$2 got want f
	shift 2
	got=$(t ls "$MNT/$id" | sort | tr '\n' ' ')
	if [ "$how" == EXACT ]; then
		want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
		assert_eq "ls $id" "$want" "$got"
		return
	fi
	for f in "$@"; do
		assert_true "$id/$f exists" test -e "$MNT/$id/$f"
	done
}

# check_common ID: type-independent files against bpftool
check_common() {
	local id=$1 prog
	prog=$(bt "$id" prog_id)
	assert_eq "$id/prog_id (bpftool)" "$prog" "$(t cat "$MNT/$id/prog_id")"
	assert_eq "$id/prog_name (bpftool prog show)" "$(prog_name "$prog")" \
		"$(t cat "$MNT/$id/prog_name")"
}

# holders ID: PID<TAB>COMM of every process with an fd of link ID, found
# in /proc/*/fdinfo; bpflinkfs daemons (which open links for a moment to
# read them) left out
holders() {
	local f pid
	for f in /proc/[0-9]*/fdinfo/*; do
		grep -qx "link_id:[[:space:]]*$1" "$f" 2>/dev/null || continue
		pid=${f#/proc/}
		pid=${pid%%/*}
		printf '%s\t%s\n' "$pid" "$(cat "/proc/$pid/comm" 2>/dev/null)"
	done | grep -v $'\tbpflinkfs$' | sort -n -u
}
pids_of() {
	t cat "$MNT/$1/pids" | grep -v $'\tbpflinkfs$'
}

# every link: its program's run statistics (test_top.sh checks them)
PROG_STATS=(prog_run_cnt prog_run_time_ns prog_recursion_misses)

# raw tracepoint
COOKIE_FILE=()
has_field raw_tracepoint.cookie && COOKIE_FILE=(cookie)
check_files "$RAW" EXACT type name "${COOKIE_FILE[@]}" prog_id prog_name \
	pids pinned holders "${PROG_STATS[@]}"
assert_eq "$RAW/type (bpftool)" "$(bt "$RAW" type)" \
	"$(t cat "$MNT/$RAW/type")"
assert_eq "$RAW/name (bpftool tp_name)" "$(bt "$RAW" tp_name)" \
	"$(t cat "$MNT/$RAW/name")"
[ "${#COOKIE_FILE[@]}" -eq 1 ] &&
	assert_eq "$RAW/cookie" 77 "$(t cat "$MNT/$RAW/cookie")"
check_common "$RAW"

# netns flow dissector: a link that probes nothing
check_files "$NETNS" EXACT type attach_type netns_ino prog_id prog_name \
	pids pinned holders "${PROG_STATS[@]}"
assert_eq "$NETNS/type (bpftool)" "$(bt "$NETNS" type)" \
	"$(t cat "$MNT/$NETNS/type")"
assert_eq "$NETNS/attach_type (bpftool)" "$(bt "$NETNS" attach_type)" \
	"$(t cat "$MNT/$NETNS/attach_type")"
# the network namespace mklinks made for it: its inode in /proc
assert_eq "$NETNS/netns_ino (/proc/PID/ns/net of mklinks)" \
	"$(stat -L -c %i "/proc/${MKL_PID[every]}/ns/net")" \
	"$(t cat "$MNT/$NETNS/netns_ino")"
assert_eq "$NETNS/netns_ino (bpftool)" "$(bt "$NETNS" netns_ino)" \
	"$(t cat "$MNT/$NETNS/netns_ino")"
check_common "$NETNS"

# uprobe_multi: the files this scheme gives (helper files may add more)
if [ -n "$UMULTI" ]; then
	check_files "$UMULTI" ATLEAST type name prog_id prog_name pids pinned
	assert_eq "$UMULTI/type" uprobe_multi "$(t cat "$MNT/$UMULTI/type")"
	assert_eq "$URMULTI/type" uretprobe_multi \
		"$(t cat "$MNT/$URMULTI/type")"
	assert_eq "$UMULTI/name (the path)" "$TGT" \
		"$(t cat "$MNT/$UMULTI/name")"
	check_common "$UMULTI"
	check_common "$URMULTI"
	for f in offset addr cookie config event_type symbol attach_type; do
		assert_true "$UMULTI/$f absent" test ! -e "$MNT/$UMULTI/$f"
	done
fi

# links: COUNT 1 for a single-target probe link, targets of a multi
# link, - for a link that probes nothing
t cat "$MNT/links" >"$WORK/links" || fail "cat links"
assert_eq "links header" \
	"$(printf 'ID\tTYPE\tNAME\tOFFSET\tADDR\tCONFIG\tCOOKIE\tPROG_ID\tCOUNT')" \
	"$(head -1 "$WORK/links")"
col() { awk -F'\t' -v id="$1" -v c="$2" '$1 == id { print $c }' \
	"$WORK/links"; }
assert_eq "links: COUNT of raw_tracepoint" 1 "$(col "$RAW" 9)"
assert_eq "links: COUNT of netns" - "$(col "$NETNS" 9)"
assert_eq "links: TYPE of netns" netns "$(col "$NETNS" 2)"
if [ -n "$UMULTI" ]; then
	assert_eq "links: COUNT of uprobe_multi (2 targets)" 2 \
		"$(col "$UMULTI" 9)"
	assert_eq "links: COUNT of uretprobe_multi (1 target)" 1 \
		"$(col "$URMULTI" 9)"
fi

# pids: both mklinks and its child, equal to /proc's holders
for id in $RAW $NETNS; do
	assert_eq "$id/pids = /proc holders" "$(holders "$id")" \
		"$(pids_of "$id")"
	assert_true "$id/pids has mklinks (${MKL_PID[every]})" \
		grep -qx "${MKL_PID[every]}"$'\tmklinks' <(pids_of "$id")
	assert_true "$id/pids has its forked child ($CHILD)" \
		grep -qx "$CHILD"$'\tmklinks' <(pids_of "$id")
done
assert_eq "$RAW/pinned empty (no pins)" "" "$(t cat "$MNT/$RAW/pinned")"

# links.json: parses, and has every link bpftool lists (before and after
# the read) with the same type and program; the daemon's iterator hidden
t cat "$MNT/links.json" >"$WORK/links.json" || fail "cat links.json"
bpftool75 -j link show >"$WORK/bpftool2.json" || die "bpftool -j link show"
assert_true "links.json passes jq" jq -e 'type == "array"' \
	"$WORK/links.json"
OWN_ITER=$(for f in /proc/"$BL_DAEMON_PID"/fdinfo/*; do
	sed -n 's/^link_id:[[:space:]]*//p' "$f" 2>/dev/null
done | sort -u)
if python3 - "$WORK/bpftool.json" "$WORK/bpftool2.json" "$WORK/links.json" \
	"$WORK/link_types" "$OWN_ITER" >&2 <<'EOF'; then
import json, sys
b1, b2, lj, lt, own = sys.argv[1:]
types = dict(l.split() for l in open(lt))
def load(path):
    # bpftool writes other processes' paths and names as raw bytes
    return json.loads(open(path, "rb").read().decode("utf-8",
                                                     "surrogateescape"))
a = {o["id"]: o for o in load(b1)}
b = {o["id"]: o for o in load(b2)}
ours = {o["id"]: o for o in load(lj)}
own = set(int(x) for x in own.split())
perf = {"uprobe", "uretprobe", "kprobe", "kretprobe", "tracepoint", "event"}
kinds = {"perf_event": perf,
         "uprobe_multi": {"uprobe_multi", "uretprobe_multi",
                          "uprobe_session"},
         "kprobe_multi": {"kprobe_multi", "kretprobe_multi",
                          "kprobe_session"},
         "tracing": {"fentry", "fexit", "fmod_ret", "lsm", "lsm_cgroup",
                     "tracing"}}
bad = []
for id in sorted(set(a) & set(b)):
    bt = a[id]["type"]
    bt = types.get(str(bt), "link_type_%s" % bt) if isinstance(bt, int) \
        else bt
    if id in own:
        if id in ours:
            bad.append("the daemon's own link %d is in links.json" % id)
        continue
    o = ours.get(id)
    if o is None:
        bad.append("link %d (%s) not in links.json" % (id, bt))
        continue
    if o.get("type") not in kinds.get(bt, {bt}) and \
            not (bt == "perf_event" and "type" not in o):
        bad.append("link %d: type %r, bpftool %r" % (id, o.get("type"), bt))
    if o.get("prog_id") != a[id]["prog_id"]:
        bad.append("link %d: prog_id %r, bpftool %r" %
                   (id, o.get("prog_id"), a[id]["prog_id"]))
    if not isinstance(o.get("pinned"), list) or \
            not isinstance(o.get("pids"), list):
        bad.append("link %d: pinned/pids not arrays" % id)
for x in bad:
    print("FAIL:", x)
sys.exit(1 if bad else 0)
EOF
	ok
else
	fail "links.json against bpftool (see above)"
fi
for id in $OWN_ITER; do
	assert_true "own link $id not in ls" bash -c \
		"! ls '$MNT' | grep -qx '$id'"
	assert_true "own link $id: no directory" test ! -e "$MNT/$id"
done
# the JSON pids and pinned of our links, as the files say
for id in $RAW $NETNS; do
	assert_eq "links.json $id pids" "$(holders "$id")" \
		"$(jq -r --argjson id "$id" '.[] | select(.id == $id) |
			.pids[] | "\(.pid)\t\(.comm)"' "$WORK/links.json" |
			grep -v $'\tbpflinkfs$')"
done

# A holder whose comm has a tab, a newline, a backslash and a byte that
# is not UTF-8 (the comm is the name it was executed by): `pids` keeps one
# line for it, the comm written as the links table writes values (\t \n
# \\), and links.json holds the comm's bytes (the 0xff as \u00ff), both
# against /proc/PID/comm. (A raw newline once split the line, and
# links.json copied the byte after it raw.)
HOSTILE_DIR=$(mktemp -d "$WORK/comm.XXXXXX")
HOSTILE_EXE="$HOSTILE_DIR/$(printf 'h\tx\ny\\\377z')"
ln -s "$(readlink -f "$MKLINKS")" "$HOSTILE_EXE"
SAVED_MKLINKS=$MKLINKS
MKLINKS=$HOSTILE_EXE mkl_start hostile "software:cpu-clock:0:5"
MKLINKS=$SAVED_MKLINKS
HOSTILE=$(mkl_lines hostile | cut -f1)
HPID=${MKL_PID[hostile]}
t cat "$MNT/links.json" >"$WORK/links_hostile.json"
assert_eq "pids of a holder with a hostile comm" "$(python3 -c '
import sys
raw = open("/proc/%s/comm" % sys.argv[1], "rb").read()[:-1]
esc = raw.replace(b"\\", b"\\\\").replace(b"\t", b"\\t").replace(b"\n", b"\\n")
sys.stdout.buffer.write(sys.argv[1].encode() + b"\t" + esc)' "$HPID")" \
	"$(t cat "$MNT/$HOSTILE/pids" | grep -av $'\tbpflinkfs$')"
assert_eq "holders of a holder with a hostile comm: one line" "$(python3 -c '
import sys
pid = sys.argv[1]
raw = open("/proc/%s/comm" % pid, "rb").read()[:-1]
t = open("/proc/%s/cgroup" % pid, "rb").read()
cg = t[t.rfind(b"0::") + 3:].rstrip(b"\n")
def esc(b):
    return b.replace(b"\\", b"\\\\").replace(b"\t", b"\\t").replace(b"\n", b"\\n")
sys.stdout.buffer.write(b"\t".join([pid.encode(), esc(raw), esc(cg), b"-"]))' \
	"$HPID")" "$(t cat "$MNT/$HOSTILE/holders" | grep -a "^$HPID"$'\t')"
assert_true "links.json: that comm, byte for byte" python3 -c '
import json, sys
raw = open("/proc/%s/comm" % sys.argv[1], "rb").read()[:-1]
links = json.load(open(sys.argv[3], "rb"))
got = [{"pid": p["pid"], "comm": p["comm"]} for l in links
       if l["id"] == int(sys.argv[2]) for p in l["pids"]
       if p["pid"] == int(sys.argv[1])]
sys.exit(got != [{"pid": int(sys.argv[1]), "comm": raw.decode("latin-1")}])
' "$HPID" "$HOSTILE" "$WORK/links_hostile.json"
mkl_stop hostile

# multi's mklinks holds the write end of every's stdin fifo (made later,
# it inherited it): it goes first, so that every sees EOF
[ -n "$UMULTI" ] && mkl_stop multi

# pinned: pin the raw tracepoint link; once mklinks and its child exit,
# it lives on its pin alone: pinned shows the path, pids nothing
if grep -q ' /sys/fs/bpf bpf ' /proc/mounts; then
	PIN=/sys/fs/bpf/bpflinkfs-every-$$
	mkdir "$PIN" || die "mkdir $PIN"
	trap 'rm -rf "$PIN"; bl_cleanup' EXIT
	bpftool link pin id "$RAW" "$PIN/raw" || die "bpftool link pin"
	assert_eq "$RAW/pinned" "$PIN/raw" "$(t cat "$MNT/$RAW/pinned")"
	assert_eq "links.json $RAW pinned" "$PIN/raw" \
		"$(t cat "$MNT/links.json" | jq -r --argjson id "$RAW" \
			'.[] | select(.id == $id) | .pinned[]')"
	mkl_stop every
	wait_for -q 5 eval '[ -z "$(holders "$RAW")" ]'
	assert_eq "$RAW/pids after its holders exit" "" "$(pids_of "$RAW")"
	assert_eq "$RAW/pinned after its holders exit" "$PIN/raw" \
		"$(t cat "$MNT/$RAW/pinned")"
	rm -f "$PIN/raw"
	bl_link_gone "raw tracepoint link gone with its pin" "$RAW"
	assert_true "$RAW/ gone with its pin" test ! -e "$MNT/$RAW"
else
	echo "# no bpffs at /sys/fs/bpf: pinned checks skipped"
	mkl_stop every
fi
kill "$FILTER_PID" 2>/dev/null
wait "$FILTER_PID" 2>/dev/null

bl_daemon_alive || fail "daemon dead or mount not answering at the end"
finish
