#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The read-only view: links made by mklinks (no bpflinkfs code) must show
# in MNT exactly as bpflinkfs(8), THE TREE says, with values derived from
# what mklinks was told, readelf, bpftool and the kernel's BTF.

source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

bl_setup
TRACEFS=$(bl_tracefs) || skip "tracefs is not mounted and cannot be mounted"
FIELDS=$(btf_link_info_fields) || skip "cannot read struct bpf_link_info BTF"
has_field() { grep -qx "$1" <<<"$FIELDS"; }
has_field perf_event.type ||
	skip "the kernel has no perf-link info (struct bpf_link_info.perf_event)"
[ -d /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"

TGT=$(readlink -f "$TARGET")
OFF_A=$(elf_file_offset "$TGT" bpflinkfs_target_a) || die "offset of a"
OFF_B=$(elf_file_offset "$TGT" bpflinkfs_target_b) || die "offset of b"
OFF_C=$(elf_file_offset "$TGT" bpflinkfs_target_c) || die "offset of c"
SEMA=$(elf_file_offset "$TGT" bpflinkfs_target_sema) || die "offset of sema"

# A copy of the target at the end of a ~4000-character path.
LONGDIR=$WORK
comp=$(printf 'd%.0s' $(seq 200))
while [ $((${#LONGDIR} + 201)) -lt 3960 ]; do
	LONGDIR=$LONGDIR/$comp
done
LONGDIR=$LONGDIR/$(printf 'e%.0s' $(seq $((3980 - ${#LONGDIR}))))
mkdir -p "$LONGDIR" || die "mkdir of a long path"
LONGTGT=$LONGDIR/bpflinkfs_target
cp "$TGT" "$LONGTGT" || die "copy of the target to a long path"

TPCAT=syscalls TPNAME=sys_enter_getpid
if [ ! -d "$TRACEFS/events/$TPCAT/$TPNAME" ]; then
	TPCAT=sched TPNAME=sched_switch
fi
# shellcheck disable=SC2012
TP_UNIQUE=$(ls -d "$TRACEFS"/events/*/"$TPNAME" | wc -l)

U64_MAX=18446744073709551615
bl_mount
mkl_start view \
	"uprobe:$TGT:$OFF_A:111" \
	"uretprobe:$TGT:$OFF_B:222" \
	--ref-ctr "$SEMA" "uprobe:$TGT:$OFF_C:333" \
	"tracepoint:$TPCAT:$TPNAME:444" \
	"software:0:0:0" \
	"software:1:0:$U64_MAX" \
	"uprobe:$LONGTGT:$OFF_A:777"
mkl_lines view >"$WORK/made"
[ "$(wc -l <"$WORK/made")" -eq 7 ] || die "mklinks made $(wc -l \
	<"$WORK/made") links, not 7"

t ls "$MNT" >"$WORK/root.ls" || fail "ls $MNT failed"
for f in control error_log features links links.json; do
	assert_true "$f in ls $MNT" grep -qx "$f" "$WORK/root.ls"
done

# The dynamic PMU types of this host's named PMUs (sysfs): a software
# event's reported type is 1 or an unnamed dynamic PMU (cpu-clock and
# task-clock have their own since 6.x), never one of these.
NAMED_TYPES=" $(cat /sys/bus/event_source/devices/*/type | tr '\n' ' ') "

# check_event_type ID VALUE
check_event_type() {
	if [ "$2" == 1 ] ||
		{ [[ "$2" =~ ^[0-9]+$ ]] && [ "$2" -ge 6 ] &&
			[[ "$NAMED_TYPES" != *" $2 "* ]]; }; then
		ok
	else
		fail "$1/event_type: '$2' is neither PERF_TYPE_SOFTWARE nor" \
			"an unnamed dynamic PMU"
	fi
}

# read_checks FILE: every reader sees the same bytes, one line ending in a
# newline, no NUL, and stat's size is the length (the file never changes).
read_checks() {
	local f=$1 w=$WORK/rd line
	t cat "$f" >"$w.cat" || fail "cat $f failed"
	t head -c3 "$f" >"$w.head" || fail "head -c3 $f failed"
	t dd if="$f" bs=1 of="$w.dd" status=none || fail "dd bs=1 $f failed"
	t python3 -c 'import sys; d = open(sys.argv[1], "rb").read()
sys.stdout.buffer.write(d)
t = open(sys.argv[1]).read()
assert t.encode() == d, "text and binary reads differ"' "$f" \
		>"$w.py" || fail "python3 open().read() of $f failed"
	IFS= read -r -t 15 line <"$f" || fail "bash read of $f: no full line"
	head -c3 "$w.cat" | cmp -s - "$w.head" || fail "$f: head -c3 differs"
	cmp -s "$w.cat" "$w.dd" || fail "$f: dd bs=1 differs from cat"
	cmp -s "$w.cat" "$w.py" || fail "$f: python read differs from cat"
	assert_eq "$f: bash read" "$(head -n1 "$w.cat")" "$line"
	assert_eq "$f: number of lines" 1 "$(wc -l <"$w.cat")"
	assert_eq "$f: ends with a newline" "" "$(tail -c1 "$w.cat")"
	assert_eq "$f: NUL bytes" 0 "$(tr -cd '\0' <"$w.cat" | wc -c)"
	assert_eq "$f: stat size" "$(wc -c <"$w.cat")" \
		"$(timeout 15 stat -c %s "$f")"
	[ -s "$w.cat" ] || fail "$f: empty"
}

# check_link ID KIND NAME OFFSET COOKIE PROG_ID: KIND as mklinks prints.
check_link() {
	local id=$1 kind=$2 name=$3 off=$4 cookie=$5 prog=$6
	local -A want=()
	local -a opt=(symbol)
	local sub f got v prog_name

	grep -qx "$id" "$WORK/root.ls" || fail "link $id ($kind) not in ls"
	want[prog_id]=$prog
	prog_name=$(bpftool prog show id "$prog" -j |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["name"])')
	want[prog_name]=$prog_name
	# its run statistics as bpftool has them (absent: 0): recursion misses
	# stay put (nothing recurses); run count and time may move on
	for f in run_cnt run_time_ns recursion_misses; do
		want[prog_$f]=$(bpftool prog show id "$prog" -j | python3 -c '
import json, sys
print(json.load(sys.stdin).get(sys.argv[1], 0))' "$f")
	done
	case $kind in
	uprobe | uretprobe)
		sub=uprobe
		want[type]=$kind
		want[name]=$name
		want[offset]=$off
		if has_field perf_event.uprobe.ref_ctr_offset; then
			want[ref_ctr_offset]=0x0
			[ "$off" == "$OFF_C" ] && want[ref_ctr_offset]=$SEMA
		fi
		;;
	tracepoint)
		sub=tracepoint
		want[type]=tracepoint
		want[name]=${name#*:}
		if [ "$TP_UNIQUE" -eq 1 ]; then
			want[category]=${name%%:*}
		else
			opt+=(category)
		fi
		;;
	software)
		sub=event
		want[type]=event
		want[config]=$name
		want[event_type]=
		case $name in
		0) want[name]=software:cpu-clock ;;
		1) want[name]=software:task-clock ;;
		esac
		;;
	esac
	has_field "perf_event.$sub.cookie" && want[cookie]=$cookie
	want[pids]=${MKL_PID[view]}$'\t'mklinks
	want[pinned]=
	want[holders]=x

	t ls "$MNT/$id" >"$WORK/dir.ls" || fail "ls $MNT/$id failed"
	got=$(grep -vxF "${opt[@]/#/-e}" "$WORK/dir.ls" | sort | xargs)
	assert_eq "ls $MNT/$id ($kind)" "$(printf '%s\n' "${!want[@]}" |
		sort | xargs)" "$got"

	while read -r f; do
		case $f in
		pids) # bpflinkfs daemons hold links for a moment to read them
			assert_eq "$id/pids" "${want[pids]}" \
				"$(t cat "$MNT/$id/pids" | grep -v $'\tbpflinkfs$')"
			continue
			;;
		holders) # its header, and mklinks where /proc puts it
			assert_eq "$id/holders" "$(printf \
				'PID\tCOMM\tCGROUP\tCONTAINER\n%s\tmklinks\t%s\t-' \
				"${MKL_PID[view]}" "$(sed -n 's/^0:://p' \
					"/proc/${MKL_PID[view]}/cgroup")")" \
				"$(t cat "$MNT/$id/holders" | grep -v $'^[0-9]*\tbpflinkfs\t')"
			continue
			;;
		prog_run_cnt | prog_run_time_ns)
			# counters: they move while anyone on the host holds run
			# statistics on (a top reader, another tool); at least
			# what bpftool said before
			v=$(t cat "$MNT/$id/$f")
			assert_match "$id/$f is a number" '^[0-9]+$' "$v"
			[[ $v =~ ^[0-9]+$ ]] && [ "$v" -ge "${want[$f]}" ] && ok ||
				fail "$id/$f: $v, below bpftool's ${want[$f]}"
			continue
			;;
		pinned)
			assert_eq "$id/pinned (empty)" "" \
				"$(t cat "$MNT/$id/pinned")"
			assert_eq "$id/pinned size" 0 \
				"$(timeout 15 stat -c %s "$MNT/$id/pinned")"
			continue
			;;
		esac
		read_checks "$MNT/$id/$f"
		v=$(cat "$WORK/rd.cat")
		case $f in
		offset | ref_ctr_offset)
			assert_match "$id/$f is 0x hex" '^0x[0-9a-f]+$' "$v"
			assert_num_eq "$id/$f" "${want[$f]}" "$v"
			;;
		event_type) check_event_type "$id" "$v" ;;
		category) assert_eq "$id/category" "${name%%:*}" "$v" ;;
		symbol)
			[ "$off" == "$OFF_A" ] && assert_eq "$id/symbol" \
				bpflinkfs_target_a+0x0 "$v"
			[ "$off" == "$OFF_B" ] && assert_eq "$id/symbol" \
				bpflinkfs_target_b+0x0 "$v"
			;;
		*)
			if [ -n "${want[$f]+set}" ]; then
				assert_eq "$id/$f" "${want[$f]}" "$v"
			else
				fail "$id/$f should not exist (value '$v')"
			fi
			;;
		esac
	done <"$WORK/dir.ls"

	# bpftool's own view (7.1 prints little for perf links)
	bpftool link show id "$id" -j >"$WORK/bt.json" ||
		fail "bpftool link show id $id"
	assert_eq "bpftool: link $id" "$id perf_event $prog" "$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print(j["id"], j["type"], j["prog_id"])' "$WORK/bt.json")"

	# tar copies every file whole
	rm -rf "$WORK/tar" && mkdir "$WORK/tar"
	t tar -C "$MNT" -cf "$WORK/t.tar" "$id" || fail "tar of $MNT/$id"
	tar -C "$WORK/tar" -xf "$WORK/t.tar" || fail "untar of $id"
	# (pids and holders may change meanwhile: another bpflinkfs reading
	# the link; so may the run statistics' counters)
	t diff -r -x pids -x holders -x prog_run_cnt -x prog_run_time_ns "$MNT/$id" "$WORK/tar/$id" >&2 ||
		fail "tar copy of $id differs"
	rm -rf "$WORK/cp"
	t cp -r "$MNT/$id" "$WORK/cp" || fail "cp -r of $MNT/$id"
	t diff -r -x pids -x holders -x prog_run_cnt -x prog_run_time_ns "$MNT/$id" "$WORK/cp" >&2 ||
		fail "cp -r copy of $id differs"
}

