#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# ch39x-cpe with an MBIM WAN (issue 43), as it is today: the WAN port is
# the simulated MBIM modem (sim=mbim, its cable the operator's network at
# a TAP in the WAN host's namespace: 198.51.100.1, routing the sessions'
# 100.64.0.0/10 to the modem at 198.51.100.2). The PMD dials it and
# presents Ethernet with ARP answered inside, so the router needs no
# change: its WAN takes the session's IPv4 configuration either
# statically (the address the model gives, protocol reference section 24)
# or at run time from the PMD's telemetry through usertools/ch39x-cpe-mbim
# (--wan 1=dhcp, as a DHCP hook would).
#
# Checks: the PMD's /ch39x/mbim telemetry on the router's socket (the MBIM
# port, session 0 connected, address, gateway, DNS); static: a LAN host
# reaches the WAN host through NAT from 100.64.39.2 (UDP peer seen, ping,
# iperf3 TCP both ways), the WAN host cannot reach the LAN; dynamic: no
# address until ch39x-cpe-mbim hands the session's over, then UDP and
# ping through NAT (iperf3 once, static's), the DNS servers written for
# dnsmasq; the modem's counters
# after the run (no bad NTB, no ARP asked of the PMD: the router knows
# the port is point to point).
#
# --wan 1=mbim (the router follows the session itself, point to point):
# refused on a port that is not MBIM; the session's address, gateway and
# IPv6 /64 (RFC 7278, onto the pd LAN) with no tool and no DHCP, the
# default IPv6 route from the RA in the session; ch39x-cpe-mbim only puts
# the LAN's /64 on the LAN TAP (dnsmasq's RAs) and writes the DNS; the
# LAN host's IPv4 through NAT and its SLAAC IPv6 to the operator's host;
# the network ends the session: the link and the addresses go, the LAN's
# pings meanwhile are dropped (counted), the PMD redials and the same
# traffic flows again without a restart; no ARP or solicitation ever asked of the PMD; the
# session's counters and the PMD's MBIM xstats in the exit JSON.
#
# Usage: cpe_mbim.sh path/to/ch39x-cpe path/to/librte_net_ch39x.so
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cpe_lib.sh"
cpe_lib_init cpe_mbim "$@"
tool=$here/../../usertools/ch39x-cpe-mbim
LAN_RT=192.168.74.1 LAN_H=192.168.74.2 WAN_H=198.51.100.1 UE=100.64.39.2
pw=pw$id pl=pl$id
bg_pids= mt= dl=
extra_cleanup() {
	local p
	for p in $bg_pids $mt $dl; do kill "$p" 2>/dev/null; done
	return 0
}
cpe_lib_extra_cleanup=extra_cleanup
MBIM="sim=mbim,usb_speed=high,wire=tap:$tw,apn=internet,sim_apn=internet"

