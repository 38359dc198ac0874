#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The probe lands on the writer's file, CONTROL LANGUAGE):
# writers in another mount namespace (unshare -m with a tmpfs where the host
# has a decoy or nothing), /proc/PID/root and /proc/self, a deleted or
# replaced /proc/PID/exe, a writer whose pid the daemon cannot see (a daemon
# in its own pid namespace), a uprobe at a file offset past 4 GiB, and, with
# -s, every other spelling of a path into the mount (each must fail at once,
# and the daemon must keep answering). Hits counted in the right process,
# and devices and inodes from stat in the writer's namespace, show which
# file was probed; offsets come from readelf.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"

bl_setup
for tool in unshare nsenter gcc; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
[ -d /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"
unshare -m true 2>/dev/null || skip "unshare -m is not permitted here"

declare -A FX_PID FX_FD
CPID= UPID=
ns_cleanup() {
	local n
	for n in "${!FX_PID[@]}"; do
		kill "${FX_PID[$n]}" 2>/dev/null
		wait "${FX_PID[$n]}" 2>/dev/null
	done
	[ -n "$CPID" ] && kill "$CPID" 2>/dev/null && wait "$CPID" 2>/dev/null
	if [ -n "$UPID" ]; then
		nsenter -t "$UPID" -m fusermount3 -u "$WORK/m2" 2>/dev/null
		wait "$UPID" 2>/dev/null
	fi
	bl_cleanup
}
trap ns_cleanup EXIT

# ---- fixtures ----
TGT=$(readlink -f "$TARGET")
OFF_A=$(elf_file_offset "$TGT" bpflinkfs_target_a) || die "readelf $TGT"
cat >"$WORK/wait.c" <<'EOF'
/* Waits to be probed. Lines on stdin: N calls w_fn N times ("done N");
 * "write" writes argv[2] and a newline to argv[1] ("wrote OK|ENAME"). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noinline)) void w_fn(unsigned long i) { sink += i; }
int main(int argc, char **argv)
{
	char line[64], spec[512];
	unsigned long i, n;
	int fd;

	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strcmp(line, "write\n") && argc > 2) {
			snprintf(spec, sizeof(spec), "%s\n", argv[2]);
			fd = open(argv[1], O_WRONLY);
			if (fd < 0 || write(fd, spec, strlen(spec)) < 0)
				printf("wrote %s\n", strerrorname_np(errno));
			else
				printf("wrote OK\n");
			if (fd >= 0)
				close(fd);
		} else {
			n = strtoul(line, NULL, 10);
			for (i = 0; i < n; i++)
				w_fn(i);
			printf("done %lu\n", n);
		}
		fflush(stdout);
	}
	return 0;
}
EOF
gcc -O0 -o "$WORK/wait" "$WORK/wait.c" || die "gcc wait.c"
OFF_W=$(elf_file_offset "$WORK/wait" w_fn) || die "readelf wait"

# The writer: python3 wr.py CONTROL DIR SPEC [FILE], in DIR; prints "OK
# IDS..." or the errno name. With FILE, "{fd}" in SPEC is the number of a
# descriptor of FILE it holds. Run through nsenter, it writes from there.
cat >"$WORK/wr.py" <<'EOF'
import errno, os, sys
ctl, cwd, spec = sys.argv[1:4]
if len(sys.argv) > 4:
    spec = spec.replace("{fd}", str(os.open(sys.argv[4], os.O_RDONLY)))
os.chdir(cwd)
fd = os.open(ctl, os.O_RDWR)
try:
    os.write(fd, (spec + "\n").encode())
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))
    sys.exit(0)
ids = b"".join(iter(lambda: os.read(fd, 4096), b""))
print(" ".join(["OK"] + ids.decode().split()))
EOF
# wr [-n] DIR SPEC: write SPEC from DIR (10 s at most) to WMNT (default
# MNT), with -n from inside the namespaces of nsenter "${WNS[@]}"
WNS=()
wr() {
	local pre=()
	if [ "$1" = -n ]; then
		pre=(nsenter "${WNS[@]}")
		shift
	fi
	timeout 10 "${pre[@]}" python3 "$WORK/wr.py" "${WMNT:-$MNT}/control" \
		"$1" "$2" || echo "TIMEOUT"
}
# take_id VAR WHAT RESULT: VAR = the one id of an "OK ID" result, or fail
take_id() {
	if [[ "$3" =~ ^OK\ ([0-9]+)$ ]]; then
		ok
		printf -v "$1" %s "${BASH_REMATCH[1]}"
	else
		fail "$2: expected one link, got '$3' ($(tail -3 \
			"$MNT/error_log" | head -1))"
		printf -v "$1" %s none
	fi
}
# dev_ino_of ID: device and inode of the file that MNT/ID/name reaches
dev_ino_of() { stat -L -c %d:%i "$(cat "$MNT/$1/name")" 2>&1; }
hits() { cat "$MNT/$1/hits" 2>/dev/null || echo none; }

# fx_start NAME BIN ARGS...: BIN with a fifo as stdin, until it is "ready"
fx_start() {
	local name=$1 fd
	shift
	mkfifo "$WORK/fx.$name.in" || die "mkfifo"
	"$@" <"$WORK/fx.$name.in" >"$WORK/fx.$name.out" 2>&1 &
	FX_PID[$name]=$!
	exec {fd}>"$WORK/fx.$name.in"
	FX_FD[$name]=$fd
	wait_for -q 5 grep -qx ready "$WORK/fx.$name.out" ||
		die "fixture $name not ready"
}
# fx_say NAME LINE: send LINE, print the fixture's answer (5 s at most)
fx_say() {
	local n out=$WORK/fx.$1.out
	n=$(wc -l <"$out")
	echo "$2" >&"${FX_FD[$1]}"
	if wait_for -q 5 eval '[ "$(wc -l <"$out")" -gt "$n" ]'; then
		tail -1 "$out"
	else
		echo "no answer"
	fi
}

bl_mount -s # single-threaded: a request to itself would hang for good

# ---- another mount namespace: a tmpfs where the host has a decoy ----
mkdir -p "$WORK/srv" "$WORK/elsewhere"
cp "$TGT" "$WORK/srv/app" # the host's decoy, at the container's path
# The container: its own copy of the target at the same path, and one the
# host does not have. It sheds the other FUSE mounts it copied (other
# daemons on this host must not wait for it to exit).
unshare -m --propagation private bash -c '
	grep " - fuse" /proc/self/mountinfo | cut -d" " -f5 |
		while read -r m; do [ "$m" = "$1" ] || umount -l "$m"; done
	mount -t tmpfs ctr "$2/srv" && cp "$3" "$2/srv/app" &&
		cp "$3" "$2/srv/only" && touch "$2/ns.ready" && exec sleep 300
' ctr "$MNT" "$WORK" "$TGT" &
CPID=$!
wait_for -q 5 test -e "$WORK/ns.ready"
[ -e "$WORK/ns.ready" ] || die "the container did not start"
WNS=(-t "$CPID" -m --)
ns_stat() { nsenter "${WNS[@]}" stat -c %d:%i "$1"; }
want_app=$(ns_stat "$WORK/srv/app") want_only=$(ns_stat "$WORK/srv/only")
[ "$want_app" != "$(stat -c %d:%i "$WORK/srv/app")" ] ||
	die "the container's file is the host's"

declare -A CIDS
take_id "CIDS[abs]" "container: absolute path" \
	"$(wr -n / "u:$WORK/srv/app:bpflinkfs_target_a")"
take_id "CIDS[rel]" "container: relative path" \
	"$(wr -n "$WORK/srv" "u:./app:bpflinkfs_target_a")"
take_id "CIDS[self]" "container: /proc/self/root" \
	"$(wr -n / "u:/proc/self/root$WORK/srv/app:bpflinkfs_target_a")"
take_id "CIDS[host]" "host: /proc/PID/root" \
	"$(wr / "u:/proc/$CPID/root$WORK/srv/app:bpflinkfs_target_a")"
take_id only "container: a file the host lacks" \
	"$(wr -n "$WORK/elsewhere" "u:../srv/only:bpflinkfs_target_a")"
for k in abs rel self host; do
	id=${CIDS[$k]}
	assert_eq "$k: name" "/proc/$CPID/root$WORK/srv/app" \
		"$(cat "$MNT/$id/name" 2>&1)"
	assert_eq "$k: name reaches the container's file" "$want_app" \
		"$(dev_ino_of "$id")"
	assert_eq "$k: symbol" "bpflinkfs_target_a+0x0" \
		"$(cat "$MNT/$id/symbol" 2>&1)"
	assert_num_eq "$k: offset" "$OFF_A" "$(cat "$MNT/$id/offset" 2>&1)"
done
assert_eq "only: name reaches the container's file" "$want_only" \
	"$(dev_ino_of "$only")"
# the hits tell which file was probed
nsenter "${WNS[@]}" "$WORK/srv/app" 3 >/dev/null || fail "run container app"
nsenter "${WNS[@]}" "$WORK/srv/only" 2 >/dev/null || fail "run container only"
"$WORK/srv/app" 5 >/dev/null || fail "run the host's decoy"
for k in abs rel self host; do
	assert_eq "$k: hits from the container's app only" 3 \
		"$(hits "${CIDS[$k]}")"
done
assert_eq "only: hits" 2 "$(hits "$only")"
echo '-*' >"$MNT/control"
kill "$CPID" 2>/dev/null
wait "$CPID" 2>/dev/null
CPID=

# ---- /proc/PID/exe of a deleted or replaced binary; /proc/self ----
mkdir -p "$WORK/run"
cp "$WORK/wait" "$WORK/run/prog"
fx_start del "$WORK/run/prog"
rm "$WORK/run/prog"
pid=${FX_PID[del]}
take_id del "/proc/PID/exe of a deleted binary" \
	"$(wr / "u:/proc/$pid/exe:w_fn")"
assert_eq "deleted: name" "/proc/$pid/exe" "$(cat "$MNT/$del/name" 2>&1)"
assert_eq "deleted: symbol" "w_fn+0x0" "$(cat "$MNT/$del/symbol" 2>&1)"
assert_num_eq "deleted: offset" "$OFF_W" "$(cat "$MNT/$del/offset" 2>&1)"
assert_eq "deleted: run" "done 4" "$(fx_say del 4)"
assert_eq "deleted: hits" 4 "$(hits "$del")"

# replaced: renamed over while it runs; the new file is not probed
cp "$WORK/wait" "$WORK/run/prog"
fx_start rep "$WORK/run/prog"
cp "$WORK/wait" "$WORK/run/prog.new"
mv "$WORK/run/prog.new" "$WORK/run/prog"
pid=${FX_PID[rep]}
take_id rep "/proc/PID/exe of a replaced binary" \
	"$(wr / "u:/proc/$pid/exe:w_fn")"
assert_eq "replaced: name" "/proc/$pid/exe" "$(cat "$MNT/$rep/name" 2>&1)"
fx_start new "$WORK/run/prog"
assert_eq "replaced: the new binary runs" "done 5" "$(fx_say new 5)"
assert_eq "replaced: run" "done 2" "$(fx_say rep 2)"
assert_eq "replaced: hits from the old binary only" 2 "$(hits "$rep")"
# a live binary: its own path, which outlives the process
take_id live "/proc/PID/exe of a live binary" \
	"$(wr / "u:/proc/${FX_PID[new]}/exe:w_fn")"
assert_eq "live: name" "$(readlink -f "$WORK/run/prog")" \
	"$(cat "$MNT/$live/name" 2>&1)"

# /proc/self is the writer: a deleted binary that probes itself
cp "$WORK/wait" "$WORK/run/selfprog"
fx_start self "$WORK/run/selfprog" "$MNT/control" "u:/proc/self/exe:w_fn"
rm "$WORK/run/selfprog"
assert_eq "/proc/self/exe written by the process" "wrote OK" \
	"$(fx_say self write)"
self=$(tail -1 "$MNT/control" | cut -f1)
assert_eq "self: spec" "u:/proc/self/exe:w_fn" \
	"$(cat "$MNT/$self/spec" 2>&1)"
assert_eq "self: name" "/proc/${FX_PID[self]}/exe" \
	"$(cat "$MNT/$self/name" 2>&1)"
assert_eq "self: run" "done 3" "$(fx_say self 3)"
assert_eq "self: hits" 3 "$(hits "$self")"
mkdir -p "$WORK/cwd"
cp "$TGT" "$WORK/cwd/selfcwd"
take_id id "/proc/self/cwd" \
	"$(wr "$WORK/cwd" "u:/proc/self/cwd/selfcwd:bpflinkfs_target_a")"
assert_eq "/proc/self/cwd: name" "$WORK/cwd/selfcwd" \
	"$(cat "$MNT/$id/name" 2>&1)"
echo '-*' >"$MNT/control"

# ---- a uprobe past 4 GiB: the offset this mount made ----
big_test() {
	[ "$(uname -m)" = x86_64 ] || {
		echo "note: 4 GiB fixture is x86-64 code; skipped here"
		return
	}
	python3 - "$WORK/big" <<'EOF' || { echo "note: no sparse 4 GiB file here"; return; }
# A static x86-64 ELF whose code lies at file offset 4 GiB (sparse): it
# reads one digit N from stdin, calls big_fn N times, and exits.
import struct, sys
OFF, VADDR, FN = 0x100000000, 0x10000000, 42
code = bytes.fromhex(
    "31c0" "31ff" "488d7424f0" "ba01000000" "0f05"  # read(0, rsp-16, 1)
    "0fb65c24f0" "83eb30"                           # ebx = the digit
    "e80d000000" "ffcb" "75f7"                      # call big_fn; loop
    "b83c000000" "31ff" "0f05"                      # exit(0)
    "554889e55dc3")                                 # big_fn
strtab = b"\0big_fn\0big_start\0"
syms = struct.pack("<IBBHQQ", 0, 0, 0, 0, 0, 0)
syms += struct.pack("<IBBHQQ", 1, 0x12, 0, 1, VADDR + FN, 6)
syms += struct.pack("<IBBHQQ", 8, 0x12, 0, 1, VADDR, FN)
shstr = b"\0.text\0.symtab\0.strtab\0.shstrtab\0"
SYM = 0x200
STR = SYM + len(syms)
SHS = STR + len(strtab)
SHOFF = (SHS + len(shstr) + 7) & ~7
def sh(name, typ, flags, addr, off, size, link=0, info=0, align=1, ent=0):
    return struct.pack("<IIQQQQIIQQ", name, typ, flags, addr, off, size,
                       link, info, align, ent)
shdrs = (sh(0, 0, 0, 0, 0, 0) + sh(1, 1, 6, VADDR, OFF, len(code), align=16)
         + sh(7, 2, 0, 0, SYM, len(syms), 3, 1, 8, 24)
         + sh(15, 3, 0, 0, STR, len(strtab)) + sh(23, 3, 0, 0, SHS, len(shstr)))
ehdr = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8) + struct.pack(
    "<HHIQQQIHHHHHH", 2, 62, 1, VADDR, 64, SHOFF, 0, 64, 56, 1, 64, 5, 4)
phdr = struct.pack("<IIQQQQQQ", 1, 5, OFF, VADDR, VADDR, len(code),
                   len(code), 0x1000)
with open(sys.argv[1], "wb") as f:
    f.write(ehdr + phdr)
    f.seek(SYM)
    f.write(syms + strtab + shstr)
    f.seek(SHOFF)
    f.write(shdrs)
    f.seek(OFF)
    f.write(code)
EOF
	chmod +x "$WORK/big"
	local want id id2 row json
	want=$(elf_file_offset "$WORK/big" big_fn) || die "readelf big"
	assert_true "readelf: big_fn lies past 4 GiB" \
		python3 -c "import sys; sys.exit(int('$want', 0) < 1 << 32)"
	take_id id "uprobe past 4 GiB" "$(wr / "u:$WORK/big:big_fn")"
	assert_num_eq "4 GiB: offset" "$want" "$(cat "$MNT/$id/offset" 2>&1)"
	assert_eq "4 GiB: symbol" "big_fn+0x0" "$(cat "$MNT/$id/symbol" 2>&1)"
	row=$(awk -v id="$id" '$1 == id { print $4 }' "$MNT/links")
	assert_num_eq "4 GiB: links OFFSET column" "$want" "$row"
	json=$(python3 -c 'import json, sys
for o in json.load(open(sys.argv[1])):
    if o["id"] == int(sys.argv[2]):
        print(o["offset"])' "$MNT/links.json" "$id")
	assert_num_eq "4 GiB: links.json offset" "$want" "$json"
	take_id id2 "4 GiB: the round trip type:name:offset" "$(wr / \
		"$(cat "$MNT/$id/type"):$(cat "$MNT/$id/name"):$(cat \
			"$MNT/$id/offset")")"
	assert_num_eq "4 GiB: round trip offset" "$want" \
		"$(cat "$MNT/$id2/offset" 2>&1)"
	echo 3 | "$WORK/big" || fail "run the 4 GiB fixture"
	assert_eq "4 GiB: hits" 3 "$(hits "$id")"
	assert_eq "4 GiB: round trip hits" 3 "$(hits "$id2")"
	echo '-*' >"$MNT/control"
}
big_test

# ---- a writer whose pid the daemon cannot see ----
# The daemon in its own pid namespace; the writer enters its mount
# namespace only, so FUSE gives the daemon pid 0 for it. The daemon's cwd
# holds an "app" too: a relative path must not resolve there.
mkdir -p "$WORK/m2" "$WORK/dcwd" "$WORK/wcwd"
cp "$TGT" "$WORK/dcwd/app"
cp "$TGT" "$WORK/wcwd/app"
(cd "$WORK/dcwd" && exec unshare -p -f --mount-proc sh -c '
	grep " - fuse" /proc/self/mountinfo | cut -d" " -f5 |
		while read -r m; do umount -l "$m"; done
	exec "$0" "$@"' "$BPFLINKFS" "$WORK/m2" -f 2>>"$WORK/daemon.log") &
UPID=$!
wait_for -q 10 nsenter -t "$UPID" -m mountpoint -q "$WORK/m2" 2>/dev/null
nsenter -t "$UPID" -m mountpoint -q "$WORK/m2" || die "no daemon in a pid ns"
WNS=(-t "$UPID" -m --)
WMNT=$WORK/m2
elog() { nsenter "${WNS[@]}" tail -3 "$WORK/m2/error_log"; }
res=$(wr -n "$WORK/wcwd" "u:./app:bpflinkfs_target_a")
if [ "$res" = EPERM ]; then
	echo "note: pid-0 writers are refused as unprivileged (EPERM)"
	ok
else
	assert_eq "pid 0: relative path refused" EINVAL "$res"
	assert_match "pid 0: message" \
		"relative path \./app: .*not visible to bpflinkfs" "$(elog)"
	assert_eq "pid 0: caret under the path" "$(printf '%*s^' 13 '')" \
		"$(elog | tail -1)"
	assert_eq "pid 0: /proc/self refused" EINVAL \
		"$(wr -n "$WORK/wcwd" "u:/proc/self/cwd/app:f")"
	res=$(wr -n / "u:$WORK/wcwd/app:bpflinkfs_target_a")
	assert_match "pid 0: an absolute path works" "^OK [0-9]+$" "$res"
fi
assert_eq "pid 0: no link from the relative path" 0 \
	"$(nsenter "${WNS[@]}" cat "$WORK/m2/control" | grep -c 'u:\./app')"
nsenter "${WNS[@]}" sh -c "echo '-*' >'$WORK/m2/control'"
nsenter "${WNS[@]}" fusermount3 -u "$WORK/m2"
wait_for -q 30 bl_gone "$UPID"
kill -0 "$UPID" 2>/dev/null && fail "the pid-ns daemon did not exit"
UPID= WMNT=

# ---- -s: other spellings of a path into the mount fail at once ----
# (no descriptor of a mount file here: children would flush it at exit)
ln -s "$MNT" "$WORK/lnk"
parent=$(dirname "$MNT") base=$(basename "$MNT")
# A request the daemon has taken cannot be interrupted: a writer whose
# write hangs the daemon waits for good, unless the daemon goes (10 s).
spell_write() { # DIR SPEC [FILE]
	local p i
	python3 "$WORK/wr.py" "$MNT/control" "$@" >"$WORK/spell.out" &
	p=$!
	wait_for -q 10 bl_gone "$p"
	if kill -0 $p 2>/dev/null; then
		kill -9 "$BL_DAEMON_PID"
		wait $p
		echo HANG
		return
	fi
	wait $p
	cat "$WORK/spell.out"
}
spell() { # WHAT DIR PATH [FILE]
	local t0 res
	t0=$(date +%s%N)
	res=$(spell_write "$2" "u:$3:f" "${@:4}")
	assert_eq "-s $1: refused" EINVAL "$res"
	[ "$res" = HANG ] && die "the daemon hung on $3 (killed)"
	assert_true "-s $1: at once" \
		test $((($(date +%s%N) - t0) / 1000000)) -lt 5000
	assert_match "-s $1: message" "inside the bpflinkfs mount" \
		"$(tail -3 "$MNT/error_log" | head -1)"
}
spell "a doubled slash" / "$parent//$base/links"
spell "a dot" / "$parent/./$base/links"
spell "a symlink" / "$WORK/lnk/links"
spell "/proc/self/root" / "/proc/self/root$MNT/links"
spell "a relative path" "$parent" "./$base/links"
spell "the mount itself" / "$MNT"
spell "through and out" / "$MNT/../x"
spell "a working directory inside" "$MNT" "./links"
spell "/proc/self/cwd inside" "$MNT" "/proc/self/cwd/links"
spell "/proc/self/fd of a mount file" / "/proc/self/fd/{fd}" "$MNT/features"
assert_true "-s: the daemon answers after all that" bl_daemon_alive
assert_eq "-s: no link made" "" "$(cat "$MNT/control")"

finish
