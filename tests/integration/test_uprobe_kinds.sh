#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Uprobe targets end to end: for each kind of target, a fixture
# built here (gcc, clang + lld, -no-pie, strip, a versioned shared library,
# an IFUNC, duplicate statics), a spec written to MNT/control, the `offset`
# file checked against readelf -sW/-lW, the fixture run N times and `hits`
# checked to rise by exactly N; the errors of bpflinkfs(8), ERRORS with their
# error_log text; a binary replaced after creation; the round trip
# type:name:offset.

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
source "$HERE/lib.sh"
source "$HERE/lib_control.sh"

bl_setup
FIELDS=$(btf_link_info_fields) || skip "cannot read struct bpf_link_info BTF"
grep -qx perf_event.type <<<"$FIELDS" || skip "the kernel has no perf-link info"
[ -d /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"
for tool in gcc strip ldconfig; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
CMD_NAME=bpflinkfs-test-$$
CMD_PATH=/usr/local/bin/$CMD_NAME
kinds_cleanup() {
	bl_cleanup
	rm -f "$CMD_PATH"
	return 0
}
trap kinds_cleanup EXIT

# ---- fixtures ----
S=$WORK/src
mkdir -p "$S" "$WORK/bin/sub" "$WORK/a b:c" "$WORK/r" || die "mkdir"
cat >"$S/a.c" <<'EOF'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noinline)) void kind_fn(unsigned long i) { sink += i; }
__attribute__((noinline)) static void dup_fn(unsigned long i) { sink ^= i; }
void call_dup_b(unsigned long i);
static void impl_fast(void) { sink++; }
static void *resolve_ifn(void) { return (void *)impl_fast; }
void ifn(void) __attribute__((ifunc("resolve_ifn")));
int main(int argc, char **argv)
{
	unsigned long i, n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1;
	char c;

	/* "wait FIFO": start only once the test has made its pid= link */
	if (argc > 3) {
		int fd = open(argv[3], O_RDONLY);

		if (fd < 0 || read(fd, &c, 1) != 1)
			return 2;
	}
	for (i = 0; i < n; i++) {
		kind_fn(i);
		dup_fn(i);
		call_dup_b(i);
		call_dup_b(i);
		ifn();
		getpgid(0);
	}
	return 0;
}
EOF
cat >"$S/b.c" <<'EOF'
static volatile unsigned long sinkb;
__attribute__((noinline)) static void dup_fn(unsigned long i) { sinkb += i; }
void call_dup_b(unsigned long i) { dup_fn(i); }
EOF
cat >"$S/v.c" <<'EOF'
__attribute__((noinline, symver("foo@VER_1"))) int foo_v1(int x)
{ return x + 1; }
__attribute__((noinline, symver("foo@@VER_2"))) int foo_v2(int x)
{ return x + 2; }
EOF
printf 'VER_1 { global: foo; local: *; };\nVER_2 { global: foo; } VER_1;\n' \
	>"$S/v.map"
# calls foo (the default, VER_2) N times and the compat foo@VER_1 2N times
cat >"$S/vmain.c" <<'EOF'
#include <stdlib.h>
int foo(int);
int foo_old(int);
__asm__(".symver foo_old,foo@VER_1");
int main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 1, s = 0;

	for (i = 0; i < n; i++)
		s += foo(i) + foo_old(i) + foo_old(i);
	return s == -1;
}
EOF
B=$WORK/bin
(
	cd "$S" &&
		gcc -O0 a.c b.c -o "$B/pie" &&
		gcc -O0 -no-pie -fno-pie a.c b.c -o "$B/nopie" &&
		strip -o "$B/stripped" "$B/pie" &&
		gcc -shared -fPIC -O0 v.c -Wl,--version-script=v.map \
			-o "$B/libver.so" &&
		gcc -O0 vmain.c -L"$B" -lver -Wl,-rpath,"$B" -o "$B/vprog"
) >"$WORK/build.log" 2>&1 || {
	cat "$WORK/build.log" >&2
	die "building the fixtures failed"
}
HAVE_LLD=0
(cd "$S" && clang -O0 -fuse-ld=lld a.c b.c -o "$B/lld") \
	>>"$WORK/build.log" 2>&1 && HAVE_LLD=1
# a 32-bit ELF: linked by gcc -m32, else a copied /lib32 file
ELF32=
if (cd "$S" && gcc -m32 a.c b.c -o "$B/prog32") >>"$WORK/build.log" 2>&1; then
	ELF32=$B/prog32
elif [ -f /lib32/ld-linux.so.2 ]; then
	cp -L /lib32/ld-linux.so.2 "$B/ld32.so" && ELF32=$B/ld32.so
