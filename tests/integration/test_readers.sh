#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every file reads whole with every reader people use (bpflinkfs(8), THE TREE):
# readers that copy through splice or sendfile (Rust coreutils cat, busybox
# cat, Python's shutil.copyfile) take from the page cache up to st_size;
# tar and rsync read st_size bytes. The reference for each file is what
# read(2) returns (Python's os.read in a loop), compared byte for byte.
# Also: a counter moves between two splice reads; the root's st_nlink is 2
# plus its link directories, and Perl's File::Find, which trusts it, sees
# every link; a reader-dependent file is a different inode for readers who
# may and may not see kernel addresses.

source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

bl_setup
RUST_CAT=/usr/lib/cargo/bin/coreutils/cat
BUSYBOX=$(command -v busybox || true)
[ -x "$RUST_CAT" ] || skip "no Rust coreutils cat (apt-get install rust-coreutils)"
[ -n "$BUSYBOX" ] || skip "no busybox (apt-get install busybox-static)"
for tool in rsync tar perl strace; do
	command -v "$tool" >/dev/null || skip "$tool is not installed"
done
bl_mount -o allow_other

hex() { od -An -v -tx1 | tr -d ' \n'; }
# the bytes read(2) gives, as hex (the reference): GNU cat 9.1 copies
# with read(2) and write(2), never splice
read_hex() { cat "$1" | hex; }

# a link of our own, so that hits and spec exist, and a uprobe link
exec 3<>"$MNT/control"
# getpgid: no reader or shell here calls it, so the tables stay still
echo 'tracepoint:syscalls:sys_enter_getpgid' >&3
read -r tp <&3
echo "uprobe:$TARGET:bpflinkfs_target_a" >&3
read -r up <&3
echo 'nonsense' >&3 2>/dev/null # error_log has something to read
exec 3>&-
[ -n "$tp" ] && [ -n "$up" ] || die "no links made"

# the splice and sendfile readers really splice: strace shows it
sp=$(strace -f -e trace=splice,sendfile,copy_file_range "$RUST_CAT" \
	"$MNT/features" 2>&1 >/dev/null | grep -cE '^(splice|sendfile)')
assert_match "Rust cat uses splice or sendfile" "^[1-9]" "$sp"
sp=$(strace -f -e trace=sendfile "$BUSYBOX" cat "$MNT/features" 2>&1 \
	>/dev/null | grep -c '^sendfile')
assert_match "busybox cat uses sendfile" "^[1-9]" "$sp"

# Files whose value does not move while we read them.
files=(features links links.json metrics.prom error_log control "$up/type"
	"$up/name" "$up/offset" "$up/prog_id" "$up/prog_name" "$up/spec" "$up/symbol"
	"$tp/type" "$tp/name" "$tp/spec")