while IFS=$'\t' read -r -u 3 id kind name off cookie prog; do
	check_link "$id" "$kind" "$name" "$off" "$cookie" "$prog"
done 3<"$WORK/made"

# The tables, control and error_log report the size of what a read gives
# (2.1); the tables may change between the two if other processes make
# links, so a mismatch is tried again.
for f in control error_log links links.json; do
	for i in 1 2 3 4 5; do
		sz=$(timeout 15 stat -c %s "$MNT/$f")
		len=$(timeout 15 cat "$MNT/$f" | wc -c)
		[ "$sz" = "$len" ] && break
	done
	assert_eq "stat size of $f" "$len" "$sz"
done
# A table read a byte at a time is still whole (dd bs=1).
if t dd if="$MNT/links.json" bs=1 status=none | python3 -c '
import json, sys
ids = {o["id"] for o in json.load(sys.stdin)}
want = {int(l.split("\t")[0]) for l in open(sys.argv[1])}
sys.exit("ids %s missing" % sorted(want - ids) if want - ids else 0)
' "$WORK/made"; then
	ok
else
	fail "links.json read with dd bs=1 is not whole"
fi

# links and links.json against the expected rows and the per-link files
t cat "$MNT/links" >"$WORK/links" || fail "cat links"
t cat "$MNT/links.json" >"$WORK/links.json" || fail "cat links.json"
has_field perf_event.uprobe.cookie && HAS_COOKIE=1 || HAS_COOKIE=0
if python3 - "$WORK/made" "$WORK/links" "$WORK/links.json" "$MNT" \
	"$HAS_COOKIE" >&2 <<'EOF'
