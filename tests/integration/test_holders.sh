#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# holders: who holds a link or a bare perf event, and where it runs. A
# holder moved into a cgroup named as Docker names its scopes
# (docker-<64 hex>.scope) shows that id, its fork in a cgroup named as
# systemd-nspawn's machine scopes (escaped name, a tab in the path) shows
# the machine's name; each CGROUP equals the `0::` line of
# /proc/PID/cgroup; pids keeps its two columns; links.json's pids objects
# carry cgroup and container. A bpftrace 0.17 probe (a bare perf event)
# has holders under attached/, and attached.json says where it runs.
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

bl_setup
CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CG2" ] || skip "no cgroup v2 mount"
HEX=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
[ ${#HEX} -eq 64 ] || die "no 64 hex digits from /dev/urandom"
# a tab in the parent's name: the CGROUP column escapes it
PARENT="$CG2/bpflinkfs-holders-$$"$'\t'"x"
DOCKER="$PARENT/docker-$HEX.scope"
MACHINE="$PARENT/machine-web\\x2dfront.scope"
LIBPOD="$PARENT/libpod-$HEX.scope"
BT_PID=

# own cleanup first: processes out of the test's cgroups, which then go
cleanup() {
	local p d
	[ -n "$BT_PID" ] && kill "$BT_PID" 2>/dev/null && wait "$BT_PID"
	for d in "$DOCKER" "$MACHINE" "$LIBPOD"; do
		for p in $(cat "$d/cgroup.procs" 2>/dev/null); do
			echo "$p" >"$CG2/cgroup.procs" 2>/dev/null
		done
		rmdir "$d" 2>/dev/null
	done
	rmdir "$PARENT" 2>/dev/null
	bl_cleanup
}
trap cleanup EXIT
mkdir -p "$DOCKER" "$MACHINE" || skip "cannot make cgroups under $CG2"

# the `0::` path of PID, as the holders table escapes it
cg_of() {
	python3 - "$1" <<'PY'
import sys
t = open("/proc/%s/cgroup" % sys.argv[1], "rb").read()
i = t.find(b"0::") if t.startswith(b"0::") else t.find(b"\n0::") + 1
p = t[i + 3:].rstrip(b"\n")
p = p.replace(b"\\", b"\\\\").replace(b"\t", b"\\t").replace(b"\n", b"\\n")
sys.stdout.buffer.write(p + b"\n")
PY
}

bl_mount
mkl_start held --fork "software:0:0:5"
ID=$(mkl_lines held | grep -v '^child' | cut -f1)
HOLDER=${MKL_PID[held]}
CHILD=$(mkl_lines held | sed -n 's/^child //p')
[ -n "$ID" ] && [ -n "$CHILD" ] || die "mklinks made no link or child"
echo "$HOLDER" >"$DOCKER/cgroup.procs" || die "cannot move $HOLDER"
echo "$CHILD" >"$MACHINE/cgroup.procs" || die "cannot move $CHILD"

# --- the link's holders, from /proc, not from the daemon ---------------
want=$(printf 'PID\tCOMM\tCGROUP\tCONTAINER\n%s\tmklinks\t%s\t%s\n%s\tmklinks\t%s\t%s' \
	"$HOLDER" "$(cg_of "$HOLDER")" "$HEX" \
	"$CHILD" "$(cg_of "$CHILD")" "web-front")
assert_match "holder's cgroup is the docker scope" "/docker-$HEX.scope\$" \
	"$(cg_of "$HOLDER")"
assert_eq "holders of $ID" "$want" "$(t cat "$MNT/$ID/holders")"
assert_eq "pids keeps two columns" \
	"$(printf '%s\tmklinks\n%s\tmklinks' "$HOLDER" "$CHILD")" \
	"$(t cat "$MNT/$ID/pids")"
assert_true "holders is listed" grep -qx holders <(ls "$MNT/$ID")

# links.json: the same holders, cgroup unescaped (bytes as the kernel's)
t cat "$MNT/links.json" >"$WORK/links.json" || fail "read links.json"
got=$(python3 - "$WORK/links.json" "$ID" "$HOLDER" "$CHILD" "$HEX" <<'PY'
import json, sys
path, lid, holder, child, hexid = sys.argv[1:]
links = json.loads(open(path, "rb").read())
obj = [o for o in links if o["id"] == int(lid)]
if len(obj) != 1:
    sys.exit("link %s: %d objects" % (lid, len(obj)))
def cg(pid):
    t = open("/proc/%s/cgroup" % pid, "rb").read()
    i = t.find(b"0::") if t.startswith(b"0::") else t.find(b"\n0::") + 1
    return t[i + 3:].rstrip(b"\n").decode("utf-8", "surrogateescape")
want = [{"pid": int(holder), "comm": "mklinks", "cgroup": cg(holder),
         "container": hexid},
        {"pid": int(child), "comm": "mklinks", "cgroup": cg(child),
         "container": "web-front"}]
print("same" if obj[0].get("pids") == want else
      "got %r want %r" % (obj[0].get("pids"), want))
PY
)
assert_eq "links.json pids of $ID" same "$got"
# the daemon itself holds nothing it did not make; its own pids are "/"
python3 - "$WORK/links.json" <<'PY' && ok || fail "links.json: a pids object without cgroup and container"
import json, sys
for o in json.loads(open(sys.argv[1], "rb").read()):
    for p in o.get("pids", []):
        if set(p) != {"pid", "comm", "cgroup", "container"}:
            sys.exit(1)
PY

# a holder that leaves the container's cgroup leaves its id behind
echo "$HOLDER" >"$CG2/cgroup.procs"
assert_eq "holder back at the root" \
	"$(printf '%s\tmklinks\t%s\t-' "$HOLDER" "$(cg_of "$HOLDER")")" \
	"$(t cat "$MNT/$ID/holders" | grep "^$HOLDER"$'\t')"

# --- a link held only by its pin: the header alone ------------------------
PINS=/sys/fs/bpf/bpflinkfs-holders-$$
if grep -q ' /sys/fs/bpf bpf ' /proc/mounts && mkdir "$PINS"; then
	out=$("$MKLINKS" --pin "$PINS" "software:0:0:6" 2>&1) ||
		fail "mklinks --pin: $out"
	PID_ONLY=$(sed -n 1p <<<"$out" | cut -f1)
	assert_eq "holders of pinned-only $PID_ONLY" \
		"$(printf 'PID\tCOMM\tCGROUP\tCONTAINER')" \
		"$(t cat "$MNT/$PID_ONLY/holders")"
	rm -f "$PINS"/* && rmdir "$PINS"
fi
mkl_stop held

# --- a bpftrace 0.17 probe (no link) has holders under attached/ ---------
if ! command -v bpftrace >/dev/null; then
	echo "note: no bpftrace; its attached/ holders are not checked"
else
	mkdir "$LIBPOD" || die "mkdir $LIBPOD"
	# started in the scope, so its probe is made there
	bash -c 'echo $$ >"$1/cgroup.procs" && exec bpftrace -e \
		"tracepoint:syscalls:sys_enter_getppid { @ = count(); }"' \
		_ "$LIBPOD" >"$WORK/bpftrace.out" 2>&1 &
	BT_PID=$!
	entry=
	# bt_entry: bpftrace's attached/ entry is listed (then in $entry)
	bt_entry() {
		local d
		for d in "$MNT"/attached/"$BT_PID"-*/; do
			[ -d "$d" ] && entry=$d && return 0
		done
		return 1
	}
	wait_for -q 30 bt_entry
	if [ -z "$entry" ]; then
		fail "bpftrace $BT_PID: no attached/ entry in 30 s: $(cat \
			"$WORK/bpftrace.out")"
	else
		want=$(printf 'PID\tCOMM\tCGROUP\tCONTAINER\n%s\tbpftrace\t%s\t%s' \
			"$BT_PID" "$(cg_of "$BT_PID")" "$HEX")
		assert_eq "holders of attached $entry" "$want" \
			"$(t cat "$entry/holders")"
		got=$(t cat "$MNT/attached/attached.json" | python3 -c '
import json, sys
pid = int(sys.argv[1])
t = open("/proc/%d/cgroup" % pid, "rb").read()
i = t.find(b"0::") if t.startswith(b"0::") else t.find(b"\n0::") + 1
cg = t[i + 3:].rstrip(b"\n").decode("utf-8", "surrogateescape")
es = [e for e in json.loads(sys.stdin.buffer.read()) if e["pid"] == pid]
print("same" if es and all(e["cgroup"] == cg and e["container"] == sys.argv[2]
                           for e in es) else "got %r" % es)' "$BT_PID" "$HEX")
		assert_eq "attached.json cgroup and container" same "$got"
	fi
	kill "$BT_PID" 2>/dev/null
	wait "$BT_PID" 2>/dev/null
	BT_PID=
fi

assert_true "daemon alive" bl_daemon_alive
finish
