#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Only a privileged writer makes or removes links (bpflinkfs(8), ACCESS): what the
# kernel asks of BPF_LINK_CREATE, CAP_SYS_ADMIN or CAP_BPF with
# CAP_PERFMON in the initial user namespace. uid 0 with every capability
# dropped, and root of a user namespace, get EPERM and an error_log entry,
# and nothing changes; CAP_BPF + CAP_PERFMON alone is enough. The kernel's
# own answer is the reference: bpftool, run the same way, must fail too.

source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

bl_setup
for tool in setpriv unshare; do
	command -v "$tool" >/dev/null || skip "$tool is not installed"
done
bl_mount

SPEC='tracepoint:syscalls:sys_enter_getpid'
nocaps() { setpriv --inh-caps=-all --bounding-set=-all "$@"; }
userns() { unshare -U -r "$@"; }
bpf_perfmon() {
	setpriv --inh-caps=-all,+bpf,+perfmon \
		--bounding-set=-all,+bpf,+perfmon "$@"
}
owned() { timeout 15 cat "$MNT/control" | wc -l; }
# write_as WRAPPER LINE: errno name of writing LINE to control as WRAPPER
write_as() {
	"$1" python3 - "$MNT/control" "$2" <<'PY'
import errno, sys
try:
    with open(sys.argv[1], "w") as f:
        f.write(sys.argv[2] + "\n")
    print("OK")
except OSError as e:
    print(errno.errorcode[e.errno])
PY
}

# the kernel refuses these writers too
for who in nocaps userns; do
	if "$who" bpftool link show >/dev/null 2>&1; then
		fail "$who: bpftool link show works, the premise fails"
	else
		ok
	fi
done
if ! bpf_perfmon bpftool link show >/dev/null 2>&1; then
	echo "note: bpftool with CAP_BPF+CAP_PERFMON only fails here too"
fi

for who in nocaps userns; do
	before=$(owned)
	assert_eq "$who creates" EPERM "$(write_as "$who" "$SPEC")"
	assert_eq "$who made nothing" "$before" "$(owned)"
	assert_match "$who: error_log says why" \
		"EPERM: line 1: .*CAP_SYS_ADMIN.*
  Command: $SPEC" "$(tail -3 "$MNT/error_log")"
done

# CAP_BPF with CAP_PERFMON is what the kernel asks: it may create
assert_eq "CAP_BPF+CAP_PERFMON creates" OK "$(write_as bpf_perfmon "$SPEC")"
id=$(cut -f1 "$MNT/control" | tail -1)
assert_match "a link was made" "^[0-9]+$" "$id"
assert_eq "its spec" "$SPEC" "$(cat "$MNT/$id/spec")"

# removal: -ID and rmdir need the same
for who in nocaps userns; do
	assert_eq "$who removes with -ID" EPERM "$(write_as "$who" "-$id")"
	assert_eq "$who removes with -*" EPERM "$(write_as "$who" "-*")"
	out=$("$who" rmdir "$MNT/$id" 2>&1)
	assert_match "$who: rmdir refused" "Operation not permitted" "$out"
	assert_true "$who: link $id still there" test -d "$MNT/$id"
done
assert_true "the link is still in the kernel" \
	bpftool link show id "$id"
assert_eq "CAP_BPF+CAP_PERFMON removes" OK "$(write_as bpf_perfmon "-$id")"
assert_true "link $id gone" test ! -d "$MNT/$id"

# reading stays open to root without capabilities (the tree is root's)
assert_match "nocaps reads features" "perf_link_info" \
	"$(nocaps cat "$MNT/features")"
finish
