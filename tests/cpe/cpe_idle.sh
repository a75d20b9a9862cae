#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# --idle adaptive and --idle interrupt, end to end (cpe_lib.sh's netns
# set-up: ch39x-cpe on simulated CH398s whose cables end at TAPs). For
# each mode: the router idles (a 3 s window with no traffic: its
# forwarding thread -- the process's main thread -- uses under half of the
# wall time; busy polling uses all of it), then ping and iperf3 TCP
# through NAT pass with cpe_netns's assertions (0 % loss, over 1 MB at
# the WAN server, which sees the router's WAN address), pings after a
# pause are answered within a generous bound, and the exit statistics
# (JSON) show the mode and its sleeps or interrupt waits. The WAN cable
# is 10 Mbit/s: a UDP flood of 100 Mbit/s LAN -> WAN fills its backlog,
# and the statistics show the LAN port held back (port_rx's back-pressure)
# and the loop sleeping on the full backlog (TX waits) instead of reading
# and dropping, while the WAN server still receives. Functional, not
# timing: the bounds hold on a loaded machine; CPU figures are the
# benchmark's (scripts/bench/cpe_cpu.sh).
#
# Usage: cpe_idle.sh path/to/ch39x-cpe path/to/librte_net_ch39x.so
# Exit 77 (skip) when not root: netns and TAP need CAP_NET_ADMIN.
set -uo pipefail
. "$(dirname "$0")/cpe_lib.sh"
cpe_lib_init cpe_idle "$@"

LAN_RT=192.168.51.1 LAN_H=192.168.51.2 WAN_RT=203.0.113.2 WAN_H=203.0.113.1
cat > "$priv/cpe.conf" <<CONF
vdev net_ch39x0,wire=tap:$tl
vdev net_ch39x1,wire=tap:$tw,link_speed=10
lan 0=$LAN_RT/24
wan 1=$WAN_RT/24
route default,$WAN_H
json
CONF

# CPU time (ns) of the router's forwarding thread: the main lcore is the
# process's main thread; schedstat's first field is its time on a CPU.
# $pid is timeout's: the router is its child.
router_pid() { pgrep -P "$pid" -f ch39x-cpe | head -1; }
thread_ns() { awk '{print $1}' "/proc/$1/task/$1/schedstat" 2>/dev/null; }