import json, os, sys
made, links, ljson, mnt, has_cookie = sys.argv[1:]
bad = []
names = {"0": "software:cpu-clock", "1": "software:task-clock"}
lines = open(links, encoding="utf-8", errors="surrogateescape").read()
if not lines.endswith("\n"):
    bad.append("links does not end with a newline")
rows = [l.split("\t") for l in lines.splitlines()]
head = [c.lower() for c in rows[0]] if rows else []
if head and head[0].startswith("#"):
    head[0] = head[0][1:]
want_head = "id type name offset addr config cookie prog_id count".split()
if head != want_head:
    bad.append("links header %r, want %r" % (rows[0] if rows else None,
                                             want_head))
byid = {}
for r in rows[1:]:
    if len(r) != 9:
        bad.append("links row with %d columns: %r" % (len(r), r))
    else:
        byid[r[0]] = r
try:
    arr = json.load(open(ljson))
except ValueError as e:
    arr = []
    bad.append("links.json does not parse: %s" % e)
if not isinstance(arr, list):
    bad.append("links.json is not an array")
    arr = []
jbyid = {o.get("id"): o for o in arr if isinstance(o, dict)}
for l in open(made):
    id, kind, name, off, cookie, prog = l.rstrip("\n").split("\t")
    typ = {"software": "event"}.get(kind, kind)
    if kind == "software":
        name, config, off = names[name], name, "-"
    elif kind == "tracepoint":
        name, config = name.split(":", 1)[1], "-"
    else:
        config = "-"
    want = [id, typ, name, off, "-", config,
            cookie if has_cookie == "1" else "-", prog, "1"]
    r = byid.get(id)
    if r is None:
        bad.append("links: no row for %s" % id)
    else:
        if off != "-" and r[3].startswith("0x"):
            if int(r[3], 16) == int(off, 16):
                r = r[:3] + [off] + r[4:]
        if r != want:
            bad.append("links row %r, want %r" % (r, want))
    o = jbyid.get(int(id))
    if o is None:
        bad.append("links.json: no object with id %s" % id)
        continue
    d = os.path.join(mnt, id)
    files = sorted(set(os.listdir(d)) - {"symbol", "holders"})
    keys = sorted(set(o) - {"id"})
    if files != keys:
        bad.append("links.json %s keys %s, files %s" % (id, keys, files))
    for k in files:
        v = open(os.path.join(d, k)).read().rstrip("\n")
        jv = o.get(k)
        if k in ("offset", "addr", "ref_ctr_offset", "type", "name",
                 "prog_name", "category", "attach_type"):
            ok = isinstance(jv, str) and jv == v
        elif k == "pinned":
            ok = jv == (v.split("\n") if v else [])
        elif k == "pids":
            # bpflinkfs daemons hold links for a moment to read them
            ok = [l for l in ("%d\t%s" % (p["pid"], p["comm"]) for p in jv)
                  if not l.endswith("\tbpflinkfs")] == \
                [l for l in v.split("\n") if l and
                 not l.endswith("\tbpflinkfs")]
        elif k in ("prog_run_cnt", "prog_run_time_ns"):
            # counters that move while anyone on the host holds run
            # statistics on: the file is read after links.json
            ok = type(jv) is int and v.isdigit() and int(v) >= jv
        else:
            ok = type(jv) is int and str(jv) == v
        if not ok:
            bad.append("links.json %s.%s = %r, file says %r" % (id, k, jv, v))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