# own_view FILE: of a whole-host table on stdin, what no other process
# changes: whether it is whole (links: every line has the header's
# columns; links.json: it parses; metrics.prom: every line is a comment or
# a sample; each ends in a newline), its header, and its lines of this
# test's own links. On a busy host other processes make and drop links
# every few milliseconds, so two reads of a table rarely agree whole;
# their own lines and their wholeness always must.
own_view() {
	python3 -c '
import json, re, sys
kind, own = sys.argv[1], set(sys.argv[2:])
data = sys.stdin.buffer.read()
out = [b"ends in a newline: %d" % data.endswith(b"\n")]
lines = data.split(b"\n")[:-1]
if kind == "links":
    cols = lines[0].count(b"\t") if lines else -1
    out.append(b"whole: %d" % all(l.count(b"\t") == cols for l in lines))
    out += lines[:1] + [l for l in lines[1:] if l.split(b"\t")[0].decode() in own]
elif kind == "links.json":
    try:
        objs = [o for o in json.loads(data) if str(o["id"]) in own]
        out.append(json.dumps(objs, sort_keys=True).encode())
    except ValueError as e:
        out.append(b"does not parse: %s" % str(e).encode())
else:
    sample = re.compile(rb"^[a-z_]+(\{.*\})? [-+0-9.eEInfa]+$")
    out.append(b"whole: %d" % all(l.startswith(b"#") or sample.match(l)
                                  for l in lines))
    out += [l for l in lines if any(b"id=\"%s\"" % i.encode() in l
                                    for i in own)]
sys.stdout.buffer.write(b"\n".join(out) + b"\n")' "$1" "$tp" "$up"
}
# same_read WHAT FILE CMD...: CMD's output is what read(2) gives just
# before it (of a table, in own_view); the other files may change while
# other processes make links, so a mismatch is tried again before it
# counts.
same_read() {
	local what=$1 f=$2 want got i view=cat
	shift 2
	case ${f##*/} in
	links | links.json | metrics.prom) view="own_view ${f##*/}" ;;
	esac
	for i in 1 2 3 4 5 6 7 8 9 10; do
		want=$(cat "$f" | $view | hex)
		got=$("$@" | $view | hex)
		[ -n "$want" ] && [ "$want" == "$got" ] && break
	done
	# bytes and a digest: a table's hex would flood the log
	assert_eq "$what" "$((${#want} / 2)) bytes $(md5sum <<<"$want")" \
		"$((${#got} / 2)) bytes $(md5sum <<<"$got")"
}
shutil_copy() {
	rm -f "$WORK/copy"
	python3 -c 'import shutil, sys; shutil.copyfile(sys.argv[1], sys.argv[2])' \
		"$1" "$WORK/copy" && cat "$WORK/copy"
}
py_read() {
	python3 -c 'import sys
sys.stdout.buffer.write(open(sys.argv[1], "rb").read())' "$1"
}
size_and_read() { stat -c %s "$1"; read_hex "$1"; }
for f in "${files[@]}"; do
	p=$MNT/$f
	same_read "$f: Rust coreutils cat" "$p" "$RUST_CAT" "$p"
	same_read "$f: busybox cat" "$p" "$BUSYBOX" cat "$p"
	same_read "$f: head -c" "$p" head -c 10000000 "$p"
	# one byte a read; the tables (many KiB) seven at a time
	bs=1
	[ "${f%links*}" = "$f" ] || bs=7
	same_read "$f: dd bs=$bs" "$p" dd if="$p" bs=$bs status=none
	same_read "$f: shutil.copyfile" "$p" shutil_copy "$p"
	same_read "$f: Python open().read()" "$p" py_read "$p"
	for i in $(seq 30); do
		sz=$(stat -c %s "$p")
		want=$(read_hex "$p")
		[ "$sz" -eq "$((${#want} / 2))" ] && break
	done
	assert_eq "$f: st_size" "$((${#want} / 2))" "$sz"
done
line=$(read -r l <"$MNT/$up/name" && echo "$l")
assert_eq "bash read" "$(cat "$MNT/$up/name")" "$line"

# hits moves: each splice read is a whole number with its newline, and a
# read after more hits shows more
for reader in "$RUST_CAT" "$BUSYBOX cat"; do
	$reader "$MNT/$tp/hits" >"$WORK/h1"
	python3 -c 'import os
for i in range(2000): os.getpgid(0)'
	$reader "$MNT/$tp/hits" >"$WORK/h2"
	a=$(hex <"$WORK/h1")
	an=$(cat "$WORK/h1")
	bn=$(cat "$WORK/h2")
	assert_match "$reader: hits ends in a newline" "0a$" "$a"
	assert_match "$reader: hits is a number" "^[0-9]+$" "$an"
	assert_true "$reader: hits moved by 2000 ($an -> $bn)" \
		test "$((bn - an))" -ge 2000
done

# tar, rsync, cp -r and grep -r copy every file of a link whole; events
# is a live stream (bpflinkfs(8), EVENTS) that readers until end of file (cp, grep)
# would wait on, as on tracefs' trace_pipe: they leave it out
mkdir -p "$WORK/tar" "$WORK/rsync" "$WORK/cp"
tar -C "$MNT" -cf - "$up" 2>"$WORK/tar.err" | tar -C "$WORK/tar" -xf -
assert_eq "tar warns of nothing" "" "$(cat "$WORK/tar.err")"
rsync -a "$MNT/$up/" "$WORK/rsync/"
find "$MNT/$up" -mindepth 1 ! -name events -exec cp -r -t "$WORK/cp/" {} +
for f in type name offset prog_id prog_name spec symbol; do
	want=$(read_hex "$MNT/$up/$f")
	assert_eq "tar: $f" "$want" "$(hex <"$WORK/tar/$up/$f")"
	assert_eq "rsync: $f" "$want" "$(hex <"$WORK/rsync/$f")"
	assert_eq "cp -r: $f" "$want" "$(hex <"$WORK/cp/$f")"
