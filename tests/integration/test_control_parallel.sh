#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What one write may cost the others (bpflinkfs(8), What a write does): an ELF file whose
# headers claim more than it holds (a symbol table of gigabytes in a sparse
# file, a section past the end, 50 million section headers) fails at once
# with a clear error, a symbol table over the size limit refuses symbols
# but not file offsets, and a slow write on one handle does not hold up
# writers on other handles, which all register their links consistently.
# The hostile files are copies of TARGET patched here; what they claim is
# checked with readelf, not with the daemon.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"
source "$HERE/lib_control.sh"

bl_setup
TGT=$(readlink -f "$TARGET")
bl_mount

# mkelf MODE OUT: a copy of TARGET patched (see the modes below)
cat >"$WORK/mkelf.py" <<'EOF'
import os, shutil, struct, sys
mode, src, dst = sys.argv[1:4]
GiB, MiB = 1 << 30, 1 << 20
shutil.copyfile(src, dst)
f = open(dst, "r+b")
eh = bytearray(f.read(64))
shoff, = struct.unpack_from("<Q", eh, 0x28)
shentsize, shnum = struct.unpack_from("<HH", eh, 0x3a)

def shdr(i):
    f.seek(shoff + i * shentsize)
    return bytearray(f.read(shentsize))

def put_shdr(i, sh):
    f.seek(shoff + i * shentsize)
    f.write(sh)

symtab = [i for i in range(shnum)
          if struct.unpack_from("<I", shdr(i), 4)[0] == 2][0]
sh = shdr(symtab)
size = os.fstat(f.fileno()).st_size

def target_a():
    """Section index and value of bpflinkfs_target_a in .symtab."""
    symoff, symsize = struct.unpack_from("<QQ", sh, 0x18)
    slink, = struct.unpack_from("<I", sh, 0x28)
    soff, = struct.unpack_from("<Q", shdr(slink), 0x18)
    f.seek(symoff)
    syms = f.read(symsize)
    for i in range(0, symsize, 24):
        name, info, other, ndx, value = struct.unpack_from("<IBBHQ", syms, i)
        f.seek(soff + name)
        if f.read(19) == b"bpflinkfs_target_a\0":
            return ndx, value
    raise SystemExit("no bpflinkfs_target_a in .symtab")

