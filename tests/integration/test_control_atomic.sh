#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A failed write changes nothing, removals included (bpflinkfs(8), What a write does): `-ID`
# and `-*` followed by a bad line in the same request fail with the bad
# line's errno and every link is still owned, listed and in the kernel. A
# later line sees the removals of earlier ones (`-ID` twice, `-*` then
# `-ID`: ENOENT on the second). A request that succeeds removes at its end,
# links made by its own lines included.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"
source "$HERE/lib_control.sh"

bl_setup
bl_mount

SPEC='s:cpu-clock cpu=0'
# make N: N links of SPEC, their ids one a line
make() {
	local i data=
	for i in $(seq "$1"); do
		data+="$SPEC"$'\n'
	done
	ctl_create "$data" || die "cannot make $1 links"
}
# owned_ids: the ids the mount owns (first column of a fresh handle's read)
owned_ids() { owned_listing | cut -f1 | xargs; }
# in_kernel ID...: every id is in bpftool's link list
in_kernel() {
	local id
	for id; do
		bpftool link show id "$id" >/dev/null 2>&1 || return 1
	done
}
# last_error: "ENAME line N: COMMAND" of error_log's newest entry
last_error() {
	local ename lno cmd
	IFS=$'\t' read -r _ ename lno _ cmd _ < <(errlog_entries | tail -n1)
	echo "$ename line $lno: $cmd"
}

read -r A B C < <(make 3 | xargs)
[ -n "$C" ] || die "three links were not made"
ALL="$A $B $C"
assert_eq "three links owned" "$ALL" "$(owned_ids)"

# failed ERRNO WHAT DATA: writing DATA fails with ERRNO, and the three
# links are still owned, in the tree and in the kernel
failed() {
	assert_eq "$2: errno" "$1" "$(ctl_write "$3")"
	assert_eq "$2: links still owned" "$ALL" "$(owned_ids)"
	assert_true "$2: links still in the tree" test -d "$MNT/$A" -a \
		-d "$MNT/$B" -a -d "$MNT/$C"
	assert_true "$2: links still in the kernel" in_kernel $ALL
}

failed EINVAL "-ID then a bad line" "-$A"$'\nbogus:x\n'
assert_eq "-ID then a bad line: error_log" "EINVAL line 2: bogus:x" \
	"$(last_error)"
failed EINVAL "-* then a bad line" $'-*\nbogus:x\n'
failed EINVAL "-ID, -* then a bad line" "-$B"$'\n-*\n# note\nbogus:x\n'
assert_eq "the bad line's number" "EINVAL line 4: bogus:x" "$(last_error)"
failed ENOENT "-ID then a missing id" "-$A"$'\n-4294967295\n'
# a later line sees what earlier ones removed
failed ENOENT "-ID twice" "-$A"$'\n'"-$A"$'\n'
assert_eq "-ID twice: error_log" "ENOENT line 2: -$A" "$(last_error)"
failed ENOENT "-* then -ID" $'-*\n'"-$B"$'\n'
assert_eq "-* then -ID: error_log" "ENOENT line 2: -$B" "$(last_error)"
# a link made and a removal in one request that fails: neither stays
failed EINVAL "make, -*, bad line" "$SPEC"$'\n-*\nbogus:x\n'
# a request that succeeds removes at its end, and returns at once
read -r D < <(ctl_create "-$A"$'\n'"$SPEC"$'\n')
assert_match "-ID and a new link in one request" "^[0-9]+$" "$D"
assert_eq "A removed, D made" "$B $C $D" "$(owned_ids)"
assert_eq "A's id is refused now" ENOENT "$(ctl_write "-$A"$'\n')"
left=$(wait_links_gone 10 "$A") || fail "link $A still in the kernel: $left"
# -* removes links made by earlier lines of its own request too
# the last line of a handle, run at close, removes as well
out=$(python3 - "$MNT/control" "-$B" <<'EOF2'
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
os.write(fd, os.fsencode(sys.argv[2]))
try:
    os.close(fd)
    print("OK")
except OSError as e:
    print(errno.errorcode[e.errno])
EOF2
)
assert_eq "-ID as the last line, at close" OK "$out"
assert_eq "B removed at close" "$C $D" "$(owned_ids)"
assert_eq "make then -*" OK "$(ctl_write "$SPEC"$'\n-*\n')"
assert_eq "nothing owned after -*" "" "$(owned_ids)"
left=$(wait_links_gone 10 "$B" "$C" "$D") ||
	fail "links still in the kernel after -*: $left"
bl_daemon_alive || fail "daemon dead or mount not answering at the end"
finish
