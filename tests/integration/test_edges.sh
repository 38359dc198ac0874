#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Edges a new user found: a FIFO as uprobe target, files inside the mount
# itself (as uprobe PATH and as prog=), the tail of an over-long line retried by the writer, a forked
# child closing its copy of a control handle, mounting twice, a pin_dir
# outside bpffs, a cpu= that is not online.

source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

bl_setup
bl_mount -s # single-threaded: a request to itself would hang for good

owned() { timeout 15 cat "$MNT/control" | wc -l; }
# errno of one write of $1 (a Python bytes literal) on a fresh handle
werr() {
	timeout 15 python3 - "$MNT/control" "$1" <<'PY'
import errno, sys
try:
    with open(sys.argv[1], "wb") as f:
        f.write(eval(sys.argv[2]))
    print("OK")
except OSError as e:
    print(errno.errorcode[e.errno])
PY
}

mkfifo "$WORK/fifo"
assert_eq "uprobe on a FIFO" EINVAL "$(werr "b'u:$WORK/fifo:foo\\n'")"
assert_match "FIFO message" "not a regular file" "$(cat "$MNT/error_log")"
assert_eq "uprobe on a file in the mount" EINVAL \
	"$(werr "b'u:$MNT/features:foo\\n'")"
assert_match "mount message" "inside the bpflinkfs mount" \
	"$(cat "$MNT/error_log")"
out=$(cd "$MNT" && timeout 15 bash -c "echo 'u:./links:f' > control" 2>&1)
assert_match "relative path into the mount" "Invalid argument" "$out"
# prog= into the mount: BPF_OBJ_GET would look it up there, a request to
# the single thread itself (every caller in D state until kill -9)
ln -s "$MNT" "$WORK/to-mnt"
for prog in "$MNT/features" "$MNT/no-such-prog" "$WORK/to-mnt/links" \
	"$MNT/../$(basename "$MNT")/links"; do
	assert_eq "prog=$prog" EINVAL \
		"$(werr "b's:cpu-clock cpu=0 prog=$prog\\n'")"
	assert_match "prog=$prog: message" "prog=.*inside the bpflinkfs mount" \
		"$(timeout 15 cat "$MNT/error_log" | tail -n 3)"
	assert_true "daemon answers after prog=$prog" bl_daemon_alive
done
assert_eq "u: with prog= into the mount" EINVAL \
	"$(werr "b'u:$TARGET:main prog=$MNT/features\\n'")"
assert_eq "u: pattern with prog= into the mount" EINVAL \
	"$(werr "b'u:$TARGET:mai* prog=$MNT/features\\n'")"
assert_true "daemon answers after all that" bl_daemon_alive

# a line over 1 MiB fails, and its tail never runs as a command of its own
assert_eq "over-long comment line" EINVAL \
	"$(werr "b'#' + b' ' * 1100000 + b's:cpu-clock cpu=0\\n'")"
assert_eq "nothing made by its tail" 0 "$(owned)"

# only the writer's own close runs its unfinished line
res=$(timeout 15 python3 - "$MNT/control" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
os.write(fd, b"s:cpu-clock")
if os.fork() == 0:
    os._exit(0)
os.wait()
os.write(fd, b" cpu=0\n")
print(os.read(fd, 100).decode().split())
os.close(fd)
PY
)
assert_match "forked child's exit left the line alone" "^\['[0-9]+'\]$" "$res"
assert_eq "one link from the joined line" 1 "$(owned)"
assert_match "its spec" "s:cpu-clock cpu=0" "$(cat "$MNT/control")"
echo '-*' >"$MNT/control"

# cpu= must name an online CPU
assert_eq "cpu=4096" EINVAL "$(werr "b's:cpu-clock cpu=4096\\n'")"
assert_match "cpu message" "cpu 4096 is not online" "$(cat "$MNT/error_log")"
caret=$(grep -A2 'cpu 4096' "$MNT/error_log" | tail -1)
assert_eq "caret under cpu=" "$(printf '%*s^' $((11 + 12)) '')" "$caret"

