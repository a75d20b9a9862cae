#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Makes the arm64 (aarch64) sysroot that the cross build links against and
# that qemu-aarch64 runs the tests in: Debian 12's own arm64 packages of
# DPDK 22.11 (libdpdk-dev and every library it depends on), libusb-1.0 and
# libpcap, with glibc, unpacked into sysroot-arm64 of the machine's cache
# (scripts/machine_cache.sh: ~/.cache/ch39x unless CH39X_CACHE says). Installs
# the cross compiler and qemu-user-static. Idempotent: does nothing when the
# sysroot holds the packages the current apt lists name; one run at a time
# per machine (a lock beside it).
#
#   scripts/sysroot-arm64.sh     (scripts/build.sh --arch arm64 calls it)
#
# Debian's libdpdk-dev:arm64 cannot be installed beside the amd64 one (the
# headers are not Multi-Arch: same), so nothing is installed into the
# host's dpkg: a private apt state (its own lists, an empty dpkg status,
# APT::Architectures=arm64) resolves the whole dependency closure and
# downloads it, and dpkg -x unpacks each package.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/machine_cache.sh"
sysroot="$ch39x_cache/sysroot-arm64"
apt_dir="$ch39x_cache/apt-arm64"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
case ${1:-} in
-h|--help) sed -n '3,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "sysroot-arm64: unknown argument $1 (--help)" >&2; exit 2 ;;
esac

# The cross compiler and binutils; qemu-aarch64-static runs the tests.
host_pkgs=(gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-user-static)
missing=()
for p in "${host_pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "sysroot-arm64: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq -o DPkg::Lock::Timeout=600 \
		--no-install-recommends "${missing[@]}" >/dev/null
fi

machine_cache_lock sysroot-arm64

# What the build and the tests need, in the amd64 version the driver-SDK
# headers were taken from (the same DPDK source for both architectures).
ver=$(dpkg-query -W -f='${Version}' libdpdk-dev)
want=("libdpdk-dev=$ver" libusb-1.0-0-dev libpcap-dev)

mkdir -p "$apt_dir/lists/partial" "$apt_dir/debs/partial" "$apt_dir/etc"
: > "$apt_dir/status"
# The system's own sources (no mirror named here), read for arm64 only.
aptopts=(-o APT::Sandbox::User=root
	 -o APT::Architecture=arm64 -o APT::Architectures::=arm64
	 -o "Dir::State::Lists=$apt_dir/lists"
	 -o "Dir::State::status=$apt_dir/status"
	 -o "Dir::Cache=$apt_dir" -o "Dir::Cache::archives=$apt_dir/debs"
	 -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
	 -o APT::Install-Recommends=false -o Debug::NoLocking=true)
stamp="$sysroot/.ch39x-sysroot"
# The same lists as the host's apt, at most a day old.
if [ -z "$(find "$apt_dir/lists" -maxdepth 1 -name '*_Packages*' -mtime -1 2>/dev/null)" ]; then
	apt-get "${aptopts[@]}" update -qq
fi
# The closure, as apt resolves it against an empty system.
plan=$(apt-get "${aptopts[@]}" install -s "${want[@]}" |
	awk '$1 == "Inst" { v = $3; gsub(/[()]/, "", v); print $2 "=" v }' | sort)
if [ -z "$plan" ]; then
	echo "sysroot-arm64: error: apt found no arm64 packages for ${want[*]}" >&2
	exit 1
fi
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$plan" ]; then
	echo "sysroot-arm64: $sysroot is up to date ($(wc -l <<<"$plan") packages)"
	exit 0
fi
echo "sysroot-arm64: downloading $(wc -l <<<"$plan") arm64 packages"
apt-get "${aptopts[@]}" install -y -qq --download-only "${want[@]}" >/dev/null

rm -rf "$sysroot"
mkdir -p "$sysroot"
while IFS='=' read -r name v; do
	n=${name%%:*}
	deb=$(ls "$apt_dir/debs/${n}_"*"_arm64.deb" "$apt_dir/debs/${n}_"*"_all.deb" 2>/dev/null |
		head -n 1 || true)
	[ -n "$deb" ] || { echo "sysroot-arm64: error: no .deb for $name $v" >&2; exit 1; }
	dpkg-deb -x "$deb" "$sysroot"
done <<<"$plan"

# Debian 12 is merged-/usr (/lib is a link to usr/lib) while its packages
# still ship files under /lib: merge them as usrmerge does on a system.
for d in lib bin sbin; do
	if [ -d "$sysroot/$d" ] && [ ! -L "$sysroot/$d" ]; then
		mkdir -p "$sysroot/usr/$d"
		cp -a "$sysroot/$d/." "$sysroot/usr/$d/"
		rm -rf "${sysroot:?}/$d"
	fi
	[ -e "$sysroot/$d" ] || ln -s "usr/$d" "$sysroot/$d"
done
# Absolute symbolic links (libfoo.so -> /lib/aarch64-linux-gnu/libfoo.so.1)
# would point into the host: make them relative to the sysroot.
find "$sysroot" -type l -lname '/*' -print0 |
while IFS= read -r -d '' l; do
	t=$(readlink "$l")
	ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$sysroot$t")" "$l"
done
# Only libraries, headers and pkg-config files are used: meson test puts
# the sysroot's bin directories first in the tests' PATH, where its arm64
# programs (pkg-config, perl, pidof, ...) would shadow the host's.
rm -rf "${sysroot:?}/usr/bin" "$sysroot/usr/sbin" "$sysroot/usr/games" \
	"$sysroot/usr/libexec"
for f in usr/lib/aarch64-linux-gnu/libc.so.6 usr/lib/ld-linux-aarch64.so.1 \
	 usr/lib/aarch64-linux-gnu/pkgconfig/libdpdk.pc; do
	[ -e "$sysroot/$f" ] || { echo "sysroot-arm64: error: $f missing" >&2; exit 1; }
done
echo "$plan" > "$stamp"
echo "sysroot-arm64: $(wc -l <<<"$plan") arm64 packages of Debian in $sysroot"