EOF
then
	ok
else
	fail "links/links.json (see above)"
fi

# features
t cat "$MNT/features" >"$WORK/features" || fail "cat features"
declare -A FEAT=()
while read -r k v; do
	FEAT[$k]=$v
done <"$WORK/features"
bool() { if "$@"; then echo 1; else echo 0; fi; }
declare -A WANT_FEAT=(
	[perf_link_info]=1
	[cookie]=$(bool has_field perf_event.uprobe.cookie)
	[missed]=$(bool has_field perf_event.kprobe.missed)
	[ref_ctr_offset]=$(bool has_field perf_event.uprobe.ref_ctr_offset)
	[kprobe]=$(bool test -d /sys/bus/event_source/devices/kprobe)
	[uprobe]=1
	[tracepoint]=1
	[tracefs_path]=$TRACEFS
	[kptr_restrict]=$(cat /proc/sys/kernel/kptr_restrict)
)
for k in "${!WANT_FEAT[@]}"; do
	if [ -z "${FEAT[$k]+set}" ]; then
		fail "features: no '$k' line"
		continue
	fi
	v=${FEAT[$k]}
	case $v in yes | true) v=1 ;; no | false) v=0 ;; esac
	assert_eq "features: $k" "${WANT_FEAT[$k]}" "$v"