if mode == "hole":  # 4 GiB sparse, .symtab of 3 GiB in the hole
    struct.pack_into("<QQ", sh, 0x18, 256 * MiB, 3 * GiB // 24 * 24)
    put_shdr(symtab, sh)
    f.truncate(4 * GiB)
elif mode == "beyond":  # .symtab of 1 MiB from 64 bytes before the end
    struct.pack_into("<QQ", sh, 0x18, size - 64, 1 * MiB // 24 * 24)
    put_shdr(symtab, sh)
elif mode == "shnum":  # 50 million section headers (extended count)
    sh0 = bytearray(64)
    struct.pack_into("<Q", sh0, 0x20, 50000000)
    f.truncate(4 * GiB)
    f.seek(512 * MiB)
    f.write(sh0)
    struct.pack_into("<Q", eh, 0x28, 512 * MiB)
    struct.pack_into("<HH", eh, 0x3c, 0, 0)
    f.seek(0)
    f.write(eh)
elif mode == "bigsym":  # a written .symtab of 65 MiB, over the limit
    end = (size + 4095) & ~4095
    f.seek(end)
    f.write(b"\x01" * (65 * MiB // 24 * 24))
    struct.pack_into("<QQ", sh, 0x18, end, 65 * MiB // 24 * 24)
    put_shdr(symtab, sh)
elif mode == "many":  # 2.6 million aliases of bpflinkfs_target_a, many_f
    n = 2600000
    link, = struct.unpack_from("<I", sh, 0x28)
    ndx, value = target_a()
    end = (size + 7) & ~7
    st = shdr(link)
    struct.pack_into("<QQ", st, 0x18, end, 8)
    put_shdr(link, st)
    struct.pack_into("<QQ", sh, 0x18, end + 8, 24 * (n + 1))
    struct.pack_into("<I", sh, 0x2c, 1)
    put_shdr(symtab, sh)
    f.seek(end)
    f.write(b"\0many_f\0" + b"\0" * 24 +
            struct.pack("<IBBHQQ", 1, 0x12, 0, ndx, value, 0) * n)
elif mode == "versions":  # 200,000 .dynsym names, 50,000 version needs
    n, m = 200000, 50000
    def sec(t):
        return [i for i in range(shnum)
                if struct.unpack_from("<I", shdr(i), 4)[0] == t][0]
    ds, vs, vr = sec(11), sec(0x6fffffff), sec(0x6ffffffe)
    dsh = shdr(ds)
    link, = struct.unpack_from("<I", dsh, 0x28)
    stroff, strsize = struct.unpack_from("<QQ", shdr(link), 0x18)
    f.seek(stroff)
    strs = f.read(strsize)
    ndx, value = target_a()
    end = (size + 7) & ~7
    blobs = [strs + b"many_v\0",
             b"\0" * 24 + struct.pack("<IBBHQQ", strsize, 0x12, 0, ndx,
                                      value, 0) * n,
             struct.pack("<H", 0) + struct.pack("<H", 5) * n,
             (struct.pack("<HHIII", 1, 1, 0, 16, 32) +
              struct.pack("<IHHII", 0, 0, 6, 0, 0)) * m]
    for idx, blob in zip((link, ds, vs, vr), blobs):
        h = shdr(idx)
        struct.pack_into("<QQ", h, 0x18, end, len(blob))
        if idx == vr:
            struct.pack_into("<I", h, 0x2c, m)  # sh_info: the count
        put_shdr(idx, h)
        f.seek(end)
        f.write(blob)
        end = (end + len(blob) + 7) & ~7
f.close()
os.chmod(dst, 0o755)
EOF
mkelf() {
	python3 "$WORK/mkelf.py" "$1" "$TGT" "$2" || die "mkelf $1"
}

# sec_size FILE TYPE: the size of the first section of TYPE (as readelf
# names it: SYMTAB, DYNSYM, VERNEED ...) in its header, in hex;
# symtab_size FILE: that of .symtab; symtab_end FILE: where .symtab ends
# in the file (decimal)
sec_size() {
	readelf -SW "$1" 2>/dev/null | awk -v t="$2" '{ for (i = 1; i < NF; i++)
		if ($i == t) { print $(i + 3); exit } }'
}
symtab_size() {
	sec_size "$1" SYMTAB
}
symtab_end() {
	readelf -SW "$1" 2>/dev/null | awk '{ for (i = 1; i < NF; i++)
		if ($i == "SYMTAB") print "0x" $(i + 2), "0x" $(i + 3) }' |
		{ read -r o s && echo $((o + s)); }
}

# timed_write LINE: write LINE (and a newline) on a fresh handle; prints
# the errno name or OK, and the seconds it took.
timed_write() {
	timeout 120 python3 - "$MNT/control" "$1" <<'EOF'
import errno, os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY)
t = time.monotonic()
try:
    os.write(fd, sys.argv[2].encode() + b"\n")
    r = "OK"
except OSError as e:
    r = errno.errorcode[e.errno]
print(r, "%.2f" % (time.monotonic() - t))
os.close(fd)
EOF
	[ $? -eq 124 ] && echo "HANG 120"
}

last_message() {
	errlog_entries | tail -n 1 | cut -f6
}

# peak RSS of the daemon, in MiB
daemon_hwm() {
	awk '/^VmHWM:/ { print int($2 / 1024) }' /proc/"$BL_DAEMON_PID"/status
}

# hostile NAME MODE MESSAGE_ERE: the write of a uprobe on a file made by
# mkelf MODE fails with EINVAL in under 2 s, saying what is wrong.
hostile() {
	local r secs
	read -r r secs <<<"$(timed_write "u:$WORK/$2:bpflinkfs_target_a")"
	assert_eq "$1: refused" EINVAL "$r"
	assert_true "$1: at once (${secs:-?} s)" \
		python3 -c "import sys; sys.exit(not float(sys.argv[1]) < 2)" \
		"${secs:-99}"
	assert_match "$1: message" "$3" "$(last_message)"
	assert_eq "$1: nothing made" "" "$(owned_listing)"
	assert_true "$1: daemon alive" bl_daemon_alive
}

# --- 1. files that claim more than they hold ----------------------------
mkelf hole "$WORK/hole"
sz=$(symtab_size "$WORK/hole")
assert_true "hole: readelf sees a .symtab of 3 GiB (0x$sz)" \
	test "$((0x${sz:-0}))" -ge $(((3 << 30) - 24))
assert_true "hole: a sparse file (4 GiB, nearly no blocks)" \
	test "$(stat -c '%s' "$WORK/hole")" -eq $((4 << 30)) -a \
	"$(stat -c '%b' "$WORK/hole")" -lt 4096
hostile "symbol table in a hole" hole \
	"symbol table \\(\\.symtab\\) [0-9]+ \\(0xc0000000 bytes\\) lies in a hole"
hwm=$(daemon_hwm)
assert_true "hole: the daemon never held it (peak ${hwm:-?} MiB)" \
	test "${hwm:-99999}" -lt 512

mkelf beyond "$WORK/beyond"
end=$(symtab_end "$WORK/beyond")
assert_true "beyond: readelf sees .symtab end at $end, past the file" \
	test "${end:-0}" -gt "$(stat -c %s "$WORK/beyond")"
hostile "symbol table past the end" beyond \
	"symbol table \\(\\.symtab\\) [0-9]+ .* ends beyond the end of the file"

mkelf shnum "$WORK/shnum"
# (readelf would read all 50 million: the header bytes, with od)
shoff=$(od -An -tu8 -j40 -N8 "$WORK/shnum" | tr -d ' ')
assert_eq "shnum: e_shnum 0, the count in section 0" \
	"0 50000000" "$(($(od -An -tu2 -j60 -N2 "$WORK/shnum"))) \
$(($(od -An -tu8 -j$((shoff + 32)) -N8 "$WORK/shnum")))"
hostile "50 million section headers" shnum \
	"claims 50000000 section headers, over the limit of 65536"
rm -f "$WORK/hole" "$WORK/shnum" "$WORK/beyond"

# .dynsym names whose version is in none of 50,000 version needs: looked
# up once per table, not once per name (the walk was quadratic)
mkelf versions "$WORK/versions"
assert_eq "versions: readelf sees 50,000 version needs of 32 bytes" \
	$((50000 * 32)) "$((0x$(sec_size "$WORK/versions" VERNEED)))"
assert_eq "versions: and 200,001 .dynsym entries" $((200001 * 24)) \
	"$((0x$(sec_size "$WORK/versions" DYNSYM)))"
read -r r secs <<<"$(timed_write "u:$WORK/versions:many_v")"
assert_eq "versions: resolved" OK "$r"
assert_true "versions: in under 5 s (${secs:-?} s)" \
	python3 -c "import sys; sys.exit(not float(sys.argv[1]) < 5)" \
	"${secs:-99}"
echo '-*' >"$MNT/control"
rm -f "$WORK/versions"

# a real symbol table over the limit: symbols refused, file offsets not
mkelf bigsym "$WORK/bigsym"
sz=$(symtab_size "$WORK/bigsym")
assert_true "bigsym: readelf sees a .symtab over 64 MiB (0x$sz)" \
	test "$((0x${sz:-0}))" -gt $((64 << 20))
hostile "symbol table over the limit" bigsym \
	"symbol table of .* is over the limit of 64 MiB.*PATH:0xOFFSET"
OFF=$(elf_file_offset "$TGT" bpflinkfs_target_a) || die "no offset"
read -r r secs <<<"$(timed_write "u:$WORK/bigsym:$OFF")"
assert_eq "bigsym: by file offset ($OFF)" OK "$r"
id=$(owned_listing | cut -f1)
assert_eq "bigsym: its link (fdinfo)" "${id:-none}" "$(daemon_link_ids | xargs)"
assert_eq "bigsym: the file probed" "$WORK/bigsym" "$(t cat "$MNT/$id/name")"
echo '-*' >"$MNT/control"
rm -f "$WORK/bigsym"

# --- 2. a slow write does not hold up the others ------------------------
mkelf many "$WORK/many"
assert_eq "many: readelf counts 2.6 million symbols + 1" 2600001 \
	"$((0x$(symtab_size "$WORK/many") / 24))"
# Two writers, each on its own handle: the slow one first, then (once its
# request is in the daemon) the quick one; each prints when it is done.
# fds: the quick writer's handle is opened before the slow write starts
# (two handles of one process), or by another process.
cat >"$WORK/race.py" <<'EOF'
import errno, os, subprocess, sys, threading, time
ctl, many, tgt, how = sys.argv[1:5]
t0 = time.monotonic()
done = {}
tids = {}

def write(name, fd, line):
    tids[name] = threading.get_native_id()
    try:
        os.write(fd, line.encode())
        r = "OK"
    except OSError as e:
        r = errno.errorcode[e.errno]
    done[name] = (time.monotonic() - t0, r)

slow_fd = os.open(ctl, os.O_WRONLY)
quick_fd = os.open(ctl, os.O_RDWR)
slow = threading.Thread(target=write, args=(
    "slow", slow_fd, "u:%s:many_f\n" % many * 4))
slow.start()
# the slow request is in the daemon: its thread waits for the answer
while "slow" not in done:
    try:
        with open("/proc/self/task/%d/wchan" % tids["slow"]) as f:
            if f.read().strip() == "request_wait_answer":
                break
    except (KeyError, OSError):
        pass
    time.sleep(0.01)
t_in = time.monotonic() - t0
line = "u:%s:bpflinkfs_target_a\n" % tgt
if how == "process":  # sh: quick to start
    p = subprocess.run(["sh", "-c", 'printf "%s" "$1" >"$2"', "sh", line,
                        ctl])
    done["quick"] = (time.monotonic() - t0, "OK" if p.returncode == 0
                     else "FAIL")
else:
    write("quick", quick_fd, line)
slow.join()
print(done["quick"][1], done["slow"][1], "%.2f" % done["quick"][0],
      "%.2f" % done["slow"][0], "%.2f" % t_in)
EOF
for how in fd process; do
	read -r q s qt st tin <<<"$(timeout 120 python3 "$WORK/race.py" \
		"$MNT/control" "$WORK/many" "$TGT" "$how")"
	assert_eq "$how: the quick write" OK "$q"
	assert_eq "$how: the slow write" OK "$s"
	assert_true "$how: the quick one done (${qt:-?} s) before the slow one (${st:-?} s)" \
		python3 -c 'import sys; q, s, i = map(float, sys.argv[1:])
sys.exit(not (q < s and q < i + (s - i) / 2))' "${qt:-9}" "${st:-0}" "${tin:-0}"
	assert_eq "$how: five links made" 5 "$(daemon_link_ids | wc -l)"
	echo '-*' >"$MNT/control"
done
rm -f "$WORK/many"

# --- 3. many writers at once: every link registered once ---------------
# Four writers make 25 uprobes each in one write; a fifth writes 25 good
# lines and a bad one, so all of its links go again.
cat >"$WORK/crowd.py" <<'EOF'
import errno, os, sys, threading
ctl, tgt = sys.argv[1:3]
out = {}

def writer(i):
    fd = os.open(ctl, os.O_RDWR)
    data = ("u:%s:bpflinkfs_target_a\n" % tgt) * 25
    if i == 4:
        data += "u:%s:no_such_symbol\n" % tgt
    try:
        os.write(fd, data.encode())
        out[i] = os.read(fd, 4096).decode().split()
    except OSError as e:
        out[i] = [errno.errorcode[e.errno]]
    os.close(fd)

ts = [threading.Thread(target=writer, args=(i,)) for i in range(5)]
for t in ts:
    t.start()
for t in ts:
    t.join()
for i in range(5):
    print(" ".join(out[i]))
EOF
mapfile -t rows < <(timeout 120 python3 "$WORK/crowd.py" "$MNT/control" "$TGT")
all=()
for i in 0 1 2 3; do
	read -r -a ids <<<"${rows[$i]:-}"
	assert_eq "writer $i: 25 ids" 25 "${#ids[@]}"
	all+=("${ids[@]}")
done
assert_eq "the failing writer" ENOENT "${rows[4]:-}"
want=$(printf '%s\n' "${all[@]}" | sort -n | xargs)
assert_eq "100 distinct ids" 100 "$(printf '%s\n' "${all[@]}" | sort -u |
	wc -l)"
assert_eq "owned listing: exactly those" "$want" \
	"$(owned_listing | cut -f1 | sort -n | xargs)"
# the failing writer's links leave the tree at once, but the reaper
# closes their fds in the background (~0.1 s a uprobe): wait for that
wait_for -q 10 eval '[ "$(daemon_link_ids | xargs)" == "$want" ]'
assert_eq "the daemon's link fds: exactly those" "$want" \
	"$(daemon_link_ids | xargs)"
echo '-*' >"$MNT/control"
assert_eq "all removed" "" "$(owned_listing)"

assert_true "daemon alive" bl_daemon_alive
finish
