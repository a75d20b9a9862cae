#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# IPv6 through ch39x-cpe, dual stack, with Linux hosts in network
# namespaces (cpe_lib.sh): both ports have an IPv4 address and an IPv6
# prefix (the same --lan/--wan repeated), the WAN port a smaller MTU
# (--mtu 1=1400). From the LAN host: ping6 to the router's global and
# link-local addresses; ping6 through the router with no NAT (the WAN
# side sees the LAN host's own address) and over a static route; iperf3
# -6 TCP; hop limit 1 (time exceeded from the router), no route
# (unreachable), a too big packet with DF semantics (packet too big, MTU
# 1400) and TCP path MTU discovery through it; a router solicitation to
# ff02::2 (punted to the exception path); malformed neighbour discovery
# (hop limit 64, a zero-length option: counted, not answered); the WAN
# host changing its MAC. IPv4 through NAT in the same run. The exit
# statistics (JSON) must show IPv6 fast-path hits and the ND/ICMPv6
# counters.
#
# Usage: cpe_ipv6.sh path/to/ch39x-cpe path/to/librte_net_ch39x.so
# Exit 77 (skip) when not root.
set -uo pipefail
. "$(dirname "$0")/cpe_lib.sh"
cpe_lib_init cpe_ipv6 "$@"

LAN_RT=192.168.60.1 LAN_H=192.168.60.2 WAN_RT=203.0.113.2 WAN_H=203.0.113.1
LAN6_RT=fd00:1::1 LAN6_H=fd00:1::2 WAN6_RT=2001:db8:1::2 WAN6_H=2001:db8:1::1
FAR6=2001:db8:2::1	# behind the WAN host: the static route's target
cat > "$priv/cpe.conf" <<CONF
vdev net_ch39x0,wire=tap:$tl
vdev net_ch39x1,wire=tap:$tw
lan 0=$LAN_RT/24
lan 0=$LAN6_RT/64
wan 1=$WAN_RT/24
wan 1=$WAN6_RT/64
route default,$WAN_H
route 2001:db8:2::/48,$WAN6_H
mtu 1=1400      # WAN smaller than LAN (1500): packet too big
json
CONF

start_router main
for n in "$lan" "$wan"; do
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0
	ip netns exec "$n" sysctl -qw net.ipv6.conf.default.accept_dad=0
done
host_v4 $LAN_RT $LAN_H $WAN_H
ip -n "$lan" -6 addr add $LAN6_H/64 dev "$tl" nodad
ip -n "$lan" -6 route add default via $LAN6_RT
ip -n "$wan" -6 addr add $WAN6_H/64 dev "$tw" nodad
ip -n "$wan" -6 addr add $FAR6/128 dev lo
# No NAT for IPv6: the WAN host routes the LAN prefix back to the router.
ip -n "$wan" -6 route add fd00:1::/64 via $WAN6_RT

