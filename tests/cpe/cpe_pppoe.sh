#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# The WAN over PPPoE (--wan PORT=pppoe, doc/guides/cpe.rst "WAN by
# PPPoE"), its data plane on this host: the kernel here has no PPP, so
# the access concentrator's end of the session is tests/cpe/cpe_pppoe_ac.py
# (session frames between the WAN host's interface and a TUN carrying the
# ISP's IP side), and the session reaches the router as pppd's ip-up
# would hand it over: usertools/ch39x-cpe-pppoe with pppd's arguments and
# the plugin's environment. (Real pppd against pppoe-server, discovery to
# PADT, runs in the QEMU guest: tests/cpe/cpe_pppoe_real.sh, by PPPOE=1
# tests/vm/run.sh.)
#
# Checks: the options (pppoe needs --tap, excludes an address, the MTU
# leaves room); before the session: mode pppoe, no address, the LAN cut
# off, discovery frames handed to the TAP; the hook's session and
# addresses in /cpe/wan, the DNS servers written; the LAN reaches the ISP
# side over IPv4 and IPv6 in the session (ping, an iperf3 TCP transfer,
# the flow cache's hits, the session's data counters); TCP MSS clamped to
# 1452 both ways; a DF packet over 1492 answered with fragmentation
# needed (MTU 1492); the router's own address answers pings in the
# session, so do link-local addresses (pppd's IPv6CP one, unknown to the
# router) and DHCPv6 replies to one go up to the TAP in the session;
# what pppd's socket writes on the TAP leaves in the session and
# the replies to the router's Linux come up to the TAP in it; LCP and IPCP frames and other sessions' frames to the TAP
# with their headers; malformed session frames counted and dropped; the
# session's end (ip-down) cuts the LAN off, a re-dial with another
# session id restores it; /cpe/wan/pppoe's bad values refused; the exit
# JSON's wan and pppoe objects.
#
# Usage: cpe_pppoe.sh path/to/ch39x-cpe path/to/librte_net_ch39x.so
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cpe_lib.sh"
cpe_lib_init cpe_pppoe "$@"
ctl_py=$here/../../usertools/ch39x-cpe-ctl
hook=$here/../../usertools/ch39x-cpe-pppoe
ac_py=$here/cpe_pppoe_ac.py
LAN_RT=192.168.74.1 LAN_H=192.168.74.2
PPP_LOCAL=100.64.0.10 PPP_PEER=100.64.0.1 SERVER=198.51.100.1
LAN6_RT=fd00:74::1 LAN6_H=fd00:74::2 WAN6=2001:db8:74::2 WAN6_GW=2001:db8:74::1
SERVER6=2001:db8:99::1
pw=pw$id tun=ac$id
bg_pids= br= sn=
extra_cleanup() {
	local p
	for p in $bg_pids $br $sn; do kill "$p" 2>/dev/null; done
	return 0
}
cpe_lib_extra_cleanup=extra_cleanup
# count LOG PATTERN: lines of LOG matching PATTERN.
count() { grep -c "$2" "$1" 2>/dev/null || true; }
# pppd's ip-up (or ip-down) as pppd calls it, with the plugin's variables.
hook_run() {
	local sid=$1 ev=$2
	ip netns exec "$rt" env CPE_PREFIX="cpe_${id}_main" CPE_CTL="$ctl_py" \
		CPE_RESOLV="$priv/resolv.conf" CPE_PPP_EVENT="$ev" \
		PPPOE_SESSID="$sid" MACREMOTE="$ac_mac" DNS1=198.51.100.53 \
		timeout 30 "$hook" ppp0 "$pw" 0 $PPP_LOCAL $PPP_PEER ""
}

# --- the options ---------------------------------------------------------
wan_mode_refusals pppoe
out=$(timeout 60 "$cpe" --no-huge --no-pci -m 256 --no-shconf -l 0 \
	-d "$priv/pmd.so" -- --lan 0=$LAN_RT/24 --wan 1=pppoe --tap 1=x \
	--mtu 1=70 2>&1)
check 'echo "$out" | grep -q "allowed values are 76..9198"' "--mtu 70 on a PPPoE port refused ($(echo "$out" | grep -o 'carries PPPoE.*' | head -1))"

start_tap_wan pppoe "lan 0=$LAN6_RT/64" "wan 1=$WAN6/64" "route ::/0,$WAN6_GW"
ip -n "$lan" addr add $LAN6_H/64 dev "$tl" nodad
ip -n "$lan" -6 route add default via $LAN6_RT
check 'ip -n "$rt" link show "$pw" | grep -q "mtu 1500"' "the TAP has the link's MTU, 1500 (pppd's interface gets 1492)"
router_mac=$(ip -n "$rt" -br link show "$pw" | awk '{print $3}')
ac_mac=$(ip -n "$wan" -br link show "$tw" | awk '{print $3}')

