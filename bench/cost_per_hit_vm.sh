#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# cost_per_hit_vm.sh [--quick] [--bpftrace] [ROUNDS] [LABEL...]
# (also: cost_per_hit.sh --vm ...)
#
# The fentry row of cost_per_hit.sh, in the qemu lanes (tests/vm/run.sh;
# LABEL bookworm = Debian's 6.1 kernel, backports = 6.12; default both):
# this host refuses to load fentry programs, the guests do not. The guest
# (cost_per_hit_guest.sh) times hit_fixture's getpid loop on its CPU 0
# under no probe, an empty fentry program on the function getpid runs
# (empty.bpf.c, loaded and attached by empty_attach with libbpf) and
# bpflinkfs's built-in counter (`fentry:FUNC` through control), and the
# same for tracepoint:syscalls:sys_enter_getpid, to set the emulated figures
# beside the host's. FUNC is the first of FUNCS (default __x64_sys_getpid
# __do_sys_getpid) that the guest kernel can attach to (its BTF names it
# and ftrace can patch it). Paired rounds; ratios as in cost_per_hit.sh.
#
# qemu runs the guests under TCG (software emulation, no KVM here): a
# system call costs microseconds, so the figures are only indicative.
#
#   --quick      50,000 calls a run, 3 rounds (default 500,000 and 5;
#                CALLS=N sets the calls)
#   --bpftrace   put the host's bpftrace (and ~200 MB of its libraries)
#                into the guest for row (d), bpftrace `kfunc:FUNC
#                { @ = count(); }`; without it the guest has no bpftrace
#
# Needs what tests/vm/run.sh needs (qemu-system-x86_64, busybox-static, the
# build), gcc, clang, libbpf, python3; exits 77 when it cannot run.
# Table to stdout and bench/results/cost_per_hit_vm-DATE.txt.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
calls=500000
rounds=5
bpftrace=0
labels=()
for a in "$@"; do
	case $a in
	--quick) calls=50000 rounds=3 ;;
	--bpftrace) bpftrace=1 ;;
	[0-9]*) rounds=$a ;;
	bookworm | backports) labels+=("$a") ;;
	*)
		echo "usage: cost_per_hit_vm.sh [--quick] [--bpftrace] [ROUNDS]" \
			"[bookworm] [backports]" >&2
		exit 2 ;;
	esac
