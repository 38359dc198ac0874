#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# man/bpflinkfs.8 renders without a single groff warning, and its OPTIONS
# section and `bpflinkfs --help` list the same options: every -x/--long
# option and every `-o NAME` of --help is in the man page, and every one of
# the man page is in --help, except the standard FUSE mount options, which
# mount.fuse3(8) describes and --help covers with "-o OPT".

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
SRC=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../..
MAN=$SRC/man/bpflinkfs.8
FUSE_MAN=/usr/share/man/man8/mount.fuse3.8.gz

[ -n "${BPFLINKFS:-}" ] && [ -x "$BPFLINKFS" ] ||
	skip "\$BPFLINKFS is not set (run through meson test)"
command -v groff >/dev/null ||
	skip "groff is not installed (apt-get install groff-base)"
[ -r "$FUSE_MAN" ] || skip "no $FUSE_MAN (install fuse3)"
[ -r "$MAN" ] || die "no $MAN"

WORK=$(mktemp -d /tmp/bpflinkfs-man.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT

# groff must be able to warn here at all: a page with an unknown macro.
printf '.TH T 8\n.SH NAME\nt\n.XYZZY\n' >"$WORK/bad.8"
groff -ww -z -man -Tutf8 "$WORK/bad.8" 2>"$WORK/bad.err"
[ -s "$WORK/bad.err" ] || fail "groff -ww gives no warning on an unknown macro"

groff -ww -man -Tutf8 "$MAN" >"$WORK/out.txt" 2>"$WORK/groff.err" ||
	fail "groff exited with $?"
[ -s "$WORK/groff.err" ] && fail "groff warnings: $(head -20 "$WORK/groff.err")"
[ -s "$WORK/out.txt" ] || fail "groff rendered nothing"

"$BPFLINKFS" --help >"$WORK/help" 2>&1 || fail "--help exited with $?"

# Options as "-x", "--long" and "o:NAME", one a line, sorted.
help_opts() {
	python3 - "$WORK/help" <<'EOF'
import re, sys
out = set()
for line in open(sys.argv[1]):
    m = re.match(r"\s+(-\w)(?:,\s*(--[\w-]+))?\s", line)
    if not m:
        continue
    if m.group(1) == "-o":
        out.add("-o")
        for opt in line.split()[1].split(","):
            n = re.fullmatch(r"([a-z][a-z0-9_]*)(=.*)?", opt)
            if n:
                out.add("o:" + n.group(1))
        continue
    out.update(g for g in m.groups() if g)
print("\n".join(sorted(out)))
EOF
}

# Tags of .TP items in OPTIONS: top level gives -x/--long, the items of
# the -o list (inside .RS/.RE) give o:NAME for each name= or name word.
man_opts() {
	python3 - "$MAN" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
out, inopt, depth, tag_next = set(), False, 0, False
for l in lines:
    if l.startswith(".SH"):
        inopt = l.split(None, 1)[1:] == ["OPTIONS"]
        continue
    if not inopt:
        continue
    if l.startswith(".RS"):
        depth += 1
    elif l.startswith(".RE"):
        depth -= 1
    elif l.startswith(".TP"):
        tag_next = True
    elif tag_next:
        tag_next = False
        t = re.sub(r"^\.\w+\s*", "", l)
        t = re.sub(r"\\f[BIRP]|\\f\(\w\w|\"", " ", t).replace("\\-", "-")
        words = re.split(r"[\s,\[\]]+", t)
        if depth == 0:
            out.update(w for w in words if re.fullmatch(r"--?[\w-]+", w))
        else:
            out.update("o:" + w.rstrip("=") for w in words
                       if re.fullmatch(r"[a-z][a-z0-9_]*=?", w))
print("\n".join(sorted(out)))
EOF
}

# The -o options mount.fuse3(8) describes (its .TP tags, NAME[=VALUE]).
fuse_opts() {
	zcat "$FUSE_MAN" | python3 -c '
import re, sys
lines = sys.stdin.read().splitlines()
for a, b in zip(lines, lines[1:]):
    if a.startswith(".TP"):
        m = re.match(r"\\fB([a-z][a-z0-9_]*)", b)
        if m:
            print(m.group(1))' | sort -u
}

help_opts >"$WORK/help.opts"
man_opts >"$WORK/man.opts"
fuse_opts >"$WORK/fuse.opts"
[ -s "$WORK/help.opts" ] || fail "no option found in --help"
[ -s "$WORK/man.opts" ] || fail "no option found in the man page OPTIONS"
grep -qx allow_other "$WORK/fuse.opts" ||
	fail "cannot read the option list of mount.fuse3(8)"

missing=$(comm -23 "$WORK/help.opts" "$WORK/man.opts" | xargs)
[ -n "$missing" ] && fail "in --help but not in the man page OPTIONS: $missing"
own_man=$(sed 's/^/o:/' "$WORK/fuse.opts" | comm -23 "$WORK/man.opts" - |
	comm -23 - "$WORK/help.opts" | xargs)
[ -n "$own_man" ] &&
	fail "in the man page OPTIONS but not in --help: $own_man"

echo "--help: $(xargs <"$WORK/help.opts")"
echo "man OPTIONS: $(xargs <"$WORK/man.opts")"
finish
