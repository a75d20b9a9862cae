#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Frames per USB transfer with 64-byte frames, measured: two simulated
# adapters cabled together at line rate (sim_rate=line, 1 Gbit/s), both
# ports sending 64-byte UDP frames (ch39x-perf --mode txonly) in bursts of
# 8 to 256: how many frames each bulk OUT transfer carries, for each
# framing: vendor (sim=ch398), CDC-NCM (sim=ncm, the Linux gadget's NTB
# parameters) and CDC-ECM (sim=ecm). FRAMINGS="ch398 ncm ecm" by default.
# (txonly does not poll RX; bulk IN aggregation at line rate is in
# xfer_sweep.sh, io64.)
# Runs alternate over framings and burst sizes; each figure is from the
# run with the median TX frames per transfer. Runs wait for a quiet machine
# and are redone once on interference (quiet.sh; WAIT_BUDGET default 60 s
# here). Bounded: RUNS x 3 framings x 6 bursts x (SECS + ~1 s) plus the
# budgets.
# Writes OUT/agg64.csv and OUT/agg64.png.
# Usage: scripts/bench/agg64.sh [RUNS] [SECS] [OUT]
set -euo pipefail
# shellcheck source=scripts/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"
runs=${1:-3}
secs=${2:-3}
out=${3:-$top/doc/perf}
bench_build "$so" "$app"
bench_gnuplot
mkdir -p "$out"
bench_priv bench
bench_copy_pmd
bench_eal 512 agg
WAIT_BUDGET=${WAIT_BUDGET:-60}
. "$top/scripts/bench/quiet.sh"
bursts="8 16 32 64 128 256"
framings=${FRAMINGS:-ch398 ncm ecm}

for r in $(seq "$runs"); do
	for fr in $framings; do
	for b in $bursts; do
		quiet_run "$priv/json" timeout $((secs + 60)) "$app" "${eal[@]}" \
			--lcores '0@(0,1)' -d "$priv/pmd.so" \
			--vdev "net_ch39x0,sim=$fr,wire=pair:agg" \
			--vdev "net_ch39x1,sim=$fr,wire=pair:agg" \
			-- --mode txonly --frame-size 64 --burst "$b" \
			--duration "$secs" --json || {
			echo "agg64: $fr burst $b failed:" >&2
			tail -5 "$priv/json.err" >&2
			exit 1
		}
		echo "$load $others $(cat "$priv/json")" >> "$priv/$fr.$b"
		echo "run $r $fr burst $b: load $load, others $others cores, retried $retried" >&2
	done
	done
done

python3 - "$priv" "$bursts" "$framings" > "$out/agg64.csv" <<'PY'
import json, sys
priv, bursts, framings = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
name = {"ch398": "vendor", "ncm": "ncm", "ecm": "ecm"}
print("framing,burst,tx_frames_per_xfer,tx_bytes_per_xfer,tx_mpps_per_port,"
      "tx_l1_mbps_per_port,usb_xfers_per_s,load_median,others_cores_max")
for fr, b in [(f, b) for f in framings for b in bursts]:
    rows = []
    for line in open(f"{priv}/{fr}.{b}"):
        ld, oth, js = line.split(" ", 2)
        j = json.loads(js)
        j["load"], j["others"] = float(ld), float(oth)
        rows.append(j)
    rows.sort(key=lambda j: j["usb"]["tx"]["frames_per_xfer"])
    m = rows[(len(rows) - 1) // 2]
    loads = sorted(j["load"] for j in rows)
    print(",".join([name.get(fr, fr), b,
                    "%.2f" % m["usb"]["tx"]["frames_per_xfer"],
                    "%.0f" % (m["usb"]["tx"]["bytes"] / m["usb"]["tx"]["xfers"]),
                    "%.3f" % (m["pps"] / 2e6), "%.1f" % (m["l1_mbps"] / 2),
                    "%.0f" % m["usb_xfers_per_s"],
                    "%.2f" % loads[(len(loads) - 1) // 2],
                    "%.2f" % max(j["others"] for j in rows)]))
PY
column -s, -t < "$out/agg64.csv"
echo "runs redone for interference: $quiet_retries"
for f in vendor ncm ecm; do
	awk -F, -v f="$f" '$1 == f' "$out/agg64.csv" > "$priv/$f.csv"
done

gnuplot <<GP
set terminal pngcairo size 800,450 noenhanced
set output "$out/agg64.png"
set title "64-byte frames, two simulated adapters at 1 Gbit/s, txonly on both ports"
set datafile separator ","
set logscale xy 2
set xlabel "application burst (frames per rte_eth_tx_burst)"
set ylabel "frames per USB transfer"
set xrange [6:320]
set yrange [4:512]
set grid
set key bottom right
set yrange [0.5:512]
set key bottom right font ",9"
plot "$priv/vendor.csv" u 2:3 w lp pt 7 lc 1 t "vendor (CH398), measured", \
     "$priv/ncm.csv" u 2:3 w lp pt 5 lc 2 t "NCM (gadget NTB), measured", \
     "$priv/ecm.csv" u 2:3 w lp pt 9 lc 3 t "ECM, measured", \
     227 w l dt 2 lc 1 t "vendor limit, 16 KiB transfer (framing_cost)", \
     64 w l dt 2 lc 2 t "NCM limit, the PMD's 64 NDP entries", \
     20 w l dt 3 lc rgb "red" t "target: 20"
GP