done
calls=${CALLS:-$calls}
[ ${#labels[@]} -gt 0 ] || labels=(bookworm backports)

skip() {
	echo "cost_per_hit_vm.sh: SKIP: $*" >&2
	exit 77
}
for t in gcc clang objdump python3; do
	command -v "$t" >/dev/null || skip "$t not found"
done
if [ "$bpftrace" = 1 ]; then
	command -v bpftrace >/dev/null || skip "--bpftrace: bpftrace not found"
fi

work=$(mktemp -d /tmp/bench-cost-vm.XXXXXX)
trap '[ "${KEEP:-0}" = 1 ] || rm -rf "$work"' EXIT
gcc -O2 -o "$work/hit_fixture" "$here/hit_fixture.c" || exit 1
clang -O2 -g -target bpf -I"/usr/include/$(gcc -print-multiarch)" \
	-c "$here/empty.bpf.c" -o "$work/empty.bpf.o" || exit 1
gcc -O2 -o "$work/empty_attach" "$here/empty_attach.c" -lbpf || exit 1
cat >"$work/cost.env" <<ENV
CALLS=$calls
ROUNDS=$rounds
FUNCS="${FUNCS:-__x64_sys_getpid __do_sys_getpid}"
ENV
files="$work/hit_fixture $work/empty.bpf.o $work/empty_attach $work/cost.env"
[ "$bpftrace" = 1 ] && files+=" $(command -v bpftrace)"

BPFLINKFS_VM_GUEST=$here/cost_per_hit_guest.sh BPFLINKFS_VM_FILES=$files \
	BPFLINKFS_VM_TIMEOUT=${BPFLINKFS_VM_TIMEOUT:-1200} \
	bash "$root/tests/vm/run.sh" "${labels[@]}" >"$work/console" 2>&1
rc=$?
grep -a -e BLCOST -e '\] # ' -e 'FAIL - ' -e '  [a-z]*: ' "$work/console" >&2
[ "$rc" = 77 ] && skip "$(tail -n1 "$work/console")"

out=$here/results/cost_per_hit_vm-$(date +%Y%m%d-%H%M).txt
mkdir -p "$here/results"
python3 - "$work/console" "$calls" "$rounds" "$bpftrace" <<'PY' | tee "$out"
import collections, re, statistics, sys
console, calls, rounds, bt = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
ns = collections.defaultdict(dict)   # (label, row, round) -> how -> ns
mean = collections.defaultdict(dict)
func, kernel, notes = {}, {}, collections.defaultdict(list)
for line in open(console, errors="replace"):
    line = line.rstrip("\r\n")
    m = re.match(r"\[(\w+)\] (.*)$", line)
    if not m:
        continue
    label, text = m.groups()
    f = text.split()
    if f[:1] == ["BLCOST"] and len(f) == 6:
        # the fastest part of the loop: the least disturbed by the host
        ns[(label, f[2], int(f[1]))][f[3]] = float(f[5])
        mean[(label, f[2], int(f[1]))][f[3]] = float(f[4])
    elif f[:1] == ["BLCOST-FUNC"]:
        func[label] = f[1]
    elif text.startswith("# kernel "):
        kernel[label] = f[2].rstrip(",")
    elif text.startswith("# clocksource "):
        kernel[label] += ", clocksource " + f[2]
    elif text.startswith(("FAIL - ", "skip - ", "# no bpftrace", "# fentry:")):
        notes[label].append(text)
print("bpflinkfs cost per hit in the qemu lanes (TCG, software emulation: the "
      "figures are only indicative)")
print("ns per call of getpid in the guest, %d calls a run, %d paired rounds, "
      "2 vCPUs, fixture on CPU 0" % (calls, rounds))
print("each run's figure: its fastest 1/100 part, CLOCK_MONOTONIC (the guest's clocks "
      "run on while the host\ndeschedules its vCPU); the whole loop's mean of thread "
      "CPU time per round below\n")
hows_all = ("none", "empty", "counter", "bpftrace")
for label in sorted({k[0] for k in ns}):
    print("%s: kernel %s, fentry on %s" % (label, kernel.get(label, "?"),
                                          func.get(label, "(none attachable)")))
    hows = [h for h in hows_all if any(h in x for (l, _, _), x in ns.items() if l == label)]
    print("  %-11s" % "row" + "".join("%10s" % h for h in hows))
    for row in ("fentry", "tracepoint"):
        rs = [ns[(label, row, r)] for r in range(1, rounds + 1)
              if all(h in ns[(label, row, r)] for h in hows)]
        if not rs:
            continue
        med = {h: statistics.median(x[h] for x in rs) for h in hows}
        print("  %-11s" % row + "".join("%10.1f" % med[h] for h in hows))
        print("  %-11s" % "  overhead" + "%10s" % "" +
              "".join("%10.1f" % (med[h] - med["none"]) for h in hows[1:]))
        def paired(a, b):
            return statistics.median((x[a] - x["none"]) / (x[b] - x["none"]) for x in rs)
        c_e = paired("counter", "empty")
        line = "  %-11s counter/empty %.3f (goal <= 1.05: %s)" % (
            "", c_e, "met" if c_e <= 1.05 else "NOT met")
        if "bpftrace" in hows:
            c_b = paired("counter", "bpftrace")
            line += "   counter/bpftrace %.3f (goal <= 1.0: %s)" % (
                c_b, "met" if c_b <= 1.0 else "NOT met")
        print(line + "   (%d complete rounds)" % len(rs))

    for n in notes[label]:
        print("  " + n)
    print("  per round, fastest part / whole loop (%s):" % " ".join(hows))
    for (l, row, r), x in sorted(ns.items()):
        if l == label:
            m = mean[(l, row, r)]
            print("    %-11s r%d %s" % (row, r, " ".join(
                "%.1f/%.1f" % (x[h], m[h]) if h in x else "-" for h in hows)))
    print()
if not bt:
    print("row (d) bpftrace: not measured (the guest has no bpftrace; "
          "--bpftrace puts the host's in)")
PY
echo "cost_per_hit_vm.sh: written to $out" >&2
exit "$rc"
