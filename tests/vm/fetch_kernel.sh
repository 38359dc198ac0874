#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fetch_kernel.sh LABEL CACHE: fetch and unpack a Debian cloud kernel for the
# VM lane and print the directory it is unpacked in (it holds boot/vmlinuz-*,
# boot/config-* and lib/modules/VERSION).
#
#   LABEL bookworm   linux-image-cloud-amd64 of Debian 12 (6.1)
#   LABEL backports  the same package from bookworm-backports (6.12)
#
# The download uses a private apt state (lists, cache, sources) under CACHE, so
# the machine's apt configuration is never changed and backports is never
# enabled on it. An unpacked kernel is reused for BPFLINKFS_VM_MAX_AGE days
# (default 7); after that a refresh is tried, and the old one is kept when the
# refresh cannot download.
#
# Exit status: 0, or 77 (with the reason on stderr) when no kernel can be had.

set -uo pipefail

LABEL=${1:?usage: fetch_kernel.sh LABEL CACHE}
CACHE=${2:?usage: fetch_kernel.sh LABEL CACHE}
MAX_AGE=${BPFLINKFS_VM_MAX_AGE:-7}
MIRROR=${BPFLINKFS_VM_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
META=linux-image-cloud-amd64

skip() {
	echo "fetch_kernel: $LABEL: $*" >&2
	exit 77
}

case $LABEL in
bookworm)
	SOURCES="deb [signed-by=$KEYRING] $MIRROR bookworm main
deb [signed-by=$KEYRING] ${MIRROR%/debian}/debian-security bookworm-security main"
	;;
backports)
	SOURCES="deb [signed-by=$KEYRING] $MIRROR bookworm-backports main"
	;;
*)
	skip "unknown label (bookworm or backports)"
	;;
esac

APT_DIR=$CACHE/apt-$LABEL
DEST=$CACHE/kernel-$LABEL

# fresh: an unpacked kernel younger than MAX_AGE days is there.
fresh() {
	[ -f "$DEST/.done" ] &&
		[ -z "$(find "$DEST/.done" -mtime +"$MAX_AGE" 2>/dev/null)" ]
}

apt_opts() {
	printf '%s\n' \
		-o "Dir::Etc::SourceList=$APT_DIR/sources.list" \
		-o "Dir::Etc::SourceParts=$APT_DIR/none" \
		-o "Dir::State::Lists=$APT_DIR/lists" \
		-o "Dir::Cache=$APT_DIR/cache" \
		-o "Dir::State::status=/dev/null" \
		-o "APT::Sandbox::User=root" \
		-o "Debug::NoLocking=1"
}

# download: fetch the image package the metapackage depends on into
# $APT_DIR/debs and unpack it into a new DEST.
download() {
	local opts pkg deb tmp

	mapfile -t opts < <(apt_opts)
	mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial" \
		"$APT_DIR/none" "$APT_DIR/debs" || return 1
	printf '%s\n' "$SOURCES" >"$APT_DIR/sources.list"
	apt-get "${opts[@]}" -qq update >&2 || return 1
	pkg=$(apt-cache "${opts[@]}" depends "$META" |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ {
			print $2; exit }')
	[ -n "$pkg" ] || return 1
	(cd "$APT_DIR/debs" && rm -f ./*.deb &&
		apt-get "${opts[@]}" -qq download "$pkg") >&2 || return 1
	deb=$(ls "$APT_DIR"/debs/*.deb 2>/dev/null | head -n1)
	[ -n "$deb" ] || return 1
	tmp=$DEST.new
	rm -rf "$tmp"
	dpkg -x "$deb" "$tmp" || return 1
	echo "$pkg $(basename "$deb")" >"$tmp/.done"
	rm -rf "$DEST"
	mv "$tmp" "$DEST"
	echo "fetch_kernel: $LABEL: unpacked $(basename "$deb")" >&2
}

command -v apt-get >/dev/null && command -v dpkg >/dev/null ||
	{ fresh || [ -f "$DEST/.done" ] || skip "no apt-get/dpkg"; }
mkdir -p "$CACHE" 2>/dev/null || skip "cannot create $CACHE"
if ! fresh; then
	if ! download; then
		[ -f "$DEST/.done" ] ||
			skip "cannot download $META (no network or mirror?)"
		echo "fetch_kernel: $LABEL: refresh failed, using the cached" \
			"$(cat "$DEST/.done")" >&2
	fi
fi
ls "$DEST"/boot/vmlinuz-* >/dev/null 2>&1 || skip "no vmlinuz in $DEST"
echo "$DEST"
