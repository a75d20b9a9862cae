#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What `meson install` delivers (issue 16, items 1 and 2), installed into a
# temporary DESTDIR:
#   paths     the PMD in the EAL plugin directory, rte_pmd_ch39x.h beside
#             DPDK's headers, rte_net_ch39x.pc beside libdpdk.pc (and it
#             works: an application calling rte_pmd_ch39x_* builds and
#             links with it), the apps in bin, only rte_pmd_ch39x_*
#             exported, and dpdk-pmdinfo.py showing the driver name and its
#             parameter string (ch39x-devargs --params).
#   autoload  dpdk-testpmd, given no -d, probes --vdev net_ch39x0 from the
#             installed plugin directory.
#
# For autoload, EAL only looks in the directory compiled into librte_eal
# (RTE_EAL_PMD_PATH), which a DESTDIR is not. Rather than writing into the
# system's plugin directory (seen by every other DPDK process on the
# machine, and left behind if the test dies), the test makes a private
# mount namespace (unshare -m) in which a copy of that directory, with the
# installed .so added, is bind-mounted over it: only testpmd in that
# namespace sees the PMD, and the mount vanishes with the namespace. Needs
# root (CAP_SYS_ADMIN); skipped with the reason otherwise.
#
# usage: check_install.sh paths|autoload BUILD_DIR PMD_DIR INCDIR PCDIR BINDIR
#        CH39X_DEVARGS PYTHON (one with pyelftools, for dpdk-pmdinfo.py)
# A cross build (tests/meson.build) sets CH39X_CC (its compiler and flags),
# CH39X_SYSROOT, and MESON_EXE_WRAPPER runs its programs.
set -euo pipefail

mode=$1 build=$2 pmd_dir=$3 incdir=$4 pcdir=$5 bindir=$6 devargs_tool=$7 py=$8
fail=0
. "$(dirname "$0")/check.sh"

# A private directory: EAL refuses plugins below a world-writable one.
tmp=$(mktemp -d "${XDG_RUNTIME_DIR:-$HOME}/ch39x-install.XXXXXX")
chmod 700 "$tmp"
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
meson install -C "$build" --no-rebuild --quiet --destdir "$dest" >"$tmp/install.log" 2>&1 || {
	echo "FAIL: meson install --destdir"; cat "$tmp/install.log"; exit 1; }
so=$dest$pmd_dir/librte_net_ch39x.so

if [ "$mode" = paths ]; then
	check '[ -f "$so" ]' "PMD in the EAL plugin directory $pmd_dir"
	check '[ -f "$dest$incdir/rte_pmd_ch39x.h" ]' "rte_pmd_ch39x.h in $incdir"
	check '[ -f "$dest$pcdir/rte_net_ch39x.pc" ]' "rte_net_ch39x.pc in $pcdir"
	for app in ch39x-perf ch39x-cpe ch39x-dial; do
		check '[ -x "$dest$bindir/$app" ]' "$app in $bindir"
	done
	exported=$(nm -D --defined-only "$so" | awk '$2 == "T" {print $3}' | sort -u)
	check '[ -n "$exported" ] && ! echo "$exported" | grep -qv "^rte_pmd_ch39x_.*@@DPDK_"' \
		"only rte_pmd_ch39x_* exported, versioned ($(echo $exported))"

	# An application of the extra API, built with the .pc file alone.
	cat > "$tmp/app.c" <<-'EOF'
	#include <rte_pmd_ch39x.h>
	int main(void) { return rte_pmd_ch39x_sim_set_cable(0xffff, 1) == 0; }
	EOF
	sysroot=${CH39X_SYSROOT:-}
	if [ -n "$sysroot" ]; then
		# Only the sysroot's .pc files (libdpdk's dependencies are
		# beside it there).
		pc_flags=$(PKG_CONFIG_SYSROOT_DIR=$sysroot \
			PKG_CONFIG_PATH="$dest$pcdir" \
			PKG_CONFIG_LIBDIR="$sysroot$pcdir" \
			pkg-config --cflags --libs rte_net_ch39x)
	else
		# The DPDK's own .pc directory (an LTS build's is not the
		# system's), then the system's for libdpdk's dependencies.
		pc_flags=$(PKG_CONFIG_SYSROOT_DIR= \
			PKG_CONFIG_PATH="$dest$pcdir:$pcdir" \
			pkg-config --cflags --libs rte_net_ch39x)
	fi
	# The .pc names the final locations; point them into the DESTDIR.
	pc_flags=${pc_flags//-L$sysroot$pmd_dir/-L$dest$pmd_dir}
	check '${CH39X_CC:-cc} "$tmp/app.c" -I"$dest$incdir" $pc_flags -o "$tmp/app" 2>"$tmp/cc.log"' \
		"an rte_pmd_ch39x.h user builds and links with pkg-config rte_net_ch39x"
	[ -s "$tmp/cc.log" ] && cat "$tmp/cc.log"

	# PMD_INFO_STRING, read by DPDK's own tool. It asks ldd for the
	# libraries; the build machine's cannot read a cross-built ELF, so
	# there ldd is the sysroot's dynamic loader (--list) under the wrapper.
	pmdinfo_path=$PATH
	if [ -n "$sysroot" ]; then
		mkdir -p "$tmp/bin"
		printf '#!/bin/sh\nexec %s %q --list "$@"\n' "$MESON_EXE_WRAPPER" \
			"$(ls "$sysroot"/usr/lib/ld-linux-*.so.* | head -n 1)" > "$tmp/bin/ldd"
		chmod 755 "$tmp/bin/ldd"
		pmdinfo_path=$tmp/bin:$PATH
	fi
	info=$(PATH=$pmdinfo_path "$py" "$(command -v dpdk-pmdinfo.py)" "$so")
	params=$(${MESON_EXE_WRAPPER:-} "$devargs_tool" --params)
	check 'python3 -c "import json,sys; d=json.loads(sys.argv[1]); sys.exit(not (len(d) == 1 and d[0][\"name\"] == \"net_ch39x\" and d[0][\"params\"] == sys.argv[2]))" "$info" "$params"' \
		"dpdk-pmdinfo.py shows net_ch39x and its parameter string"
	[ $fail -eq 0 ] || echo "$info"
	exit $fail
fi

# autoload
if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	echo "SKIP: needs root and unshare -m for a private mount of $pmd_dir"
	exit 77
fi
testpmd=$(command -v dpdk-testpmd)
stage=$tmp/pmds
mkdir -p "$stage"
[ -d "$pmd_dir" ] && cp -a "$pmd_dir/." "$stage/"
cp "$so" "$stage/"
unshare -m --propagation private bash -c '
	set -e
	mkdir -p "$1"
	mount --bind "$2" "$1"
	{ sleep 2; echo "show port info 0"; echo quit; } |
		timeout 60 "$3" --no-huge --no-pci -m 256 --file-prefix "$4" \
			--vdev net_ch39x0,sim=ch398 -- -i --total-num-mbufs=2048
' autoload "$pmd_dir" "$stage" "$testpmd" "ch39x_al_$$" >"$tmp/testpmd.log" 2>&1 || true
check 'grep -q "Driver name: net_ch39x" "$tmp/testpmd.log"' \
	"dpdk-testpmd --vdev net_ch39x0 (no -d) probes the installed PMD"
[ $fail -eq 0 ] || tail -30 "$tmp/testpmd.log"
exit $fail
