#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian packages of ch39x, built with Debian's tools (dpkg-buildpackage,
# debhelper's meson build system), then checked by lintian.
#
#   scripts/deb.sh [--arch amd64|arm64]   (default: this machine's)
#
# Writes librte-net-ch39x, librte-net-ch39x-dev, ch39x-tools and ch39x-cpe
# (.deb, .changes, .buildinfo) and lintian.txt to build-deb/ARCH/ (DEBOUT=
# overrides it). It first runs scripts/setup.sh, which installs the build
# dependencies and puts the DPDK driver-SDK headers and pmdinfogen into
# .cache/dpdk-sdk: the package build itself uses no network. The version
# is meson's project version; debian/changelog is generated here from it
# (and git's last commit), never written by hand.
# Exits non-zero if the build fails or lintian reports an error.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
host_arch=$(dpkg --print-architecture)
arch=$host_arch
while [ $# -gt 0 ]; do
	case $1 in
	--arch) arch=${2:-}; shift 2 ;;
	--arch=*) arch=${1#--arch=}; shift ;;
	-h|--help) sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "deb: unknown argument $1 (--arch amd64|arm64)" >&2; exit 2 ;;
	esac
done
case $arch in
amd64|arm64) ;;
*) echo "deb: --arch $arch: allowed values are amd64, arm64" >&2; exit 2 ;;
esac

bash "$top/scripts/setup.sh" --deb

ver=$(meson introspect --projectinfo "$top/meson.build" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
maint=$(sed -n 's/^Maintainer: //p' "$top/debian/control")
if git -C "$top" rev-parse --verify -q HEAD >/dev/null; then
	commit=$(git -C "$top" rev-parse --short HEAD)
	date=$(git -C "$top" log -1 --format=%cD)
	git -C "$top" diff --quiet HEAD || commit="$commit with local changes"
else
	commit="a tree without git"
	date=$(date -R)
fi
cat > "$top/debian/changelog" <<EOC
ch39x ($ver) bookworm; urgency=medium

  * ch39x $ver, git $commit (made by scripts/deb.sh).

 -- $maint  $date
EOC

out=${DEBOUT:-$top/build-deb/$arch}
rm -rf "$out"
src=$out/src/ch39x-$ver
mkdir -p "$src"
# The tree as git sees it (committed or not, without ignored files) plus
# the driver-SDK cache; dpkg-buildpackage writes its results next to it.
(cd "$top" && { git ls-files -z --cached --others --exclude-standard 2>/dev/null ||
		find . -path ./.cache -prune -o -path './build*' -prune -o -type f -print0; } |
	xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
	tar -cf - --null -T - .cache/dpdk-sdk debian/changelog) | tar -xf - -C "$src"

build_args=(-us -uc -b)
if [ "$arch" != "$host_arch" ]; then
	# Cross: Debian's libdpdk-dev:$arch cannot be installed beside the
	# $host_arch one, so its build dependencies are not installed but
	# unpacked into a sysroot (scripts/sysroot-$arch.sh), which the build
	# gets in CH39X_SYSROOT; hence -d (no build-dependency check), and no
	# tests (nocheck: they would run under emulation; scripts/test.sh has
	# the emulated suites). The shlibs of the sysroot's packages, which
	# dpkg-shlibdeps cannot find in this machine's dpkg database, go into
	# debian/shlibs.local.
	bash "$top/scripts/sysroot-$arch.sh"
	. "$top/scripts/machine_cache.sh"
	sysroot=$ch39x_cache/sysroot-$arch
	export CH39X_SYSROOT=$sysroot DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-}"
	while IFS='=' read -r name v; do
		name=${name%%:*}
		for deb in "$ch39x_cache/apt-$arch/debs/${name}_"*"_$arch.deb"; do
			[ -f "$deb" ] || continue
			dpkg-deb -I "$deb" shlibs 2>/dev/null | grep -v '^udeb:' || true
		done
	done < "$sysroot/.ch39x-sysroot" | sort -u > "$src/debian/shlibs.local"
	[ -s "$src/debian/shlibs.local" ] ||
		{ echo "deb: no shlibs in $ch39x_cache/apt-$arch/debs" >&2; exit 1; }
	build_args+=(-a "$arch" -Pcross,nocheck -d)
fi
echo "deb: dpkg-buildpackage ${build_args[*]} (log: $out/build.log)"
if ! (cd "$src" && dpkg-buildpackage "${build_args[@]}") >"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	echo "deb: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
fi
mv "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out/"
rm -rf "$out/src"
changes=$(ls "$out"/*.changes)
lintian --profile debian --info --display-info "$changes" > "$out/lintian.txt" 2>&1 || true
ls -1 "$out"/*.deb
echo "deb: lintian ($out/lintian.txt):"
sed 's/^/  /' "$out/lintian.txt"
if grep -q '^E: ' "$out/lintian.txt"; then
	echo "deb: lintian reports errors" >&2
	exit 1
fi
