#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Multi links (bpflinkfs(8), THE TREE and CONTROL LANGUAGE): a wildcard uprobe
# line makes one uprobe_multi link of exactly the functions nm lists for
# the pattern, at the file offsets readelf's section headers give, with a
# counter per target; a foreign uprobe_multi link (mklinks) shows count,
# funcs, pid, cookies and name as mklinks made it; errors, removal and
# pin_dir adoption; a Go method's name, `*` and all, is that symbol, not a
# pattern (quoted, never one). Expected values come from nm, readelf, mklinks and
# the fixture's own call counts, never from bpflinkfs.
. "$(dirname "$0")/lib.sh"

bl_setup
[ -n "${MULTI_TARGET:-}" ] && [ -x "$MULTI_TARGET" ] ||
	skip "\$MULTI_TARGET is not set (run through meson test)"
for tool in nm jq; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
bl_mount
grep -qx "uprobe_multi 1" "$MNT/features" ||
	skip "this kernel cannot make uprobe_multi links (6.6+)"
grep -qx "multi_link_info 1" "$MNT/features" ||
	skip "this kernel reports no multi link info (6.8+)"
MT=$(realpath "$MULTI_TARGET")

# expected_targets FILE GLOB: "OFFSET NAME[,NAME]" per distinct offset of
# the defined code symbols nm lists whose names match GLOB; the offset is
# the symbol's value minus its section's address plus the section's file
# offset, from readelf -SW.
expected_targets() {
	nm --defined-only "$1" >"$WORK/nm" || return 1
	readelf -SW "$1" >"$WORK/sections" || return 1
	python3 - "$2" "$WORK/nm" "$WORK/sections" <<'EOF'
import fnmatch, re, sys
glob, nm, sections = sys.argv[1:]
secs = []
for l in open(sections):
    m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)'
                 r'\s+([0-9a-f]+)', l)
    if m:
        secs.append(tuple(int(x, 16) for x in m.groups()[1:]))
by_off = {}
for l in open(nm):
    f = l.split()
    if len(f) != 3 or f[1] not in "TtWw" or not fnmatch.fnmatchcase(f[2], glob):
        continue
    v = int(f[0], 16)
    for addr, off, size in secs:
        if addr and addr <= v < addr + size:
            by_off.setdefault(v - addr + off, set()).add(f[2])
for o in sorted(by_off):
    print("%#x %s" % (o, ",".join(sorted(by_off[o]))))
EOF
}

# funcs_col ID COLUMN: one column of ID/funcs (header dropped), by name.
funcs_col() {
	awk -F'\t' -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++)
		if ($i == c) n = i; next } { print $n }' "$MNT/$1/funcs"
}

# make_link LINE: write LINE on one handle; print the id it made.
make_link() {
	local id
	exec {cfd}<>"$MNT/control"
	echo "$1" >&$cfd || { exec {cfd}>&-; return 1; }
	read -r id <&$cfd
	exec {cfd}>&-
	echo "$id"
}

# --- uprobe:FIXTURE:fn_* -------------------------------------------------
expected_targets "$MT" 'fn_*' >"$WORK/want" || die "nm/readelf on $MT"
N=$(wc -l <"$WORK/want")
[ "$N" -ge 4 ] || die "fixture: $N fn_* offsets, expected 4 or more"
ID=$(make_link "uprobe:$MT:fn_*") || die "uprobe:$MT:fn_* refused"
assert_match "a link id" '^[0-9]+$' "$ID"
assert_eq "type" uprobe_multi "$(cat "$MNT/$ID/type")"
assert_eq "name: the path" "$MT" "$(cat "$MNT/$ID/name")"
assert_eq "count: the distinct offsets nm gives" "$N" "$(cat "$MNT/$ID/count")"
assert_eq "one link: bpftool sees type uprobe_multi (12)" 1 \
	"$(bpftool -j link show id "$ID" | jq -r \
		'[.type] | map(select(. == "uprobe_multi" or . == 12)) | length')"
assert_eq "funcs header" "OFFSET	SYMBOL	REF_CTR_OFFSET	COOKIE	HITS" \
	"$(head -n 1 "$MNT/$ID/funcs")"
assert_eq "funcs offsets = readelf's" "$(cut -d' ' -f1 "$WORK/want")" \
	"$(funcs_col "$ID" OFFSET | sort)"
