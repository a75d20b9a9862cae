#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds and tests the PMD against one DPDK LTS release.
#
#   scripts/dpdk-lts.sh 22.11          the system's DPDK (Debian 12's 22.11)
#   scripts/dpdk-lts.sh 23.11|24.11|25.11
#                                      a minimal DPDK of that version, built
#                                      from source into .cache/dpdk-VERSION
#
# The DPDK source comes from one of (first that is set wins):
#   DPDK_SRC=DIR      a DPDK source tree of exactly that version
#   DPDK_GIT=GITDIR   a git repository of DPDK (a bare mirror does): the tag
#                     vVERSION (or DPDK_TAG) is exported with git archive
# Nothing is downloaded here. The DPDK build takes long (tens of minutes on
# two cores) and is cached: a second run only rebuilds the PMD. Not part of
# the default CI for that reason; doc/guides/nics/ch39x.rst records results.
#
# The PMD is then configured in build-lts-VERSION against that DPDK only:
# PKG_CONFIG_PATH names its libdpdk.pc, its driver-SDK headers come with it
# (-Denable_driver_sdk=true), its lib and bin directories come first in
# LD_LIBRARY_PATH and PATH, and the in-process test suites 'unit' and 'pmd'
# run. Set LTS_SUITES to run other suites (e.g. "unit pmd testpmd").
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ver=${1:-}
case "$ver" in
22.11|23.11|24.11|25.11) ;;
*)	echo "usage: $0 22.11|23.11|24.11|25.11" >&2; exit 2 ;;
esac
suites=${LTS_SUITES:-unit pmd}
bdir="$top/build-lts-$ver"

run_pmd_tests() {
	local args=()
	for s in $suites; do args+=(--suite "$s"); done
	ninja -C "$bdir"
	meson test -C "$bdir" --num-processes 1 --print-errorlogs "${args[@]}"
}

if [ "$ver" = 22.11 ]; then
	# The system's DPDK: the driver-SDK headers come from scripts/setup.sh.
	"$top/scripts/setup.sh" >/dev/null
	[ -d "$bdir" ] || meson setup "$bdir" "$top" >/dev/null
	echo "dpdk-lts: DPDK $(pkg-config --modversion libdpdk) (system)"
	run_pmd_tests
	exit 0
fi

cache="$top/.cache/dpdk-$ver"
src=${DPDK_SRC:-$cache/src}
inst="$cache/install"
log="$cache/build.log"
mkdir -p "$cache"

# Only what the PMD, its tests, its apps (hash, lpm) and testpmd use;
# mandatory libraries and drivers (eal, ethdev, bus/pci, bus/vdev,
# mempool/ring, ...) are always built. The driver SDK is installed so that
# no headers of another DPDK version can be mixed in. A change here
# rebuilds the cached DPDK (.done holds the options it was built with).
dpdk_opts=(--prefix="$inst" -Dlibdir=lib -Dbuildtype=release
	-Ddefault_library=shared -Denable_libs=gro,gso,hash,lpm
	-Denable_drivers=net/null,net/ring -Denable_apps=test-pmd
	-Dtests=false -Dexamples= -Denable_docs=false -Denable_driver_sdk=true)
if [ "$(cat "$inst/.done" 2>/dev/null)" != "${dpdk_opts[*]}" ]; then
	if [ -n "${DPDK_SRC:-}" ]; then
		:
	elif [ -n "${DPDK_GIT:-}" ]; then
		tag=${DPDK_TAG:-v$ver}
		if [ ! -f "$src/VERSION" ]; then
			rm -rf "$src" && mkdir -p "$src"
			git --git-dir="$DPDK_GIT" archive "$tag" | tar -x -C "$src"
		fi
	elif [ ! -f "$src/VERSION" ]; then
		echo "dpdk-lts: set DPDK_SRC=<dpdk-$ver source> or DPDK_GIT=<dpdk git dir>" >&2
		exit 2
	fi
	case "$(cat "$src/VERSION")" in
	"$ver"*) ;;
	*)	echo "dpdk-lts: $src is DPDK $(cat "$src/VERSION"), not $ver" >&2
		exit 1 ;;
	esac
	# DPDK's meson runs its Python helpers with meson's interpreter (up to
	# 24.11) or the first python3 on PATH (25.11): make them the same, the
	# system's, which has pyelftools, ahead of any pyenv or venv.
	py=$(sed -n '1s/^#! *//p' "$(command -v meson)")
	py=${py:-/usr/bin/python3}
	"$py" -c 'import elftools' 2>/dev/null || {
		echo "dpdk-lts: DPDK's build needs pyelftools for $py (apt-get install python3-pyelftools)" >&2
		exit 1
	}
	echo "dpdk-lts: building DPDK $(cat "$src/VERSION") into $inst (log: $log)"
	# The build directory is kept: a changed option rebuilds only what
	# it changes.
	reconf=()
	[ -d "$cache/build" ] && reconf=(--reconfigure)
	PATH="$(dirname "$py"):$PATH" meson setup "${reconf[@]}" "$cache/build" "$src" \
		"${dpdk_opts[@]}" >"$log" 2>&1
	ninja -C "$cache/build" -j "${LTS_JOBS:-2}" >>"$log" 2>&1
	meson install -C "$cache/build" >>"$log" 2>&1
	echo "${dpdk_opts[*]}" > "$inst/.done"
	# The PMD's build caches what pkg-config said of the old install.
	rm -rf "$bdir"
fi

pc=$(dirname "$(find "$inst" -name libdpdk.pc | head -n 1)")
export PKG_CONFIG_PATH="$pc"
export LD_LIBRARY_PATH="$inst/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$inst/bin:$PATH"
echo "dpdk-lts: DPDK $(pkg-config --modversion libdpdk) from $inst"
# pmdinfogen of the same release: the markers it reads in the objects
# changed over releases.
[ -d "$bdir" ] || meson setup "$bdir" "$top" \
	-Ddpdk_buildtools_dir="$src/buildtools" >/dev/null
run_pmd_tests
