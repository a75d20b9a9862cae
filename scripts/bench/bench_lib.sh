# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# Sourced by the scripts of scripts/bench: their common preamble.
#
# Sets, each overridable from the environment:
#   top      the repository
#   build    the build directory (BUILDDIR, default $top/build)
#   so       the PMD (PMD_SO, default the build's librte_net_ch39x.so)
#   app      ch39x-perf (PERF_APP, default the build's)
#   testpmd  dpdk-testpmd (TESTPMD), dpdk_test: dpdk-test (DPDK_TEST)
# Functions:
#   bench_build [FILE...]  build (scripts/build.sh, into $build) unless
#                          every FILE is there; no FILE: always
#   bench_gnuplot          install gnuplot-nox when gnuplot is missing
#   bench_priv TAG         $priv: a private directory ch39x-TAG.XXXXXX
#                          (mode 700) under $XDG_RUNTIME_DIR or $HOME,
#                          removed at exit
#   bench_copy_pmd         copy $so to $priv/pmd.so: EAL's -d loads it from
#                          there, not from a directory others can write
#                          (a build tree under /tmp, say)
#   bench_at_exit CMD      run CMD (a string for eval) at exit, before
#                          $priv is removed
#   bench_eal MEM NAME     set the array eal to the EAL options every run
#                          shares: no hugepages, no PCI, MEM MB, and a file
#                          prefix ch39x_NAME_<pid> of this script's own
#   bench_cpe_gen ID       set the array cpe_gen to ch39x-cpe's arguments of
#                          the generator set-up (EAL's and the router's but
#                          --file-prefix, --duration and what is measured):
#                          four simulated CH398s at sim_rate=unlimited, the
#                          LAN and WAN ports cabled (wire=pair, names from
#                          ID) to the ports of --bench-gen 2,3,256,64 on a
#                          second lcore, busy polling
#   bench_cpe_gen_pppoe TAP  set the array pargs to cpe_gen's arguments
#                          with the WAN a PPPoE session (--wan 1=pppoe, no
#                          route or neighbour) on the TAP named TAP
#
# BENCH_HUGE=1 (bench_cpe_gen): the router's memory in 2 MB hugepages, as
# on a CPE, instead of --no-huge's 4 KB pages (whose TLB misses weigh on
# whatever touches cold mbufs): hugetlbfs mounted on $priv/huge and
# vm.nr_hugepages raised to at least 600, both undone at exit. Root only.

# The names are read by the scripts that source this.
# shellcheck disable=SC2034
{
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILDDIR:-$top/build}
so=${PMD_SO:-$build/drivers/net/ch39x/librte_net_ch39x.so}
app=${PERF_APP:-$build/app/ch39x-perf/ch39x-perf}
testpmd=${TESTPMD:-dpdk-testpmd}
dpdk_test=${DPDK_TEST:-dpdk-test}
priv=
eal=()
}
_bench_exit_cmds=()

bench_build() {
	local f

	for f in "$@"; do
		[ -f "$f" ] || { set --; break; }
	done
	if [ $# -eq 0 ]; then
		BUILDDIR=$build bash "$top/scripts/build.sh" >/dev/null
	fi
}

bench_gnuplot() {
	command -v gnuplot >/dev/null ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			gnuplot-nox >/dev/null
}

_bench_exit() {
	local c

	for c in "${_bench_exit_cmds[@]}"; do
		eval "$c" || true
	done
	[ -z "$priv" ] || rm -rf "$priv"
}
trap _bench_exit EXIT

bench_at_exit() {
	_bench_exit_cmds+=("$1")
}

bench_priv() {
	priv=$(mktemp -d "${XDG_RUNTIME_DIR:-$HOME}/ch39x-$1.XXXXXX")
	chmod 700 "$priv"
}

bench_copy_pmd() {
	cp "$so" "$priv/pmd.so"
}

# _bench_huge: the hugepage mount and pages of BENCH_HUGE=1 (not in a
# subshell: it registers their undoing); sets mem to the EAL options.
_bench_huge() {
	local pages

	pages=$(cat /proc/sys/vm/nr_hugepages)
	mkdir -p "$priv/huge"
	mount -t hugetlbfs -o pagesize=2M nodev "$priv/huge" ||
		{ echo "bench: BENCH_HUGE=1: cannot mount hugetlbfs (root?)" >&2; return 1; }
	bench_at_exit "umount '$priv/huge'; echo $pages > /proc/sys/vm/nr_hugepages"
	[ "$pages" -ge 600 ] || echo 600 > /proc/sys/vm/nr_hugepages
	[ "$(cat /proc/sys/vm/nr_hugepages)" -ge 600 ] ||
		{ echo "bench: BENCH_HUGE=1: the machine gave $(cat /proc/sys/vm/nr_hugepages) of 600 hugepages" >&2; return 1; }
	mem="--huge-dir $priv/huge"
}

bench_cpe_gen() {
	local mem=--no-huge

	if [ "${BENCH_HUGE:-0}" = 1 ]; then
		_bench_huge || exit 1
	fi
	# shellcheck disable=SC2034,SC2206 # mem: one or two words
	cpe_gen=($mem --no-pci -m 1024 -l 0,1 -d "$priv/pmd.so"
		--vdev "net_ch39x0,wire=pair:l$1,sim_rate=unlimited"
		--vdev "net_ch39x1,wire=pair:w$1,sim_rate=unlimited"
		--vdev "net_ch39x2,wire=pair:l$1,sim_rate=unlimited"
		--vdev "net_ch39x3,wire=pair:w$1,sim_rate=unlimited,mac=02:00:00:00:00:99"
		-- --lan 0=192.168.1.1/24 --wan 1=203.0.113.2/24
		--route default,203.0.113.1
		--neigh 203.0.113.1,02:00:00:00:00:99
		--bench-gen 2,3,256,64 --json --idle poll)
}

bench_cpe_gen_pppoe() {
	local a skip=0
	# shellcheck disable=SC2034
	pargs=()
	for a in "${cpe_gen[@]}"; do
		if [ $skip = 1 ]; then skip=0; continue; fi
		case $a in
		--route|--neigh) skip=1; continue ;;
		1=203.0.113.2/24) a=1=pppoe ;;
		esac
		pargs+=("$a")
	done
	pargs+=(--tap "1=$1")
}

bench_eal() {
	# shellcheck disable=SC2034
	eal=(--no-huge --no-pci -m "$1" --file-prefix "ch39x_$2_$$")
}