# --- the router's addresses ---------------------------------------------
out=$(L ping -6 -c 3 -i 0.2 -W 5 $LAN6_RT 2>&1)
check 'answered "$out" 3' "ping6 the router's LAN address $LAN6_RT ($(echo "$out" | grep -m1 "packets transmitted"))"
out=$(L ping -6 -c 3 -i 0.2 -W 5 $WAN6_RT 2>&1)
check 'answered "$out" 3' "ping6 the router's WAN address $WAN6_RT from the LAN ($(echo "$out" | grep -m1 "packets transmitted"))"
# The link-local address: EUI-64 of the MAC the LAN host learned by ND.
mac=$(ip -n "$lan" -6 neigh show $LAN6_RT | sed -n 's/.*lladdr \([0-9a-f:]*\).*/\1/p')
ll=$(python3 -c "import sys; b=[int(x,16) for x in sys.argv[1].split(':')]; b[0]^=2
e=b[:3]+[0xff,0xfe]+b[3:]; print('fe80::%x:%x:%x:%x' % tuple((e[i]<<8)|e[i+1] for i in range(0,8,2)))" "$mac" 2>/dev/null)
out=$(L ping -6 -c 3 -i 0.2 -W 5 "$ll%$tl" 2>&1)
check 'answered "$out" 3' "ping6 the router's link-local $ll (MAC $mac) ($(echo "$out" | grep -m1 "packets transmitted"))"

# --- through the router, no NAT -----------------------------------------
out=$(L ping -6 -c 3 -i 0.2 -W 5 $WAN6_H 2>&1)
check 'answered "$out" 3' "ping6 the WAN host $WAN6_H through the router ($(echo "$out" | grep -m1 "packets transmitted"))"
out=$(L ping -6 -c 3 -i 0.2 -W 5 $FAR6 2>&1)
check 'answered "$out" 3' "ping6 $FAR6 over the static route via $WAN6_H ($(echo "$out" | grep -m1 "packets transmitted"))"
out=$(L ping -c 3 -i 0.2 -W 5 $WAN_H 2>&1)
check 'answered "$out" 3' "dual stack: IPv4 ping through NAT to $WAN_H ($(echo "$out" | grep -m1 "packets transmitted"))"

tcp_run() {
	local tag=$1 secs=$2
	W iperf3 -s -1 -J -B $WAN6_H > "$priv/srv_$tag.json" 2>&1 &
	local sp=$!
	listening "$wan" 5201
	L timeout 30 iperf3 -6 -c $WAN6_H -t "$secs" -J > "$priv/cli_$tag.json" 2>&1
	wait $sp
}
tcp_run v6 3
rh=$(json "$priv/srv_v6.json" 'j["start"]["connected"][0]["remote_host"]')
rx=$(json "$priv/srv_v6.json" 'int(j["end"]["sum_received"]["bytes"])')
mbps=$(json "$priv/cli_v6.json" 'int(j["end"]["sum_received"]["bits_per_second"]/1e6)')
check '[ "$rh" = "$LAN6_H" ]' "iperf3 -6: the WAN server sees the LAN host's own address ($rh)"
check '[ "${rx:-0}" -gt 1000000 ]' "iperf3 -6 TCP: $rx bytes received by the WAN server ($mbps Mbit/s)"

# --- ICMPv6 errors from the router --------------------------------------
out=$(L ping -6 -c 1 -t 1 -W 5 $WAN6_H 2>&1)
check 'echo "$out" | grep -q "From $LAN6_RT.*Time exceeded"' \
	"hop limit 1: time exceeded from $LAN6_RT ($(echo "$out" | grep -m1 From))"
out=$(L ping -6 -c 1 -t 2 -W 5 $WAN6_H 2>&1)
check 'answered "$out" 1' "hop limit 2 reaches the WAN host (one hop) ($(echo "$out" | grep -m1 "packets transmitted"))"
out=$(L ping -6 -c 1 -W 5 2001:db8:99::1 2>&1)
check 'echo "$out" | grep -q "From $LAN6_RT.*Destination unreachable: No route"' \
	"no route: unreachable from $LAN6_RT ($(echo "$out" | grep -m1 From))"
# The iperf3 run above taught the LAN host the path MTU: forget it.
ip -n "$lan" -6 route flush cache
out=$(L ping -6 -M do -s 1452 -c 1 -W 5 $WAN6_H 2>&1)
check 'echo "$out" | grep -q "From $LAN6_RT.*Packet too big: mtu=1400"' \
	"1500-byte ping6: packet too big, mtu 1400 ($(echo "$out" | grep -m1 From))"
out=$(L ping -6 -M do -s 1352 -c 2 -i 0.2 -W 5 $WAN6_H 2>&1)
check 'answered "$out" 2' "1400-byte ping6 passes ($(echo "$out" | grep -m1 "packets transmitted"))"
# TCP: the router clamps the SYNs' MSS to the WAN's 1400 (1340), so no
# segment is too big (forget the cached path MTU first).
ip -n "$lan" -6 route flush cache
tcp_run pmtu 2
rx=$(json "$priv/srv_pmtu.json" 'int(j["end"]["sum_received"]["bytes"])')
check '[ "${rx:-0}" -gt 1000000 ]' "iperf3 -6 through the 1400-byte WAN (MSS clamped): $rx bytes"

# --- exception path and malformed ND ------------------------------------
cat > "$priv/nd.py" <<'PY'
import socket, struct, sys
ifname, src, dst, target, kind = sys.argv[1:6]
ifx = socket.if_nametoindex(ifname)
if kind == "rs":
    # A router solicitation to ff02::2 (the kernel fills the checksum).
    s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 255)
    s.sendto(bytes([133, 0, 0, 0, 0, 0, 0, 0]), ("ff02::2", 0, 0, ifx))
    sys.exit(0)