# every SYMBOL is one of nm's names at that offset, at its entry
paste <(funcs_col "$ID" OFFSET) <(funcs_col "$ID" SYMBOL) |
	while read -r off sym; do
		names=$(awk -v o="$off" '$1 == o { print $2 }' "$WORK/want")
		case ",$names," in
		*",${sym%+0x0},"*) [ "${sym%+0x0}+0x0" == "$sym" ] ;;
		*) false ;;
		esac || echo "$off $sym (nm: $names)"
	done >"$WORK/badsym"
assert_eq "funcs SYMBOL as nm names the offset" "" "$(cat "$WORK/badsym")"
assert_eq "ref_ctr_offsets 0x0" "$N" "$(funcs_col "$ID" REF_CTR_OFFSET |
	grep -cx 0x0)"
assert_eq "a cookie per target" "$N" "$(funcs_col "$ID" COOKIE | sort -u |
	wc -l)"
assert_eq "hits before any call" 0 "$(cat "$MNT/$ID/hits")"
assert_eq "links COUNT column" "$N" \
	"$(awk -F'\t' -v id="$ID" '$1 == id { print $NF }' "$MNT/links")"
assert_eq "links.json: funcs of $N objects" "$N" \
	"$(jq --argjson id "$ID" '.[] | select(.id == $id) | .funcs | length' \
		"$MNT/links.json")"

# the fixture calls fn_one 3, fn_two 5, fn_three 7 and fn_local 2 times
"$MT" 3 5 7 2 >/dev/null || die "$MT failed"
declare -A CALLS=([fn_one]=3 [fn_alias]=3 [fn_two]=5 [fn_three]=7
	[fn_local]=2)
paste <(funcs_col "$ID" SYMBOL) <(funcs_col "$ID" HITS) |
	while read -r sym hits; do
		want=${CALLS[${sym%+0x0}]:-?}
		[ "$hits" == "$want" ] || echo "$sym: $hits, called $want"
	done >"$WORK/badhits"
assert_eq "HITS per target = the fixture's calls" "" "$(cat "$WORK/badhits")"
assert_eq "hits = their sum" 17 "$(cat "$MNT/$ID/hits")"
assert_eq "links.json hits" 17 "$(jq --argjson id "$ID" \
	'.[] | select(.id == $id) | .hits' "$MNT/links.json")"
assert_eq "links.json funcs hits sum" 17 "$(jq --argjson id "$ID" \
	'[.[] | select(.id == $id) | .funcs[].hits] | add' "$MNT/links.json")"
# cat and splice readers see the same whole value, st_size its length
assert_eq "st_size = the funcs' length" "$(cat "$MNT/$ID/funcs" | wc -c)" \
	"$(stat -c %s "$MNT/$ID/funcs")"
assert_eq "python shutil copy reads funcs whole" \
	"$(cat "$MNT/$ID/funcs" | wc -c)" "$(python3 -c '
import shutil, sys
shutil.copyfile(sys.argv[1], sys.argv[2])' "$MNT/$ID/funcs" "$WORK/funcs.copy" &&
		wc -c <"$WORK/funcs.copy")"

# --- uretprobe glob, pid= ------------------------------------------------
expected_targets "$MT" 'fn_t*' >"$WORK/want_t"
RID=$(make_link "uretprobe:$MT:fn_t*") || die "uretprobe glob refused"
assert_eq "uretprobe glob: type" uretprobe_multi "$(cat "$MNT/$RID/type")"
assert_eq "uretprobe glob: offsets" "$(cut -d' ' -f1 "$WORK/want_t")" \
	"$(funcs_col "$RID" OFFSET | sort)"
sleep 60 & # a process for pid= to name, not a wait
SLEEPER=$!
PID_ID=$(make_link "uprobe:$MT:fn_* pid=$SLEEPER") || die "pid= refused"
assert_eq "pid file" "$SLEEPER" "$(cat "$MNT/$PID_ID/pid")"
assert_true "no pid file without pid=" test ! -e "$MNT/$ID/pid"
"$MT" 1 1 1 1 >/dev/null
assert_eq "pid= filters: another process's calls do not count" 0 \
	"$(cat "$MNT/$PID_ID/hits")"
assert_eq "uretprobe glob counts returns" 2 "$(cat "$MNT/$RID/hits")"
kill "$SLEEPER"
wait "$SLEEPER" 2>/dev/null

