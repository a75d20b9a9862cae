#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Where the cycles of pmd_perf_autotest go on a simulated ch39x pair
# (sim_rate=unlimited, as in pmd_perf.sh): one dpdk-test run under
# "perf record -e cpu-clock -F 5000 --call-graph dwarf" (no hardware
# counters needed), samples of the test's worker lcore only. Each sample is
# charged by its call chain:
#   simulated device  a function of lib/ch39x_sim/*.c is on the stack
#                     (sim_*, ring_*, rx_fill, tx_parse, wire_*, ...): work
#                     real hardware does, not the host CPU;
#   PMD               otherwise, the PMD (pmd.so: ethdev burst functions,
#                     the framing codec, mbuf handling it calls) is on it;
#   harness           the rest: dpdk-test's loop, DPDK libraries, kernel.
# The cycles per packet of a run without perf are split by the class
# shares. Writes OUT/pmd_profile.csv (top innermost functions, inlined ones
# included, with their self share and class), OUT/pmd_profile.txt (class
# shares and cycles per packet by class) and OUT/pmd_profile.png.
# Bounded: two runs of a few seconds plus the report (well under a minute).
# Usage: scripts/bench/pmd_profile.sh [OUT]
set -euo pipefail
# shellcheck source=scripts/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"
out=${1:-$top/doc/perf}
bench_build "$so"
command -v perf >/dev/null || { echo "pmd_profile: perf needed" >&2; exit 1; }
bench_gnuplot
mkdir -p "$out"
bench_priv bench
bench_copy_pmd
bench_eal 1024 prof

load=$(cut -d' ' -f1 /proc/loadavg)
# The same test without perf first: perf's own sampling cost inflates the
# profiled run, so the class shares are applied to this figure.
echo pmd_perf_autotest | timeout 300 "$dpdk_test" "${eal[@]}" \
	-l 0,1 -d "$priv/pmd.so" \
	--vdev net_ch39x0,wire=pair:prof,sim_rate=unlimited \
	--vdev net_ch39x1,wire=pair:prof,sim_rate=unlimited > "$priv/log0" 2>&1
base=$(awk '/Result:/ {print $2}' "$priv/log0")
[ -n "$base" ] || { echo "pmd_profile: no result" >&2; tail -5 "$priv/log0" >&2; exit 1; }
echo pmd_perf_autotest | timeout 300 perf record -q -e cpu-clock -F 5000 \
	--call-graph dwarf,8192 -o "$priv/perf.data" -- \
	"$dpdk_test" "${eal[@]}" -l 0,1 -d "$priv/pmd.so" \
	--vdev net_ch39x0,wire=pair:prof,sim_rate=unlimited \
	--vdev net_ch39x1,wire=pair:prof,sim_rate=unlimited > "$priv/log" 2>&1
cyc=$(awk '/Result:/ {print $2}' "$priv/log")
[ -n "$cyc" ] || { echo "pmd_profile: no result" >&2; tail -5 "$priv/log" >&2; exit 1; }
# The simulated device's functions, from its source.
grep -hoE '^[a-z_0-9]+\(' "$top"/lib/ch39x_sim/*.c | tr -d '(' | sort -u > "$priv/sim_funcs"
perf script -i "$priv/perf.data" --comms rte-worker-1 -F ip,sym,dso \
	2>/dev/null > "$priv/script"

python3 - "$priv" "$out" "$base" "$cyc" "$load" <<'PY'
import collections, re, sys
priv, out, load = sys.argv[1], sys.argv[2], sys.argv[5]
cyc, prof_cyc = float(sys.argv[3]), float(sys.argv[4])
sim = set(open(f"{priv}/sim_funcs").read().split())
sim_re = re.compile(r"^(sim_|ring_|rx_fill|tx_parse|wire_)")

def base(sym):
    return re.sub(r"(\.(isra|part|constprop|cold)\.\d+)+$|@plt$", "", sym)

def frames(block):
    for line in block:
        m = re.match(r"\s*[0-9a-f]+ (.*) \((.*)\)$", line)
        if m:
            yield base(m.group(1)), m.group(2)

samples, chunk = [], []
for line in open(f"{priv}/script"):
    if line.strip():
        chunk.append(line.rstrip("\n"))
    elif chunk:
        samples.append(list(frames(chunk)))
        chunk = []
if chunk:
    samples.append(list(frames(chunk)))
samples = [s for s in samples if s]

cls_n = collections.Counter()
leaf_n = collections.Counter()
leaf_cls = collections.defaultdict(collections.Counter)
for s in samples:
    if any(f in sim or sim_re.match(f) for f, _ in s):
        c = "simulated device"
    elif any(d.endswith("pmd.so") for _, d in s):
        c = "PMD"
    else:
        c = "harness"
    cls_n[c] += 1
    # Leaf: the innermost frame, inlined functions included.
    leaf = s[0][0]
    leaf_n[leaf] += 1
    leaf_cls[leaf][c] += 1

n = len(samples)
with open(f"{out}/pmd_profile.csv", "w") as f:
    f.write("function,self_pct,class\n")
    for sym, k in leaf_n.most_common(25):
        f.write(f"{sym},{100 * k / n:.1f},"
                f"{leaf_cls[sym].most_common(1)[0][0]}\n")
with open(f"{out}/pmd_profile.txt", "w") as f:
    f.write(f"pmd_perf_autotest, ch39x pair, sim_rate=unlimited: {cyc:.0f} "
            f"cycles per packet ({prof_cyc:.0f} under perf); {n} samples of "
            f"the worker lcore; load before the runs {load}\n")
    f.write("class,share_pct,cycles_per_packet\n")
    for c in ("PMD", "simulated device", "harness"):
        f.write(f"{c},{100 * cls_n[c] / n:.1f},{cyc * cls_n[c] / n:.0f}\n")
with open(f"{priv}/classes.csv", "w") as f:
    for c in ("PMD", "simulated device", "harness"):
        f.write(f"{c},{cyc * cls_n[c] / n:.0f}\n")
PY
cat "$out/pmd_profile.txt"
column -s, -t < "$out/pmd_profile.csv"

# net_null of the last pmd_perf.sh run, when there is one, for scale.
null=$(awk -F, '$1 == "net_null" {print $2}' "$out/pmd_perf.csv" 2>/dev/null || true)
refs=""
[ -n "$null" ] && refs=", $null w l dt 2 lw 2 t \"net_null ($null, pmd_perf.csv)\", $((3 * null)) w l dt 3 lw 2 t \"3 x net_null\""
gnuplot <<GP
set terminal pngcairo size 800,450 noenhanced
set output "$out/pmd_profile.png"
set title "pmd_perf_autotest on a simulated ch39x pair: cycles per packet by where they go"
set datafile separator ","
set style data histograms
set style fill solid 0.7
set ylabel "cycles per packet"
set yrange [0:*]
set key top right
plot "$priv/classes.csv" using 2:xtic(1) t "ch39x, $base cycles/packet in all"$refs
GP