wait_wan() {
	local i
	for i in $(seq 120); do
		[ "$(field "$(ctl /cpe/wan)" address)" = "$1" ] && return 0
		sleep 0.5
	done
	return 1
}
# wait_session: the PMD's session 0 connected (60 s).
wait_session() {
	local i
	for i in $(seq 120); do
		[ "$(field "$(ctl /ch39x/mbim,1)" state)" = connected ] &&
			return 0
		sleep 0.5
	done
	return 1
}
# The WAN host: the operator's host on the modem's cable.
wan_host() {
	ip -n "$wan" addr add $WAN_H/24 dev "$tw"
	ip -n "$wan" link set "$tw" up
	ip -n "$wan" route add 100.64.0.0/10 via 198.51.100.2
}
# mbim_router: the router "main" with $priv/cpe.conf, the hosts' IPv4.
mbim_router() {
	start_router main
	host_v4 $LAN_RT $LAN_H 10.255.255.1
	ip -n "$wan" addr flush dev "$tw"
	wan_host
}
# nat_path TAG [quick]: a UDP datagram from the LAN host seen at the WAN
# host from the session's address; a ping; iperf3 TCP both ways (not
# quick).
nat_path() {
	local tag=$1 v i dir r
	rm -f "$priv/udp.ready" "$priv/peer"
	W python3 -c "
import socket
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('$WAN_H', 7100)); u.settimeout(20)
open('$priv/udp.ready', 'w').close()
d, a = u.recvfrom(100); u.sendto(d, a); print(a[0])" > "$priv/peer" 2>/dev/null &
	bg_pids="$bg_pids $!"
	for i in $(seq 100); do [ -e "$priv/udp.ready" ] && break; sleep 0.1; done
	v=$(L python3 -c "
import socket
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(3)
for i in range(5):
    u.sendto(b'hi', ('$WAN_H', 7100))
    try:
        u.recv(100); print('ok'); break
    except OSError:
        pass" 2>/dev/null)
	wait "${bg_pids##* }" 2>/dev/null
	check '[ "$v" = ok ] && [ "$(cat "$priv/peer")" = $UE ]' "$tag: LAN -> WAN through NAT from the session's address ($v, peer $(cat "$priv/peer" 2>/dev/null))"
	check 'L ping -c 3 -i 0.3 -W 5 $WAN_H >/dev/null' "$tag: ping through NAT"
	[ "${2:-}" = quick ] && return 0
	for dir in up down; do
		W timeout 60 iperf3 -s -1 -B $WAN_H -p 5276 -J \
			> "$priv/iperf_s_$tag$dir.json" 2>&1 &
		bg_pids="$bg_pids $!"
		listening "$wan" 5276
		r=
		[ $dir = down ] && r=-R
		timeout 60 ip netns exec "$lan" iperf3 -c $WAN_H -p 5276 -t 3 \
			$r -J > "$priv/iperf_$tag$dir.json" 2>&1
		v=$(json "$priv/iperf_$tag$dir.json" "'%.1f %d' % (j['end']['sum_received']['bits_per_second'] / 1e6, j['end']['sum_received']['bytes'])")
		wait "${bg_pids##* }" 2>/dev/null
		check '[ "${v#* }" -gt 0 ] 2>/dev/null' "$tag: iperf3 TCP $dir through NAT and the modem: ${v% *} Mbit/s"
	done
	# Routed to the modem, the LAN's addresses are no session's.
	ip -n "$wan" route replace 192.168.74.0/24 via 198.51.100.2
	out=$(W ping -c 1 -W 2 $LAN_H 2>&1)
	check 'echo "$out" | grep -qi "100% packet loss\|unreachable"' "$tag: the WAN host cannot reach the LAN through the modem"
}

# ---- static: the session's address as --wan, its gateway as the route ----
{
	echo "vdev net_ch39x0,wire=tap:$tl"
	echo "vdev net_ch39x1,$MBIM"
	echo "lan 0=$LAN_RT/24"
	echo "wan 1=$UE/30"
	echo "route default,100.64.39.1"
	echo json
} > "$priv/cpe.conf"
mbim_router
check 'wait_session' "the PMD connected the modem (/ch39x/mbim,1 connected)"
r=$(ctl /ch39x/mbim)
check 'echo "$r" | grep -q "\"ports\": \[1\]\|\"ports\":\[1\]"' "/ch39x/mbim: port 1 is the MBIM port ($r)"
r=$(ctl /ch39x/mbim,1)
v=$(echo "$r" | python3 -c "import json,sys; j=json.load(sys.stdin); print(j['ipv4']['address'], j['ipv4']['gateway'], j['ipv4_dns'][0], j['ipv4']['mtu'], j['ipv6']['address'], j['apn'], j['register'], j['packet'])" 2>/dev/null)
check '[ "$v" = "100.64.39.2/30 100.64.39.1 198.51.100.1 1500 2001:db8:39::2/64 internet home attached" ]' "/ch39x/mbim,1: the session's IP configuration ($v)"
nat_path static
stop_router main

# ---- dynamic: --wan 1=dhcp, the address from ch39x-cpe-mbim ----
{
	echo "vdev net_ch39x0,wire=tap:$tl"
	echo "vdev net_ch39x1,$MBIM"
	echo "lan 0=$LAN_RT/24"
	echo "wan 1=dhcp"
	echo "tap 1=$pw"
	echo json
} > "$priv/cpe.conf"
mbim_router
r=$(ctl /cpe/wan)
check '[ "$(field "$r" mode)" = dhcp ] && [ "$(field "$r" address)" = none ]' "dynamic: no address before the tool ($r)"
ip netns exec "$rt" timeout 200 python3 "$tool" -p "cpe_${id}_main" \
	--interval 0.5 --resolv "$priv/resolv.conf" > "$priv/tool.log" 2>&1 &
