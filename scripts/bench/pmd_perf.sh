#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# CPU cost per packet with DPDK's own harness: dpdk-test pmd_perf_autotest
# (64-byte frames, cycles per packet) on pairs of simulated ch39x ports at
# unlimited rate (the driver's own cost), one pair per framing: vendor
# (sim=ch398), CDC-NCM (sim=ncm), CDC-ECM (sim=ecm); against net_null,
# net_ring and net_af_packet on a veth pair in a network namespace the
# script creates, in one run. With BASE_SO=path, a second build of the PMD
# (say, before a change) runs the vendor pair too, as ch39x_base. Runs
# alternate over the configurations, RUNS rounds; medians are reported,
# with every run and the 1-minute load in the CSV. CONFIGS="name ..."
# runs only those (say "ch39x ch39x_base net_null" for many quick rounds
# on a noisy machine); ch39x and net_null are always run.
# Writes OUT/pmd_perf.csv and OUT/pmd_perf.png.
# Usage: scripts/bench/pmd_perf.sh [RUNS] [OUT]
set -euo pipefail
# shellcheck source=scripts/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"
runs=${1:-3}
out=${2:-$top/doc/perf}
bench_build "$so"
bench_gnuplot
mkdir -p "$out"
bench_priv bench
ns=ch39x_perf_$$
# shellcheck disable=SC2016 # expanded at exit
bench_at_exit 'ip netns del "$ns" 2>/dev/null'
bench_copy_pmd
[ -z "${BASE_SO:-}" ] || cp "$BASE_SO" "$priv/base.so"
ip netns add "$ns"
ip -n "$ns" link add vperf0 type veth peer name vperf1
ip -n "$ns" link set vperf0 up
ip -n "$ns" link set vperf1 up

# cycles NAME ARGS...: one run, its cycles per packet appended to a file.
# A run without a result (timed out: net_af_packet on veth has taken over
# 5 minutes on a loaded machine) is left out and said.
cycles() {
	local name=$1 v
	shift
	touch "$priv/$name"
	v=$(echo pmd_perf_autotest | timeout "${RUN_TIMEOUT:-300}" \
		ip netns exec "$ns" \
		dpdk-test --no-huge --no-pci -m 1024 -l 0,1 \
		--file-prefix "ch39x_perf_$$" "$@" 2>&1 |
		awk '/Result:/ {print $2}') || true
	[ -n "$v" ] || { echo "run $r $name: no result" >&2; return 0; }
	echo "$v $(cut -d' ' -f1 /proc/loadavg)" >> "$priv/$name"
	echo "run $r $name: $v cycles/packet" >&2
}
# cycles_sim NAME ARGS...: cycles for simulated ch39x ports, and the PMD's
# own cycles per packet with the device model's time taken out: the
# model's cycles (xstat sim_device_cycles of each port, read over
# telemetry once the test has stopped the ports) per packet the test
# counted. "nan" when the PMD has no such xstat.
cycles_sim() {
	local name=$1 log=$priv/run.log fifo=$priv/cmd pid v n dev i
	shift
	touch "$priv/$name" "$priv/$name.own"
	rm -f "$fifo"
	mkfifo "$fifo"
	timeout "${RUN_TIMEOUT:-300}" ip netns exec "$ns" \
		dpdk-test --no-huge --no-pci -m 1024 -l 0,1 \
		--file-prefix "ch39x_perf_$$" "$@" < "$fifo" > "$log" 2>&1 &
	pid=$!
	# Commands through a FIFO held open, so that dpdk-test waits at its
	# prompt after the test; a subshell takes the SIGPIPE if it died.
	exec 9> "$fifo"
	(echo pmd_perf_autotest >&9) 2>/dev/null || true
	for ((i = 0; i < ${RUN_TIMEOUT:-300} * 10; i++)); do
		! grep -qE '^Test (OK|Failed)' "$log" || break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	v=$(awk '/Result:/ {print $2}' "$log")
	n=$(awk '/ packet, .* drop, / {print $1}' "$log")
	dev=$(printf '/ethdev/xstats,%s\n' 0 1 |
		dpdk-telemetry.py -f "ch39x_perf_$$" 2>/dev/null |
		python3 -c 'import json, sys
v = [x.get("sim_device_cycles") for l in sys.stdin if l.startswith("{")
     for x in json.loads(l).values() if isinstance(x, dict)]
print(sum(v) if v and None not in v else "")') || dev=
	(echo quit >&9) 2>/dev/null || true
	exec 9>&-
	wait "$pid" || true
	[ -n "$v" ] || { echo "run $r $name: no result" >&2; return 0; }
	echo "$v $(cut -d' ' -f1 /proc/loadavg)" >> "$priv/$name"
	if [ -n "$dev" ] && [ -n "$n" ] && [ "$n" -gt 0 ]; then
		awk -v v="$v" -v d="$dev" -v n="$n" \
			'BEGIN {printf "%.1f\n", v - d / n}' >> "$priv/$name.own"
		echo "run $r $name: $v cycles/packet, PMD's own $(tail -1 "$priv/$name.own")" >&2
	else
		echo "run $r $name: $v cycles/packet (no sim_device_cycles)" >&2
	fi
}
pair() { # pair SIM PMD-FILE
	echo -d "$priv/$2" \
		--vdev "net_ch39x0,sim=$1,wire=pair:perf,sim_rate=unlimited" \
		--vdev "net_ch39x1,sim=$1,wire=pair:perf,sim_rate=unlimited"
}

names="ch39x ch39x_ncm ch39x_ecm net_null net_ring net_af_packet_veth"
[ -z "${BASE_SO:-}" ] || names="$names ch39x_base"
if [ -n "${CONFIGS:-}" ]; then
	names=$(for n in $names; do
		case " ch39x net_null $CONFIGS " in *" $n "*) printf '%s ' "$n" ;; esac
	done)
