#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The arm64 Debian packages (scripts/deb.sh --arch arm64, cross-built),
# checked without an arm64 machine:
#   arch      dpkg-deb -I: Architecture arm64, the same four packages and
#             the same files as the amd64 build (triplet aside)
#   elf       readelf -h: every ELF file in them (and in the -dbgsym
#             packages) is AArch64
#   depends   every library an ELF file needs (NEEDED) names, through the
#             shlibs of Debian's arm64 package that ships it (the sysroot's),
#             a package in that package's Depends
#   paths     nothing refers to the build machine: no sysroot or build
#             path in the .pc file, no RPATH/RUNPATH in the binaries
#
# usage: tests/deb_arm64.sh [DEBDIR [AMD64_DEBDIR]]
#        (default build-deb/arm64 and build-deb/amd64; the amd64 comparison
#        is left out when that directory holds no packages)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
debs=${1:-$top/build-deb/arm64}
amd=${2:-$top/build-deb/amd64}
. "$top/scripts/machine_cache.sh"
apt_debs=$ch39x_cache/apt-arm64/debs
stamp=$ch39x_cache/sysroot-arm64/.ch39x-sysroot
pkgs=(librte-net-ch39x librte-net-ch39x-dev ch39x-tools ch39x-cpe)
fail=0
. "$(dirname "$0")/check.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# soname -> package, from the shlibs of the sysroot's arm64 packages
# ("libname version package (>= v)": libname.so.version).
[ -f "$stamp" ] || { echo "FAIL: no $stamp (scripts/sysroot-arm64.sh)"; exit 1; }
while IFS='=' read -r name v; do
	name=${name%%:*}
	for deb in "$apt_debs/${name}_"*_arm64.deb; do
		[ -f "$deb" ] || continue
		dpkg-deb -I "$deb" shlibs 2>/dev/null | grep -v '^udeb:' |
			awk '{ print $1 ".so." $2, $3 }' || true
	done
done < "$stamp" | sort -u > "$tmp/soname2pkg"
[ -s "$tmp/soname2pkg" ] || { echo "FAIL: no shlibs in $apt_debs"; exit 1; }

for p in "${pkgs[@]}"; do
	deb=$(ls "$debs/${p}_"*_arm64.deb 2>/dev/null | head -n 1 || true)
	if [ -z "$deb" ]; then
		echo "FAIL: no ${p}_*_arm64.deb in $debs"; fail=1; continue
	fi
	a=$(dpkg-deb -f "$deb" Architecture)
	dep=$(dpkg-deb -f "$deb" Depends)
	check '[ "$a" = arm64 ]' "$p: Architecture $a"
	x=$tmp/$p
	mkdir -p "$x"
	dpkg-deb -x "$deb" "$x"
	# Files and links alike: the amd64 side lists every non-directory.
	(cd "$x" && find . ! -type d | sed 's|^\.||' | sort) > "$tmp/$p.files"
	a64=$(ls "$amd/${p}_"*_amd64.deb 2>/dev/null | head -n 1 || true)
	if [ -n "$a64" ]; then
		dpkg-deb -c "$a64" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' |
			sed 's/x86_64-linux-gnu/aarch64-linux-gnu/' | sort > "$tmp/$p.amd64"
		check 'cmp -s "$tmp/$p.files" "$tmp/$p.amd64"' \
			"$p: the same files as the amd64 package"
		cmp -s "$tmp/$p.files" "$tmp/$p.amd64" || diff "$tmp/$p.amd64" "$tmp/$p.files"
	fi
	nelf=0
	while read -r f; do
		[ -L "$x$f" ] && continue
		head -c 4 "$x$f" | grep -q 'ELF' || continue
		nelf=$((nelf + 1))
		m=$(readelf -h "$x$f" | sed -n 's/^ *Machine: *//p')
		check '[ "$m" = AArch64 ]' "$p: $f is $m"
		check '! readelf -d "$x$f" | grep -qE "RPATH|RUNPATH"' "$p: $f has no RPATH/RUNPATH"
		for so in $(readelf -d "$x$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			# The dynamic loader comes with libc6 (its shlibs name libc).
			[ "$so" = ld-linux-aarch64.so.1 ] && continue
			need=$(awk -v s="$so" '$1 == s { print $2; exit }' "$tmp/soname2pkg")
			check '[ -n "$need" ] && echo ", $dep," | grep -qE "[ ,]$need( \\(|,)"' \
				"$p: $f needs $so: ${need:-no arm64 package ships it} in Depends"
		done
	done < "$tmp/$p.files"
	case $p in
	librte-net-ch39x|ch39x-tools|ch39x-cpe)
		check '[ $nelf -ge 1 ]' "$p: $nelf ELF file(s)" ;;
	esac
done
# The detached debug symbols are arm64 ELF too.
for deb in "$debs"/*-dbgsym_*_arm64.deb; do
	[ -f "$deb" ] || continue
	x=$tmp/dbg/$(basename "$deb")
	mkdir -p "$x"
	dpkg-deb -x "$deb" "$x"
	n=0 bad=""
	while read -r f; do
		head -c 4 "$f" | grep -q ELF || continue
		n=$((n + 1))
		[ "$(readelf -h "$f" 2>/dev/null | sed -n 's/^ *Machine: *//p')" = AArch64 ] || bad="$bad $f"
	done < <(find "$x" -type f)
	check '[ $n -ge 1 ] && [ -z "$bad" ]' "$(basename "$deb"): $n ELF file(s), all AArch64$bad"
done
pc=$tmp/librte-net-ch39x-dev/usr/lib/aarch64-linux-gnu/pkgconfig/rte_net_ch39x.pc
check '[ -f "$pc" ] && grep -q "^pmd_dir=/usr/lib/aarch64-linux-gnu/dpdk/pmds-23.0$" "$pc" && ! grep -qE "sysroot|/work|/build|/home|\.cache" "$pc"' \
	"rte_net_ch39x.pc names /usr/lib/aarch64-linux-gnu/dpdk/pmds-23.0 and no build-machine path"
check '[ -f "$tmp/librte-net-ch39x/usr/lib/aarch64-linux-gnu/dpdk/pmds-23.0/librte_net_ch39x.so" ]' \
	"the PMD in arm64 DPDK's plugin directory"
exit $fail
