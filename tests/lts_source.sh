#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# scripts/dpdk-lts.sh's choice of DPDK source, without building DPDK:
# DPDK_TARBALLS picks the newest dpdk-VERSION.N.tar.xz of the release by
# version (24.11.10 after 24.11.9), ignores other names, records the
# tarball's name and sha256; a release with no tarball falls through to
# the next source with a message; DPDK_TARBALL must exist; a tarball of
# another version is refused after unpacking, and nothing is installed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
lts="$top/scripts/dpdk-lts.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LTS_CACHE="$work/cache"
unset DPDK_SRC DPDK_TARBALL DPDK_GIT DPDK_TAG
fail=0
check() {	# DESCRIPTION EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then
		echo "ok: $1"
	else
		echo "FAIL: $1: expected '$2', got '$3'"
		fail=1
	fi
}

# A release tarball as DPDK publishes it: one top folder with VERSION.
mk() {	# FILE VERSION
	mkdir -p "$work/t/${1%.tar.xz}"
	echo "$2" > "$work/t/${1%.tar.xz}/VERSION"
	tar -cJf "$work/tb/$1" -C "$work/t" "${1%.tar.xz}"
}
mkdir -p "$work/tb" "$work/t"
mk dpdk-24.11.9.tar.xz 24.11.9
mk dpdk-24.11.10.tar.xz 24.11.10
mk dpdk-24.11.tar.xz 24.11.0
mk dpdk-24.11.11-rc1.tar.xz 24.11.11-rc1
mk dpdk-24.110.1.tar.xz 24.110.1
mk dpdk-24.11.99x.tar.xz 24.11.99
mk dpdk-25.11.2.tar.xz 23.11.1
mk dpdk-25.11.2-rc9.tar.xz 25.11.2-rc9
sum=$(sha256sum < "$work/tb/dpdk-24.11.10.tar.xz" | cut -d' ' -f1)

out=$(DPDK_TARBALLS="$work/tb" bash "$lts" --source 24.11 2>/dev/null)
check "newest 24.11 tarball by version" \
	"tarball dpdk-24.11.10.tar.xz sha256 $sum" "$out"

out=$(DPDK_TARBALLS="$work/tb" bash "$lts" --source 23.11 2>&1 >/dev/null)
check "no 23.11 tarball: said" \
	"dpdk-lts: no dpdk-23.11.N.tar.xz in DPDK_TARBALLS=$work/tb" "$out"
out=$(DPDK_TARBALLS="$work/tb" bash "$lts" --source 23.11 2>/dev/null)
check "no 23.11 tarball: the next source (Debian's archive)" debian "$out"

out=$(DPDK_TARBALLS="$work/tb" DPDK_TARBALL="$work/tb/dpdk-24.11.9.tar.xz" \
	bash "$lts" --source 24.11 2>/dev/null)
check "DPDK_TARBALL before DPDK_TARBALLS" \
	"tarball dpdk-24.11.9.tar.xz sha256 $(sha256sum < "$work/tb/dpdk-24.11.9.tar.xz" | cut -d' ' -f1)" \
	"$out"

DPDK_TARBALL="$work/none.tar.xz" bash "$lts" --source 24.11 >/dev/null 2>&1
check "DPDK_TARBALL of no file: exit 1" 1 "$?"

# A tarball whose tree is another release: unpacked, refused, no install.
out=$(DPDK_TARBALLS="$work/tb" bash "$lts" 25.11 2>&1)
rc=$?
check "another version in the tarball: exit 1" 1 "$rc"
case "$out" in
*"is DPDK 23.11.1, not 25.11"*) echo "ok: the refusal names both versions" ;;
*) echo "FAIL: the refusal: $out"; fail=1 ;;
esac
check "nothing installed" no \
	"$([ -e "$LTS_CACHE/dpdk-25.11/install/.done" ] && echo yes || echo no)"
check "the unpacked source is the tarball's" 23.11.1 \
	"$(cat "$LTS_CACHE/dpdk-25.11/src/VERSION" 2>/dev/null)"
exit $fail
