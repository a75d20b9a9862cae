#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Frames per USB transfer with 64-byte frames, measured: two simulated
# CH398 cabled together at line rate (sim_rate=line, 1 Gbit/s), both ports
# sending 64-byte UDP frames (ch39x-perf --mode txonly) in bursts of 8 to
# 256: how many frames each bulk OUT transfer carries. (txonly does not
# poll RX; bulk IN aggregation at line rate is in xfer_sweep.sh, io64.)
# Runs alternate over burst sizes; each figure is from the run with the
# median TX frames per transfer. Runs wait for a quiet machine and are
# redone once on interference (quiet.sh; WAIT_BUDGET default 60 s here).
# Bounded: RUNS x 6 bursts x (SECS + ~1 s) plus the budgets.
# Writes OUT/agg64.csv and OUT/agg64.png.
# Usage: scripts/bench/agg64.sh [RUNS] [SECS] [OUT]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-3}
secs=${2:-3}
out=${3:-$top/doc/perf}
so=${PMD_SO:-$top/build/drivers/net/ch39x/librte_net_ch39x.so}
app=${PERF_APP:-$top/build/app/ch39x-perf/ch39x-perf}
if [ ! -f "$so" ] || [ ! -x "$app" ]; then
	bash "$top/scripts/build.sh" >/dev/null
fi
command -v gnuplot >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnuplot-nox >/dev/null
mkdir -p "$out"
priv=$(mktemp -d "${XDG_RUNTIME_DIR:-$HOME}/ch39x-bench.XXXXXX")
trap 'rm -rf "$priv"' EXIT
chmod 700 "$priv"
cp "$so" "$priv/pmd.so"
WAIT_BUDGET=${WAIT_BUDGET:-60}
. "$top/scripts/bench/quiet.sh"
bursts="8 16 32 64 128 256"

for r in $(seq "$runs"); do
	for b in $bursts; do
		quiet_run "$priv/json" timeout $((secs + 60)) "$app" --no-huge \
			--no-pci -m 512 --lcores '0@(0,1)' \
			--file-prefix "ch39x_agg_$$" -d "$priv/pmd.so" \
			--vdev net_ch39x0,wire=pair:agg \
			--vdev net_ch39x1,wire=pair:agg \
			-- --mode txonly --frame-size 64 --burst "$b" \
			--duration "$secs" --json || {
			echo "agg64: burst $b failed:" >&2
			tail -5 "$priv/json.err" >&2
			exit 1
		}
		echo "$load $others $(cat "$priv/json")" >> "$priv/$b"
		echo "run $r burst $b: load $load, others $others cores, retried $retried" >&2
	done
done

python3 - "$priv" "$bursts" > "$out/agg64.csv" <<'PY'
import json, sys
priv, bursts = sys.argv[1], sys.argv[2].split()
print("burst,tx_frames_per_xfer,tx_bytes_per_xfer,tx_mpps_per_port,"
      "tx_l1_mbps_per_port,usb_xfers_per_s,load_median,others_cores_max")
for b in bursts:
    rows = []
    for line in open(f"{priv}/{b}"):
        ld, oth, js = line.split(" ", 2)
        j = json.loads(js)
        j["load"], j["others"] = float(ld), float(oth)
        rows.append(j)
    rows.sort(key=lambda j: j["usb"]["tx"]["frames_per_xfer"])
    m = rows[(len(rows) - 1) // 2]
    loads = sorted(j["load"] for j in rows)
    print(",".join([b, "%.2f" % m["usb"]["tx"]["frames_per_xfer"],
                    "%.0f" % (m["usb"]["tx"]["bytes"] / m["usb"]["tx"]["xfers"]),
                    "%.3f" % (m["pps"] / 2e6), "%.1f" % (m["l1_mbps"] / 2),
                    "%.0f" % m["usb_xfers_per_s"],
                    "%.2f" % loads[(len(loads) - 1) // 2],
                    "%.2f" % max(j["others"] for j in rows)]))
PY
column -s, -t < "$out/agg64.csv"
echo "runs redone for interference: $quiet_retries"

gnuplot <<GP
set terminal pngcairo size 800,450 noenhanced
set output "$out/agg64.png"
set title "64-byte frames, two simulated CH398 at 1 Gbit/s, txonly on both ports"
set datafile separator ","
set logscale xy 2
set xlabel "application burst (frames per rte_eth_tx_burst)"
set ylabel "frames per USB transfer"
set xrange [6:320]
set yrange [4:512]
set grid
set key bottom right
plot "$out/agg64.csv" every ::1 u 1:2 w lp pt 7 t "bulk OUT (TX), measured", \
     227 w l dt 2 t "vendor framing limit, 16 KiB TX transfer (framing_cost)", \
     20 w l dt 3 lc rgb "red" t "target: 20"
GP