# The TAP's view (what pppd's kernel socket would get).
ip netns exec "$rt" timeout 200 python3 "$ac_py" sniff "$pw" "$priv/tap.log" 180 &
sn=$!
wait_file "$priv/tap.log" 20

r=$(ctl /cpe/wan)
check '[ "$(field "$r" mode)" = pppoe ] && [ "$(field "$r" address)" = none ] && [ "$(field "$r" pppoe_session_id)" = 0 ]' "before the session: mode pppoe, no address, no session ($r)"
out=$(L ping -c 1 -W 2 $PPP_PEER 2>&1)
check 'echo "$out" | grep -q "100% packet loss\|Unreachable"' "before the session: the LAN cannot reach the WAN"
W python3 "$ac_py" send "$tw" "$router_mac" padt 0x1234 3
for i in $(seq 50); do [ "$(count "$priv/tap.log" 'type 8863')" -ge 3 ] && break; sleep 0.2; done
check '[ "$(count "$priv/tap.log" "type 8863")" -ge 3 ]' "discovery frames to the TAP ($(count "$priv/tap.log" 'type 8863') of 3)"

# --- the session ----------------------------------------------------------
# The ISP side: the concentrator's TUN with the peer address, a server
# beyond it, routes back to the session's address and the WAN prefix.
W ip addr add $SERVER/32 dev lo
W ip -6 addr add $SERVER6/128 dev lo
ip netns exec "$wan" timeout 200 python3 "$ac_py" bridge "$tw" "$tun" \
	"$router_mac" "$priv/ac.log" 180 &
br=$!
wait_file "$priv/ac.log" 20
for i in $(seq 100); do ip -n "$wan" link show "$tun" >/dev/null 2>&1 && break; sleep 0.1; done
W ip addr add $PPP_PEER peer $PPP_LOCAL/32 dev "$tun"
W ip -6 addr add $WAN6_GW/64 dev "$tun" nodad
W ip link set "$tun" up mtu 1500
# IPv6 is routed, not translated: the LAN's prefix is behind the session.
W ip -6 route add ${LAN6_RT%::1}::/64 dev "$tun"
hook_run 4660 up
r=$(ctl /cpe/wan)
check '[ "$(field "$r" address)" = $PPP_LOCAL/32 ] && [ "$(field "$r" gateway)" = $PPP_PEER ] && [ "$(field "$r" pppoe_session_id)" = 4660 ] && [ "$(field "$r" pppoe_concentrator)" = "$ac_mac" ]' "ip-up: session 4660 via $ac_mac, $PPP_LOCAL/32 peer $PPP_PEER in /cpe/wan"
check 'grep -q "nameserver 198.51.100.53" "$priv/resolv.conf"' "the peer's DNS server written for dnsmasq"

out=$(L ping -c 3 -i 0.3 -W 5 $SERVER 2>&1)
check 'answered "$out" 3' "LAN -> ISP server over IPv4 in the session ($(echo "$out" | grep -o '[0-9]* received'))"
check 'grep -q "^sid 4660" "$priv/ac.log"' "the router's frames carry session 4660"
out=$(L ping -6 -c 3 -i 0.3 -W 5 $SERVER6 2>&1)
check 'answered "$out" 3' "LAN -> ISP server over IPv6 in the session ($(echo "$out" | grep -o '[0-9]* received'))"
out=$(W ping -c 2 -i 0.3 -W 5 $PPP_LOCAL 2>&1)
check 'answered "$out" 2' "the router's session address answers pings ($(echo "$out" | grep -o '[0-9]* received'))"
# Link-local destinations in the session are the router's: pppd's
# interface has IPv6CP's address, which the router never learns. An echo
# request to one is answered; a DHCPv6 reply (UDP 547 -> 546 from the
# concentrator's link-local) goes up to the TAP in the session, for
# pppd's interface and the DHCPv6 client on it.
W ip -6 addr add fe80::1/64 dev "$tun" nodad
out=$(W ping -6 -c 2 -i 0.3 -W 5 "fe80::2%$tun" 2>&1)
check 'answered "$out" 2' "an echo request to a link-local address in the session answered ($(echo "$out" | grep -o '[0-9]* received'))"
n0=$(count "$priv/tap.log" 'sid 4660 proto 0057 udp6 546')
W python3 -c "
import socket, time
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
k = socket.if_nametoindex('$tun')
s.bind(('fe80::1', 547, 0, k))
for i in range(3):
	s.sendto(b'\x07' + bytes(40), ('fe80::2', 546, 0, k)); time.sleep(0.2)"
