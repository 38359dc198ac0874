#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A uprobe lands on the file that was read. Two fixtures, A and B, have the
# same function and USDT probe at different file offsets. While a loop
# swaps them (a rename over DIR/bin, and a directory on the path replaced
# by a symlink to another directory), thousands of control writes ask for
# probes on DIR/bin and SWAP/dir/bin: single uprobes, a pattern (a
# uprobe_multi link) and USDT. Every batch, each fixture is mapped
# executable: the kernel writes a breakpoint into the mapping at each
# uprobe on that file, so the bytes that differ from the file are where it
# probes. A probe at A's offset in B (or B's in A) is a probe in the wrong
# file, mid-instruction; none may appear. Then honest writes on a quiet
# path still work, and `name`, `symbol` and bpftool show the path written.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"
source "$HERE/lib_control.sh"

bl_setup
[ -d /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"
command -v gcc >/dev/null || skip "gcc is not installed"
echo '#include <sys/sdt.h>' | gcc -E - >/dev/null 2>&1 ||
	skip "no <sys/sdt.h> (systemtap-sdt-dev)"

# ---- the fixtures: the same names, at other offsets ----
for f in A B; do
	pad=0
	[ $f = B ] && pad=1
	cat >"$WORK/$f.c" <<EOF
#include <sys/sdt.h>
static volatile unsigned long sink;
#if $pad
__attribute__((noinline)) void pad_fn(unsigned long i)
{
	for (int k = 0; k < 64; k++)
		sink = sink * 31 + i + k;
	sink ^= sink >> 7;
	sink += sink << 3;
}
#endif
__attribute__((noinline)) void probe_fn(unsigned long i)
{
	sink += i * 3;
	DTRACE_PROBE1(sw, hit, i);
	sink ^= i;
}
int main(int argc, char **argv)
{
	(void)argv;
#if $pad
	pad_fn(argc);
#endif
	probe_fn(argc);
	return 0;
}
EOF
	gcc -O1 -o "$WORK/$f" "$WORK/$f.c" || die "cannot build fixture $f"
done

# The file offsets where a probe may be in FILE: its probe_fn and its
# USDT location (readelf -sW, -n and -lW).
allowed() {
	local fn
	fn=$(elf_file_offset "$1" probe_fn) || return 1
	readelf -n "$1" >"$WORK/notes" || return 1
	readelf -lW "$1" >"$WORK/phdrs" || return 1
	python3 - "$fn" "$WORK/notes" "$WORK/phdrs" <<'EOF'
import re, sys
fn, notes, phdrs = sys.argv[1:]
locs = [int(m.group(1), 16) for m in
        re.finditer(r'Location: (0x[0-9a-f]+)', open(notes).read())]
if len(locs) != 1:
    sys.exit("%d USDT locations" % len(locs))
for l in open(phdrs):
    m = re.match(r'\s*LOAD\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+\S+\s+'
                 r'(0x[0-9a-f]+)', l)
    if m:
        off, vaddr, filesz = (int(x, 16) for x in m.groups())
        if vaddr <= locs[0] < vaddr + filesz:
            print(int(fn, 16), locs[0] - vaddr + off)
            sys.exit(0)
sys.exit("USDT location in no PT_LOAD")
EOF
}
OK_A=$(allowed "$WORK/A") || die "fixture A: no offsets"
OK_B=$(allowed "$WORK/B") || die "fixture B: no offsets"
for o in $OK_A; do
	[[ " $OK_B " == *" $o "* ]] && die "A and B share file offset $o"
done

D=$WORK/d
SW=$WORK/s
mkdir -p "$D" "$SW" "$WORK/ra" "$WORK/rb" || die "mkdir"
ln "$WORK/A" "$D/bin" && ln "$WORK/A" "$WORK/ra/bin" &&
	ln "$WORK/B" "$WORK/rb/bin" || die "ln"

bl_mount

# The swapper: rename B over DIR/bin and A back; SWAP/dir a real directory
# holding A, then a symlink to one holding B.
python3 - "$WORK" <<'EOF' &
import os, sys
w = sys.argv[1]
d, s = w + "/d", w + "/s"
stop = w + "/stop"
while not os.path.exists(stop):
    for f in ("B", "A"):
        os.link(w + "/" + f, d + "/.t")
        os.rename(d + "/.t", d + "/bin")
    os.rename(w + "/ra", s + "/dir")
    os.rename(s + "/dir", w + "/ra")
    os.symlink(w + "/rb", s + "/dir")
    os.unlink(s + "/dir")
EOF
SWAPPER=$!

# The writer: WRITES control writes (or what 50 s allow: a busy host is
# slow, and the race needs many tries, not a number) in batches; after
# each batch, the
# probes each fixture carries (the bytes of an executable mapping that
# differ from the file), then "-*". Prints "bad ..." for a probe outside
# the allowed offsets, and a summary.
WRITES=${SWAP_WRITES:-3000}
python3 - "$MNT/control" "$WORK" "$WRITES" "$OK_A" "$OK_B" \
	>"$WORK/writer.out" <<'EOF'
import collections, errno, mmap, os, sys, time
ctl, w, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
allowed = {"A": set(map(int, sys.argv[4].split())),
           "B": set(map(int, sys.argv[5].split()))}
specs = ["uprobe:%s/d/bin:probe_fn" % w,
         "uprobe:%s/s/dir/bin:probe_fn" % w,
         "uprobe:%s/d/bin:probe_f[n]" % w,
         "usdt:%s/d/bin:sw:hit" % w,
         "usdt:%s/s/dir/bin:sw:hit" % w]
res = collections.Counter()
bad = 0

def probes(f):
    data = open(f, "rb").read()
    fd = os.open(f, os.O_RDONLY)
    m = mmap.mmap(fd, len(data), flags=mmap.MAP_PRIVATE,
                  prot=mmap.PROT_READ | mmap.PROT_EXEC)
    os.close(fd)
    seen = m[:]
    m.close()
    return {i for i in range(len(data)) if seen[i] != data[i]}

def check():
    global bad
    for f in ("A", "B"):
        for off in sorted(probes(w + "/" + f) - allowed[f]):
            print("bad: a probe at file offset %#x of %s" % (off, f))
            bad += 1
    fd = os.open(ctl, os.O_WRONLY)
    os.write(fd, b"-*\n")
    os.close(fd)

start = time.monotonic()
for i in range(n):
    if time.monotonic() - start > 50:
        n = i
        break
    fd = os.open(ctl, os.O_WRONLY)
    try:
        os.write(fd, (specs[i % len(specs)] + "\n").encode())
        res["OK"] += 1
    except OSError as e:
        res[errno.errorcode.get(e.errno, str(e.errno))] += 1
    os.close(fd)
    if i % 250 == 249:
        check()
check()
print("writes %d in %.1f s: %s" % (n, time.monotonic() - start,
      " ".join("%s %d" % kv for kv in sorted(res.items()))))
print("misplaced %d" % bad)
EOF
rc=$?
touch "$WORK/stop"
wait "$SWAPPER"
cat "$WORK/writer.out"
assert_eq "the writer ran" 0 "$rc"
grep '^bad' "$WORK/writer.out" | head -5
assert_eq "probes in the wrong file" "misplaced 0" \
	"$(grep '^misplaced' "$WORK/writer.out")"
made=$(sed -n 's/.* OK \([0-9]*\).*/\1/p' "$WORK/writer.out")
tries=$(sed -n 's/^writes \([0-9]*\) .*/\1/p' "$WORK/writer.out")
assert_true "a thousand writes or more (${tries:-0})" test "${tries:-0}" -ge 1000
assert_true "writes made links during the swaps (${made:-0})" \
	test "${made:-0}" -gt 0

# ---- honest writes, the path quiet ----
ln -f "$WORK/A" "$D/bin"
rm -f "$SW/dir"
ln -s "$WORK/ra" "$SW/dir"
read -r FN_A SDT_A <<<"$OK_A"
HAVE75=0
bl_bpftool75 && HAVE75=1
for spec in "uprobe:$D/bin:probe_fn" "uprobe:$D/bin:probe_f[n]" \
	"usdt:$D/bin:sw:hit"; do
	ids=$(ctl_create "$spec
") || {
		fail "honest write $spec"
		continue
	}
	id=$(head -n1 <<<"$ids")
	assert_eq "$spec: name" "$D/bin" "$(cat "$MNT/$id/name")"
	case $spec in
	uprobe:*probe_fn)
		assert_num_eq "$spec: offset" "$FN_A" "$(cat "$MNT/$id/offset")"
		assert_eq "$spec: symbol" "probe_fn+0x0" \
			"$(cat "$MNT/$id/symbol")"
		if [ "$HAVE75" = 1 ]; then
			assert_eq "$spec: bpftool's file" "$D/bin" \
				"$(bpftool75 -j link show id "$id" | python3 -c \
					'import json,sys; print(json.load(sys.stdin)["file"])')"
		fi
		;;
	esac
	assert_eq "$spec: spec" "$spec" "$(cat "$MNT/$id/spec")"
done
# the kernel's own word on the probes: A carries exactly its two offsets
got=$(python3 - "$WORK/A" <<'EOF'
import mmap, os, sys
data = open(sys.argv[1], "rb").read()
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, len(data), flags=mmap.MAP_PRIVATE,
              prot=mmap.PROT_READ | mmap.PROT_EXEC)
seen = m[:]
print(" ".join(str(i) for i in range(len(data)) if seen[i] != data[i]))
EOF
)
assert_eq "the probed offsets of A" "$(tr ' ' '\n' <<<"$OK_A" | sort -n |
	tr '\n' ' ' | sed 's/ $//')" "$got"
# a symlink on the path: the link is made on the file it led to
ids=$(ctl_create "uprobe:$SW/dir/bin:probe_fn
") || fail "honest write through a symlink"
id=$(head -n1 <<<"$ids")
assert_eq "through a symlink: name" "$WORK/ra/bin" "$(cat "$MNT/$id/name")"
ctl_write "-*
" >/dev/null
finish
