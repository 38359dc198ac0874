#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# mkinitramfs.sh KDIR OUT MODULES FILE...: build the guest's initramfs (a gzip
# newc cpio) for the kernel unpacked in KDIR (see fetch_kernel.sh).
#
# The image holds busybox-static (with its applets linked at boot by /init),
# /bin/bash and util-linux setpriv, each FILE under /opt/bl/ (programs and
# scripts; every shared library ldd finds for them goes along), and the
# kernel modules named in MODULES (space-separated names, e.g. "fuse crc7";
# names the kernel has built in are left out) with their dependencies,
# uncompressed, and a modules.dep made by busybox depmod so busybox modprobe loads
# them. /init is tests/vm/init.sh; /opt/bl/modules lists the modules to load.
#
# Exit status: 0, 1 on an error, 77 when a host tool is missing.

set -euo pipefail

KDIR=$1
OUT=$2
MODULES=$3
shift 3

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUSYBOX=${BUSYBOX:-/bin/busybox}
STAGE=$(mktemp -d /tmp/bpflinkfs-initrd.XXXXXX)
trap 'rm -rf "$STAGE"' EXIT

for tool in ldd gzip xz; do
	command -v "$tool" >/dev/null || {
		echo "mkinitramfs: $tool is not installed" >&2
		exit 77
	}
done
# busybox-static: a dynamic busybox would need its own libraries.
if ! "$BUSYBOX" cpio --help >/dev/null 2>&1 ||
	ldd "$BUSYBOX" >/dev/null 2>&1; then
	echo "mkinitramfs: $BUSYBOX is not a static busybox" \
		"(apt-get install busybox-static)" >&2
	exit 77
fi

# Debian's merged /usr: the libraries live in usr/, /lib and /lib64 point there.
mkdir -p "$STAGE"/{bin,dev,proc,sys,tmp,run,etc,opt/bl,mnt,root} \
	"$STAGE"/usr/lib/x86_64-linux-gnu "$STAGE"/usr/lib64 "$STAGE"/usr/bin
ln -s usr/lib "$STAGE/lib"
ln -s usr/lib64 "$STAGE/lib64"
chmod 1777 "$STAGE/tmp"

# add_libs BINARY: copy every library ldd resolves for BINARY, and its loader.
add_libs() {
	local lib

	{ ldd "$1" 2>/dev/null || true; } | awk '
		$2 == "=>" && $3 ~ /^\// { print $3 }
		$1 ~ /^\// { print $1 }' |
		while read -r lib; do
			case $lib in
			*/ld-linux*) cp -L "$lib" "$STAGE/usr/lib64/" ;;
			*) cp -L "$lib" "$STAGE/usr/lib/x86_64-linux-gnu/" ;;
			esac
		done
}

# add_bin SRC DESTDIR: a program and its libraries.
add_bin() {
	cp -L "$1" "$STAGE/$2/"
	add_libs "$1"
}

cp "$BUSYBOX" "$STAGE/bin/busybox"
add_bin /bin/bash bin
add_bin "$(command -v setpriv)" usr/bin
for f in "$@"; do
	if [ ! -e "$f" ]; then
		echo "mkinitramfs: $f does not exist (build first)" >&2
		exit 1
	fi
	add_bin "$f" opt/bl
done
cp "$HERE/init.sh" "$STAGE/init"
chmod 755 "$STAGE/init"

cat >"$STAGE/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/sh
EOF
cat >"$STAGE/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
ln -s /proc/self/mounts "$STAGE/etc/mtab"

# add_module NAME: the module file and, first, the ones it depends on.
# Built-in names (in modules.builtin) need nothing.
add_module() {
	local name=$1 file dep dst

	[ -f "$STAGE/opt/bl/.mod.$name" ] && return 0
	touch "$STAGE/opt/bl/.mod.$name"
	if grep -qE "/${name//_/[-_]}\.ko$" "$MDIR/modules.builtin" 2>/dev/null
	then
		return 0
	fi
	file=$(find "$MDIR/kernel" -name "$name.ko*" -o \
		-name "${name//_/-}.ko*" | head -n1)
	if [ -z "$file" ]; then
		echo "mkinitramfs: no module $name in $MDIR" >&2
		return 1
	fi
	dst=$STAGE/lib/modules/$KVER/${file#"$MDIR"/}
	dst=${dst%.xz}
	dst=${dst%.zst}
	mkdir -p "$(dirname "$dst")"
	case $file in
	*.xz) xz -dc "$file" >"$dst" ;;
	*.zst) zstd -qdc "$file" >"$dst" ;;
	*) cp "$file" "$dst" ;;
	esac
	# .modinfo holds NUL-separated key=value strings, depends= among them
	for dep in $(tr '\0' '\n' <"$dst" | sed -n 's/^depends=//p' |
		tr ',' ' '); do
		add_module "$dep"
	done
	echo "$name" >>"$STAGE/opt/bl/modules"
}

MDIR=$(ls -d "$KDIR"/lib/modules/* | head -n1)
KVER=$(basename "$MDIR")
: >"$STAGE/opt/bl/modules"
mkdir -p "$STAGE/lib/modules/$KVER"
cp "$MDIR"/modules.builtin* "$MDIR"/modules.order "$STAGE/lib/modules/$KVER/" \
	2>/dev/null || true
for m in $MODULES; do
	add_module "$m"
done
rm -f "$STAGE"/opt/bl/.mod.*
"$BUSYBOX" depmod -b "$STAGE" "$KVER"

(cd "$STAGE" && find . -mindepth 1 | LC_ALL=C sort |
	"$BUSYBOX" cpio -o -H newc 2>/dev/null) | gzip -1 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