fi

# load_table FILE: "OFFSET VADDR FILESZ FLAGS" of each PT_LOAD (readelf -lW).
load_table() {
	local h='0x[0-9a-f]*' re
	re="^ *LOAD *\\($h\\) *\\($h\\) *$h *\\($h\\) *$h *\\([RWE ]*[RWE]\\) .*"
	readelf -lW "$1" | sed -n "s/$re/\\1 \\2 \\3 \\4/p" |
		tr -d ' ' | sed 's/0x/ 0x/g; s/\([RWE]*\)$/ \1/'
}

# elf_file_offsets FILE SYMBOL: every file offset of a defined SYMBOL
# (readelf -sW values through the PT_LOAD that maps them).
elf_file_offsets() {
	local v off va fs fl
	readelf -sW "$1" | while read -r _ v _ _ _ _ ndx name _; do
		[ "$name" == "$2" ] && [ "$ndx" != UND ] || continue
		v=$((0x$v))
		while read -r off va fs fl; do
			if [ "$v" -ge $((va)) ] && [ "$v" -lt $((va + fs)) ]; then
				printf '0x%x\n' $((v - va + off))
			fi
		done < <(load_table "$1")
	done
}

# off_of FILE SYMBOL: the single offset (.symtab and .dynsym may both
# hold it), or die.
off_of() {
	local o
	o=$(elf_file_offsets "$1" "$2" | sort -u)
	[ -n "$o" ] && [ "$(wc -l <<<"$o")" -eq 1 ] ||
		die "readelf: no single $2 in $1: '$o'"
	echo "$o"
}

# ---- helpers ----
declare -A MADE_TYPE
ALL=()

# mk SPEC: create one link from SPEC; sets ID ("" on failure).
mk() {
	ID=$(ctl_create "$1"$'\n') || {
		fail "creating '$1' failed: $(tail -n 3 "$MNT/error_log")"
		ID=
		return 1
	}
	[ "$(wc -l <<<"$ID")" -eq 1 ] || fail "'$1' made links '$ID'"
	ALL+=("$ID")
}

# check_link WHAT TYPE NAME OFFSET [SYMBOL]: the files of link $ID.
check_link() {
	[ -n "$ID" ] || return
	assert_eq "$1: type" "$2" "$(cat "$MNT/$ID/type")"
	assert_eq "$1: name" "$3" "$(cat "$MNT/$ID/name")"
	assert_num_eq "$1: offset" "$4" "$(cat "$MNT/$ID/offset")"
	[ -n "${5:-}" ] &&
		assert_eq "$1: symbol" "$5" "$(cat "$MNT/$ID/symbol" 2>&1)"
	MADE_TYPE[$ID]=$2
}

# hits_rise WHAT EXPECTED CMD...: run CMD, then `hits` of $ID rose by
# EXPECTED.
hits_rise() {
	local what=$1 want=$2 h0 h1
	shift 2
	[ -n "$ID" ] || return
	h0=$(cat "$MNT/$ID/hits")
	"$@" >/dev/null || fail "$what: running $* failed"
	h1=$(cat "$MNT/$ID/hits")
	assert_eq "$what: hits after $*" "$want" "$((h1 - h0))"
}

# run_n N CMD...: run CMD N times
run_n() {
	local n=$1 i
	shift
	for ((i = 0; i < n; i++)); do
		"$@" || return 1
	done
}

# err_has WHAT ERRNO NEEDLE SPEC: writing SPEC fails with ERRNO and the
# newest error_log entry holds NEEDLE.
err_has() {
	local got
	got=$(ctl_write "$4"$'\n')
	assert_eq "$1: errno of '$4'" "$2" "$got"
	got=$(tail -n 3 "$MNT/error_log")
	if [[ "$got" == *"$3"* ]]; then
		ok
	else
		fail "$1: error_log lacks '$3': $got"
	fi
}

rm_link() {
	ctl_write "-$1"$'\n' >/dev/null
}

N=7
bl_mount

# ---- 5: layouts: gcc PIE, -no-pie, lld (vaddr != file offset) ----
for f in pie nopie lld; do
	[ "$f" == lld ] && [ "$HAVE_LLD" -eq 0 ] && {
		echo "# clang -fuse-ld=lld does not work here: no lld case"
		continue
	}
	off=$(off_of "$B/$f" kind_fn)
	mk "u:$B/$f:kind_fn" &&
		check_link "$f kind_fn" uprobe "$B/$f" "$off" "kind_fn+0x0"
	hits_rise "$f kind_fn" $((N * 3)) run_n 3 "$B/$f" $N
	mk "ur:$B/$f:$off" &&
		check_link "$f ur:0xOFF" uretprobe "$B/$f" "$off" "kind_fn+0x0"
	hits_rise "$f ur:0xOFF" $N "$B/$f" $N
