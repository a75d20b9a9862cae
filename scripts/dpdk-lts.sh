#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds and tests the PMD against one DPDK LTS release.
#
#   scripts/dpdk-lts.sh 22.11          the system's DPDK (Debian 12's 22.11)
#   scripts/dpdk-lts.sh 23.11|24.11|25.11
#                                      a minimal DPDK of that version, built
#                                      from source into the cache below
#
# The DPDK source comes from the first of these that gives one:
#   DPDK_SRC=DIR      a DPDK source tree of exactly that version
#   DPDK_TARBALL=FILE a release tarball of DPDK (dpdk-VERSION.N.tar.xz, as
#                     DPDK publishes them: one top folder, any name)
#   DPDK_TARBALLS=DIR a folder of such tarballs: the newest
#                     dpdk-VERSION.N.tar.xz (or dpdk-VERSION.tar.xz) of the
#                     wanted release is taken; .ci/run points it at
#                     ../shared/dpdk when that folder exists
#   DPDK_GIT=GITDIR   a git repository of DPDK (a bare mirror does): the
#                     newest tag vVERSION[.N] (or DPDK_TAG) is exported
#   Debian's archive  `apt-get source dpdk` from the suite that carries the
#                     release (24.11: trixie; 25.11: sid, experimental),
#                     through a private deb-src list derived from the
#                     system's own apt sources (no mirror is named here);
#                     23.11 is in no Debian suite
# With none of them the script exits 3 and says which it tried: scripts/
# test.sh reports that as a skip with its reason, anything else as failure.
#
# The minimal DPDK build takes a few minutes on two cores and is cached
# per machine in $LTS_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/
# ch39x-lts/dpdk-VERSION), so that every clone on the machine, CI's fresh
# ones included, builds the PMD against it without rebuilding DPDK.
# install/.done records the build options, install/.source the source it
# was built from ("tarball dpdk-24.11.6.tar.xz sha256 ...", "git v24.11.6",
# "tree DIR 24.11.6", "debian 24.11.8-0+deb13u1"); a named source
# (DPDK_SRC, DPDK_TARBALL(S), DPDK_GIT) other than the recorded one, or
# changed options, rebuild it.
#
# The PMD is then configured in build-lts-VERSION against that DPDK only:
# PKG_CONFIG_PATH names its libdpdk.pc, its driver-SDK headers come with it
# (-Denable_driver_sdk=true), its lib and bin directories come first in
# LD_LIBRARY_PATH and PATH, and the in-process test suites 'unit' and 'pmd'
# run. Set LTS_SUITES to run other suites (e.g. "unit pmd testpmd"), and
# LTS_PMD_JOBS to limit the PMD's build to that many compile jobs (scripts/
# test.sh's leg beside its main pass: one, to leave that pass a core).
#
#   scripts/dpdk-lts.sh --source VERSION
#                     prints the source a build would use now (the line
#                     install/.source would record; "cached: ..." when the
#                     cache is used as it is; "debian" when Debian's
#                     archive would be asked) and builds nothing
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
only_source=0
if [ "${1:-}" = --source ]; then
	only_source=1
	shift
fi
ver=${1:-}
case "$ver" in
22.11|23.11|24.11|25.11) ;;
*)	echo "usage: $0 [--source] 22.11|23.11|24.11|25.11" >&2; exit 2 ;;
esac
suites=${LTS_SUITES:-unit pmd}
bdir="$top/build-lts-$ver"

run_pmd_tests() {
	local args=()
	for s in $suites; do args+=(--suite "$s"); done
	ninja -C "$bdir" ${LTS_PMD_JOBS:+-j "$LTS_PMD_JOBS"}
	meson test -C "$bdir" --num-processes 1 --print-errorlogs \
		--timeout-multiplier "${TIMEOUT_MULTIPLIER:-1}" "${args[@]}"
}

if [ "$ver" = 22.11 ]; then
	if [ "$only_source" = 1 ]; then
		echo "system $(pkg-config --modversion libdpdk)"
		exit 0
	fi
	# The system's DPDK: the driver-SDK headers come from scripts/setup.sh.
	"$top/scripts/setup.sh" >/dev/null
	[ -d "$bdir" ] || meson setup "$bdir" "$top" >/dev/null
	echo "dpdk-lts: DPDK $(pkg-config --modversion libdpdk) (system)"
	run_pmd_tests
	exit 0
fi

lts_root=${LTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ch39x-lts}
cache="$lts_root/dpdk-$ver"
src=${DPDK_SRC:-$cache/src}
inst="$cache/install"
log="$cache/build.log"
mkdir -p "$cache"