# --- prog= with a pattern: every target gets the one cookie= -------------
if mountpoint -q /sys/fs/bpf; then
	PROG=/sys/fs/bpf/bpflinkfs-test-multi-prog-$$
	"$MKLINKS" --pin-prog "$PROG" >/dev/null || die "mklinks --pin-prog"
	UID_=$(make_link "uprobe:$MT:fn_* prog=$PROG cookie=77") ||
		fail "prog= with a pattern refused"
	rm -f "$PROG"
	if [ -n "$UID_" ]; then
		assert_eq "prog=: one link of every target" "$N" \
			"$(cat "$MNT/$UID_/count")"
		assert_eq "prog=: cookie= on every target" "$N" \
			"$(funcs_col "$UID_" COOKIE | grep -cx 77)"
		assert_eq "prog=: no HITS column" \
			"OFFSET	SYMBOL	REF_CTR_OFFSET	COOKIE" \
			"$(head -n 1 "$MNT/$UID_/funcs")"
		assert_true "prog=: no hits file" test ! -e "$MNT/$UID_/hits"
		echo "-$UID_" >"$MNT/control"
	fi
else
	echo "note: no bpffs at /sys/fs/bpf: prog= with a pattern not checked"
fi

# --- errors ----------------------------------------------------------------
LINE="uprobe:$MT:zz_nothing*"
assert_true "no match: ENOENT" bash -c \
	"! echo '$LINE' >'$MNT/control' 2>'$WORK/err' && grep -q 'No such file' '$WORK/err'"
col=$(grep -A2 "no function matches" "$MNT/error_log" | tail -n 1 |
	awk '{ print index($0, "^") }')
cmdcol=$(grep -A1 "no function matches" "$MNT/error_log" | tail -n 1 |
	awk '{ print index($0, "uprobe:") }')
