# SPDX-License-Identifier: GPL-2.0-only
# tap.sh - the one harness of every shell test: TAP on stdout, as meson reads
# it with `protocol : 'tap'` (tests/check.h is the same for the C tests).
# Source it from bash; tests/integration/lib.sh sources it for the mount
# helpers.
#
#   ok N - what                 a test point that passed (ok, assert_*)
#   not ok N - what             one that failed (fail, die, assert_*), then
#   # detail                    "# " lines that say what was seen
#   1..N                        the plan, last (finish, die)
#   1..0 # SKIP why             the whole test skipped (skip, before any
#                               point; later, "ok N # SKIP why" and the plan)
#
# A skip exits 0, a failure 1: meson counts any other exit of a TAP test as
# an error, 77 included. Only these lines reach stdout: on sourcing, the
# test's stdout becomes its stderr, and the TAP lines go to the original
# stdout through fd $BL_TAP, so a check inside $(...) or a background job
# still reaches meson. Test points are counted in a file (BL_TAP_LOG: an
# unlinked one, reached through this shell's fd, so nothing is left behind
# however the test ends) for
# the same reason: a subshell's point is numbered in turn and counts in the
# plan and the exit status. A failure is told on stderr too ("FAIL: ..."),
# since meson --print-errorlogs shows only the stderr of a TAP test.

set -u

exec {BL_TAP}>&1 1>&2
BL_TAP_LOG=$(mktemp /tmp/bpflinkfs-tap.XXXXXX) || exit 1
exec {BL_TAP_FD}>>"$BL_TAP_LOG"
rm -f "$BL_TAP_LOG"
# each open of it is a new description, so flock() excludes subshells too
BL_TAP_LOG=/proc/self/fd/$BL_TAP_FD
BL_TAP_PID=$$

