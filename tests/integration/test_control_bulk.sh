#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# How writes become lines (bpflinkfs(8), What a write does): many lines in one write, a line
# split across writes, a last line run at close, a 5,000-line file through
# cat; then `-*`, and SIGTERM of the daemon detaching what it owns (4).

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"
source "$HERE/lib_control.sh"

bl_setup
TRACEFS=$(bl_tracefs) || skip "tracefs is not mounted and cannot be mounted"
[ -d /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"

mkdir "$WORK/tgt" || die "mkdir"
TGT=$WORK/tgt/bpflinkfs_target
cp "$(readlink -f "$TARGET")" "$TGT" || die "copy of the target"

bl_mount

# spec_of ID
spec_of() { cat "$MNT/$1/spec" 2>/dev/null; }

# --- many lines in one write, ids back in order ---------------------------
ids=$(ctl_create "$(printf '%s\n' "s:cpu-clock cpu=0" "# comment" "" "   " \
	"s:task-clock cpu=0" "u:$TGT:bpflinkfs_target_b")"$'\n') ||
	fail "multi-line write failed"
mapfile -t M <<<"$ids"
assert_eq "multi-line write: ids" 3 "${#M[@]}"
assert_eq "multi-line write: specs in order" \
	"s:cpu-clock cpu=0|s:task-clock cpu=0|u:$TGT:bpflinkfs_target_b" \
	"$(spec_of "${M[0]}")|$(spec_of "${M[1]}")|$(spec_of "${M[2]}")"

# --- a line split across writes on one fd ---------------------------------
ids=$(timeout 30 python3 - "$MNT/control" <<'EOF'
import os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
for piece in (b"s:cpu-cl", b"ock cpu=0\ns:task-", b"clock", b" cpu=0\n"):
    os.write(fd, piece)
out = b"".join(iter(lambda: os.read(fd, 4096), b""))
os.close(fd)
sys.stdout.write(out.decode())
EOF
) || fail "split writes failed"
mapfile -t S <<<"$ids"
assert_eq "split writes: ids" 2 "${#S[@]}"
assert_eq "split writes: specs" "s:cpu-clock cpu=0|s:task-clock cpu=0" \
	"$(spec_of "${S[0]}")|$(spec_of "${S[1]}")"

# the same from bash: pieces with printf in one redirected group. (A
# separate `printf ... >&3` per piece dups fd 3 onto stdout and closes the
# dup afterwards: that close is a flush, which runs the incomplete line, as
# bpflinkfs(8), What a write does says; the man page tells scripts to write whole lines.)
exec 3>"$MNT/control"
{
	printf 's:page-'
	printf 'faults:5 '
	printf 'cpu=0\n'
} >&3
exec 3>&-
n=$(owned_listing | cut -f2 | grep -cx 's:page-faults:5 cpu=0')
assert_eq "printf pieces: links of 's:page-faults:5 cpu=0'" 1 "$n"

# --- a last line without a newline runs at close --------------------------
printf 'software:task-clock cpu=0 period=123456' >"$MNT/control" ||
	fail "write of a line without a newline"
n=$(owned_listing | cut -f2 | grep -cx 'software:task-clock cpu=0 period=123456')
assert_eq "a last line without newline ran at close" 1 "$n"
# ...and its error reaches close()
assert_eq "error of an unterminated last line" "OK close:ENOENT" \
	"$(ctl_write 's:no-such-event-at-close')"
IFS=$'\t' read -r _ ename _ _ cmd _ < <(errlog_entries | tail -n1)
assert_eq "error_log of the close error" "ENOENT s:no-such-event-at-close" \
	"$ename $cmd"

# --- a 5,000-line file through cat -----------------------------------------
# A long period keeps 2,500 timers on CPU 0 from loading the machine.
python3 - "$WORK/specs" "$TGT" <<'EOF'
import sys
out, tgt = sys.argv[1:]
lines = []
for i in range(5000):
    if i % 500 == 250:
        lines.append("u:%s:bpflinkfs_target_a" % tgt)   # 10 uprobes
    elif i % 2:
        lines.append("software:cpu-clock cpu=0 period=1000000000")
    elif i % 4 == 0:
        lines.append("# comment %d" % i)
    else:
        lines.append("")
open(out, "w").write("\n".join(lines) + "\n")
EOF
WANT_UP=$(grep -c '^u:' "$WORK/specs")
WANT_EV=$(grep -c '^software:' "$WORK/specs")
assert_eq "spec file lines" 5000 "$(wc -l <"$WORK/specs")"
owned_listing | cut -f1 | sort -n >"$WORK/before"
SECONDS=0
t cat "$WORK/specs" >"$MNT/control" || fail "cat of 5,000 lines to control"
echo "NOTE: 5,000 lines took ${SECONDS}s"
owned_listing >"$WORK/listing"
comm -13 "$WORK/before" <(cut -f1 "$WORK/listing" | sort -n) >"$WORK/bulk"
assert_eq "links made by the 5,000 lines" $((WANT_UP + WANT_EV)) \
	"$(wc -l <"$WORK/bulk")"
assert_eq "uprobe specs among them" "$WANT_UP" "$(awk -F'\t' \
	'NR == FNR { b[$1]; next } ($1 in b) && $2 ~ /^u:/' "$WORK/bulk" \
	"$WORK/listing" | wc -l)"
daemon_link_ids >"$WORK/held"
assert_eq "bulk links held by the daemon (fdinfo)" "$(wc -l <"$WORK/bulk")" \
	"$(grep -cxFf "$WORK/bulk" "$WORK/held")"
t ls "$MNT" >"$WORK/root.ls"
assert_eq "bulk links in ls" "$(wc -l <"$WORK/bulk")" \
	"$(grep -cxFf "$WORK/bulk" "$WORK/root.ls")"
# every one of the 10 uprobes counts the fixture's calls
"$TGT" 4 >/dev/null
mapfile -t BULK_UP < <(awk -F'\t' 'NR == FNR { b[$1]; next }
	($1 in b) && $2 ~ /^u:/ { print $1 }' "$WORK/bulk" "$WORK/listing")
for id in "${BULK_UP[@]}"; do
	assert_eq "hits of bulk uprobe $id" 4 "$(cat "$MNT/$id/hits")"
done

# --- -* removes every owned link: gone from ls at once --------------------
owned_listing | cut -f1 >"$WORK/all"
echo '-*' >"$MNT/control" || fail "-* failed"
t ls "$MNT" >"$WORK/root.ls"
assert_eq "owned links in ls right after -*" 0 \
	"$(grep -cxFf "$WORK/all" "$WORK/root.ls")"
assert_eq "cat control after -*" "" "$(owned_listing)"
wait_for -q 10 eval 'left=$(bpftool_link_ids | grep -cxFf "$WORK/all"); [ "$left" -eq 0 ]'
assert_eq "links in bpftool 10 s after -*" 0 "$left"
assert_eq "link fds the daemon holds after -*" 0 \
	"$(daemon_link_ids | grep -cxFf "$WORK/all")"

# --- SIGTERM detaches what the daemon owns --------------------------------
ids=$(ctl_create "$(printf '%s\n' "u:$TGT:bpflinkfs_target_a" \
	"ur:$TGT:bpflinkfs_target_c" t:sched:sched_switch s:cpu-clock)"$'\n') ||
	fail "links before SIGTERM"
mapfile -t TERM_IDS <<<"$ids"
[ "${#TERM_IDS[@]}" -ge 4 ] || fail "only ${#TERM_IDS[@]} links before SIGTERM"
kill -TERM "$BL_DAEMON_PID"
wait_for -q 15 bl_gone "$BL_DAEMON_PID"
kill -0 "$BL_DAEMON_PID" 2>/dev/null && fail "daemon runs 15 s after SIGTERM"
wait "$BL_DAEMON_PID"
rc=$?
# The man page names no exit status for SIGTERM; report it, do not judge it
[ "$rc" -ne 0 ] && echo "NOTE: the daemon exited with $rc after SIGTERM"
mountpoint -q "$MNT" && fail "$MNT is still mounted after SIGTERM"
left=$(wait_links_gone 2 "${TERM_IDS[@]}") ||
	fail "links left in bpftool after SIGTERM: $left"
finish