for i in $(seq 50); do [ "$(count "$priv/tap.log" 'sid 4660 proto 0057 udp6 546')" -ge $((n0 + 3)) ] && break; sleep 0.2; done
check '[ "$(count "$priv/tap.log" "sid 4660 proto 0057 udp6 546")" -ge $((n0 + 3)) ]' "DHCPv6 replies to a link-local address in the session go up to the TAP in it ($(( $(count "$priv/tap.log" 'sid 4660 proto 0057 udp6 546') - n0 )) of 3)"

# What pppd's kernel socket writes on the TAP (the router's own traffic,
# here an echo request to the concentrator's address): out in the
# session, and the reply, for the router's address, back up to the TAP
# in the session (the firewall saw the request go out).
ip netns exec "$rt" timeout 30 python3 "$ac_py" send "$pw" "$ac_mac" echo_out 4660 2
for i in $(seq 50); do [ "$(count "$priv/tap.log" 'sid 4660 proto 0021 icmp 0')" -ge 2 ] && break; sleep 0.2; done
check '[ "$(count "$priv/tap.log" "sid 4660 proto 0021 icmp 0")" -ge 2 ]' "the router's Linux's echo requests leave in the session, the replies come up to the TAP in it ($(count "$priv/tap.log" 'icmp 0') of 2)"

# DF: 1500 bytes do not fit the session's 1492; 1492 do.
out=$(L ping -M do -s 1472 -c 1 -W 5 $SERVER 2>&1)
check 'echo "$out" | grep -qi "mtu = 1492\|mtu=1492"' "a 1500-byte DF packet: fragmentation needed, MTU 1492 ($(echo "$out" | grep -io 'mtu *= *[0-9]*' | head -1))"
out=$(L ping -M do -s 1464 -c 2 -i 0.3 -W 5 $SERVER 2>&1)
check 'answered "$out" 2' "a 1492-byte DF packet passes ($(echo "$out" | grep -o '[0-9]* received'))"

# TCP through the fast path, MSS clamped both ways.
ip netns exec "$lan" timeout 200 python3 "$ac_py" sniff "$tl" "$priv/lan.log" 120 &
bg_pids="$bg_pids $!"
wait_file "$priv/lan.log" 20
W timeout 60 iperf3 -s -1 -B $SERVER -p 5274 > "$priv/iperf_s.log" 2>&1 &
bg_pids="$bg_pids $!"
sleep 0.5
out=$(timeout 60 ip netns exec "$lan" iperf3 -c $SERVER -p 5274 -t 3 -b 20M --connect-timeout 5000 2>&1)
check 'echo "$out" | grep -q receiver' "iperf3 TCP LAN -> ISP server in the session ($(echo "$out" | grep receiver | awk '{print $7, $8}'))"
syn=$(grep -o 'syn_mss [0-9]*' "$priv/ac.log" | awk '{print $2}' | sort -u | tr '\n' ' ')
check '[ -n "$syn" ] && ! echo "$syn" | grep -qv "^1452 $"' "the LAN's SYNs leave with MSS 1452 (seen: $syn)"
synack=$(grep -o 'syn_mss [0-9]*' "$priv/lan.log" | awk '{print $2}' | sort -u | tr '\n' ' ')
check '[ -n "$synack" ] && ! echo "$synack" | grep -qv "^1452 $"' "the server's SYN-ACKs reach the LAN with MSS 1452 (seen: $synack)"

# Control frames, other sessions, malformed frames.
W python3 "$ac_py" send "$tw" "$router_mac" lcp 4660 4
W python3 "$ac_py" send "$tw" "$router_mac" ipcp 4660 2
W python3 "$ac_py" send "$tw" "$router_mac" data_other 4661 3
for i in $(seq 50); do [ "$(count "$priv/tap.log" 'sid 4661 proto 0021')" -ge 3 ] && break; sleep 0.2; done
check '[ "$(count "$priv/tap.log" "sid 4660 proto c021")" -ge 4 ] && [ "$(count "$priv/tap.log" "sid 4660 proto 8021")" -ge 2 ]' "LCP and IPCP to the TAP with their session headers ($(count "$priv/tap.log" 'proto c021') LCP, $(count "$priv/tap.log" 'proto 8021') IPCP)"
check '[ "$(count "$priv/tap.log" "sid 4661 proto 0021")" -ge 3 ]' "another session's data to the TAP, not routed ($(count "$priv/tap.log" 'sid 4661'))"
# Plain Ethernet on the PPPoE link: dropped, not Linux's (its TAP's
# IPv6 link-local would answer the WAN past the firewall).
n0=$(count "$priv/tap.log" 'type 0800')
p0=$(field "$(ctl /cpe/wan)" pppoe_rx_not_pppoe)
W python3 "$ac_py" send "$tw" "$router_mac" plain_ip 4660 5
for i in $(seq 50); do [ "$(field "$(ctl /cpe/wan)" pppoe_rx_not_pppoe)" -ge $((p0 + 5)) ] 2>/dev/null && break; sleep 0.2; done
check '[ "$(field "$(ctl /cpe/wan)" pppoe_rx_not_pppoe)" -ge $((p0 + 5)) ] && [ "$(count "$priv/tap.log" "type 0800")" -eq "$n0" ]' "5 plain IPv4 frames from the WAN dropped and counted, none to the TAP (rx_not_pppoe $p0 -> $(field "$(ctl /cpe/wan)" pppoe_rx_not_pppoe))"
r0=$(field "$(ctl /cpe/wan)" pppoe_rx_bad)
for k in bad_ver bad_code bad_len short; do
	W python3 "$ac_py" send "$tw" "$router_mac" $k 4660 5
