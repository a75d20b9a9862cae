#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# USB transfer ring sweep (the seed's "rx_urb_num 4..16" advice): two
# simulated CH398 cabled together at line rate (sim_rate=line, 1 Gbit/s),
# one devarg changed at a time from the profile's defaults (rx_xfers 16,
# tx_xfers 10, xfer_size 32768):
#   rx_xfers 2 4 8 16, tx_xfers 2 4 8 16, xfer_size 4096 16384 32768.
# Three workloads per point, with ch39x-perf --latency (a TSC stamp in
# each frame, read at RX: time from queueing for TX to rx_burst):
#   tcp1500  --mode tcp --mtu 1500 (MSS-sized segments): goodput, and the
#            latency of a saturated link (what the rings hold);
#   io64     --mode io --frame-size 64, both directions: frames per second
#            and the latency of 4 x 32 frames circulating each way;
#   ping64   --mode io --frame-size 64 --burst 1 --tx-first 1: one frame
#            in flight each way, the latency of an idle link;
# and the USB figures of each (frames per transfer, transfers per second).
# Runs alternate over all points and workloads; each figure is from the
# run with the median main figure. Runs wait for a quiet machine and are
# redone once on interference (quiet.sh; WAIT_BUDGET default 60 s here).
# Bounded: RUNS x 11 points x 3 workloads x (SECS + ~1 s) plus the budgets,
# about 8 minutes with the defaults.
# Writes OUT/xfer_sweep.csv and OUT/xfer_sweep.png.
# Usage: scripts/bench/xfer_sweep.sh [RUNS] [SECS] [OUT]
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
bench_eal 512 xfer
WAIT_BUDGET=${WAIT_BUDGET:-60}
. "$top/scripts/bench/quiet.sh"

points="rx_xfers=2 rx_xfers=4 rx_xfers=8 rx_xfers=16
	tx_xfers=2 tx_xfers=4 tx_xfers=8 tx_xfers=16
	xfer_size=4096 xfer_size=16384 xfer_size=32768"

# run POINT WORKLOAD: one measurement, appended to a file
run() {
	local pt=$1 wl=$2 dev=",$1" opts
	case $wl in
	tcp1500) opts="--mode tcp --mtu 1500" ;;
	io64) opts="--mode io --frame-size 64" ;;
	ping64) opts="--mode io --frame-size 64 --burst 1 --tx-first 1" ;;
	esac
	quiet_run "$priv/json" timeout $((secs + 60)) "$app" "${eal[@]}" \
		--lcores '0@(0,1)' -d "$priv/pmd.so" \
		--vdev "net_ch39x0,wire=pair:xs$dev" \
		--vdev "net_ch39x1,wire=pair:xs$dev" \
		-- $opts --duration "$secs" --latency --json || {
		echo "xfer_sweep: $pt $wl failed:" >&2
		tail -5 "$priv/json.err" >&2
		exit 1
	}
	echo "$load $others $(cat "$priv/json")" >> "$priv/$pt.$wl"
}

for r in $(seq "$runs"); do
	for pt in $points; do
		for wl in tcp1500 io64 ping64; do
			run "$pt" "$wl"
			echo "run $r $pt $wl: load $load, others $others cores, retried $retried" >&2
		done
	done
done

python3 - "$priv" "$points" > "$out/xfer_sweep.csv" <<'PY'
import json, sys
priv, points = sys.argv[1], sys.argv[2].split()
defaults = {"rx_xfers": 16, "tx_xfers": 10, "xfer_size": 32768}