# bl_point RESULT WHAT [DETAIL]: print test point RESULT ("ok", "not ok",
# "ok # SKIP") for WHAT, and DETAIL as "# " lines. The first line of WHAT
# is its description, the others are detail too. Numbered under a lock,
# so that concurrent background jobs never share a number.
bl_point() {
	local res=$1 what=${2:-} detail=${3:-} first rest n lines
	first=${what%%$'\n'*}
	rest=
	[ "$first" != "$what" ] && rest=${what#*$'\n'}
	first=${first//\#/\\#}
	[ -n "$rest" ] && detail="$rest${detail:+$'\n'$detail}"
	{
		flock 9
		printf '%s\n' "${res%% *}" >&9
		mapfile -t lines <"$BL_TAP_LOG"
		n=${#lines[@]}
		case $res in
		"ok # SKIP") printf 'ok %d # SKIP %s\n' "$n" "$first" ;;
		*) printf '%s %d%s\n' "$res" "$n" "${first:+ - $first}" ;;
		esac
		[ -z "$detail" ] || printf '%s\n' "$detail" | sed 's/^/# /'
	} 9>>"$BL_TAP_LOG" >&"$BL_TAP"
	# and to stderr, which is what meson --print-errorlogs shows of a TAP
	# test
	[ "$res" != "not ok" ] ||
		printf 'FAIL: %s%s\n' "$what" "${detail:+: $detail}" >&2
	return 0 # `cond && ok || fail` must not fail after an ok
}

# bl_tap_count [not]: how many test points passed (or, with "not", failed).
bl_tap_count() {
	local lines
	if [ "${1:-}" = not ]; then
		lines=$(grep -cx not <"$BL_TAP_LOG" 2>/dev/null)
		printf '%s\n' "${lines:-0}"
		return
	fi
	mapfile -t lines <"$BL_TAP_LOG" 2>/dev/null || lines=()
	printf '%s\n' "${#lines[@]}"
}

# bl_plan: the trailing plan (in the test's own shell only: a subshell
# that ends early leaves it to the test).
bl_plan() {
	[ "$BASHPID" = "$BL_TAP_PID" ] || return 0
	printf '1..%d\n' "$(bl_tap_count)" >&"$BL_TAP"
}

# ok [WHAT]: a check that held.
ok() {
	bl_point ok "${1:-}"
}

# fail MSG: a check that failed; the test goes on, so one run shows every
# mismatch.
fail() {
	bl_point "not ok" "$*"
}

# die MSG: a failure after which nothing else can be checked.
die() {
	bl_point "not ok" "$*"
	echo "FATAL: $*" >&2
	bl_plan
	exit 1
}

# skip WHY: the test cannot run here (or not on): say why, exit 0.
skip() {
	echo "SKIP: $*" >&2
	if [ "$BASHPID" != "$BL_TAP_PID" ]; then
		bl_point "ok # SKIP" "$*"
		exit 77
	fi
	if [ "$(bl_tap_count)" -eq 0 ]; then
		printf '1..0 # SKIP %s\n' "$*" >&"$BL_TAP"
	else
		bl_point "ok # SKIP" "$*"
		bl_plan
	fi
	exit 0
}

# finish: the plan, and the test's status: 1 if a check failed. A test
# that only reports failures and had none gets one point that says so (a
# plan of 1..0 would read as a skip).
finish() {
	local fails
	[ "$(bl_tap_count)" -eq 0 ] && ok "$(basename "$0"): no check failed"
	fails=$(bl_tap_count not)
	bl_plan
	if [ "${fails:-0}" -ne 0 ]; then
		echo "$fails check(s) failed" >&2
		exit 1
	fi
	exit 0
}

# wait_for [-q] TIMEOUT_S CMD...: run CMD every 0.1 s until it succeeds
# (0), at most TIMEOUT_S seconds (fractions allowed). At the timeout a
# failed check says what did not come true, and 1 is returned; with -q
# only 1 is returned (the caller says what it means). CMD runs in this
# shell: a function, or `eval '...'` of a condition on the caller's
# variables (not on $1...: those are wait_for's own there).
wait_for() {
	# names of its own that a caller's eval'd condition will not use
	local _wf_quiet=0 _wf_end _wf_now _wf_s _wf_f=
	if [ "$1" = -q ]; then
		_wf_quiet=1
		shift
	fi
	# microseconds, from bash's EPOCHREALTIME (no fork)
	_wf_s=${1%%.*}
	[[ "$1" == *.* ]] && _wf_f=${1#*.}
	_wf_f=${_wf_f}000000
	_wf_now=${EPOCHREALTIME/[.,]/}
	_wf_end=$((10#$_wf_now + 10#${_wf_s:-0} * 1000000 + 10#${_wf_f:0:6}))
	shift
	while :; do
		"$@" && return 0
		_wf_now=${EPOCHREALTIME/[.,]/}
		[ $((10#$_wf_now)) -ge "$_wf_end" ] && break
		sleep 0.1
	done
	[ "$_wf_quiet" -eq 1 ] || fail "timed out waiting for: $*"
	return 1
}

# assert_eq WHAT EXPECTED ACTUAL
assert_eq() {
	if [ "$2" == "$3" ]; then
		ok "$1"
	else
		bl_point "not ok" "$1" "expected '$2', got '$3'"
	fi
}

# assert_num_eq WHAT EXPECTED ACTUAL: numeric compare (decimal or 0x hex).
assert_num_eq() {
	local e a
	if ! e=$(python3 -c 'import sys; print(int(sys.argv[1], 0))' "$2" \
		2>/dev/null); then
		bl_point "not ok" "$1" "expected value '$2' is not a number"
		return
	fi
	if ! a=$(python3 -c 'import sys; print(int(sys.argv[1], 0))' "$3" \
		2>/dev/null); then
		bl_point "not ok" "$1" "expected $2, got non-number '$3'"
		return
	fi
	assert_eq "$1" "$e" "$a"
}

# assert_match WHAT ERE ACTUAL
assert_match() {
	if [[ "$3" =~ $2 ]]; then
		ok "$1"
	else
		bl_point "not ok" "$1" "'$3' does not match /$2/"
	fi
}

# assert_true WHAT CMD...: CMD must succeed.
assert_true() {
	local what=$1
	shift
	if "$@"; then
		ok "$what"
	else
		bl_point "not ok" "$what" "command failed: $*"
	fi
}
