#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# CPU that follows the load: the CPU time ch39x-cpe uses in each --idle
# mode at fixed offered loads, against Linux forwarding and NAT carrying
# the same traffic in the same run. The traffic: iperf3 TCP, LAN host to
# WAN host through NAT, 1500-byte MTU, at LOADS (default: idle, 50M, 200M
# and max, iperf3 -b 0), SECONDS each (default 5), RUNS times (default 3),
# medians reported.
#
# ch39x-cpe: cpe_lib.sh's topology -- LAN host netns, TAP, simulated
# CH398, ch39x-cpe (router netns, -l 0), simulated CH398, TAP, WAN host
# netns. Measured from /proc/PID/task/*/schedstat (time on a CPU, ns):
#   thread   the forwarding thread (the main lcore is the main thread);
#            the simulated adapters run inside its bursts, their TAP
#            reads and writes included
#   process  every thread: adds EAL's interrupt thread, which polls each
#            port's interrupt endpoint for link events (every 2 ms)
# Linux: the same hosts on veth pairs, a router netns with ip_forward and
# an nftables masquerade rule; TSO and GSO off on every veth, so 1500-byte
# frames cross the links as on the TAPs; the router's two veths run
# threaded NAPI (veth needs GRO on for NAPI: Linux forwards with GRO, as
# on a real NIC), so the forwarding (receive, conntrack, NAT, transmit to
# the next veth) runs in two kthreads whose CPU time is read the same way:
#   napi     the router's two NAPI threads; the hosts' veths are threaded
#            too, so their TCP receive is not charged to the router
# Both, same method: machine = /proc/stat busy time (all CPUs) during the
# interval minus the iperf3 client's and server's own CPU time (iperf3's
# cpu_utilization_percent), i.e. the router plus the kernel networking
# around it, and anything else the machine ran (state the load).
#
# All figures are % of one core over the interval's wall time.
# Writes OUT/cpe_cpu.csv (every sample) and prints the median table.
# Usage: scripts/bench/cpe_cpu.sh [SECONDS] [RUNS] [OUT]
#        LOADS="idle 50M 200M max" MODES="poll adaptive interrupt linux"
set -euo pipefail
# shellcheck source=scripts/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"
secs=${1:-5}
runs=${2:-3}
out=${3:-$top/doc/data}
loads=${LOADS:-idle 50M 200M max}
modes=${MODES:-poll adaptive interrupt linux}
cpe=$build/app/ch39x-cpe/ch39x-cpe