done
[ -n "${FEAT[info_source]:-}" ] && ok || fail "features: no info_source"
assert_eq "features: no other_links (every link is shown)" "" \
	"${FEAT[other_links]:-}"

# The same links without the link iterator (one BPF_LINK_GET_NEXT_ID per
# link, as on kernels without it, and each program's statistics read on
# their own rather than by the link-program iterator): the same
# directories and links.json.
grep -q "no BPF link iterator" "$WORK/daemon.log" &&
	fail "the daemon has no link iterator on this kernel"
MNT1=$MNT PID1=$BL_DAEMON_PID
BPFLINKFS_NO_LINK_ITER=1 bl_mount
MNT2=$MNT PID2=$BL_DAEMON_PID
MNT=$MNT1 BL_DAEMON_PID=$PID1
assert_true "walk without the iterator: said so at start" \
	grep -q "no BPF link iterator" "$WORK/daemon.log"
own_json() {
	python3 -c '
import json, sys
ids = set(int(l.split("\t")[0]) for l in open(sys.argv[2]))
for o in json.load(open(sys.argv[1])):
    if o["id"] in ids:
        # run statistics move while anyone holds them on: both numbers
        for k in ("prog_run_cnt", "prog_run_time_ns"):
            if type(o.get(k)) is int:
                o[k] = "a number"
        print(json.dumps(o, sort_keys=True))' "$1/links.json" "$WORK/made"
}
ls "$MNT1" | sort >"$WORK/ls1"
ls "$MNT2" | sort >"$WORK/ls2"
while IFS=$'\t' read -r id _; do
	assert_true "walk without the iterator lists $id" grep -qx "$id" \
		"$WORK/ls2"
	assert_true "iterator lists $id" grep -qx "$id" "$WORK/ls1"
