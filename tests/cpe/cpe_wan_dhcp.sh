#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# The WAN's IPv4 address from an ISP's DHCP server (--wan PORT=dhcp,
# doc/guides/cpe.rst "WAN by DHCP"): dnsmasq serves leases in the WAN
# namespace, busybox udhcpc runs on the router's WAN TAP with
# usertools/ch39x-cpe-udhcpc, which hands each lease to the router over
# telemetry (usertools/ch39x-cpe-ctl).
#
# Checks: no address before the lease (LAN traffic to the WAN refused and
# counted); the lease's address, prefix and gateway in /cpe/wan; a LAN
# host reaches the WAN host through NAT from the leased address; the DNS
# servers written for dnsmasq; a renewal moves nothing (an iperf3 TCP
# transfer through NAT goes on across it); an address change (the
# server's pool moved, the old lease refused) flushes NAT (counted), and
# a ping stream across it leaves from the new address; a release takes
# the address
# away; bad /cpe/wan/set values and --wan PORT=dhcp without --tap refused.
#
# Usage: cpe_wan_dhcp.sh path/to/ch39x-cpe path/to/librte_net_ch39x.so
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cpe_lib.sh"
cpe_lib_init cpe_wan_dhcp "$@" dnsmasq busybox tshark
ctl_py=$here/../../usertools/ch39x-cpe-ctl
hook=$here/../../usertools/ch39x-cpe-udhcpc
LAN_RT=192.168.73.1 LAN_H=192.168.73.2 WAN_H=203.0.113.1
pw=pw$id
bg_pids= dq= uc=
extra_cleanup() {
	local p
	for p in $bg_pids $dq $uc; do kill "$p" 2>/dev/null; done
	return 0
}
cpe_lib_extra_cleanup=extra_cleanup
# wait_wan ADDR: until /cpe/wan says address ADDR (60 s).
wait_wan() {
	local i
	for i in $(seq 120); do
		[ "$(field "$(ctl /cpe/wan)" address)" = "$1" ] && return 0
		sleep 0.5
	done
	return 1
}
# dhcp_server FIRST_ADDR: dnsmasq with a pool of one address.
dhcp_server() {
	[ -n "$dq" ] && { kill "$dq" 2>/dev/null; wait "$dq" 2>/dev/null; }
	ip netns exec "$wan" timeout 300 dnsmasq --no-daemon --port=0 \
		--interface="$tw" --bind-interfaces --dhcp-authoritative \
		--dhcp-range="$1,$1,255.255.255.0,2m" \
		--dhcp-option=option:router,$WAN_H \
		--dhcp-option=option:dns-server,203.0.113.53 \
		--dhcp-leasefile="$priv/leases.$1" --log-dhcp \
		> "$priv/dnsmasq.$1.log" 2>&1 &
	dq=$!
}

wan_mode_refusals dhcp

start_tap_wan dhcp
ip -n "$wan" addr add $WAN_H/24 dev "$tw"

r=$(ctl /cpe/wan)
check '[ "$(field "$r" mode)" = dhcp ] && [ "$(field "$r" address)" = none ]' "before a lease: mode dhcp, no address ($r)"
out=$(L ping -c 1 -W 2 $WAN_H 2>&1)
check 'echo "$out" | grep -q "100% packet loss\|Unreachable"' "before a lease: the LAN cannot reach the WAN"

dhcp_server 203.0.113.100
sleep 0.5
ip netns exec "$rt" env CPE_PREFIX="cpe_${id}_main" CPE_CTL="$ctl_py" \
	CPE_RESOLV="$priv/resolv.conf" timeout 300 busybox udhcpc -f -B \
	-i "$pw" -s "$hook" -t 20 -T 1 -A 1 -p "$priv/udhcpc.pid" \
	> "$priv/udhcpc.log" 2>&1 &
uc=$!
# udhcpc's own pid for its signals (uc is timeout's, which does not pass
# SIGUSR1/2 on).
udhcpc_pid() {
	local i
	for i in $(seq 100); do
		[ -s "$priv/udhcpc.pid" ] && { cat "$priv/udhcpc.pid"; return; }
		sleep 0.1
	done
}
check 'wait_wan 203.0.113.100/24' "the lease 203.0.113.100/24 reaches the router"
r=$(ctl /cpe/wan)
check '[ "$(field "$r" gateway)" = $WAN_H ] && [ "$(field "$r" sets)" = 1 ]' "/cpe/wan: gateway $WAN_H, 1 set ($r)"
check 'grep -q "nameserver 203.0.113.53" "$priv/resolv.conf"' "the lease's DNS server written for dnsmasq"

# A UDP server on the WAN host that logs its peers.
wan_udp() {
	W python3 -c "
import socket
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('$WAN_H', 7100)); u.settimeout(20)
open('$priv/udp.ready', 'w').close()
d, a = u.recvfrom(100); u.sendto(d, a); print(a[0])" > "$priv/peer" 2>/dev/null
}
lan_udp() {
	L python3 -c "
import socket
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(5)
for i in range(5):
    u.sendto(b'hi', ('$WAN_H', 7100))
    try:
        u.recv(100); print('ok'); break
    except OSError:
        pass" 2>/dev/null
}
rm -f "$priv/udp.ready"; wan_udp & wp=$!
for i in $(seq 100); do [ -e "$priv/udp.ready" ] && break; sleep 0.1; done
v=$(lan_udp); wait "$wp"
check '[ "$v" = ok ] && [ "$(cat "$priv/peer")" = 203.0.113.100 ]' "LAN -> WAN through NAT from the leased address ($v, peer $(cat "$priv/peer"))"
check 'L ping -c 2 -i 0.3 -W 5 $WAN_H >/dev/null' "ping through NAT"

