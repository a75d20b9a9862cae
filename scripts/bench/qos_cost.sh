#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# What the WAN scheduler costs per packet: ch39x-cpe with the benchmark
# generator (--bench-gen, 256 UDP flows of 64-byte frames on a second
# lcore, simulated ports at sim_rate=unlimited, as cpe_bench.sh part 1)
# and, taking turns in each round so that machine load hits all alike:
#
#   none        no --wan-rate: the scheduler is off the path
#   fifo_10G    --wan-rate 10G --qos-fq off: one FIFO per class; the
#               rate is above what the generator sends, so every packet
#               goes in and out of the queues and none is dropped
#   fq_10G      --wan-rate 10G (flow queues with CoDel, the default)
#   fifo_1500M  --wan-rate 1500M: a modest overload: the shaper passes
#   fq_1500M    most of what the generator sends (2.1 Mpps of its 64-byte
#               frames) and drops the rest, as an uplink a little too slow
#   fifo_200M   --wan-rate 200M --qos-fq off: the shaper limits; most
#               packets find the class full (tail drop)
#   fq_200M     --wan-rate 200M: most packets are dropped from the
#               fattest flow, the rest wait for CoDel
#
# Per run, in TSC cycles per packet: the router's own work in the loops
# that moved packets (app_cycles_per_pkt: classification, NAT, cpe_tx()
# and so the scheduler's enqueue; the PMD's bursts left out), and the
# scheduler's dequeue side (the JSON's qos.dequeue_cycles, read once a
# loop that had packets held, over the packets enqueued). The
# scheduler's cost per packet is
#   (app_cycles_per_pkt - none's median) + dequeue cycles per packet:
# the enqueue replaces none's append to the port's TX array, which the
# dequeue then does. fq / fifo of that at each rate is the issue's
# "shaper cost within 1.5x of the FIFO's". Also: packets sent on the WAN
# per second, the scheduler's drops and ECN marks, and stall_ms.
# Another job on the machine only adds cycles (a preempted loop, a cold
# cache), so the summary takes each config's least-disturbed run, the
# minimum, besides the median; on a shared machine read the minimums.
#
# Writes OUT/qos_cost.csv (every run) and OUT/qos_cost.txt (medians).
# BENCH_HUGE=1: the router's memory in 2 MB hugepages (bench_lib.sh);
# CPE, PMD_SO: ch39x-cpe and the PMD (default the build's).
# Usage: scripts/bench/qos_cost.sh [SECONDS] [RUNS] [OUT]
set -euo pipefail
# shellcheck source=scripts/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"
secs=${1:-4}
runs=${2:-5}
out=${3:-$top/doc/perf}
cpe=${CPE:-$build/app/ch39x-cpe/ch39x-cpe}
bench_build "$cpe" "$so"
mkdir -p "$out"
bench_priv qos-cost
bench_copy_pmd
id=$$
bench_cpe_gen "$id"

declare -A cfg=(
	[none]=""
	[fifo_10G]="--wan-rate 10G --qos-fq off --qos-queue 4096"
	[fq_10G]="--wan-rate 10G --qos-queue 4096"
	[fifo_1500M]="--wan-rate 1500M --qos-fq off --qos-queue 4096"
	[fq_1500M]="--wan-rate 1500M --qos-queue 4096"
	[fifo_200M]="--wan-rate 200M --qos-fq off --qos-queue 4096"
	[fq_200M]="--wan-rate 200M --qos-queue 4096"
)
order=(none fifo_10G fq_10G fifo_1500M fq_1500M fifo_200M fq_200M)

one() {
	local tag=$1 run=$2
	# shellcheck disable=SC2086 # the options are words
	timeout $((secs + 60)) "$cpe" --file-prefix "qc_$id" "${cpe_gen[@]}" \
		--duration "$secs" ${cfg[$tag]} > "$priv/run.json" 2> "$priv/run.err" ||
		{ tail "$priv/run.err"; return 1; }
	python3 - "$priv/run.json" "$tag" "$run" >> "$out/qos_cost.csv" <<-'PY'
		import json, sys
		j = json.load(open(sys.argv[1]))
		q = j["qos"].get("total", {})
		enq = q.get("enqueued", 0)
		deq = j["qos"].get("dequeue_cycles", 0) / enq if enq else 0
		print("%s,%s,%.1f,%.1f,%.0f,%d,%d,%.1f" % (sys.argv[2], sys.argv[3],
		      j["app_cycles_per_pkt"], deq,
		      j["ports"][1]["tx"] / j["elapsed_s"],
		      q.get("dropped", 0), q.get("ecn_marks", 0),
		      j["qos"].get("stall_ms", 0)))
	PY
}

echo "config,run,app_cycles_per_pkt,dequeue_cycles_per_pkt,wan_tx_pps,sched_drops,ecn_marks,stall_ms" \
	> "$out/qos_cost.csv"
for r in $(seq "$runs"); do
	for t in "${order[@]}"; do
		one "$t" "$r"
	done
done

python3 - "$out/qos_cost.csv" "$secs" "$runs" "${order[*]}" > "$out/qos_cost.txt" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
configs = sys.argv[4].split()
rates = [c[3:] for c in configs if c.startswith("fq_")]
def col(c, k):
    return [float(r[k]) for r in rows if r["config"] == c]
print("qos_cost.sh %s s x %s runs: TSC cycles per packet, minimum | median" % (sys.argv[2], sys.argv[3]))
print("%-10s %18s %18s %18s %12s %10s" % ("config", "router (app)", "dequeue", "scheduler", "WAN tx pps", "drops"))
sched = {}
for pick, name in ((min, "minimum"), (statistics.median, "median")):
    base = pick(col("none", "app_cycles_per_pkt"))
    sched[name] = {}
    for c in configs[1:]:
        sched[name][c] = pick(col(c, "app_cycles_per_pkt")) - base + pick(col(c, "dequeue_cycles_per_pkt"))
for c in configs:
    a, d = col(c, "app_cycles_per_pkt"), col(c, "dequeue_cycles_per_pkt")
    sc = (sched["minimum"].get(c, 0.0), sched["median"].get(c, 0.0))
    print("%-10s %8.1f | %7.1f %8.1f | %7.1f %8.1f | %7.1f %12.0f %10.0f" % (
          c, min(a), statistics.median(a), min(d), statistics.median(d), sc[0], sc[1],
          statistics.median(col(c, "wan_tx_pps")), statistics.median(col(c, "sched_drops"))))
for rate in rates:
    for name in ("minimum", "median"):
        fi, fq = sched[name]["fifo_" + rate], sched[name]["fq_" + rate]
        print("%s (%s): scheduler cycles per packet fifo %.1f, fq %.1f: fq / fifo %s" %
              (rate, name, fi, fq, "%.2fx" % (fq / fi) if fi > 0 else "n/a (fifo <= 0: noise)"))
PY
cat "$out/qos_cost.txt"
