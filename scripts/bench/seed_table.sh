#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The seed's goodput table: one TCP bulk stream (ch39x-perf --mode tcp)
# through two simulated CH398 cabled together at line rate (sim_rate=line,
# link_speed 1000, the defaults) at MTU 1500, 4088, 7422 and 9000, against
# the theory: goodput 1000 x (MTU-40)/(MTU+38) Mbit/s.
# Each MTU runs two ways: "main" hands TSO super-frames to the port where
# the CH398 segments them itself (MSS <= 2047: MTU 1500) and MSS-sized
# segments above; "alt" is the other way (no TSO at 1500, the PMD's software
# TSO above), to show whether TSO changes anything. Runs alternate over MTU
# and way; each figure is from the run with the median goodput.
# Each run waits for a 1-minute load under 1.5 and is redone once if other
# processes used more than 0.25 of a core meanwhile (quiet.sh; budgets
# WAIT_BUDGET=120 s and RETRY_BUDGET=10 runs for the whole script).
# Bounded: RUNS x 4 MTUs x 2 ways x (SECS + ~1 s), plus the budgets.
# Writes OUT/seed_table.csv and OUT/seed_table.png.
# Usage: scripts/bench/seed_table.sh [RUNS] [SECS] [OUT]
set -euo pipefail
# shellcheck source=scripts/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"
runs=${1:-3}
secs=${2:-4}
out=${3:-$top/doc/perf}
wait_budget=${WAIT_BUDGET:-120}
bench_build "$so" "$app"
bench_gnuplot
mkdir -p "$out"
bench_priv bench
bench_copy_pmd
bench_eal 512 seed
mtus="1500 4088 7422 9000"

. "$top/scripts/bench/quiet.sh"

# tso_args MTU WAY -> ch39x-perf TSO options
tso_args() {
	local hw=0 want
	if [ "$1" -le 2087 ]; then hw=1; fi	# MSS = MTU - 40 <= 2047
	if [ "$2" = main ]; then want=$hw; else want=$((1 - hw)); fi
	if [ "$want" = 1 ]; then echo --tso; fi
}

# run MTU WAY: one measurement, its JSON (plus the load) appended to a file
run() {
	local mtu=$1 way=$2
	quiet_run "$priv/json" timeout $((secs + 60)) "$app" "${eal[@]}" \
		--lcores '0@(0,1)' -d "$priv/pmd.so" \
		--vdev net_ch39x0,wire=pair:seed --vdev net_ch39x1,wire=pair:seed \
		-- --mode tcp --mtu "$mtu" $(tso_args "$mtu" "$way") \
		--mbuf-size 9344 --duration "$secs" --json || {
		echo "seed_table: MTU $mtu $way failed:" >&2
		tail -5 "$priv/json.err" >&2
		exit 1
	}
	echo "$load $others $(cat "$priv/json")" >> "$priv/$mtu.$way"
}

for r in $(seq "$runs"); do
	for mtu in $mtus; do
		for way in main alt; do
			run "$mtu" "$way"
			echo "run $r MTU $mtu $way: load $load, others $others cores, retried $retried" >&2
		done
	done
done

python3 - "$priv" "$mtus" > "$out/seed_table.csv" <<'PY'
import json, sys
priv, mtus = sys.argv[1], [int(m) for m in sys.argv[2].split()]

def load(mtu, way):
    rows = []
    for line in open(f"{priv}/{mtu}.{way}"):
        ld, oth, js = line.split(" ", 2)
        j = json.loads(js)
        j["load"] = float(ld)
        j["others"] = float(oth)
        rows.append(j)
    rows.sort(key=lambda j: j["goodput_mbps"])
    return rows, rows[(len(rows) - 1) // 2]

def tso(j):
    if not j["tcp"]["tso"]:
        return "none"
    return "hw" if j["usb"]["tx"]["tso_hw_frames"] else "sw"

print("mtu,tso,goodput_mbps,efficiency_pct,theory_goodput_mbps,"
      "theory_efficiency_pct,goodput_minus_theory_mbps,goodput_pct_of_link,"
      "l1_mbps,packets_per_gb,"
      "frames_per_s,usb_xfers_per_s,frames_per_xfer,tx_frames_per_xfer,"
      "rx_frames_per_xfer,goodput_runs,alt_tso,alt_goodput_mbps,load_median,others_cores_max")
for mtu in mtus:
    rows, m = load(mtu, "main")
    arows, a = load(mtu, "alt")
    th = (mtu - 40) / (mtu + 38)
    loads = sorted(j["load"] for j in rows + arows)
    runs = "/".join("%.1f" % j["goodput_mbps"] for j in rows)
    print(f"{mtu},{tso(m)},{m['goodput_mbps']:.1f},{m['efficiency_pct']:.3f},"
          f"{1000 * th:.1f},{100 * th:.3f},"
          f"{m['goodput_mbps'] - 1000 * th:.1f},{m['goodput_mbps'] / 10:.3f},"
          f"{m['l1_mbps']:.1f},{1e9 / (mtu - 40):.0f},"
          f"{m['pps']:.0f},{m['usb_xfers_per_s']:.0f},"
          f"{m['frames_per_xfer']:.3f},{m['usb']['tx']['frames_per_xfer']:.3f},"
          f"{m['usb']['rx']['frames_per_xfer']:.3f},"
          f"{runs},"
          f"{tso(a)},{a['goodput_mbps']:.1f},{loads[(len(loads) - 1) // 2]:.2f},"
          f"{max(j['others'] for j in rows + arows):.2f}")
PY
column -s, -t < "$out/seed_table.csv"
echo "runs redone for interference: $quiet_retries"

gnuplot <<GP
set terminal pngcairo size 800,450
set output "$out/seed_table.png"
set title "TCP goodput, two simulated CH398 at 1 Gbit/s line rate (median of $runs x ${secs} s)"
set datafile separator ","
set xlabel "MTU (bytes)"
set ylabel "goodput (Mbit/s)"
set xrange [1000:9500]
set yrange [930:1000]
set grid
set key bottom right
set xtics (1500, 4088, 7422, 9000)
plot 1000 * (x - 40) / (x + 38) w l lw 2 t "theory 1000 (MTU-40)/(MTU+38)", \
     "$out/seed_table.csv" every ::1 u 1:3 w p pt 7 ps 1.5 t "measured (TSO at 1500)", \
     "$out/seed_table.csv" every ::1 u 1:18 w p pt 6 ps 1.5 t "measured, other TSO way"
GP