mt=$!
check 'wait_wan 100.64.39.2/30' "dynamic: ch39x-cpe-mbim hands the session's 100.64.39.2/30 to the WAN"
r=$(ctl /cpe/wan)
check '[ "$(field "$r" gateway)" = 100.64.39.1 ]' "dynamic: gateway 100.64.39.1 ($r)"
check 'grep -q "^nameserver 198.51.100.1$" "$priv/resolv.conf" && grep -q "^nameserver 2001:db8:ff::1$" "$priv/resolv.conf"' "dynamic: the session's DNS servers written for dnsmasq"
nat_path dynamic quick
kill "$mt" 2>/dev/null; wait "$mt" 2>/dev/null; mt=
x=$(ctl /ethdev/xstats,1)
v=$(echo "$x" | python3 -c "import json,sys; j=json.load(sys.stdin); print(j['tx_mbim_answered'], j['rx_ncm_bad_datagrams'], j['mbim_dials'], j['mbim_function_errors'], j['tx_mbim_not_ip_drops'])" 2>/dev/null)
# The router knows an MBIM port is point to point: no ARP asked of the
# PMD (it would answer for the fixed peer).
check 'echo "$v" | awk "\$1 == 0 && \$2 == 0 && \$3 == 1 && \$4 == 0 {ok=1} END {exit !ok}"' "the WAN port's counters: no ARP asked of the PMD, no bad datagram, one dial, no FUNCTION_ERROR (answered bad dials fnerr non-ip: $v)"
stop_router main
# ---- --wan 1=mbim: the router follows the session, point to point ----
t_mbim=$SECONDS
out=$(timeout 60 "$cpe" --no-huge --no-pci -m 256 --no-shconf -l 0 \
	-d "$priv/pmd.so" --vdev net_ch39x0 --vdev net_ch39x1 -- \
	--lan 0=192.168.9.1/24 --wan 1=mbim 2>&1)
check 'echo "$out" | grep -q -- "--wan 1=mbim: port 1 is not a net_ch39x MBIM port"' "--wan 1=mbim on a port that is not MBIM refused ($(echo "$out" | grep -o -- "--wan 1=mbim: .*" | head -1 | cut -c1-90))"
{
	echo "vdev net_ch39x0,wire=tap:$tl"
	echo "vdev net_ch39x1,$MBIM"
	echo "lan 0=$LAN_RT/24"
	echo "lan 0=pd"
	echo "tap 0=$pl"
	echo "wan 1=mbim"
	echo json
} > "$priv/cpe.conf"
mbim_router
ip -n "$wan" addr add 2001:db8:ff::1/64 dev "$tw" nodad
ip -n "$wan" -6 route add 2001:db8:39::/64 via 2001:db8:ff::2
# One telemetry client for the rest (a ch39x-cpe-ctl a query costs
# seconds on a busy machine).
sock=/var/run/dpdk/cpe_${id}_main/dpdk_telemetry.v2
for i in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
coproc TEL { timeout 200 python3 "$here/cpe_tel.py" "$sock"; }
bg_pids="$bg_pids $TEL_PID"
read -r -t 60 ready <&"${TEL[0]}"
# until_wan PATTERN...: /cpe/wan until its reply holds every pattern (60 s
# at most); the last reply in $wr.
until_wan() {
	local i p ok
	for i in $(seq 240); do
		wr=$(tel /cpe/wan)
		ok=1
		for p in "$@"; do
			case $wr in *"$p"*) ;; *) ok=0 ;; esac
		done
		[ $ok = 1 ] && return 0
		sleep 0.25
	done
	return 1
}
A4='"address": "100.64.39.2/30"' G6='"gateway6": "fe80::1"'
check 'until_wan "$A4" "$G6"' "mbim: the session's 100.64.39.2/30 is the WAN's, no tool, no DHCP; ::/0 via fe80::1 from the session's RA"
r=$wr
v=$(echo "$r" | python3 -c "import json,sys; j=json.load(sys.stdin); print(j['mode'], j['gateway'], j['mbim_state'], j['mbim_ipv6'], j['prefix6'], ' '.join(j['lan6']), j['mbim_dns'])" 2>/dev/null)
check '[ "$v" = "mbim 100.64.39.1 connected 2001:db8:39::2/64 2001:db8:39::/64 $pl=2001:db8:39::1/64 198.51.100.1 2001:db8:ff::1" ]' "mbim: /cpe/wan: gateway, session, its /64 on the pd LAN, DNS ($v)"
# The Linux side: the LAN's /64 on its TAP for dnsmasq, the DNS.
ip netns exec "$rt" timeout 200 python3 "$tool" -p "cpe_${id}_main" \
	--interval 0.5 --resolv "$priv/resolv6.conf" > "$priv/tool6.log" 2>&1 &
