#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The repository explains itself (TAP): the code's comments cite what a
# reader of the tree has. Checks:
#   1. no file of bpf/ includes a header of fs/ (calls run from fs/ to bpf/
#      only; the build's include path enforces it too);
#   2. no comment cites a design document or a tracker the tree does not
#      hold ("issue N"): the man page and README.md are the contract,
#      README.md's Layout section the design notes;
#   3. every project file cited by its path (bpf/make/owned.c, tests/tools/...)
#      exists. Names with a placeholder in capitals (results/every-DATE-
#      KERNEL.txt) are patterns, not files;
#   4. inside bpf/, a folder includes only headers of the folders below it,
#      in the order README.md's Layout section draws: make/, pins/,
#      builtin/, read/, holders/, uprobe/, then bpf/'s root. make/parse.h
#      (the parsed line) and make/owned.h (the library's handle) are read
#      everywhere.
set -u
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." || exit 1
N=0
FAILS=0
check() { # check DESCRIPTION OUTPUT: ok when OUTPUT is empty
	N=$((N + 1))
	if [ -z "$2" ]; then
		echo "ok $N - $1"
	else
		echo "not ok $N - $1"
		sed 's/^/# /' <<<"$2"
		FAILS=$((FAILS + 1))
	fi
}
DIRS=(fs bpf tests bench scripts debian)
# git's list where the tree is a clone, else every file
files() {
	if git rev-parse --git-dir >/dev/null 2>&1; then
		git ls-files -- "${DIRS[@]}" README.md
	else
		find "${DIRS[@]}" README.md -type f
	fi
}
mapfile -t FILES < <(files | grep -v '^bench/results/')

fs_headers=$(find fs -name '*.h' -printf '%f\n' | sort -u)
back=$(grep -nE '^\s*#\s*include\s*"' $(printf '%s\n' "${FILES[@]}" |
	grep '^bpf/') /dev/null | while IFS= read -r l; do
	inc=$(sed -E 's/.*"([^"]+)".*/\1/' <<<"$l")
	b=${inc##*/}
	if [[ $inc == fs/* ]] || { grep -qxF "$b" <<<"$fs_headers" &&
		[ -z "$(find bpf -name "$b")" ]; }; then
		echo "$l"
	fi
done)
check "bpf/ includes no header of fs/" "$back"

check "no citation of a design document or tracker outside the tree" \
	"$(grep -nE 'DESIG[N](\.md)?\b|\b[Ii]ssue #?[0-9]+' "${FILES[@]}" |
		grep -v '^tests/unit/test_citations.sh:')"

missing=$(grep -ohP '(?<![/<A-Za-z0-9_.$-])(fs|bpf|tests|bench|scripts|man|debian)/[A-Za-z0-9_/.-]*\.(c|h|sh|py|md|8|txt)\b' \
	"${FILES[@]}" | sort -u | grep -vE '[A-Z]{2,}' | while read -r p; do
	[ -e "$p" ] || echo "$p"
done)
check "every project file cited by path exists" "$missing"

# A file's layer in bpf/: a file may include headers of its own layer or
# of a later one.
layer() {
	case $1 in
	bpf/make/*) echo 0 ;;
	bpf/pins/*) echo 1 ;;
	bpf/builtin/*) echo 2 ;;
	bpf/read/*) echo 3 ;;
	bpf/holders/*) echo 4 ;;
	bpf/uprobe/*) echo 5 ;;
	*) echo 6 ;;
	esac
}
SHARED_UP=(bpf/make/parse.h bpf/make/owned.h)
declare -A header_at
while IFS= read -r h; do
	header_at[${h##*/}]=$h
done < <(printf '%s\n' "${FILES[@]}" | grep -E '^bpf/.*\.h$' | grep -v '^bpf/progs/')
up=
while IFS= read -r f; do
	lf=$(layer "$f")
	while IFS= read -r inc; do
		h=${header_at[${inc##*/}]:-}
		[ -n "$h" ] && [ "$(layer "$h")" -lt "$lf" ] || continue
		printf '%s\n' "${SHARED_UP[@]}" | grep -qxF "$h" && continue
		up+="$f -> $h"$'\n'
	done < <(sed -nE 's/^\s*#\s*include\s*"([^"]+)".*/\1/p' "$f")
done < <(printf '%s\n' "${FILES[@]}" | grep -E '^bpf/.*\.[ch]$' |
	grep -v '^bpf/progs/')
check "inside bpf/, folders include only the folders below them" "${up%$'\n'}"
echo "1..$N"
[ "$FAILS" -eq 0 ]