done <"$WORK/made"
assert_eq "links.json of own links, iterator vs walk" \
	"$(own_json "$MNT1")" "$(own_json "$MNT2")"

# A link held by a process P, its child Q and a thread of P with an fd
# table of its own (unshare(CLONE_FILES)): the iterator meets P's fd tables
# by thread id, P, then Q, then P again, so the records are out of order.
# pids lists P and Q once each on both mounts, as /proc's fdinfo has them.
held_by_thread() {
	local pin=/sys/fs/bpf/bpflinkfs-view-$$ id holder pids want m
	[ "$(uname -m)" = x86_64 ] || return 0 # the bpf(2) number below
	mkdir -p "$pin" || return 0
	id=$("$MKLINKS" --pin "$pin" software:cpu-clock:0:11 </dev/null |
		grep -vx ready | cut -f1)
	coproc holder { python3 -c '
import ctypes, os, struct, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
path = ctypes.create_string_buffer(sys.argv[1].encode())
attr = ctypes.create_string_buffer(struct.pack("QII",
                                   ctypes.addressof(path), 0, 0), 16)
fd = libc.syscall(321, 7, attr, 16)  # bpf(BPF_OBJ_GET), x86_64
if fd < 0:
    sys.exit("BPF_OBJ_GET: %s" % os.strerror(ctypes.get_errno()))
r, w = os.pipe()
q = os.fork()
if q == 0:
    os.close(w)
    os.read(r, 1)
    os._exit(0)
ready, stop = threading.Event(), threading.Event()
def own_table():
    libc.unshare(0x400)  # CLONE_FILES: a copy of the fd table, the link too
    ready.set()
    stop.wait()
t = threading.Thread(target=own_table)
t.start()
ready.wait()
print("%d %d %d" % (os.getpid(), q, t.native_id), flush=True)
sys.stdin.read()
stop.set()
t.join()
os.close(w)
os.waitpid(q, 0)' "$pin/link_$id"; }
	read -r -u "${holder[0]}" pids
	assert_true "the holder runs: P Q T = '$pids'" [ -n "$pids" ]
	want=$(for f in /proc/[0-9]*/task/*/fdinfo/*; do
		grep -qx "link_id:[[:space:]]*$id" "$f" 2>/dev/null &&
			echo "${f#/proc/}" | cut -d/ -f1
	done | sort -n | uniq | grep -vx -e "$PID1" -e "$PID2")
	assert_eq "link $id: held by P and Q in /proc (P Q T: $pids)" \
		"$(echo "$pids" | cut -d' ' -f1,2 | tr ' ' '\n' | sort -n)" \
		"$want"
	for m in "$MNT1" "$MNT2"; do
		assert_eq "$m/$id/pids: P and Q once each" "$want" \
			"$(t cat "$m/$id/pids" | grep -v $'\tbpflinkfs$' | cut -f1)"
	done
	eval "exec ${holder[1]}>&-"
	wait "$holder_PID"
	rm -rf "$pin"
}
held_by_thread

umount "$MNT2" && wait "$PID2"
rmdir "$MNT2"

# once the links are gone, they vanish at once
mkl_stop view
t ls "$MNT" >"$WORK/root.ls" || fail "ls $MNT after the links went"
while IFS=$'\t' read -r id _; do
	grep -qx "$id" "$WORK/root.ls" && fail "link $id still listed"
	if err=$(t cat "$MNT/$id/type" 2>&1); then
		fail "cat $id/type after removal succeeded: '$err'"
	else
		assert_match "cat $id/type after removal" \
			"No such file or directory" "$err"
	fi
done <"$WORK/made"

bl_daemon_alive || fail "daemon dead or mount not answering at the end"
finish