mt=$!
wait_tap6() {
	local i
	for i in $(seq 180); do
		ip -n "$rt" -6 addr show dev "$pl" | grep -q 2001:db8:39::1/64 &&
			return 0
		sleep 0.5
	done
	return 1
}
check 'wait_tap6 && grep -q "^nameserver 198.51.100.1$" "$priv/resolv6.conf"' "mbim: ch39x-cpe-mbim put 2001:db8:39::1/64 on the LAN TAP and wrote the DNS"
tail -n 3 "$priv/tool6.log"
ip netns exec "$rt" timeout 200 dnsmasq --no-daemon --port=0 \
	--interface="$pl" --bind-interfaces --enable-ra \
	--dhcp-range=::,constructor:"$pl",ra-only,64 "$(lan_ra "$pl")" \
	> "$priv/dnsmasq_lan.log" 2>&1 &
dl=$!
lan6() { ip -n "$lan" -6 addr show dev "$tl" scope global | sed -n 's/.*inet6 \(2001:db8:39:[^/]*\)\/64.*/\1/p' | head -n 1; }
wait_lan6() {
	local i
	for i in $(seq 180); do
		[ -n "$(lan6)" ] && ip -n "$lan" -6 route show default | grep -q via && return 0
		sleep 0.5
	done
	return 1
}
check 'wait_lan6' "mbim: the LAN host took an address from the router's LAN RA (the session's /64)"
nat_path mbim quick
check 'L ping -6 -c 3 -i 0.3 -W 5 2001:db8:ff::1 >/dev/null' "mbim: the LAN host's IPv6 ($(lan6)) reaches the operator's 2001:db8:ff::1 through the session"
# The network ends the session: the link and the addresses go until the
# PMD redials (1 s later); LAN pings meanwhile are lost and counted, then
# answered again, without a restart.
L ping -n -i 0.05 -w 4 $WAN_H > "$priv/ping_drop.txt" 2>&1 &
pp=$!
bg_pids="$bg_pids $pp"
sleep 0.5
t_drop=$SECONDS
r=$(tel /cpe/sim/mbim,1,drop)
check 'until_wan "\"mbim_downs\": 1," "$A4" "$G6"' "mbim: the network ended the session ($r); the router saw it (mbim_downs 1), the PMD redialled: the address and the IPv6 route are back ($((SECONDS - t_drop)) s after the drop)"
wait "$pp" 2>/dev/null
v=$(sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\1 \2/p' "$priv/ping_drop.txt")
check '[ -n "$v" ] && [ "${v#* }" -gt 0 ] && [ "${v#* }" -lt "${v% *}" ] && echo "$wr" | grep -q "\"clears\": 1,"' "mbim: LAN pings through the drop: ${v#* } of ${v% *} answered, the address cleared once"
check 'L ping -c 3 -i 0.3 -W 5 $WAN_H >/dev/null' "mbim: IPv4 through NAT again"
check 'wait_lan6 && L ping -6 -c 3 -i 0.3 -W 5 2001:db8:ff::1 >/dev/null' "mbim: IPv6 again"
kill "$mt" "$dl" 2>/dev/null; wait "$mt" "$dl" 2>/dev/null; mt= dl=
x=$(tel /ethdev/xstats,1)
v=$(echo "$x" | python3 -c "import json,sys; j=json.load(sys.stdin); print(j['tx_mbim_answered'], j['rx_ncm_bad_datagrams'], j['mbim_dials'])" 2>/dev/null)
kill "$TEL_PID" 2>/dev/null
check 'echo "$v" | awk "\$1 == 0 && \$2 == 0 && \$3 == 2 {ok=1} END {exit !ok}"' "mbim: no ARP or solicitation asked of the PMD (answered 0), no bad datagram, two dials (answered bad dials: $v)"
stop_router main
v=$(json "$priv/main.json" "' '.join(str(x) for x in (j['mbim']['state'], j['mbim']['ups'], j['mbim']['downs'], j['mbim']['follow'], j['mbim']['xstats']['mbim_dials'], j['wan']['mode'], j['wan']['clears']))")
check '[ "$v" = "connected 2 1 True 2 mbim 1" ]' "mbim: the exit JSON's mbim object (state ups downs follow dials, wan mode clears: $v)"
# The gap's pings: dropped and counted (the link down at port_tx, no
# route once the address went, or NAT without an address).
v=$(json "$priv/main.json" "j['drops']['no_route'] + j['wan']['no_addr_drops'] + sum(p['down_drops'] for p in j['ports'])")
check '[ "$v" -gt 0 ] 2>/dev/null' "mbim: the pings of the gap dropped and counted ($v: no_route + no_addr_drops + down_drops)"
echo "the --wan 1=mbim part: $((SECONDS - t_mbim)) s"
cpe_lib_done