def med(pt, wl, key):
    rows = []
    for line in open(f"{priv}/{pt}.{wl}"):
        ld, oth, js = line.split(" ", 2)
        j = json.loads(js)
        j["load"], j["others"] = float(ld), float(oth)
        rows.append(j)
    rows.sort(key=lambda j: j[key])
    return rows, rows[(len(rows) - 1) // 2]

print("param,value,rx_xfers,tx_xfers,xfer_size,tcp_goodput_mbps,"
      "tcp_tx_frames_per_xfer,tcp_rx_frames_per_xfer,tcp_usb_xfers_per_s,"
      "io64_mpps,io64_tx_frames_per_xfer,io64_rx_frames_per_xfer,"
      "io64_usb_xfers_per_s,tcp_goodput_runs,io64_mpps_runs,load_median,"
      "others_cores_max,tcp_lat_us_p50,tcp_lat_us_p99,io64_lat_us_p50,"
      "io64_lat_us_p99,ping64_lat_us_min,ping64_lat_us_p50,"
      "ping64_lat_us_p99,ping64_lat_p50_runs")
for pt in points:
    k, v = pt.split("=")
    cfg = dict(defaults, **{k: int(v)})
    tr, t = med(pt, "tcp1500", "goodput_mbps")
    ir, i = med(pt, "io64", "pps")
    pr, pg = med(pt, "ping64", "latency_us_p50")
    allr = tr + ir + pr
    loads = sorted(j["load"] for j in allr)
    print(",".join(str(x) for x in [
        k, v, cfg["rx_xfers"], cfg["tx_xfers"], cfg["xfer_size"],
        "%.1f" % t["goodput_mbps"],
        "%.2f" % t["usb"]["tx"]["frames_per_xfer"],
        "%.3f" % t["usb"]["rx"]["frames_per_xfer"],
        "%.0f" % t["usb_xfers_per_s"],
        "%.3f" % (i["pps"] / 1e6),
        "%.2f" % i["usb"]["tx"]["frames_per_xfer"],
        "%.3f" % i["usb"]["rx"]["frames_per_xfer"],
        "%.0f" % i["usb_xfers_per_s"],
        "/".join("%.1f" % j["goodput_mbps"] for j in tr),
        "/".join("%.3f" % (j["pps"] / 1e6) for j in ir),
        "%.2f" % loads[(len(loads) - 1) // 2],
        "%.2f" % max(j["others"] for j in allr),
        # Latency from the same (median-throughput) runs as the rates.
        "%.1f" % t["latency_us_p50"], "%.1f" % t["latency_us_p99"],
        "%.1f" % i["latency_us_p50"], "%.1f" % i["latency_us_p99"],
        "%.3f" % pg["latency_us_min"], "%.3f" % pg["latency_us_p50"],
        "%.3f" % pg["latency_us_p99"],
        "/".join("%.3f" % j["latency_us_p50"] for j in pr)]))
PY
column -s, -t < "$out/xfer_sweep.csv"
echo "runs redone for interference: $quiet_retries"

for k in rx_xfers tx_xfers xfer_size; do
	awk -F, -v k="$k" '$1 == k' "$out/xfer_sweep.csv" > "$priv/$k.csv"
done
gnuplot <<GP
set terminal pngcairo size 1200,800 noenhanced
set output "$out/xfer_sweep.png"
set datafile separator ","
set multiplot layout 2,3 title "Two simulated CH398 at 1 Gbit/s line rate (median of $runs x ${secs} s): throughput (top) and latency, queued for TX to rx_burst (bottom)"
set grid
set logscale x 2
set key bottom right font ",8"
do for [k=1:3] {
	f = k == 1 ? "rx_xfers" : k == 2 ? "tx_xfers" : "xfer_size"
	set xlabel f . (k == 1 ? " (tx_xfers 10, xfer_size 32768)" : k == 2 ? " (rx_xfers 16, xfer_size 32768)" : " (rx_xfers 16, tx_xfers 10)")
	if (k == 3) { set xrange [3000:45000]; set xtics ("4K" 4096, "16K" 16384, "32K" 32768) } else { set xrange [1.5:20]; set xtics auto }
	set ylabel "TCP goodput (Mbit/s)"
	set y2label "io 64 B, both ways (Mpps)"
	# Loaded machines fall below the usual range: let gnuplot extend it.
	set yrange [*<900:960]
	set y2range [*<2.6:2.9]
	set ytics nomirror
	set y2tics
	plot "$priv/".f.".csv" u 2:6 w lp pt 7 t "TCP goodput", \
	     "" u 2:10 axes x1y2 w lp pt 5 t "io 64 B Mpps", \
	     949.3 w l dt 2 lc 1 t "TCP theory", \
	     2.841 axes x1y2 w l dt 2 lc 2 t "64 B line rate"
}
unset y2tics
unset y2label
set ytics mirror
set logscale y
set yrange [0.5:100000]
set ylabel "latency (us, log)"
set key top left font ",8"
do for [k=1:3] {
	f = k == 1 ? "rx_xfers" : k == 2 ? "tx_xfers" : "xfer_size"
	set xlabel f
	if (k == 3) { set xrange [3000:45000]; set xtics ("4K" 4096, "16K" 16384, "32K" 32768) } else { set xrange [1.5:20]; set xtics auto }
	plot "$priv/".f.".csv" u 2:18 w lp pt 7 lc 1 t "TCP p50", \
	     "" u 2:19 w lp pt 6 dt 2 lc 1 t "TCP p99", \
	     "" u 2:20 w lp pt 5 lc 2 t "io64 p50", \
	     "" u 2:21 w lp pt 4 dt 2 lc 2 t "io64 p99", \
	     "" u 2:23 w lp pt 9 lc 3 t "ping64 p50", \
	     "" u 2:24 w lp pt 8 dt 2 lc 3 t "ping64 p99"
}
unset multiplot
GP
