#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up (packages, driver-SDK headers) and build into ./build.
# Extra arguments go to "meson setup" the first time (e.g. -Dsanitize=true).
#
#   scripts/build.sh --arch arm64   cross build for arm64 (aarch64) into
#                                   ./build-arm64, against Debian's arm64
#                                   packages unpacked into
#                                   the machine's cache (sysroot-arm64.sh)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/machine_cache.sh"
arch=""
if [ "${1:-}" = "--arch" ]; then
	arch=${2:-}
	shift 2 || shift $#
	case $arch in
	arm64|amd64) ;;
	*) echo "build: unknown --arch ${arch} (amd64, arm64)" >&2; exit 2 ;;
	esac
	[ "$arch" = amd64 ] && [ "$(dpkg --print-architecture)" = amd64 ] && arch=""
fi
bash "$top/scripts/setup.sh"
cross=()
if [ "$arch" = arm64 ]; then
	builddir=${BUILDDIR:-$top/build-arm64}
	bash "$top/scripts/sysroot-arm64.sh"
	# The sysroot's path, for the committed cross file (which cannot read
	# the environment): a [constants] file meson reads first.
	mkdir -p "$builddir"
	printf "[constants]\nsysroot = '%s'\n" "$ch39x_cache/sysroot-arm64" \
		> "$builddir/sysroot.ini.new"
	cmp -s "$builddir/sysroot.ini.new" "$builddir/sysroot.ini" ||
		mv "$builddir/sysroot.ini.new" "$builddir/sysroot.ini"
	rm -f "$builddir/sysroot.ini.new"
	cross=(--cross-file "$builddir/sysroot.ini"
	       --cross-file "$top/config/arm64-linux-gnu.ini")
elif [ -n "$arch" ]; then
	echo "build: --arch $arch needs an $arch machine" >&2; exit 2
else
	builddir=${BUILDDIR:-$top/build}
fi
if [ ! -f "$builddir/build.ninja" ]; then
	meson setup "$builddir" "$top" "${cross[@]}" "$@" >/dev/null
fi
ninja -C "$builddir" >/dev/null
echo "build: $builddir/drivers/net/ch39x/librte_net_ch39x.so"
