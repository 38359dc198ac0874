#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Links appear and vanish (mklinks in a loop, software events) while readers
# list and read the tree for ~10 s: the only error a reader may see is
# ENOENT, a file never reads empty, and the daemon survives.

source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

bl_setup
[ -d /sys/bus/event_source/devices/software ] || skip "no software PMU"
DURATION=${CHURN_SECONDS:-10}
NCPU=$(nproc)
bl_mount

END=$((SECONDS + DURATION))

# Producer: short-lived links, some gone at once (stdin at EOF), some
# living ~50 ms, up to 3 at a time per mklinks.
(
	n=0
	while [ "$SECONDS" -lt "$END" ]; do
		n=$((n + 1))
		cpu=$((n % NCPU))
		specs=("software:0:$cpu:$n" "software:1:$cpu:$n"
			"software:cpu-clock:-1:$n")
		if ((n % 2)); then
			"$MKLINKS" "${specs[@]}" </dev/null
		else
			# kept: links held 0.05 s, while stdin is open
			sleep 0.05 | "$MKLINKS" "${specs[@]}"
		fi >>"$WORK/made" 2>>"$WORK/mkl.err" ||
			echo "mklinks exited with $?" >>"$WORK/mkl.err"
	done
) &
PRODUCER=$!

# Reader 1: the shell tools.
(
	while [ "$SECONDS" -lt "$END" ]; do
		for cmd in "ls $MNT" "ls -l $MNT/*/" "cat $MNT/[0-9]*/*" \
			"cat $MNT/links $MNT/links.json" "grep -r . $MNT/[0-9]*/"; do
			# shellcheck disable=SC2086
			timeout "$HANG_S" $cmd >/dev/null 2>>"$WORK/sh.err"
			[ $? -eq 124 ] && echo "HANG: $cmd" >>"$WORK/sh.err"
		done
	done
) &
READER1=$!

# Reader 2: Python, which also checks that no value is empty and that the
# tables always parse.
timeout $((DURATION + 20)) python3 - "$MNT" "$END" "$SECONDS" \
	>"$WORK/py.out" 2>&1 <<'EOF' &
import errno, json, os, sys, time
mnt, end, now = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
deadline = time.monotonic() + (end - now)
reads = bad = 0
def report(msg):
    global bad
    bad += 1
    if bad <= 20:
        print("FAIL:", msg)
while time.monotonic() < deadline:
    try:
        ids = [d for d in os.listdir(mnt) if d.isdigit()]
        # the tables carry other processes' names: bytes, not UTF-8 (the
        # JSON escapes them; `links` passes them through)
        json.loads(open(os.path.join(mnt, "links.json"), "rb").read())
        lines = open(os.path.join(mnt, "links"), "rb").read().splitlines()
        if not lines:
            report("links has no header line")
    except UnicodeDecodeError as e:
        # which link: the bytes around the one that is not UTF-8
        report("links.json does not parse: %s, around it: %r" %
               (e, e.object[max(0, e.start - 300):e.start + 60]))
    except ValueError as e:
        report("links.json does not parse: %s" % e)
        continue
    except OSError as e:
        report("listing or table: %s" % e)
        continue
    for d in ids:
        try:
            names = os.listdir(os.path.join(mnt, d))
        except FileNotFoundError:
            continue
        except OSError as e:
            report("listdir %s: %s" % (d, e))
            continue
        for f in names:
            p = os.path.join(mnt, d, f)
            try:
                v = open(p, "rb").read()
            except FileNotFoundError:
                continue
            except OSError as e:
                report("read %s: %s" % (p, e))
                continue
            reads += 1
            # pids and pinned are lists, empty when no process or pin
            # holds the link (bpflinkfs(8), THE TREE); every other file is one value
            if f in ("pids", "pinned") and v == b"":
                continue
            if not v.endswith(b"\n") or v == b"\n":
                report("%s read as %r" % (p, v))
print("reads", reads)
print("bad", bad)
EOF
READER2=$!

wait "$PRODUCER"
wait "$READER1"
wait "$READER2" || fail "python reader exited with $? (timeout: 124)"

made=$(grep -cv ready "$WORK/made")
[ "$made" -ge 30 ] && ok || fail "only $made links made in ${DURATION} s"
echo "links made: $made; python: $(tr '\n' ' ' <"$WORK/py.out")"
[ -s "$WORK/mkl.err" ] && fail "mklinks errors: $(sort "$WORK/mkl.err" |
	uniq -c | head -5)"
if grep -v -e "No such file or directory" "$WORK/sh.err" >"$WORK/sh.other"; then
	fail "shell readers saw errors other than ENOENT:"
	sort "$WORK/sh.other" | uniq -c | sort -rn | head -20 >&2
else
	ok
fi
grep -q '^FAIL' "$WORK/py.out" && fail "python reader: $(grep '^FAIL' \
	"$WORK/py.out")"
reads=$(sed -n 's/^reads //p' "$WORK/py.out")
[ "${reads:-0}" -gt 0 ] && ok || fail "python reader read no file at all"

bl_daemon_alive && ok || fail "daemon dead or mount not answering"
t cat "$MNT/features" >/dev/null || fail "features unreadable after churn"

# Every link is gone now; none may still be listed.
t ls "$MNT" >"$WORK/root.ls" || fail "ls after churn"
stale=$(grep -v ready "$WORK/made" | cut -f1 | grep -xFf - "$WORK/root.ls")
assert_eq "links still listed after their mklinks exited" "" "$stale"
finish