done
assert_match "tar: hits" "^[0-9]+$" "$(cat "$WORK/tar/$up/hits")"
assert_match "rsync: hits" "^[0-9]+$" "$(cat "$WORK/rsync/hits")"
assert_eq "grep -r finds the spec" "$MNT/$up/spec" \
	"$(grep -rl --exclude=events "uprobe:$TARGET:bpflinkfs_target_a" \
		"$MNT/$up")"
if command -v go >/dev/null; then
	cat >"$WORK/r.go" <<'GO'
package main

import ("os"; "fmt")

func main() { b, _ := os.ReadFile(os.Args[1]); fmt.Print(string(b)) }
GO
	assert_eq "Go os.ReadFile" "$(read_hex "$MNT/links")" \
		"$(go run "$WORK/r.go" "$MNT/links" | hex)"
else
	echo "note: no Go toolchain, os.ReadFile not tried"
fi

# st_nlink of the root: 2 and one per link directory in its listing
# links of other processes may come and go meanwhile (thousands, on a busy
# host): the listing is counted before and after the stat, and st_nlink
# must lie between the two counts, give or take a few
dirs_count() { find "$MNT" -mindepth 1 -maxdepth 1 -type d | wc -l; }
d1=$(dirs_count)
nl=$(stat -c %h "$MNT")
d2=$(dirs_count)
lo=$((d1 < d2 ? d1 : d2)) hi=$((d1 > d2 ? d1 : d2))
assert_true "root st_nlink $nl = 2 + the directories ($d1 before, $d2 after)" \
	test "$((nl - 2))" -ge "$((lo - 3))" -a "$((nl - 2))" -le "$((hi + 3))"
assert_eq "a link directory's st_nlink" 2 "$(stat -c %h "$MNT/$up")"
found=$(perl -MFile::Find -e '
	find(sub { print "$File::Find::name\n" if $_ eq "spec" }, $ARGV[0])' \
	"$MNT" | sort)
assert_match "File::Find finds the uprobe link's spec" "$MNT/$up/spec" "$found"
assert_match "File::Find finds the tracepoint link's spec" "$MNT/$tp/spec" "$found"

# reader-dependent tables: another inode for a reader who may not see
# kernel addresses (kptr_restrict 1: only CAP_SYSLOG sees them)
old_kptr=$(cat /proc/sys/kernel/kptr_restrict)
trap 'echo "$old_kptr" >/proc/sys/kernel/kptr_restrict; bl_cleanup' EXIT
echo 1 >/proc/sys/kernel/kptr_restrict
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
for f in links links.json; do
	ri=$(stat -c %i "$MNT/$f")
	ni=$(as_nobody stat -c %i "$MNT/$f")
	assert_true "$f: root and nobody read different inodes ($ri, $ni)" \
		test "$ri" != "$ni"
	for i in 1 2 3 4 5 6 7 8 9 10; do
		want=$(as_nobody cat "$MNT/$f" | hex)
		got=$(as_nobody "$RUST_CAT" "$MNT/$f" | hex)
		[ -n "$want" ] && [ "$want" == "$got" ] && break
	done
	assert_eq "$f: nobody reads it whole with Rust cat" \
		"$((${#want} / 2)) bytes $(md5sum <<<"$want")" \
		"$((${#got} / 2)) bytes $(md5sum <<<"$got")"
done
assert_eq "features: one inode for everyone" "$(stat -c %i "$MNT/features")" \
	"$(as_nobody stat -c %i "$MNT/features")"
echo "$old_kptr" >/proc/sys/kernel/kptr_restrict

echo '-*' >"$MNT/control"
finish
