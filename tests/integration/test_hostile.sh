#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Hostile writes to MNT/control (bpflinkfs(8), What a write does and ERRORS): binary bytes, NULs,
# 100 KB and over-1-MiB lines, 10,000 bad lines in one write, a bad line
# after good ones. Each must fail cleanly with EINVAL, keep the daemon
# alive and create nothing: `cat MNT/control` on a fresh handle lists no
# link, the daemon holds no link fd (fdinfo) and bpftool shows none of it.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"
source "$HERE/lib_control.sh"

bl_setup
[ -d /sys/bus/event_source/devices/software ] || skip "no software PMU"
bl_mount

# The writer: the bytes of the Python expression argv[2], in one write(2)
# to control (a list of bytes: one write each, up to the first error),
# then close. Prints the write's errno name, SHORT (a short
# write: the kernel split it into requests and a later one failed), or OK,
# then " close:ENAME" if close failed.
cat >"$WORK/hostile.py" <<'EOF'
import errno, os, random, sys
random.seed(5)
data = eval(sys.argv[2])
fd = os.open(sys.argv[1], os.O_WRONLY)
r = "OK"
try:
    for d in data if isinstance(data, list) else [data]:
        if os.write(fd, d) != len(d):
            r = "SHORT"
            break
except OSError as e:
    r = errno.errorcode.get(e.errno, str(e.errno))
try:
    os.close(fd)
except OSError as e:
    r += " close:" + errno.errorcode.get(e.errno, str(e.errno))
print(r)
EOF

# hostile WHAT EXPECT PYEXPR: write PYEXPR (see hostile.py); the result
# must match the regular expression EXPECT, and nothing may be made.
hostile() {
	local got rc=0
	got=$(timeout 60 python3 "$WORK/hostile.py" "$MNT/control" "$3") ||
		rc=$?
	[ "$rc" -eq 124 ] && fail "$1: hang (60 s)"
	assert_match "$1" "^($2)\$" "$got"
	nothing_made "$1"
}

# nothing_made WHAT: the daemon is alive, owns no link, holds no link fd,
# and bpftool shows none of the links its program runs.
nothing_made() {
	local own fds
	bl_daemon_alive || die "$1: the daemon died"
	own=$(owned_listing) || fail "$1: cat control failed"
	assert_eq "$1: owned listing" "" "$own"
	fds=$(daemon_link_ids | xargs)
	assert_eq "$1: link fds of the daemon" "" "$fds"
}

PROGS_BEFORE=$(daemon_prog_ids | xargs)

hostile "random binary bytes" EINVAL \
	'bytes(random.randrange(256) for _ in range(65536))'
hostile "binary without a newline (fails at close)" "OK close:EINVAL" \
	'bytes(random.randrange(1, 256) for _ in range(4096)).replace(b"\n", b"x")'
hostile "a NUL inside a good line" EINVAL 'b"software:cpu-clock\0 cpu=0\n"'
hostile "a NUL at the start" EINVAL 'b"\0software:cpu-clock cpu=0\n"'
hostile "a NUL line" EINVAL 'b"\0\n"'
hostile "only NULs" EINVAL 'b"\0" * 100000 + b"\n"'
hostile "a 100 KB probe name" EINVAL 'b"k:" + b"f" * 100000 + b"\n"'
hostile "a 100 KB uprobe path" EINVAL \
	'b"u:/" + b"a/" * 50000 + b":main\n"'
hostile "a 100 KB option" EINVAL \
	'b"s:cpu-clock cpu=0 period=" + b"9" * 100000 + b"\n"'
hostile "a 100 KB comment is fine" OK 'b"#" + b"c" * 100000 + b"\n"'
hostile "10,000 bad lines in one write" EINVAL \
	'b"".join(b"bad line %d\n" % i for i in range(10000))'
hostile "10,000 lines, the last bad" EINVAL \
	'b"# ok\n" * 9999 + b"nonsense:x\n"'
hostile "good lines, then a bad one" EINVAL \
	'b"software:cpu-clock cpu=0\n" * 3 + b"software:cpu-clock bogus=1\n"'
hostile "good lines, then a NUL" EINVAL \
	'b"software:cpu-clock cpu=0\n" * 2 + b"\0\n"'
# over 1 MiB the kernel splits the write: the request with the newline
# fails, the ones before it (parts of the line, kept aside) stay done
hostile "a 1 MiB + 1 line" "EINVAL|SHORT" 'b"s" * (1024 * 1024 + 1) + b"\n"'
assert_eq "error_log after a 1 MiB + 1 line" "EINVAL	line too long" \
	"$(errlog_entries | tail -n 1 | cut -f2,6)"
hostile "a 3 MiB line" "EINVAL|SHORT" 'b"#" * (3 * 1024 * 1024) + b"\n"'
assert_eq "error_log after a 3 MiB line" "EINVAL	line too long" \
	"$(errlog_entries | tail -n 1 | cut -f2,6)"
hostile "8 MiB without a newline" "OK close:EINVAL" 'b"z" * (8 * 1024 * 1024)'
hostile "100,000 blank lines" OK 'b"\n" * 100000'
hostile "CRLF blank lines and comments" OK 'b"\r\n# x\r\n \t\r\n" * 1000'
hostile "control bytes" EINVAL 'bytes(range(1, 32)) + b"\n"'
hostile "a bad line split across writes" EINVAL \
	'[b"# comment\nsoftware:cpu", b"-clock bog", b"us=1\n"]'
hostile "a bad line split, its end at close" "OK close:EINVAL" \
	'[b"software:cpu", b"-clock bog", b"us=1"]'
hostile "a NUL split across writes" EINVAL \
	'[b"software:cpu-clock", b"\0", b" cpu=0\n"]'
hostile "DEL and high bytes" EINVAL 'b"s:cpu-clock\x7f\xff\xfe\n"'
hostile "a path that is not UTF-8 (no such file)" ENOENT \
	'b"u:/tmp/\xff\xfe:main\n"'
hostile "removal of id 0" EINVAL 'b"-0\n"'
hostile "removal of a huge id" EINVAL 'b"-99999999999999999999\n"'
hostile "removal of a non-number" EINVAL 'b"-abc\n"'

# the daemon's state is sane after all this
assert_eq "the daemon's programs are the same" "$PROGS_BEFORE" \
	"$(daemon_prog_ids | xargs)"
entries=$(errlog_entries) || fail "error_log is not in the documented form"
n=$(printf '%s\n' "$entries" | grep -c .)
[ "$n" -le 16 ] && ok || fail "error_log has $n entries, more than 16"
last=$(printf '%s\n' "$entries" | tail -n 1 | cut -f2)
assert_eq "the last error_log entry" EINVAL "$last"

# and it still works: a good line makes a link, -ID removes it
ID=$(ctl_create $'software:cpu-clock cpu=0\n') ||
	fail "a good line fails after the hostile writes"
if [[ "$ID" =~ ^[0-9]+$ ]]; then
	assert_eq "the new link in the owned listing" "$ID" \
		"$(owned_listing | cut -f1)"
	assert_eq "-ID" OK "$(ctl_write "-$ID"$'\n')"
	left=$(wait_links_gone 5 "$ID") || fail "$ID still in bpftool: $left"
fi
nothing_made "after the last removal"
finish