run_mode() {
	local mode=$1 rp t0 t1 w0 w1 pct out rtt rx rh
	ip netns del "$lan" 2>/dev/null; ip netns del "$wan" 2>/dev/null
	ip netns add "$lan"; ip netns add "$wan"
	ip -n "$lan" link set lo up; ip -n "$wan" link set lo up
	start_router "$mode" --idle "$mode"
	host_v4 $LAN_RT $LAN_H $WAN_H
	L ping -c 1 -W 3 $LAN_RT >/dev/null 2>&1
	W ping -c 1 -W 3 $WAN_RT >/dev/null 2>&1
	rp=$(router_pid)
	check '[ -n "$rp" ]' "$mode: router process found (pid ${rp:-none})"

	# --- idle: 3 s without traffic ---------------------------------
	sleep 1
	t0=$(thread_ns "$rp"); w0=$(date +%s%N)
	sleep 3
	t1=$(thread_ns "$rp"); w1=$(date +%s%N)
	pct=$(( (${t1:-0} - ${t0:-0}) * 100 / (w1 - w0) ))
	check '[ -n "$t0" ] && [ -n "$t1" ] && [ "$pct" -lt 50 ]' \
		"$mode: forwarding thread CPU over 3 s idle: $pct % of wall time (< 50 %)"

	# --- after the pause: ping, with the RTT median bounded --------
	out=$(L ping -c 10 -i 0.3 -W 5 $WAN_H 2>&1)
	check 'answered "$out" 10' "$mode: ping the WAN host through NAT"
	rtt=$(echo "$out" | sed -n 's/.*time=\([0-9.]*\) ms/\1/p' | sort -n | \
		awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print 9999}')
	check 'awk "BEGIN {exit !($rtt < 50)}"' "$mode: ping RTT median $rtt ms (< 50 ms)"

	# --- TCP through NAT ------------------------------------------
	W iperf3 -s -1 -J -B $WAN_H > "$priv/srv_$mode.json" 2>&1 &
	local sp=$!
	listening "$wan" 5201
	L timeout 30 iperf3 -c $WAN_H -t 3 -J > "$priv/cli_$mode.json" 2>&1
	wait $sp
	rh=$(json "$priv/srv_$mode.json" 'j["start"]["connected"][0]["remote_host"]')
	rx=$(json "$priv/srv_$mode.json" 'int(j["end"]["sum_received"]["bytes"])')
	check '[ "$rh" = "$WAN_RT" ] && [ "${rx:-0}" -gt 1000000 ]' \
		"$mode: iperf3 TCP through NAT: $rx bytes, the server sees $rh"

	# --- UDP LAN -> WAN beyond the WAN cable's 10 Mbit/s -----------
	W iperf3 -s -1 -J -B $WAN_H > "$priv/usrv_$mode.json" 2>&1 &
	sp=$!
	listening "$wan" 5201
	L timeout 30 iperf3 -c $WAN_H -u -b 100M -l 1400 -t 2 -J \
		> "$priv/ucli_$mode.json" 2>&1
	wait $sp
	rx=$(json "$priv/usrv_$mode.json" 'int(j["end"]["sum_received"]["bytes"])')
	check '[ "${rx:-0}" -gt 0 ]' \
		"$mode: UDP at 100 Mbit/s into the 10 Mbit/s WAN: $rx bytes at the server"
	stop_router "$mode"

	local j=$priv/$mode.json m s w k ps ph tw
	ph=$(json "$j" 'j["vlan"]["phys"][0]["rx_held"]')
	tw=$(json "$j" 'j["idle"]["tx_waits"]')
	check '[ "${ph:-0}" -gt 0 ] && [ "${tw:-0}" -gt 0 ]' \
		"$mode: LAN port held back while the WAN backlog was full: ${ph:-none} polls, TX waits ${tw:-none}"
	m=$(json "$j" 'j["idle"]["mode"]')
	s=$(json "$j" 'j["idle"]["sleeps"]')
	w=$(json "$j" 'j["idle"]["intr_waits"]')
	k=$(json "$j" 'j["idle"]["intr_wakeups"]')
	ps=$(json "$j" 'j["idle"]["polls_skipped"]')
	check '[ "$m" = "$mode" ]' "$mode: JSON idle mode: ${m:-none}"
	if [ "$mode" = interrupt ]; then
		check '[ "${w:-0}" -gt 0 ] && [ "${k:-0}" -gt 0 ]' \
			"interrupt: interrupt waits ${w:-none}, woken by frames ${k:-none}"
		# A ping's request wakes the router on the LAN port alone,
		# its reply on the WAN port alone: the other is not polled.
		check '[ "${ps:-0}" -gt 0 ]' \
			"interrupt: polls of ports that did not wake the router skipped: ${ps:-none}"
		check 'grep -q "Rx interrupt" "$priv/$mode.err"; [ $? -ne 0 ]' \
			"interrupt: both simulated CH398s took Rx interrupts (no fallback message)"
	else
		check '[ "${s:-0}" -gt 0 ] && [ "${w:-1}" = 0 ]' \
			"adaptive: sleeps ${s:-none}, interrupt waits ${w:-none}"
	fi
	check 'json "$j" "j[\"process_cpu_s\"] >= j[\"thread_cpu_s\"] > 0" | grep -q True' \
		"$mode: process CPU $(json "$j" 'j["process_cpu_s"]') s >= forwarding thread $(json "$j" 'j["thread_cpu_s"]') s"
	# The router's share of the busy walks is a part of them (an idle
	# router's sampled PMD time once made it wrap below zero).
	check 'json "$j" "0 <= j[\"app_cycles\"] <= j[\"busy_cycles\"] > 0" | grep -q True' \
		"$mode: router cycles $(json "$j" 'j["app_cycles"]') within the busy walks' $(json "$j" 'j["busy_cycles"]')"
	# The ports' PMD xstats at exit: the non-zero ones, per port; each
	# carried the iperf3 run in USB transfers.
	check 'json "$j" "all(int(j[\"xstats\"][p][\"tx_usb_xfers\"]) > 0 and int(j[\"xstats\"][p][\"rx_usb_xfers\"]) > 0 and min(j[\"xstats\"][p].values()) > 0 for p in (\"0\", \"1\"))" | grep -q True' \
		"$mode: JSON xstats of both ports, non-zero only: transfers $(json "$j" '[(p, x["tx_usb_xfers"], x["rx_usb_xfers"]) for p, x in j["xstats"].items()]')"
}

run_mode interrupt
run_mode adaptive

cpe_lib_done