fi
want() { case " $names " in *" $1 "*) return 0 ;; esac; return 1; }
for r in $(seq "$runs"); do
	# shellcheck disable=SC2046
	{
	cycles_sim ch39x $(pair ch398 pmd.so)
	! want ch39x_ncm || cycles_sim ch39x_ncm $(pair ncm pmd.so)
	! want ch39x_ecm || cycles_sim ch39x_ecm $(pair ecm pmd.so)
	cycles net_null --vdev net_null0 --vdev net_null1
	! want net_ring || cycles net_ring --vdev net_ring0 --vdev net_ring1
	! want net_af_packet_veth ||
		cycles net_af_packet_veth --vdev net_af_packet0,iface=vperf0 \
			--vdev net_af_packet1,iface=vperf1
	! want ch39x_base || cycles_sim ch39x_base $(pair ch398 base.so)
	}
done

med() {
	sort -n "$priv/$1" |
		awk '{a[NR]=$1} END {print NR ? a[int((NR+1)/2)] : "nan"}'
}
ch=$(med ch39x)
null=$(med net_null)
{
	echo "pmd,cycles_per_packet,ratio_to_ch39x,ratio_to_net_null,runs,load_runs,pmd_own_cycles_per_packet"
	for n in $names; do
		v=$(med "$n")
		own=nan
		[ ! -s "$priv/$n.own" ] || own=$(med "$n.own")
		echo "$n,$v,$(awk -v a="$v" -v b="$ch" 'BEGIN {printf "%.2f", a / b}'),$(awk -v a="$v" -v b="$null" 'BEGIN {printf "%.2f", a / b}'),$(cut -d' ' -f1 "$priv/$n" | paste -sd/),$(cut -d' ' -f2 "$priv/$n" | paste -sd/),$own"
	done
} > "$out/pmd_perf.csv"
column -s, -t < "$out/pmd_perf.csv"
echo "ch39x / net_null: $(awk -v a="$ch" -v b="$null" 'BEGIN {printf "%.2f", a / b}')x"
if [ -s "$priv/ch39x.own" ]; then
	own=$(med ch39x.own)
	echo "ch39x PMD's own (model's time out): $own cycles/packet, / net_null: $(awk -v a="$own" -v b="$null" 'BEGIN {printf "%.2f", a / b}')x"
else
	echo "ch39x PMD's own cycles: unavailable (no xstat sim_device_cycles)"
fi
if want net_af_packet_veth; then
	afp=$(med net_af_packet_veth)
	echo "net_af_packet / ch39x: $(awk -v a="$afp" -v b="$ch" 'BEGIN {printf "%.1f", a / b}')x"
fi
# Per round ratios: the same round ran every configuration within a minute.
paste -d' ' "$priv/ch39x" "$priv/net_null" |
	awk 'NF == 4 {printf "round %d: ch39x / net_null %.2f\n", NR, $1 / $3}'
if want ch39x_base; then
	paste -d' ' "$priv/ch39x" "$priv/ch39x_base" "$priv/net_null" |
		awk 'NF == 6 {r = $1 / $5; b = $3 / $5; n = $1 / $3
			printf "round %d: ch39x / net_null %.2f, ch39x_base / net_null %.2f, ch39x / ch39x_base %.2f\n", NR, r, b, n}'
fi
gnuplot <<GP
set terminal pngcairo size 900,450 noenhanced
set output "$out/pmd_perf.png"
set title "pmd_perf_autotest, 64 B, cycles per packet (median of $runs; $(date -u '+%Y-%m-%d %H:%M') UTC)"
set datafile separator ","
set style data histograms
set style fill solid 0.7
set logscale y
set ylabel "cycles per packet (log)"
set key off
set xtics rotate by -25 font ",9"
set bmargin 5
# A configuration without a result (its runs timed out or failed) gets
# no bar: its tick says so.
plot "$out/pmd_perf.csv" using 2:xtic(strcol(2) eq "nan" ? \
	strcol(1) . " (no result)" : strcol(1)) every ::1
GP
