#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Does zero-copy RX pay? dpdk-testpmd io-forwards between two simulated
# CH398 at unlimited rate (the driver's own CPU cost), with rx_copybreak=0
# (every frame copied into an mbuf) and rx_copybreak=N (frames of N bytes or
# more attached to the USB transfer buffer), for several frame sizes.
# Runs alternate copy/zero-copy to spread machine noise; prints the median
# forwarded packets per second of each. Bounded: RUNS x sizes x 2 x SECS.
# Usage: scripts/bench/rx_copybreak.sh [SECS] [RUNS] [COPYBREAK]
set -euo pipefail
# shellcheck source=scripts/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"
secs=${1:-3}
runs=${2:-3}
cb=${3:-256}
bench_build "$so"
bench_priv bench
bench_copy_pmd
bench_eal 1024 zc

# run SIZE COPYBREAK -> forwarded packets per second
run() {
	local size=$1 c=$2 log=$priv/log
	{
		sleep 1
		echo "start tx_first 4"
		sleep "$secs"
		echo "stop"
		echo "show port xstats 0"
		echo "quit"
	} | timeout $((secs + 60)) "$testpmd" "${eal[@]}" -d "$priv/pmd.so" \
		--vdev "net_ch39x0,wire=pair:zc,sim_rate=unlimited,rx_copybreak=$c" \
		--vdev "net_ch39x1,wire=pair:zc,sim_rate=unlimited,rx_copybreak=$c" \
		-- -i --total-num-mbufs=16384 --nb-cores=1 --mbuf-size=9344 \
		--max-pkt-len=9216 --txpkts="$size" > "$log" 2>&1
	local pk by
	pk=$(sed -n '/Accumulated/,/+++/p' "$log" | awk '/RX-packets/ {print $2}')
	by=$(awk '/^rx_good_bytes:/ {b=$2} /^rx_good_packets:/ {p=$2} END {if (p) printf "%d", b/p}' "$log")
	[ "$by" = "$size" ] || { echo "run: frames of $by bytes, expected $size" >&2; exit 1; }
	echo $((pk / secs))
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf "%-6s %14s %14s %8s\n" size copy_pps zerocopy_pps ratio
for size in 64 256 1500 4000 9000; do
	: > "$priv/c"; : > "$priv/z"
	for _ in $(seq "$runs"); do
		run "$size" 0 >> "$priv/c"
		run "$size" "$cb" >> "$priv/z"
	done
	c=$(median < "$priv/c"); z=$(median < "$priv/z")
	printf "%-6s %14s %14s %8s\n" "$size" "$c" "$z" \
		"$(awk -v a="$z" -v b="$c" 'BEGIN {printf "%.2f", a / b}')"
done