# leading blanks: the log shows the line without them, the caret follows
assert_eq "missing path after blanks" ENOENT "$(werr "b'   u:/no/such:f\\n'")"
cmd=$(grep '^  Command: .*no/such' "$MNT/error_log" | tail -1)
caret=$(grep -A1 '^  Command: .*no/such' "$MNT/error_log" | tail -1)
assert_eq "logged without the blanks" "  Command: u:/no/such:f" "$cmd"
assert_eq "caret under the path" "$(printf '%*s^' $((11 + 2)) '')" "$caret"

# A symlinked PATH resolves once per write request, never across them:
# retargeted between two writes on one handle, the second link names the
# new file (what `name` shows, against readlink -f of the moment).
cp "$(readlink -f "$TARGET")" "$WORK/tgt_a"
cp "$(readlink -f "$TARGET")" "$WORK/tgt_b"
ln -s tgt_a "$WORK/tgt"
res=$(timeout 15 python3 - "$MNT/control" "$WORK/tgt" <<'PY'
import os, sys
ctl, link = sys.argv[1], sys.argv[2]
fd = os.open(ctl, os.O_RDWR)
spec = ("u:%s:bpflinkfs_target_a\nu:%s:bpflinkfs_target_b\n" % (link, link))
os.write(fd, spec.encode())
os.unlink(link)
os.symlink("tgt_b", link)
os.write(fd, spec.encode())
print(" ".join(os.read(fd, 200).decode().split()))
os.close(fd)
PY
)
read -r -a ids <<<"$res"
assert_eq "four links from two writes" 4 "${#ids[@]}"
want_a=$(readlink -f "$WORK/tgt_a") want_b=$(readlink -f "$WORK/tgt_b")
got=$(for i in "${ids[@]}"; do cat "$MNT/$i/name"; done | xargs)
assert_eq "names: first write the old target, second the new" \
	"$want_a $want_a $want_b $want_b" "$got"
echo '-*' >"$MNT/control"

# a second mount on the same directory is refused
out=$(timeout 15 "$BPFLINKFS" "$MNT" -f 2>&1) && fail "second mount accepted"
assert_match "second mount message" "already a bpflinkfs mount" "$out"

# ... also where the mount point's name has a blank (mountinfo writes it
# \040; read raw, the second daemon mounted on top of the first)
SPACED="$WORK/with space"
mkdir -p "$SPACED"
"$BPFLINKFS" "$SPACED" 2>"$WORK/spaced.err" || fail "mount on '$SPACED'"
out=$(timeout 15 "$BPFLINKFS" "$SPACED" -f 2>&1) &&
	fail "second mount on '$SPACED' accepted"
assert_match "second mount message (a blank in the name)" \
	"already a bpflinkfs mount" "$out"
assert_eq "one mount on '$SPACED'" 1 \
	"$(grep -cF " ${SPACED// /\\040} fuse.bpflinkfs " /proc/self/mounts)"
fusermount3 -u "$SPACED"

# ... and a newline: the refusal is one line, and the command it suggests
# is a shell word that unmounts that very mount when run as written
NL="$WORK/new"$'\n'"line x"
mkdir -p "$NL"
"$BPFLINKFS" "$NL" 2>"$WORK/nl.err" || fail "mount on a name with a newline"
out=$(timeout 15 "$BPFLINKFS" "$NL" -f 2>&1) &&
	fail "second mount on a name with a newline accepted"
assert_eq "second mount message is one line" 1 "$(wc -l <<<"$out")"
suggested=$(sed -n 's/.*: \(fusermount3 -u .*\) first$/\1/p' <<<"$out")
assert_match "it suggests fusermount3 -u" "^fusermount3 -u " "$suggested"
bash -c "$suggested" || fail "the suggested command failed: $suggested"
assert_eq "the suggested command unmounted it" 0 \
	"$(grep -c " fuse.bpflinkfs " <(awk -v p="$WORK/new" \
		'index($2, p) == 1' /proc/self/mounts))"

# a pin_dir outside bpffs is refused before anything is made
out=$(timeout 15 "$BPFLINKFS" "$WORK" -f -o "pin_dir=$WORK/p/q" 2>&1) &&
	fail "pin_dir outside bpffs accepted"
assert_match "pin_dir message" "not in a BPF file system" "$out"
assert_true "no directories made" test ! -e "$WORK/p"
finish