# Only what the PMD, its tests (net/bonding for pmd_bond), its apps (hash,
# lpm, ip_frag, sched; graph and node with what they need: pcapng,
# cryptodev, rcu, fib, rib) and testpmd use; mandatory libraries and drivers (eal,
# ethdev, bus/pci, bus/vdev, mempool/ring, ...) are always built. The
# driver SDK is installed so that no headers of another DPDK version can be
# mixed in. A change here rebuilds the cached DPDK (.done holds the options
# it was built with).
dpdk_opts=(--prefix="$inst" -Dlibdir=lib -Dbuildtype=release
	-Ddefault_library=shared -Denable_libs=gro,gso,hash,lpm,ip_frag,sched,graph,node,pcapng,cryptodev,rcu,fib,rib
	-Denable_drivers=net/null,net/ring,net/bonding -Denable_apps=test-pmd
	-Dtests=false -Dexamples= -Denable_docs=false -Denable_driver_sdk=true)

# The newest tag of the release in a DPDK git repository: vVER.N, else vVER.
git_tag() {
	git --git-dir="$DPDK_GIT" tag -l "v$ver" "v$ver.*" |
		grep -E "^v$ver(\.[0-9]+)?\$" | sort -V | tail -n 1
}

# The release's source from Debian's archive into $src. Returns 1 when no
# suite lists it or the archive does not serve its files.
debian_source() {
	local suites work f v
	case "$ver" in
	24.11) suites="trixie" ;;
	25.11) suites="sid experimental" ;;
	*) echo "dpdk-lts: no Debian suite carries DPDK $ver" >&2; return 1 ;;
	esac
	work=$(mktemp -d)
	mkdir -p "$work/sources.list.d" "$work/lists/partial"
	: > "$work/sources.list"
	# The system's first Debian entry, as deb-src of those suites.
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; ORS = "\n\n" } /Components:.*main/ &&
		     !/-security/ { print; exit }' "$f" |
			sed -e 's/^Types:.*/Types: deb-src/' \
			    -e "s/^Suites:.*/Suites: $suites/" \
			> "$work/sources.list.d/dpdk-lts.sources"
		[ -s "$work/sources.list.d/dpdk-lts.sources" ] && break
	done
	if [ ! -s "$work/sources.list.d/dpdk-lts.sources" ] &&
	   [ -f /etc/apt/sources.list ]; then
		awk '$1 == "deb" && $0 !~ /security/ { print; exit }' \
			/etc/apt/sources.list | while read -r _ uri _ comp; do
			for f in $suites; do
				echo "deb-src $uri $f $comp"
			done
		done > "$work/sources.list"
	fi
	local aptopts=(-o APT::Sandbox::User=root
		-o "Dir::Etc::SourceList=$work/sources.list"
		-o "Dir::Etc::SourceParts=$work/sources.list.d"
		-o "Dir::State::Lists=$work/lists")
	if ! apt-get "${aptopts[@]}" update -qq >"$work/apt.log" 2>&1; then
		echo "dpdk-lts: apt-get update of $suites failed (log: $work/apt.log)" >&2
		return 1
	fi
	# Newest first: a suite's index may list a version whose files the
	# archive no longer (or not yet) serves.
	for v in $(apt-cache "${aptopts[@]}" showsrc dpdk 2>/dev/null |
		   sed -n 's/^Version: //p' | grep "^$ver\." | sort -rV | uniq); do
		rm -f "$work"/dpdk_*
		if (cd "$work" && apt-get "${aptopts[@]}" source --download-only \
			-qq "dpdk=$v") >>"$work/apt.log" 2>&1; then
			rm -rf "$src"
			(cd "$work" && dpkg-source --no-check -x dpdk_*.dsc "$src") \
				>>"$work/apt.log" 2>&1 || return 1
			echo "dpdk-lts: DPDK source $v from Debian's $suites"
			debian_version=$v
			rm -rf "$work"
			return 0
		fi
		echo "dpdk-lts: Debian's $suites list dpdk $v, but the archive did not serve its files" >&2
	done
	echo "dpdk-lts: no DPDK $ver source from Debian's $suites (log: $work/apt.log)" >&2
	return 1
}

