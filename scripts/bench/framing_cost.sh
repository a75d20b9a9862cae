#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Framing cost per USB framing: frames per bulk OUT transfer and USB bytes
# per frame for the CH398 vendor framing (SuperSpeed profile), CDC-NCM
# (NTB16 with the Linux gadget's NTB parameters, and larger NTBs) and
# CDC-ECM, for frame sizes 64..9000, computed by framing_cost.c with the
# project's own TX builders (lib/ch39x). Pure computation, deterministic,
# a second or two. Writes OUT/framing_cost.csv and OUT/framing_cost.png.
# Usage: scripts/bench/framing_cost.sh [OUT]
set -euo pipefail
# shellcheck source=scripts/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"
out=${1:-$top/doc/perf}
lib=$top/lib/ch39x
command -v gcc >/dev/null || { echo "framing_cost: gcc needed" >&2; exit 1; }
bench_gnuplot
mkdir -p "$out"
bench_priv bench

gcc -O2 -Wall -Wextra -Werror -I"$lib" -o "$priv/framing_cost" \
	"$top/scripts/bench/framing_cost.c" "$lib/ch39x_vendor.c" \
	"$lib/ch39x_ncm.c" "$lib/ch39x_ecm.c" "$lib/ch39x_cdc.c" \
	"$lib/ch39x_usbdesc.c"
timeout 120 "$priv/framing_cost" > "$out/framing_cost.csv"
column -s, -t < "$out/framing_cost.csv"

# One data file per framing for gnuplot.
for f in vendor ncm_gadget ncm_16k_jumbo ncm_64k_256 ecm; do
	awk -F, -v f="$f" '$1 == f' "$out/framing_cost.csv" > "$priv/$f.csv"
done
sel() { echo "$priv/$1.csv"; }
gnuplot <<GP
set terminal pngcairo size 1000,450
set output "$out/framing_cost.png"
set datafile separator ","
set multiplot layout 1,2 title "USB framing cost, bulk OUT, wMaxPacketSize 1024 (computed)"
set logscale xy
set xlabel "frame size (bytes, no FCS)"
set grid
set key top right font ",8"
set ylabel "frames per USB transfer (log)"
set xtics (64,256,1024,4096,9000)
set xrange [48:12000]
set yrange [0.8:400]
plot "$(sel vendor)" u 2:3 w lp t "vendor (CH398, 16 KiB)", \
     "$(sel ncm_gadget)" u 2:3 w lp t "NCM, gadget NTB 16 KiB", \
     "$(sel ncm_16k_jumbo)" u 2:3 w lp dt 2 t "NCM 16 KiB, jumbo device", \
     "$(sel ncm_64k_256)" u 2:3 w lp t "NCM 64 KiB, 256 entries", \
     "$(sel ecm)" u 2:3 w lp t "ECM"
unset logscale y
set yrange [0:*]
set key top right
set ylabel "framing overhead, % of frame bytes"
plot "$(sel vendor)" u 2:6 w lp t "vendor", \
     "$(sel ncm_gadget)" u 2:6 w lp t "NCM gadget", \
     "$(sel ncm_16k_jumbo)" u 2:6 w lp dt 2 t "NCM 16 KiB jumbo", \
     "$(sel ncm_64k_256)" u 2:6 w lp t "NCM 64 KiB/256", \
     "$(sel ecm)" u 2:6 w lp t "ECM"
unset multiplot
GP