done
if [ "$HAVE_LLD" -eq 1 ]; then
	# the point of the lld case: its code segment is not at vaddr == offset
	load_table "$B/lld" | grep -qE '^ *(0x[0-9a-f]+) (0x[0-9a-f]+) .*E' &&
		load_table "$B/lld" | while read -r o v _ fl; do
			[[ $fl == *E* ]] && [ $((o)) -ne $((v)) ] && echo y
		done | grep -q y && ok ||
		echo "# note: lld put its code at vaddr == file offset here"
fi

# ---- 2 and 1: an ordinary gcc program has version needs, no version
# definitions; an import names the library that defines it ----
readelf -VW "$B/pie" | grep -q "Version needs" && ok ||
	fail "pie has no version needs"
readelf -VW "$B/pie" | grep -q "Version definition" &&
	fail "pie has version definitions"
LIBC=
while read -r l; do
	case $l in
	"libc.so.6 (libc6,x86-64)"* | "libc.so.6 (libc6,AArch64)"*)
		LIBC=$(readlink -f "${l##*=> }")
		break
		;;
	esac
done < <(ldconfig -p)
[ -n "$LIBC" ] || die "ldconfig -p names no libc.so.6"
err_has "import" ENOENT "defined in $LIBC" "u:$B/pie:getpgid"
err_has "import, uretprobe" ENOENT "only imported" "ur:$B/nopie:getpgid"
if [ -x /usr/bin/bash ]; then
	BASH_BIN=$(readlink -f /usr/bin/bash)
	off=$(elf_file_offsets "$BASH_BIN" readline | head -n 1)
	if [ -n "$off" ]; then
		mk "u:bash:readline" &&
			check_link "bash readline" uprobe "$BASH_BIN" "$off" \
				"readline+0x0"
	fi
fi

# ---- 8: libc by library name, a cold function only the fixture calls;
# pid= so that nothing else on the host counts ----
off=$(elf_file_offsets "$LIBC" "getpgid@@GLIBC_2.2.5" | head -n 1)
[ -n "$off" ] || off=$(elf_file_offsets "$LIBC" getpgid | head -n 1)
mkfifo "$WORK/go" || die "mkfifo"
"$B/pie" $N wait "$WORK/go" &
PID=$!
if mk "u:libc:getpgid pid=$PID"; then
	check_link "libc getpgid" uprobe "$LIBC" "$off"
	h0=$(cat "$MNT/$ID/hits")
	echo >"$WORK/go"
	wait $PID || fail "the pid= fixture failed"
	assert_eq "libc getpgid pid=: hits" $N $(($(cat "$MNT/$ID/hits") - h0))
else
	kill $PID
	wait $PID
fi

# ---- 3: versions ----
V=$B/libver.so
v1=$(off_of "$V" foo@VER_1)
v2=$(off_of "$V" foo@@VER_2)
[ "$v1" != "$v2" ] && ok || fail "foo@VER_1 and foo@@VER_2 share $v1"
mk "u:$V:foo" && check_link "foo" uprobe "$V" "$v2" "foo@@VER_2+0x0"
hits_rise "foo (default)" $N "$B/vprog" $N
mk "u:$V:foo@@VER_2" && check_link "foo@@VER_2" uprobe "$V" "$v2"
hits_rise "foo@@VER_2" $N "$B/vprog" $N
mk "u:$V:foo@VER_1" && check_link "foo@VER_1" uprobe "$V" "$v1" \
	"foo@VER_1+0x0"
hits_rise "foo@VER_1 (compat)" $((2 * N)) "$B/vprog" $N
err_has "foo@@VER_1" ENOENT "write foo@VER_1" "u:$V:foo@@VER_1"

# ---- 4: IFUNC: attached to the resolver, with a warning ----
off=$(off_of "$B/pie" ifn)
mk "u:$B/pie:ifn" && check_link "ifunc" uprobe "$B/pie" "$off"
log=$(tail -n 3 "$MNT/error_log")
[[ "$log" == *warning*"indirect function"* ]] && ok ||
	fail "no IFUNC warning in error_log: $log"
# the resolver runs once when the program starts
hits_rise "ifunc resolver" 3 run_n 3 "$B/pie" $N