# The newest tarball of the release in $DPDK_TARBALLS: dpdk-VER.N.tar.xz
# (or dpdk-VER.tar.xz), by version, not by name order.
newest_tarball() {
	local f n
	for f in "$DPDK_TARBALLS"/dpdk-"$ver".tar.xz "$DPDK_TARBALLS"/dpdk-"$ver".*.tar.xz; do
		[ -f "$f" ] || continue
		n=${f##*/}; n=${n#dpdk-"$ver"}; n=${n%.tar.xz}; n=${n#.}
		[ -z "$n" ] && n=0
		if [[ $n =~ ^[0-9]+$ ]]; then printf '%s\t%s\n' "$n" "$f"; fi
	done | sort -n -k1,1 | tail -n 1 | cut -f2-
}

# The named source (DPDK_SRC, DPDK_TARBALL, DPDK_TARBALLS, DPDK_GIT) as the
# line that install/.source records; empty when none is named (then the
# cache, else Debian's archive).
tarball=
if [ -n "${DPDK_SRC:-}" ]; then
	want="tree $DPDK_SRC $(cat "$DPDK_SRC/VERSION" 2>/dev/null)"
elif [ -n "${DPDK_TARBALL:-}" ]; then
	[ -f "$DPDK_TARBALL" ] || { echo "dpdk-lts: DPDK_TARBALL=$DPDK_TARBALL: no such file" >&2; exit 1; }
	tarball=$DPDK_TARBALL
elif [ -n "${DPDK_TARBALLS:-}" ] && tarball=$(newest_tarball) && [ -n "$tarball" ]; then
	:
elif [ -n "${DPDK_GIT:-}" ]; then
	tag=${DPDK_TAG:-$(git_tag)}
	[ -n "$tag" ] || { echo "dpdk-lts: no tag v$ver in $DPDK_GIT" >&2; exit 1; }
	want="git $tag"
else
	[ -n "${DPDK_TARBALLS:-}" ] &&
		echo "dpdk-lts: no dpdk-$ver.N.tar.xz in DPDK_TARBALLS=$DPDK_TARBALLS" >&2
	want=
fi
[ -n "$tarball" ] &&
	want="tarball ${tarball##*/} sha256 $(sha256sum < "$tarball" | cut -d' ' -f1)"
have=$(cat "$inst/.source" 2>/dev/null || true)
if [ "$only_source" = 1 ]; then
	if [ -n "$want" ]; then
		echo "$want"
	elif [ "$(cat "$inst/.done" 2>/dev/null)" = "${dpdk_opts[*]}" ]; then
		echo "cached: ${have:-unrecorded}"
	elif [ -f "$src/VERSION" ]; then
		echo "cached source: ${have:-unrecorded}"
	else
		echo debian
	fi
	exit 0
fi

if [ -n "$want" ] && [ "$want" != "$have" ] ||
   [ "$(cat "$inst/.done" 2>/dev/null)" != "${dpdk_opts[*]}" ]; then
	# Another source: nothing of the old build may stay (a tarball's
	# files keep their release dates, older than the old objects).
	if [ -n "$want" ] && [ "$want" != "$have" ]; then
		rm -rf "$cache/build" "$inst"
		[ -n "${DPDK_SRC:-}" ] || rm -rf "$src"
	fi
	if [ -n "${DPDK_SRC:-}" ]; then
		:
	elif [ -n "$tarball" ]; then
		mkdir -p "$src"
		tar -xJf "$tarball" -C "$src" --strip-components=1 ||
			{ echo "dpdk-lts: cannot unpack $tarball" >&2; exit 1; }
		echo "dpdk-lts: DPDK source from $tarball"
	elif [ -n "${DPDK_GIT:-}" ]; then
		if [ "$(cat "$src/VERSION" 2>/dev/null)" != "${tag#v}" ]; then
			rm -rf "$src" && mkdir -p "$src"
			git --git-dir="$DPDK_GIT" archive "$tag" | tar -x -C "$src"
		fi
	elif [ -f "$src/VERSION" ]; then
		want=$have
	elif debian_source; then
		want="debian $debian_version"
	else
		echo "dpdk-lts: no DPDK $ver source: set DPDK_TARBALLS=<folder of dpdk-$ver.N.tar.xz>, DPDK_TARBALL=<file>, DPDK_SRC=<dpdk-$ver source> or DPDK_GIT=<dpdk git dir>" >&2
		exit 3
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
	echo "$want" > "$inst/.source"
fi

pc=$(dirname "$(find "$inst" -name libdpdk.pc | head -n 1)")
export PKG_CONFIG_PATH="$pc"
export LD_LIBRARY_PATH="$inst/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$inst/bin:$PATH"
echo "dpdk-lts: DPDK $(pkg-config --modversion libdpdk) from $inst, built from: $(cat "$inst/.source" 2>/dev/null || echo unrecorded)"
# pmdinfogen of the same release: the markers it reads in the objects
# changed over releases.
# The PMD's build caches what pkg-config said of the DPDK install: a DPDK
# rebuilt since (by this clone or another) means a new build directory.
stamp="$(pkg-config --modversion libdpdk) $(cat "$inst/.done") $(cat "$inst/.source" 2>/dev/null)"
if [ "$(cat "$bdir/.lts-dpdk" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$bdir"
	meson setup "$bdir" "$top" -Ddpdk_buildtools_dir="$src/buildtools" >/dev/null
	echo "$stamp" > "$bdir/.lts-dpdk"
fi
run_pmd_tests