[ "$(id -u)" -eq 0 ] || { echo "cpe_cpu: needs root (netns, TAP)"; exit 1; }
bench_build "$cpe" "$so"
need=()
command -v ethtool >/dev/null || need+=(ethtool)
command -v nft >/dev/null || need+=(nftables)
command -v iperf3 >/dev/null || need+=(iperf3)
if [ ${#need[@]} -gt 0 ]; then
	DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq \
		--no-install-recommends "${need[@]}" >/dev/null
fi
mkdir -p "$out"
bench_priv cpe-cpu
bench_copy_pmd
id=$$
rt=cc_rt_$id lan=cc_lan_$id wan=cc_wan_$id
tl=ccl$id tw=ccw$id
LAN_RT=192.168.52.1 LAN_H=192.168.52.2 WAN_RT=203.0.113.2 WAN_H=203.0.113.1
rpid=
# shellcheck disable=SC2016 # expanded at exit
bench_at_exit '[ -n "$rpid" ] && kill "$rpid" 2>/dev/null; for n in "$rt" "$lan" "$wan"; do ip netns del "$n" 2>/dev/null || true; done'

hz=$(getconf CLK_TCK)
busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9; exit}' /proc/stat; }
ns_of() { awk '{print $1}' "/proc/$1/schedstat" 2>/dev/null || echo 0; }
proc_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%.0f\n", s}'; }
napi_pid() { ps -eo pid=,comm= | awk -v n="napi/$1-" 'index($2, n) == 1 {print $1; exit}'; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
jget() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null || echo 0; }

netns_fresh() {
	local n
	for n in "$rt" "$lan" "$wan"; do
		ip netns del "$n" 2>/dev/null || true
		ip netns add "$n"
		ip -n "$n" link set lo up
	done
}

# Host addresses on interface $1 (LAN host) and $2 (WAN host).
hosts() {
	ip -n "$lan" addr add $LAN_H/24 dev "$1"
	ip -n "$lan" link set "$1" up
	ip -n "$lan" route add default via $LAN_RT
	ip -n "$wan" addr add $WAN_H/24 dev "$2"
	ip -n "$wan" link set "$2" up
}

start_cpe() {
	local mode=$1 i
	netns_fresh
	ip netns exec "$rt" "$cpe" --no-huge --no-pci -m 512 \
		--file-prefix "cc_$id" -l 0 -d "$priv/pmd.so" \
		--vdev "net_ch39x0,wire=tap:$tl" --vdev "net_ch39x1,wire=tap:$tw" \
		-- --lan 0=$LAN_RT/24 --wan 1=$WAN_RT/24 \
		--route default,$WAN_H --idle "$mode" --json \
		> "$priv/cpe_$mode.json" 2> "$priv/cpe_$mode.err" &
	rpid=$!
	for i in $(seq 100); do
		ip -n "$rt" link show "$tw" >/dev/null 2>&1 && break
		sleep 0.1
	done
	ip -n "$rt" link set "$tl" netns "$lan"
	ip -n "$rt" link set "$tw" netns "$wan"
	hosts "$tl" "$tw"
}

stop_cpe() {
	kill -TERM "$rpid"
	wait "$rpid" || true
	rpid=
}

start_linux() {
	local d
	netns_fresh
	ip -n "$lan" link add la$id type veth peer name ra$id netns "$rt"
	ip -n "$rt" link add rb$id type veth peer name wb$id netns "$wan"
	ip -n "$rt" addr add $LAN_RT/24 dev ra$id
	ip -n "$rt" addr add $WAN_RT/24 dev rb$id
	ip -n "$rt" link set ra$id up
	ip -n "$rt" link set rb$id up
	ip netns exec "$rt" sysctl -qw net.ipv4.ip_forward=1
	ip netns exec "$rt" nft -f - <<-NFT
		table ip cpe_cpu {
			chain post {
				type nat hook postrouting priority 100;
				oifname "rb$id" masquerade
			}
		}
	NFT
	hosts la$id wb$id
	# 1500-byte frames on every link (no TSO/GSO); NAPI threads (GRO on).
	for d in "$lan la" "$rt ra" "$rt rb" "$wan wb"; do
		set -- $d
		ip netns exec "$1" ethtool -K "$2$id" tso off gso off gro on >/dev/null
		ip netns exec "$1" sh -c "echo 1 > /sys/class/net/$2$id/threaded"
	done
}

# sample MODE LOAD RUN: one interval; appends a CSV row.
sample() {
	local mode=$1 ld=$2 run=$3 b0 b1 w0 w1 t0 t1 p0 p1 n0 n1 sp=
	local mbps=0 ipc=0 napi1 napi2 load1
	if [ "$mode" = linux ]; then
		napi1=$(napi_pid ra$id) napi2=$(napi_pid rb$id)
	fi
	if [ "$ld" != idle ]; then
		ip netns exec "$wan" iperf3 -s -1 -J -B $WAN_H > "$priv/srv.json" 2>&1 &
		sp=$!
		sleep 0.5
	fi
	load1=$(cut -d' ' -f1 /proc/loadavg)
	b0=$(busy); w0=$(date +%s%N)
	if [ "$mode" = linux ]; then
		n0=$(( $(ns_of "$napi1") + $(ns_of "$napi2") )); t0=0; p0=0
	else
		t0=$(ns_of "$rpid"); p0=$(proc_ns "$rpid"); n0=0
	fi
	if [ "$ld" = idle ]; then
		sleep "$secs"
	else
		local b=$ld
		[ "$b" = max ] && b=0
		timeout $((secs + 30)) ip netns exec "$lan" iperf3 -c $WAN_H \
			-t "$secs" -b "$b" -J > "$priv/cli.json" 2>&1 || true
		wait "$sp" || true
	fi
	b1=$(busy); w1=$(date +%s%N)
	if [ "$mode" = linux ]; then
		n1=$(( $(ns_of "$napi1") + $(ns_of "$napi2") )); t1=0; p1=0
	else
		t1=$(ns_of "$rpid"); p1=$(proc_ns "$rpid"); n1=0
	fi
	if [ "$ld" != idle ]; then
		mbps=$(jget "$priv/srv.json" '"%.0f" % (j["end"]["sum_received"]["bits_per_second"] / 1e6)')
		# iperf3's own CPU, client and server, in core-seconds.
		ipc=$(jget "$priv/cli.json" '(j["end"]["cpu_utilization_percent"]["host_total"] + j["end"]["cpu_utilization_percent"]["remote_total"]) / 100 * j["end"]["sum_received"]["seconds"]')
	fi
	awk -v run="$run" -v m="$mode" -v ld="$ld" -v mbps="$mbps" \
		-v w=$((w1 - w0)) -v t=$((t1 - t0)) -v p=$((p1 - p0)) \
		-v n=$((n1 - n0)) -v b=$((b1 - b0)) -v hz="$hz" -v ipc="$ipc" \
		-v l="$load1" 'BEGIN {
		printf "%s,%s,%s,%s,%.1f,%.1f,%.1f,%.1f,%s\n", run, m, ld,
			mbps, 100 * t / w, 100 * p / w, 100 * n / w,
			100 * (b / hz - ipc) / (w / 1e9), l }' >> "$csv"
	tail -1 "$csv"
}

csv=$out/cpe_cpu.csv
echo "run,mode,load,mbps,thread_pct,process_pct,napi_pct,machine_pct,load1" > "$csv"
for run in $(seq "$runs"); do
	for mode in $modes; do
		if [ "$mode" = linux ]; then start_linux; else start_cpe "$mode"; fi
		# ARP both ways, and a first connection, before measuring.
		ip netns exec "$lan" ping -c 2 -i 0.2 -W 2 $WAN_H >/dev/null || true
		sleep 1
		for ld in $loads; do
			sample "$mode" "$ld" "$run"
		done
		[ "$mode" = linux ] || stop_cpe
	done
done

# Medians per mode and load.
python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
keys = []
for r in rows:
    k = (r["mode"], r["load"])
    if k not in keys:
        keys.append(k)
print("%-10s %-5s %7s %8s %8s %8s %8s" % ("mode", "load", "Mbit/s",
      "thread%", "process%", "napi%", "machine%"))
for k in keys:
    rs = [r for r in rows if (r["mode"], r["load"]) == k]
    med = lambda f: statistics.median(float(r[f]) for r in rs)
    print("%-10s %-5s %7.0f %8.1f %8.1f %8.1f %8.1f" % (k[0], k[1],
          med("mbps"), med("thread_pct"), med("process_pct"),
          med("napi_pct"), med("machine_pct")))
print("load (1 min) during the samples: %s..%s" % (
      min(r["load1"] for r in rows), max(r["load1"] for r in rows)))
PY