# ---- 6: two static dup_fn: ambiguous, each reachable by offset ----
mapfile -t DUPS < <(elf_file_offsets "$B/pie" dup_fn | sort -u)
[ "${#DUPS[@]}" -eq 2 ] || die "readelf shows ${#DUPS[@]} dup_fn, not 2"
err_has "ambiguous" EINVAL "${DUPS[0]}" "u:$B/pie:dup_fn"
log=$(tail -n 3 "$MNT/error_log")
[[ "$log" == *"${DUPS[1]}"* && "$log" == *ambiguous* ]] && ok ||
	fail "ambiguous: error_log lacks ${DUPS[1]}: $log"
# which one is a.c's? a.c's runs N times a run, b.c's 2N
dup_hits=()
for o in "${DUPS[@]}"; do
	mk "u:$B/pie:$o" && check_link "dup_fn $o" uprobe "$B/pie" "$o" \
		"dup_fn+0x0"
	h0=$(cat "$MNT/$ID/hits")
	"$B/pie" $N
	dup_hits+=($(($(cat "$MNT/$ID/hits") - h0)))
done
assert_eq "dup_fn hits, sorted" "$N $((2 * N))" \
	"$(printf '%s\n' "${dup_hits[@]}" | sort -n | xargs)"

# ---- 7: stripped ----
ST=$B/stripped
off=$(off_of "$B/pie" kind_fn)
err_has "stripped by name" ENOENT "no symbol table" "u:$ST:kind_fn"
mk "u:$ST:$off" && check_link "stripped by offset" uprobe "$ST" "$off"
[ -n "$ID" ] && [ -e "$MNT/$ID/symbol" ] &&
	fail "stripped: a symbol file: $(cat "$MNT/$ID/symbol")"
hits_rise "stripped by offset" $N "$ST" $N
size=$(stat -c %s "$ST")
err_has "past EOF" EINVAL "not inside an executable segment" \
	"u:$ST:$(printf 0x%x $((size + 16)))"
# an offset inside a loadable segment without E (readelf -lW)
data=$(load_table "$ST" | while read -r o _ fs fl; do
	[[ $fl == *E* ]] || printf '0x%x\n' $((o + fs / 2))
done | head -n 1)
[ -n "$data" ] && err_has "non-exec segment" EINVAL \
	"not inside an executable segment" "u:$ST:$data"
err_has "+OFF past the function" EINVAL "past the end" \
	"u:$B/pie:kind_fn+0x10000"

# ---- 10: uretprobe SYMBOL+N ----
err_has "uretprobe +4" EINVAL "function entry" "ur:$B/pie:kind_fn+4"
mk "ur:$B/pie:kind_fn+0" &&
	check_link "uretprobe +0" uretprobe "$B/pie" "$off" && rm_link "$ID"