# A renewal of the same lease moves nothing, in the middle of a TCP
# transfer through NAT, which goes on (iperf3's per-second intervals
# after the renewal carry data).
W timeout 60 iperf3 -s -1 -B $WAN_H -p 5275 -J > "$priv/iperf_s.json" 2>&1 &
isp=$!
for i in $(seq 50); do W ss -ltn 2>/dev/null | grep -q ":5275 " && break; sleep 0.1; done
timeout 60 ip netns exec "$lan" iperf3 -c $WAN_H -p 5275 -t 6 -b 20M \
	--connect-timeout 5000 > "$priv/iperf_c.log" 2>&1 &
icl=$!
sleep 2
kill -USR1 "$(udhcpc_pid)"
for i in $(seq 60); do [ "$(field "$(ctl /cpe/wan)" renewals)" -ge 1 ] 2>/dev/null && break; sleep 0.5; done
r=$(ctl /cpe/wan)
wait "$icl"; irc=$?
wait "$isp"
# bytes the server received in the intervals from 4 s on (after the renewal)
late=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(int(sum(i["sum"]["bytes"] for i in d.get("intervals", []) if i["sum"]["start"] >= 4)))' \
	"$priv/iperf_s.json" 2>/dev/null)
check '[ "$(field "$r" renewals)" -ge 1 ] && [ "$(field "$r" sets)" = 1 ] && [ "$(field "$r" nat_flushed)" = 0 ]' "a renewal: counted, the address and NAT kept ($r)"
check '[ "$irc" = 0 ] && [ "${late:-0}" -gt 0 ]' "a TCP transfer through NAT goes on across the renewal (iperf3 exit $irc, ${late:-0} bytes after it)"

# The pool moves: the old address is refused, a new lease comes; a ping
# stream through NAT across the change is answered again from the new
# address (its NAT session made afresh after the flush).
# (-c, not -w: with a deadline iputils ping quits at its first error,
# the router's unreachable while it has no address)
ip netns exec "$lan" timeout 60 ping -n -i 0.1 -c 400 $WAN_H > "$priv/ping_change.log" 2>&1 &
pst=$!
sleep 1
dhcp_server 203.0.113.101
sleep 0.5
kill -USR1 "$(udhcpc_pid)"
check 'wait_wan 203.0.113.101/24' "an address change reaches the router (203.0.113.101/24)"
r=$(ctl /cpe/wan)
check '[ "$(field "$r" nat_flushed)" -ge 1 ]' "the old address's NAT sessions flushed ($(field "$r" nat_flushed))"
# The WAN host sees the echo requests come from the new address.
W timeout 20 tshark -n -l -i "$tw" -c 3 \
	-f "icmp[icmptype] == icmp-echo and src host 203.0.113.101" \
	> "$priv/ping_src.log" 2>/dev/null
sleep 1
kill -INT "$pst" 2>/dev/null; wait "$pst"
pr=$(sed -n 's/.*transmitted, \([0-9]*\) received.*/\1/p' "$priv/ping_change.log")
check '[ "$(grep -c "Echo (ping) request" "$priv/ping_src.log")" -ge 3 ] && [ "${pr:-0}" -ge 10 ]' \
	"a ping stream across the change: requests leave from 203.0.113.101 afterwards ($(grep -c "Echo (ping) request" "$priv/ping_src.log") seen), ${pr:-0} replies in all"
rm -f "$priv/udp.ready"; wan_udp & wp=$!
for i in $(seq 100); do [ -e "$priv/udp.ready" ] && break; sleep 0.1; done
v=$(lan_udp); wait "$wp"
check '[ "$v" = ok ] && [ "$(cat "$priv/peer")" = 203.0.113.101 ]' "LAN -> WAN from the new address ($v, peer $(cat "$priv/peer"))"

# Bad values over the control, refused with what is allowed.
r=$(ctl /cpe/wan/set,203.0.113.7/31,203.0.113.1)
check 'echo "$r" | grep -q "prefix length 1..30\|ADDR/LEN,GATEWAY"' "/cpe/wan/set with /31 refused ($r)"
r=$(ctl /cpe/wan/set,203.0.113.7/24,198.51.100.1)
check 'echo "$r" | grep -q "gateway on the lease"' "/cpe/wan/set with a gateway off the subnet refused ($r)"

# The lease released: no address, the LAN cut off again.
kill -USR2 "$(udhcpc_pid)"
check 'wait_wan none' "a release takes the address away"
out=$(L ping -c 1 -W 2 $WAN_H 2>&1)
check 'echo "$out" | grep -q "100% packet loss\|Unreachable"' "after the release the LAN cannot reach the WAN"
kill "$uc" 2>/dev/null; wait "$uc" 2>/dev/null; uc=
stop_router main
j=$priv/main.json
v=$(json "$j" "j['wan']['mode'], j['wan']['sets'], j['wan']['clears'], j['wan']['nat_flushed'], j['wan']['renewals']")
check 'echo "$v" | awk "\$1 == \"dhcp\" && \$2 >= 2 && \$3 >= 1 && \$4 >= 1 && \$5 >= 1 {ok=1} END {exit !ok}"' "exit statistics: wan mode, sets, clears, nat_flushed, renewals ($v)"
cpe_lib_done
