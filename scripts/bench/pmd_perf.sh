#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# CPU cost per packet with DPDK's own harness: dpdk-test pmd_perf_autotest
# (64-byte frames, cycles per packet) on a pair of simulated ch39x ports at
# unlimited rate (the driver's own cost), against net_null, net_ring and
# net_af_packet on a veth pair in a network namespace the script creates,
# in one run. Each configuration runs RUNS times; the median is reported.
# Writes OUT/pmd_perf.csv and OUT/pmd_perf.png.
# Usage: scripts/bench/pmd_perf.sh [RUNS] [OUT]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-3}
out=${2:-$top/doc/perf}
so=${PMD_SO:-$top/build/drivers/net/ch39x/librte_net_ch39x.so}
[ -f "$so" ] || bash "$top/scripts/build.sh" >/dev/null
command -v gnuplot >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnuplot-nox >/dev/null
mkdir -p "$out"
priv=$(mktemp -d "${XDG_RUNTIME_DIR:-$HOME}/ch39x-bench.XXXXXX")
ns=ch39x_perf_$$
cleanup() { ip netns del "$ns" 2>/dev/null || true; rm -rf "$priv"; }
trap cleanup EXIT
chmod 700 "$priv"
cp "$so" "$priv/pmd.so"
ip netns add "$ns"
ip -n "$ns" link add vperf0 type veth peer name vperf1
ip -n "$ns" link set vperf0 up
ip -n "$ns" link set vperf1 up

# cycles NAME ARGS... -> median cycles per packet
cycles() {
	local name=$1 r v
	shift
	: > "$priv/$name"
	for r in $(seq "$runs"); do
		v=$(echo pmd_perf_autotest | timeout 300 ip netns exec "$ns" \
			dpdk-test --no-huge --no-pci -m 1024 -l 0,1 \
			--file-prefix "ch39x_perf_$$" "$@" 2>&1 |
			awk '/Result:/ {print $2}')
		[ -n "$v" ] || { echo "$name: no result" >&2; return 1; }
		echo "$v" >> "$priv/$name"
	done
	sort -n "$priv/$name" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

ch=$(cycles ch39x -d "$priv/pmd.so" \
	--vdev net_ch39x0,wire=pair:perf,sim_rate=unlimited \
	--vdev net_ch39x1,wire=pair:perf,sim_rate=unlimited)
null=$(cycles null --vdev net_null0 --vdev net_null1)
ring=$(cycles ring --vdev net_ring0 --vdev net_ring1)
afp=$(cycles af_packet --vdev net_af_packet0,iface=vperf0 \
	--vdev net_af_packet1,iface=vperf1)

{
	echo "pmd,cycles_per_packet,ratio_to_ch39x"
	for p in "ch39x $ch" "net_null $null" "net_ring $ring" "net_af_packet_veth $afp"; do
		set -- $p
		echo "$1,$2,$(awk -v a="$2" -v b="$ch" 'BEGIN {printf "%.2f", a / b}')"
	done
} > "$out/pmd_perf.csv"
column -s, -t < "$out/pmd_perf.csv"
echo "ch39x / net_null: $(awk -v a="$ch" -v b="$null" 'BEGIN {printf "%.1f", a / b}')x;" \
	"net_af_packet / ch39x: $(awk -v a="$afp" -v b="$ch" 'BEGIN {printf "%.1f", a / b}')x"
gnuplot <<GP
set terminal pngcairo size 800,450
set output "$out/pmd_perf.png"
set title "pmd\\_perf\\_autotest, 64 B, cycles per packet (median of $runs)"
set datafile separator ","
set style data histograms
set style fill solid 0.7
set logscale y
set ylabel "cycles per packet (log)"
set key off
plot "$out/pmd_perf.csv" using 2:xtic(1) every ::1
GP