assert_eq "caret under the pattern" $((cmdcol + ${#MT} + 8)) "$col"
assert_true "bad glob: EINVAL" bash -c \
	"! echo 'uprobe:$MT:fn_[ab' >'$MNT/control' 2>'$WORK/err' && grep -q 'Invalid argument' '$WORK/err'"
assert_match "bad glob: error_log" "unclosed '\\['" "$(tail -n 3 "$MNT/error_log")"
assert_true "a pattern takes no +OFFSET" bash -c \
	"! echo 'uprobe:$MT:fn_*+4' >'$MNT/control' 2>/dev/null"

# kprobe patterns are matched against tracefs available_filter_functions:
# where the daemon cannot read it (this host: EPERM), the line fails with
# the caret under the pattern; where it can, a pattern matching nothing is
# ENOENT
AFF=/sys/kernel/tracing/available_filter_functions
caret_col() {
	tail -n 1 "$MNT/error_log" | awk '{ print index($0, "^") }'
}
cmd_col() {
	tail -n 2 "$MNT/error_log" | head -n 1 | awk '{ print index($0, "kprobe:") }'
}
if [ ! -d /sys/bus/event_source/devices/kprobe ]; then
	# no kprobes at all (this host): said as for kprobe:FUNC
	assert_true "kprobe pattern without kprobes: EOPNOTSUPP" bash -c \
		"! echo 'kprobe:vfs_rea*' >'$MNT/control' 2>'$WORK/err' && grep -q 'not supported' '$WORK/err'"
	assert_match "kprobe pattern: error_log says what is missing" \
		"no kprobe support" "$(tail -n 3 "$MNT/error_log")"
	assert_eq "kprobe pattern: caret under it" $(($(cmd_col) + 7)) \
		"$(caret_col)"
elif ! head -c 1 "$AFF" >/dev/null 2>&1; then
	assert_true "kprobe pattern, no available_filter_functions: refused" \
		bash -c "! echo 'kprobe:vfs_rea*' >'$MNT/control' 2>/dev/null"
	assert_match "kprobe pattern: error_log says why" "cannot read $AFF" \
		"$(tail -n 3 "$MNT/error_log")"
	assert_eq "kprobe pattern: caret under it" $(($(cmd_col) + 7)) \
		"$(caret_col)"
else
	assert_true "kprobe pattern matching nothing: ENOENT" bash -c \
		"! echo 'kprobe:zz_bpflinkfs_nothing*' >'$MNT/control' 2>'$WORK/err' && grep -q 'No such file' '$WORK/err'"
	assert_eq "kprobe pattern: caret under it" $(($(cmd_col) + 7)) \
		"$(caret_col)"
fi

# --- foreign uprobe_multi (mklinks): count, funcs, pid, name --------------
OA=$(elf_file_offset "$TARGET" bpflinkfs_target_a) || die "readelf a"
OB=$(elf_file_offset "$TARGET" bpflinkfs_target_b) || die "readelf b"
SEMA=$(elf_file_offset "$TARGET" bpflinkfs_target_sema) || die "readelf sema"
sleep 60 & # a process for --pid to name, not a wait
HOLDER=$!
mkl_start foreign --pid "$HOLDER" \
	"uprobe_multi:$TARGET:$OA/$SEMA,$OB:111,222"
FID=$(mkl_lines foreign | cut -f1)
FT=$(realpath "$TARGET")
assert_eq "foreign: type" uprobe_multi "$(cat "$MNT/$FID/type")"
assert_eq "foreign: name" "$FT" "$(cat "$MNT/$FID/name")"
assert_eq "foreign: count" 2 "$(cat "$MNT/$FID/count")"
assert_eq "foreign: pid" "$HOLDER" "$(cat "$MNT/$FID/pid")"
assert_eq "foreign: funcs" "OFFSET	SYMBOL	REF_CTR_OFFSET	COOKIE
$OA	bpflinkfs_target_a+0x0	$SEMA	111
$OB	bpflinkfs_target_b+0x0	0x0	222" "$(cat "$MNT/$FID/funcs")"
assert_true "foreign: no hits, spec" test ! -e "$MNT/$FID/hits" -a \
	! -e "$MNT/$FID/spec"
bl_bpftool75 || echo "note: bpftool 7.5 cannot be had here"
if bpftool75 -j link show id "$FID" | jq -e '.funcs' >/dev/null 2>&1; then
	# bpftool 7.5 decodes uprobe_multi links
	assert_eq "foreign: bpftool's offsets and cookies" \
		"$(bpftool75 -j link show id "$FID" | jq -r \
			'.funcs[] | "\(.offset) \(.ref_ctr_offset) \(.cookie)"' |
			awk '{ printf "0x%x 0x%x %s\n", $1, $2, $3 }')" \
		"$(tail -n +2 "$MNT/$FID/funcs" | awk -F'\t' '{ print $1, $3, $4 }')"
	assert_eq "foreign: bpftool's type and path" \
		"$(bpftool75 -j link show id "$FID" | jq -r '"\(.type) \(.path)"')" \
		"$(cat "$MNT/$FID/type") $(cat "$MNT/$FID/name")"
	assert_eq "foreign: bpftool's count" \
		"$(bpftool75 -j link show id "$FID" | jq -r '.func_cnt')" \
		"$(cat "$MNT/$FID/count")"
	assert_eq "foreign: bpftool's pid" \
		"$(bpftool75 -j link show id "$FID" | jq -r '.pid')" \
		"$(cat "$MNT/$FID/pid")"
else
	echo "note: this bpftool does not decode uprobe_multi links (7.5 does)"
fi
mkl_stop foreign
kill "$HOLDER"
wait "$HOLDER" 2>/dev/null

# --- removal: -ID, rmdir, -* ----------------------------------------------
ID_COOKIES=$(funcs_col "$ID" COOKIE | sort -n)
echo "-$ID" >"$MNT/control" || fail "-$ID refused"
assert_true "-ID: gone from the tree" test ! -e "$MNT/$ID"
bl_link_gone "-ID detaches the multi link" "$ID"
# Its slots counted 17 calls; the reaper gives them back zeroed once the
# kernel lets go, and a new link that takes them starts at 0 without
# zeroing them itself. Until the reaper is done, a new link gets others.
# slots_back: a new link got ID's slots (else it is removed again)
slots_back() {
	AGAIN=$(make_link "uprobe:$MT:fn_*") || die "fn_* again refused"
	[ "$(funcs_col "$AGAIN" COOKIE | sort -n)" == "$ID_COOKIES" ] &&
		return 0
	echo "-$AGAIN" >"$MNT/control"
	return 1
}
wait_for -q 10 slots_back
assert_eq "a new link takes the released slots" "$ID_COOKIES" \
	"$(funcs_col "$AGAIN" COOKIE | sort -n)"
assert_eq "released slots start at 0: hits" 0 "$(cat "$MNT/$AGAIN/hits")"
assert_eq "released slots start at 0: per target" "" \
	"$(funcs_col "$AGAIN" HITS | grep -vx 0)"
rmdir "$MNT/$RID" || fail "rmdir $RID refused"
bl_link_gone "rmdir detaches the multi link" "$RID"
echo '-*' >"$MNT/control" || fail "-* refused"
bl_link_gone "-* detaches the multi link" "$PID_ID"

# --- Go names: a SYMBOL that is a symbol's exact name is that symbol -----
# Go methods are named "database/sql.(*DB).query": the `*` is part of the
# name. A fixture whose functions objcopy renames so (readelf says what
# they are called and where), and a pattern that would match both.
if command -v gcc >/dev/null && command -v objcopy >/dev/null; then
	cat >"$WORK/go.c" <<'EOF'
static volatile unsigned long sink;
__attribute__((noinline)) void go_ptr(unsigned long i) { sink += i; }
__attribute__((noinline)) void go_val(unsigned long i) { sink ^= i; }
int main(int argc, char **argv)
{
	(void)argv;
	go_ptr(argc);
	go_val(argc);
	return 0;
}
EOF
	GO=$WORK/gofix
	gcc -O1 -o "$WORK/go.o" "$WORK/go.c" &&
		objcopy --redefine-sym 'go_ptr=database/sql.(*DB).query' \
			--redefine-sym 'go_val=database/sql.(xDB).query' \
			"$WORK/go.o" "$GO" || die "cannot build the Go-named fixture"
	readelf -sW "$GO" | grep -qF 'database/sql.(*DB).query' ||
		die "objcopy did not rename the fixture's symbol"
	GOFF=$(elf_file_offset "$GO" 'database/sql.(*DB).query') ||
		die "readelf: no offset"
	for spec in "uprobe:$GO:database/sql.(*DB).query" \
		"uprobe:$GO:\"database/sql.(*DB).query\""; do
		id=$(make_link "$spec")
		assert_match "$spec: made" '^[0-9]+$' "$id"
		assert_eq "$spec: one uprobe, not a pattern" uprobe \
			"$(cat "$MNT/$id/type" 2>&1)"
		assert_num_eq "$spec: offset (readelf)" "$GOFF" \
			"$(cat "$MNT/$id/offset" 2>&1)"
	done
	# +OFFSET after such a name (a pattern takes none)
	id=$(make_link "uprobe:$GO:database/sql.(*DB).query+0x0")
	assert_num_eq "name+0x0: offset" "$GOFF" "$(cat "$MNT/$id/offset" 2>&1)"
	# a pattern that names no symbol is still one: both functions
	id=$(make_link "uprobe:$GO:database/sql.(*DB).que*")
	assert_eq "pattern: a multi link" uprobe_multi \
		"$(cat "$MNT/$id/type" 2>&1)"
	assert_eq "pattern: both functions" 2 "$(cat "$MNT/$id/count" 2>&1)"
	# quoted, never a pattern: no symbol is called that
	out=$(echo "uprobe:$GO:\"database/sql.(*DB).que*\"" 2>&1 \
		>"$MNT/control")
	assert_match "quoted pattern: ENOENT" "No such file" "$out"
	assert_match "quoted pattern: no symbol of that name" \
		"no symbol 'database/sql\.\(\*DB\)\.que\*'" \
		"$(tail -n 3 "$MNT/error_log")"
	out=$(echo "uprobe:$GO:database/sql.(*DB).que*+0x1" 2>&1 \
		>"$MNT/control")
	assert_match "pattern+OFFSET: EINVAL" "Invalid argument" "$out"
	echo '-*' >"$MNT/control"
fi
bl_stop_daemon

# --- pin_dir adoption keeps hits and per-target hits ----------------------
PIN=/sys/fs/bpf/bpflinkfs-test-multi-$$
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf ||
	skip "no bpffs for the pin_dir part"
bl_mount -o "pin_dir=$PIN"
PID_=$(make_link "uprobe:$MT:fn_*") || die "glob with pin_dir refused"
"$MT" 2 4 6 8 >/dev/null
before=$(cat "$MNT/$PID_/funcs")
bl_stop_daemon
bl_mount -o "pin_dir=$PIN"
assert_eq "adopted: spec" "uprobe:$MT:fn_*" "$(cat "$MNT/$PID_/spec" 2>&1)"
assert_eq "adopted: hits" 20 "$(cat "$MNT/$PID_/hits" 2>&1)"
assert_eq "adopted: funcs with per-target hits" "$before" \
	"$(cat "$MNT/$PID_/funcs" 2>&1)"
"$MT" 1 0 0 0 >/dev/null
assert_eq "adopted: still counting" 21 "$(cat "$MNT/$PID_/hits" 2>&1)"
# its slots stay taken: a new link gets other cookies
NEW=$(make_link "uprobe:$MT:fn_t*")
assert_eq "adopted slots are not handed out again" "" \
	"$(comm -12 <(funcs_col "$PID_" COOKIE | sort) \
		<(funcs_col "$NEW" COOKIE | sort))"
echo '-*' >"$MNT/control"
bl_link_gone "-* detaches the adopted link" "$PID_"
bl_stop_daemon
rm -rf "$PIN"

finish