# ---- 11: an offset inside an instruction corrupts the code: refused ----
# kind_fn's instruction starts, relative to it, from objdump -d; the first
# instruction longer than one byte gives an offset inside it
addrs=$(objdump -d --no-show-raw-insn "$B/pie" | awk '
	/<kind_fn>:$/ { f = 1; next }
	f && /^$/ { exit }
	f && /^ *[0-9a-f]+:/ { sub(":", "", $1); print $1 }')
inside= next_start= prev= base=
for a in $addrs; do
	r=$((0x$a - ${base:=0x$a}))
	if [ -n "$prev" ] && [ $((r - prev)) -gt 1 ] && [ -z "$inside" ]; then
		inside=$((prev + 1)) next_start=$r
	fi
	prev=$r
done
if [ -n "$inside" ]; then
	err_has "inside an instruction" EINVAL "inside an instruction" \
		"u:$B/pie:kind_fn+$(printf 0x%x "$inside")"
	err_has "uretprobe by offset, not an entry" EINVAL "function's entry" \
		"ur:$B/pie:$(printf 0x%x $((off + next_start)))"
	mk "u:$B/pie:kind_fn+$(printf 0x%x "$next_start")" &&
		check_link "at an instruction start" uprobe "$B/pie" \
			"$(printf 0x%x $((off + next_start)))" && rm_link "$ID"
else
	fail "objdump found no instruction of kind_fn longer than a byte"
fi

# ---- 8: paths: quoted (blank, colon), relative, symlink, PATH ----
Q="$WORK/a b:c/prog"
cp "$B/pie" "$Q" || die "cp"
mk "u:\"$Q\":kind_fn" && check_link "quoted path" uprobe "$Q" "$off"
hits_rise "quoted path" $N "$Q" $N
ID=$( (cd "$B/sub" && ctl_create "u:../pie:kind_fn"$'\n')) &&
	ALL+=("$ID") && check_link "relative" uprobe "$B/pie" "$off" ||
	fail "relative path from a subshell failed: $(tail -n 3 \
		"$MNT/error_log")"
[ -n "$ID" ] && rm_link "$ID"
ln -s pie "$B/link" && ln -s "$B/link" "$WORK/link2" || die "ln"
mk "u:$WORK/link2:kind_fn" && check_link "symlink" uprobe "$B/pie" "$off"
[ -n "$ID" ] && rm_link "$ID"
cp "$B/pie" "$CMD_PATH" || die "cp to $CMD_PATH"
mk "u:$CMD_NAME:kind_fn" && check_link "PATH" uprobe "$CMD_PATH" "$off"
hits_rise "PATH" $N "$CMD_NAME" $N
err_has "no such command" ENOENT "no-such-cmd-$$" "u:no-such-cmd-$$:main"
err_has "no such file" ENOENT "$WORK/nosuch" "u:$WORK/nosuch:main"
if [ -n "$ELF32" ]; then
	err_has "32-bit" EINVAL "32-bit" "u:$ELF32:0x1000"
else
	printf '\177ELF\001\001\001' >"$B/fake32" &&
		head -c 60 /dev/zero >>"$B/fake32"
	err_has "32-bit header" EINVAL "32-bit" "u:$B/fake32:0x10"
fi

# ---- 9: replaced by rename, then deleted ----
R=$WORK/r/prog
cp "$B/pie" "$R" || die "cp"
mk "u:$R:kind_fn" && check_link "to be replaced" uprobe "$R" "$off" \
	"kind_fn+0x0"
RID=$ID
hits_rise "before replacement" $N "$R" $N
cp "$B/pie" "$R.new" && mv "$R.new" "$R" || die "rename over"
if [ -n "$RID" ]; then
	assert_eq "replaced: name" "$R" "$(cat "$MNT/$RID/name")"
	assert_num_eq "replaced: offset" "$off" "$(cat "$MNT/$RID/offset")"
	[ -e "$MNT/$RID/symbol" ] && fail "replaced: symbol still reads" \
		"$(cat "$MNT/$RID/symbol")"
	t ls "$MNT/$RID" | grep -qx symbol && fail "replaced: ls shows symbol"
	# the new file is another inode: running it must not count
	hits_rise "replaced, new file run" 0 "$R" $N
	rm -f "$R"
	assert_eq "deleted: name" "$R" "$(cat "$MNT/$RID/name")"
	assert_num_eq "deleted: offset" "$off" "$(cat "$MNT/$RID/offset")"
	[[ "$(cat "$MNT/$RID/hits")" =~ ^[0-9]+$ ]] && ok ||
		fail "deleted: hits unreadable"
	[ -e "$MNT/$RID/symbol" ] && fail "deleted: symbol still reads"
	t ls "$MNT/$RID" >/dev/null || fail "deleted: ls $RID failed"
fi

# ---- round trip: type:name:offset recreates the same probe ----
for id in "${ALL[@]}"; do
	[ -d "$MNT/$id" ] || continue
	ty=$(cat "$MNT/$id/type") nm=$(cat "$MNT/$id/name")
	of=$(cat "$MNT/$id/offset")
	[ "$id" == "$RID" ] && continue # its file is gone
	# a blank ends the path, so such a name must be quoted (bpflinkfs(8), CONTROL LANGUAGE)
	case $nm in
	*[\ :]*) line="$ty:\"$nm\":$of" ;;
	*) line="$ty:$nm:$of" ;;
	esac
	if nid=$(ctl_create "$line"$'\n'); then
		assert_eq "round trip '$line': type" "$ty" "$(cat "$MNT/$nid/type")"
		assert_eq "round trip '$line': name" "$nm" "$(cat "$MNT/$nid/name")"
		assert_eq "round trip '$line': offset" "$of" \
			"$(cat "$MNT/$nid/offset")"
		rm_link "$nid"
	else
		fail "round trip '$line' failed: $(tail -n 3 "$MNT/error_log")"
	fi
done

# the plain `echo ... > control` form, once
id=${ALL[0]}
if [ -n "$id" ] && [ -d "$MNT/$id" ]; then
	before=$(owned_listing | wc -l)
	echo "$(cat "$MNT/$id/type"):$(cat "$MNT/$id/name"):$(cat \
		"$MNT/$id/offset")" >"$MNT/control" || fail "echo round trip"
	assert_eq "echo round trip made a link" $((before + 1)) \
		"$(owned_listing | wc -l)"
fi

ctl_write "-*"$'\n' >/dev/null
finish