# A hand-made NS on the wire: kind "hop64" (hop limit 64) or "opt0" (a
# zero-length option); both must be dropped as malformed.
mac = open("/sys/class/net/%s/address" % ifname).read().strip()
macb = bytes(int(x, 16) for x in mac.split(":"))
s6, d6, t6 = (socket.inet_pton(socket.AF_INET6, a) for a in (src, dst, target))
opt = bytes([1, 0]) + macb if kind == "opt0" else bytes([1, 1]) + macb
icmp = bytes([135, 0, 0, 0, 0, 0, 0, 0]) + t6 + opt
ph = s6 + d6 + struct.pack("!I3xB", len(icmp), 58)
c = sum(struct.unpack("!%dH" % ((len(ph) + len(icmp)) // 2), ph + icmp))
while c >> 16:
    c = (c & 0xffff) + (c >> 16)
icmp = icmp[:2] + struct.pack("!H", ~c & 0xffff) + icmp[4:]
ip = struct.pack("!IHBB", 6 << 28, len(icmp), 58, 64 if kind == "hop64" else 255) + s6 + d6
dmac = bytes([0x33, 0x33, 0xff]) + t6[13:]
p = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
p.bind((ifname, 0))
p.send(dmac + macb + b"\x86\xdd" + ip + icmp)
PY
L python3 "$priv/nd.py" "$tl" :: ff02::2 :: rs
L python3 "$priv/nd.py" "$tl" $LAN6_H ff02::1:ff00:1 $LAN6_RT hop64
L python3 "$priv/nd.py" "$tl" $LAN6_H ff02::1:ff00:1 $LAN6_RT opt0

# --- neighbour change: the WAN host gets a new MAC ----------------------
ip -n "$wan" link set "$tw" address 02:cc:00:00:00:66
ip -n "$wan" -6 neigh flush dev "$tw"
W ping -6 -c 1 -W 3 $WAN6_RT >/dev/null 2>&1   # its NS teaches the router
W ping -c 1 -W 3 $WAN_RT >/dev/null 2>&1       # and its ARP (IPv4)
out=$(L ping -6 -c 3 -i 0.2 -W 5 $WAN6_H 2>&1)
check 'answered "$out" 3' "after the WAN host's MAC change, ping6 still passes ($(echo "$out" | grep -m1 "packets transmitted"))"
tcp_run after 2
rx=$(json "$priv/srv_after.json" 'int(j["end"]["sum_received"]["bytes"])')
check '[ "${rx:-0}" -gt 1000000 ]' "iperf3 -6 after the MAC change: $rx bytes"
out=$(L ping -c 2 -i 0.2 -W 5 $WAN_H 2>&1)
check 'answered "$out" 2' "dual stack: IPv4 still passes at the end ($(echo "$out" | grep -m1 "packets transmitted"))"
stop_router main

j=$priv/main.json
# One python run for all the counters (each start costs on a busy machine).
read -r hits chg learned ns na ndbad rs te un tb er nat mss < <(json "$j" \
	'" ".join(str(x) for x in (j["ipv6"]["fast_hits"], j["ipv6"]["nd"]["changed"],
	j["ipv6"]["nd"]["learned"], j["ipv6"]["nd"]["ns_sent"], j["ipv6"]["nd"]["na_sent"],
	j["ipv6"]["nd"]["bad"], j["ipv6"]["rs_punted"], j["ipv6"]["icmp"]["time_exceeded"],
	j["ipv6"]["icmp"]["unreachable"], j["ipv6"]["icmp"]["too_big"],
	j["ipv6"]["icmp"]["echo_replies"], j["nat"]["created"],
	j["fragments"]["mss_clamped"]))')
check '[ "${hits:-0}" -gt 1000 ]' "IPv6 fast-path hits: ${hits:-none}"
check '[ "${chg:-0}" -ge 1 ]' "ND: MAC changes seen: ${chg:-none}"
check '[ "${learned:-0}" -ge 2 ] && [ "${ns:-0}" -ge 1 ] && [ "${na:-0}" -ge 2 ]' \
	"ND: learned ${learned:-none}, NS sent ${ns:-none}, NA sent ${na:-none}"
check '[ "${ndbad:-0}" -ge 2 ]' "ND: malformed (hop limit, option length) counted: ${ndbad:-none}"
check '[ "${rs:-0}" -ge 1 ]' "router solicitation to ff02::2 punted: ${rs:-none}"
check '[ "${te:-0}" -ge 1 ] && [ "${un:-0}" -ge 1 ]' \
	"ICMPv6 sent: time exceeded ${te:-none}, unreachable ${un:-none}"
check '[ "${tb:-0}" -ge 1 ]' "ICMPv6 packet too big (the 1500-byte ping): ${tb:-none}"
check '[ "${mss:-0}" -ge 1 ]' "TCP MSS clamped to the WAN's MTU: ${mss:-none}"
check '[ "${er:-0}" -ge 9 ]' "ICMPv6 echo replies: ${er:-none}"
check '[ "${nat:-0}" -ge 1 ]' "IPv4 NAT sessions in the same run: ${nat:-none}"
[ $fail -ne 0 ] && cat "$j" 2>/dev/null
cpe_lib_done