done
for i in $(seq 50); do [ "$(field "$(ctl /cpe/wan)" pppoe_rx_bad)" -ge $((r0 + 20)) ] 2>/dev/null && break; sleep 0.2; done
r=$(ctl /cpe/wan)
check '[ "$(field "$r" pppoe_rx_bad)" -eq $((r0 + 20)) ]' "20 malformed session frames counted and dropped (rx_bad $(field "$r" pppoe_rx_bad))"
check 'answered "$(L ping -c 2 -i 0.3 -W 5 $SERVER 2>&1)" 2' "the session still carries traffic after them"

# The session ends (ip-down), then a re-dial with another id.
hook_run 4660 down
r=$(ctl /cpe/wan)
check '[ "$(field "$r" address)" = none ] && [ "$(field "$r" pppoe_session_id)" = 0 ]' "ip-down: no address, no session"
out=$(L ping -c 1 -W 2 $SERVER 2>&1)
check 'echo "$out" | grep -q "100% packet loss\|Unreachable"' "without the session the LAN cannot reach the WAN"
hook_run 4661 up
out=$(L ping -c 3 -i 0.3 -W 5 $SERVER 2>&1)
check 'answered "$out" 3' "a re-dial (session 4661): traffic resumes ($(echo "$out" | grep -o '[0-9]* received'))"
check 'grep -q "^sid 4661" "$priv/ac.log"' "the router's frames carry the new session id"
r=$(ctl /cpe/wan)
check '[ "$(field "$r" pppoe_sessions)" = 2 ] && [ "$(field "$r" nat_flushed)" -ge 0 ]' "two sessions counted ($(field "$r" pppoe_sessions))"

# Bad values over the control, refused with what is allowed.
r=$(ctl /cpe/wan/pppoe,0,$ac_mac,$PPP_LOCAL,$PPP_PEER)
check 'echo "$r" | grep -q "session id 1..65534"' "/cpe/wan/pppoe with session 0 refused"
r=$(ctl /cpe/wan/pppoe,7,ff:ff:ff:ff:ff:ff,$PPP_LOCAL,$PPP_PEER)
check 'echo "$r" | grep -q "session id 1..65534"' "/cpe/wan/pppoe with a broadcast concentrator refused"
r=$(ctl /cpe/wan/pppoe,7,$ac_mac,$PPP_LOCAL,$PPP_LOCAL)
check 'echo "$r" | grep -q "the peer another"' "/cpe/wan/pppoe with the peer equal to the address refused ($r)"
r=$(ctl /cpe/wan/set,203.0.113.7/24,203.0.113.1)
check 'echo "$r" | grep -q "the WAN is PPPoE"' "/cpe/wan/set on a PPPoE WAN refused, naming /cpe/wan/pppoe"

stop_router main
kill "$br" "$sn" 2>/dev/null; wait "$br" "$sn" 2>/dev/null; br= sn=
j=$priv/main.json
v=$(json "$j" "j['wan']['mode'], j['pppoe']['session_id'], j['pppoe']['sessions'], j['pppoe']['rx_data'], j['pppoe']['tx_data'], j['pppoe']['rx_bad'], j['pppoe']['rx_ctl'], j['fast']['hits']")
check 'echo "$v" | awk "\$1 == \"pppoe\" && \$2 == 4661 && \$3 == 2 && \$4 > 100 && \$5 > 100 && \$6 == 20 && \$7 >= 6 && \$8 > 100 {ok=1} END {exit !ok}"' "exit JSON: mode pppoe, session 4661, 2 sessions, data both ways, 20 bad, control to pppd, fast-path hits ($v)"
cpe_lib_done
