#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Turn the table rx_copybreak.sh prints (saved to a file, header lines
# starting with '#' allowed) into OUT/rx_copybreak.csv and
# OUT/rx_copybreak.png. Pure conversion, no measurement.
# Usage: scripts/bench/rx_copybreak_plot.sh [TABLE] [OUT]
set -euo pipefail
# shellcheck source=scripts/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"
out=${2:-$top/doc/perf}
table=${1:-$out/rx_copybreak.txt}
bench_gnuplot
mkdir -p "$out"
{
	echo "size,copy_mpps,zerocopy_mpps,ratio"
	awk '/^[0-9]/ {printf "%d,%.3f,%.3f,%s\n", $1, $2 / 1e6, $3 / 1e6, $4}' "$table"
} > "$out/rx_copybreak.csv"
column -s, -t < "$out/rx_copybreak.csv"
gnuplot <<GP
set terminal pngcairo size 800,450 noenhanced
set output "$out/rx_copybreak.png"
set title "testpmd io, two simulated CH398, sim_rate=unlimited: copy vs zero-copy RX"
set datafile separator ","
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.7
set ylabel "forwarded Mpps (median)"
set y2label "zero-copy / copy"
set yrange [0:*]
set y2range [0:1.5]
set ytics nomirror
set y2tics
set xlabel "frame size (bytes)"
set key below
plot "$out/rx_copybreak.csv" every ::1 u 2:xtic(1) t "rx_copybreak=0 (copy)", \
     "" every ::1 u 3 t "rx_copybreak=256 (zero-copy)", \
     "" every ::1 u 0:4 axes x1y2 w lp pt 7 lw 2 t "ratio"
GP
