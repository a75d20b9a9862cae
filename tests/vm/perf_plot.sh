#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# The plot of tests/vm/perf.sh's comparison: one panel per bus speed and
# gadget, frames/s (median, bar; minimum to maximum, whisker) per frame
# size and direction, one bar per host-side driver (the kernel's, net_ch39x,
# net_af_packet, net_af_xdp).
#
#   bash tests/vm/perf_plot.sh OUT.png perf.csv...
#
# perf.csv: the summary a PERF=1 run of tests/vm/run.sh leaves in its run
# directory (.cache/vm/run.*/perf.csv); several files (one per boot) are
# concatenated.

set -euo pipefail
out=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# speed,dev,driver,size,dir,median,min,max,n,cpu0,cpu1,testpmd
cat "$@" | grep -v '^speed,' > "$tmp/all.csv"
panels=""
for sp in high super; do
	for dev in ncm ecm; do
		f=$tmp/$sp-$dev.dat
		awk -F, -v sp="$sp" -v dev="$dev" '
		$1 == sp && $2 == dev {
			d = $3
			if (d ~ /^cdc_/) d = "kernel"
			if (d ~ /rx_xfers/) next
			k = $4 " " ($5 == "g2h" ? "g>h" : "h>g")
			if (!(k in seen)) { seen[k] = 1; keys[++n] = k }
			v[k, d] = $6 " " $7 " " $8
		}
		END {
			split("kernel net_ch39x net_af_packet net_af_xdp", ds, " ")
			for (i = 1; i <= n; i++) {
				split(keys[i], kk, " ")
				line = kk[1] " " kk[2] " \"" keys[i] "\""
				for (j = 1; j <= 4; j++) {
					x = v[keys[i], ds[j]]
					line = line " " (x == "" ? "0 0 0" : x)
				}
				print line
			}
		}' "$tmp/all.csv" | sort -t' ' -k1,1n -k2,2 | cut -d' ' -f3- > "$f"
		[ -s "$f" ] && panels="$panels $sp-$dev"
	done
done
[ -n "$panels" ] || { echo "no data" >&2; exit 1; }
n=$(echo $panels | wc -w)
{
	echo "set terminal pngcairo size 1400,$((n * 330)) font ',10'"
	echo "set output '$out'"
	echo "set multiplot layout $n,1"
	echo "set style data histogram"
	echo "set style histogram errorbars gap 1 lw 1"
	echo "set style fill solid 0.8 border -1"
	echo "set key top right horizontal"
	echo "set ylabel 'frames/s'"
	echo "set grid ytics"
	echo "set yrange [0:*]"
	for p in $panels; do
		echo "set title '$p: frames/s at the receiver (median of runs; whiskers: min-max), TCG guest'"
		echo "plot '$tmp/$p.dat' using 2:3:4:xtic(1) title 'kernel (cdc\\_ncm/cdc\\_ether)' lc rgb '#777777', \
			'' using 5:6:7 title 'net\\_ch39x' lc rgb '#1f77b4', \
			'' using 8:9:10 title 'net\\_af\\_packet' lc rgb '#ff7f0e', \
			'' using 11:12:13 title 'net\\_af\\_xdp' lc rgb '#2ca02c'"
	done
	echo "unset multiplot"
} > "$tmp/plot.gp"
gnuplot "$tmp/plot.gp"
echo "$out"
