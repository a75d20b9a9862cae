#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# End-to-end test of ch39x-cpe with real Linux hosts:
#
#   LAN host netns -- TAP -- simulated CH398 -- ch39x-cpe -- simulated
#   CH398 -- TAP -- WAN host netns
#
# The router runs in its own netns (its TAPs are created there, then moved
# to the hosts' namespaces), configured by a config file (vdev lines
# included). From the LAN host: ping through NAT and to both router
# addresses; a bounded iperf3 TCP run whose server (WAN side) must see the
# router's WAN address; UDP both ways with the WAN side seeing the WAN
# address; an ICMP port unreachable translated back to the LAN socket; a
# TTL check (ICMP time exceeded from the router's LAN address); the WAN
# host changing its MAC (the cached flows must follow); then MTU 9000 (ping
# -M do -s 8972, iperf3 with a jumbo MSS). The router's exit statistics
# (JSON) must show fast-path hits, NAT sessions, the ICMP it sent. Last, a
# short run with --no-flow-cache: same traffic, zero fast-path hits; then
# one with 1 s timeouts: the flows and NAT sessions age out.
#
# Usage: cpe_netns.sh path/to/ch39x-cpe path/to/librte_net_ch39x.so
# Exit 77 (skip) when not root: netns and TAP need CAP_NET_ADMIN.
set -uo pipefail
. "$(dirname "$0")/cpe_lib.sh"
cpe_lib_init cpe_netns "$@"

LAN_RT=192.168.50.1 LAN_H=192.168.50.2 WAN_RT=203.0.113.2 WAN_H=203.0.113.1
cat > "$priv/cpe.conf" <<CONF
# ch39x-cpe test configuration
vdev net_ch39x0,wire=tap:$tl
vdev net_ch39x1,wire=tap:$tw
lan 0=$LAN_RT/24
wan 1=$WAN_RT/24
route default,$WAN_H
mtu 9000        # jumbo frames end to end (the hosts start at 1500)
udp-timeout 30
json
CONF

start_router main
host_v4 $LAN_RT $LAN_H $WAN_H

# --- ping --------------------------------------------------------------
# The first contact: ping sends until 3 replies came or 60 s passed (-w),
# for a router that a loaded machine leaves without the CPU for seconds
# after its start (3 pings in 0.4 s went unanswered under a load of 20).
out=$(L ping -c 3 -i 0.2 -w 60 -W 5 $LAN_RT 2>&1)
check 'answered "$out" 3' "ping router LAN address $LAN_RT"
out=$(L ping -c 3 -i 0.2 -W 5 $WAN_RT 2>&1)
check 'answered "$out" 3' "ping router WAN address $WAN_RT from the LAN"
# Which source the WAN host sees: its ICMP socket stats are not per peer,
# so capture with a raw socket (python) while pinging.
cat > "$priv/sniff.py" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
s.bind((sys.argv[1], 0))
s.settimeout(0.5)
open(sys.argv[3], "w").close()  # bound: the pings may start
end = time.time() + float(sys.argv[2])
seen = set()
while time.time() < end:
    try:
        f = s.recv(65535)
    except socket.timeout:
        continue
    if f[23] == 1 and f[34] == 8:  # ICMP echo request
        seen.add(socket.inet_ntoa(f[26:30]))
print(" ".join(sorted(seen)))
PY
W python3 "$priv/sniff.py" "$tw" 4 "$priv/sniff.ready" > "$priv/sniff.out" &
spid=$!
for i in $(seq 50); do [ -e "$priv/sniff.ready" ] && break; sleep 0.1; done
out=$(L ping -c 5 -i 0.2 -W 5 $WAN_H 2>&1)
wait $spid
check 'answered "$out" 5' "ping the WAN host $WAN_H through NAT"
check '[ "$(cat "$priv/sniff.out")" = "$WAN_RT" ]' \
	"the WAN host sees the echo requests from $WAN_RT only (saw: $(cat "$priv/sniff.out"))"

# --- TTL ---------------------------------------------------------------
out=$(L ping -c 2 -i 0.5 -t 1 -W 5 $WAN_H 2>&1)
check 'echo "$out" | grep -q "From $LAN_RT.*Time to live exceeded"' \
	"TTL 1: ICMP time exceeded from the router ($LAN_RT)"
out=$(L ping -c 2 -i 0.5 -t 2 -W 5 $WAN_H 2>&1)
check 'answered "$out" 2' "TTL 2 reaches the WAN host (one hop)"

# --- TCP through NAT ---------------------------------------------------
tcp_run() {
	local tag=$1 secs=$2
	W iperf3 -s -1 -J -B $WAN_H > "$priv/srv_$tag.json" 2>&1 &
	local sp=$!
	listening "$wan" 5201
	L timeout 30 iperf3 -c $WAN_H -t "$secs" -J > "$priv/cli_$tag.json" 2>&1
	wait $sp
}
tcp_run 1500 3
rh=$(json "$priv/srv_1500.json" 'j["start"]["connected"][0]["remote_host"]')
lh=$(json "$priv/cli_1500.json" 'j["start"]["connected"][0]["local_host"]')
rx=$(json "$priv/srv_1500.json" 'int(j["end"]["sum_received"]["bytes"])')
mbps=$(json "$priv/cli_1500.json" 'int(j["end"]["sum_received"]["bits_per_second"]/1e6)')
check '[ "$rh" = "$WAN_RT" ] && [ "$lh" = "$LAN_H" ]' \
	"iperf3 TCP: client $lh, the WAN server sees $rh (the router's WAN address)"
check '[ "${rx:-0}" -gt 1000000 ]' "iperf3 TCP: $rx bytes received by the WAN server ($mbps Mbit/s)"

# --- UDP through NAT ---------------------------------------------------
cat > "$priv/udp_srv.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 7007))
s.settimeout(10)
peers = set(); n = 0
try:
    while n < int(sys.argv[2]):
        d, a = s.recvfrom(65535)
        peers.add(a[0]); n += 1
        s.sendto(d[::-1], a)
except socket.timeout:
    pass
print(n, " ".join(sorted(peers)))
PY
cat > "$priv/udp_cli.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
ok = 0
for i in range(int(sys.argv[2])):
    msg = (b"ch39x-cpe %d " % i) * 40
    s.sendto(msg, (sys.argv[1], int(sys.argv[3])))
    try:
        d, a = s.recvfrom(65535)
        ok += d == msg[::-1]
    except socket.timeout:
        pass
print(ok)
PY
W python3 "$priv/udp_srv.py" $WAN_H 20 > "$priv/udp_srv.out" &
sp=$!
sleep 0.5
got=$(L python3 "$priv/udp_cli.py" $WAN_H 20 7007)
wait $sp
read -r srv_n srv_peers < "$priv/udp_srv.out"
check '[ "${got:-0}" -ge 18 ] && [ "${srv_n:-0}" -ge 18 ] && [ "$srv_peers" = "$WAN_RT" ]' \
	"UDP: at least 18 of 20 datagrams echoed byte-exact (got $got), the WAN side saw: $(cat "$priv/udp_srv.out")"

# An ICMP port unreachable from the WAN host, translated back to the LAN
# socket: a connected UDP socket gets ECONNREFUSED.
cat > "$priv/udp_refused.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
s.connect((sys.argv[1], 7999))
s.send(b"anyone?")
try:
    s.recv(100); print("reply")
except ConnectionRefusedError:
    print("refused")
except socket.timeout:
    print("timeout")
PY
res=$(L python3 "$priv/udp_refused.py" $WAN_H)
check '[ "$res" = refused ]' "ICMP port unreachable translated back through NAT (LAN socket: $res)"

# --- neighbour change: the WAN host gets a new MAC ---------------------
ip -n "$wan" link set "$tw" address 02:cc:00:00:00:99
ip -n "$wan" neigh flush dev "$tw"
W ping -c 1 -W 5 $WAN_RT >/dev/null 2>&1   # its ARP request teaches the router
out=$(L ping -c 3 -i 0.2 -W 5 $WAN_H 2>&1)
check 'answered "$out" 3' "after the WAN host's MAC change, pings still pass"

# --- MTU 9000 ----------------------------------------------------------
ip -n "$lan" link set "$tl" mtu 9000
ip -n "$wan" link set "$tw" mtu 9000
out=$(L ping -M do -s 8972 -c 3 -i 0.2 -W 5 $WAN_H 2>&1)
check 'answered "$out" 3 && echo "$out" | grep -q "^8980 bytes from $WAN_H"' \
	"MTU 9000: ping -M do -s 8972 through NAT, 8980-byte replies"
out=$(L ping -M do -s 8973 -c 1 -W 5 $WAN_H 2>&1)
check 'echo "$out" | grep -qi "message too long\|mtu"' "MTU 9000: 8973 bytes of payload refused (DF)"
tcp_run 9000 3
rh=$(json "$priv/srv_9000.json" 'j["start"]["connected"][0]["remote_host"]')
rx=$(json "$priv/srv_9000.json" 'int(j["end"]["sum_received"]["bytes"])')
mss=$(json "$priv/cli_9000.json" 'j["start"]["tcp_mss_default"]')
mbps=$(json "$priv/cli_9000.json" 'int(j["end"]["sum_received"]["bits_per_second"]/1e6)')
check '[ "$rh" = "$WAN_RT" ] && [ "${rx:-0}" -gt 1000000 ] && [ "${mss:-0}" -gt 8000 ]' \
	"MTU 9000 iperf3 TCP: MSS $mss, $rx bytes ($mbps Mbit/s), server sees $rh"
got=$(L python3 "$priv/udp_cli.py" $WAN_H 1 7) # port 7: nobody, no reply
stop_router main

j=$priv/main.json
hits=$(json "$j" 'j["fast"]["hits"]')
created=$(json "$j" 'j["nat"]["created"]')
ttl=$(json "$j" 'j["icmp"]["time_exceeded"]')
xl=$(json "$j" 'j["nat"]["icmp_errors_translated"]')
chg=$(json "$j" 'j["arp"]["changed"]')
replies=$(json "$j" 'j["icmp"]["echo_replies"]')
check '[ "${hits:-0}" -gt 1000 ]' "fast path hits: ${hits:-none}"
check '[ "${created:-0}" -ge 5 ]' "NAT sessions created: ${created:-none}"
check '[ "${ttl:-0}" -ge 1 ] && [ "${replies:-0}" -ge 4 ]' \
	"ICMP sent: time exceeded ${ttl:-none}, echo replies ${replies:-none}"
check '[ "${xl:-0}" -ge 1 ]' "ICMP errors translated: ${xl:-none}"
check '[ "${chg:-0}" -ge 1 ]' "neighbour MAC changes seen: ${chg:-none}"

# --- slow path only ----------------------------------------------------
ip netns del "$lan"; ip netns del "$wan"
ip netns add "$lan"; ip netns add "$wan"
start_router slow --no-flow-cache
host_v4 $LAN_RT $LAN_H $WAN_H
# As in the main run: the hosts reach the router first, so that both
# sides' ARP is learned before the asserted pings (fresh namespaces).
L ping -c 1 -W 3 $LAN_RT >/dev/null 2>&1
W ping -c 1 -W 3 $WAN_RT >/dev/null 2>&1
out=$(L ping -c 3 -i 0.2 -W 5 $WAN_H 2>&1)
check 'answered "$out" 3' "--no-flow-cache: ping through NAT"
tcp_run slow 2
rx=$(json "$priv/srv_slow.json" 'int(j["end"]["sum_received"]["bytes"])')
check '[ "${rx:-0}" -gt 1000000 ]' "--no-flow-cache: iperf3 TCP $rx bytes"
stop_router slow
hits=$(json "$priv/slow.json" 'j["fast"]["hits"]')
slow=$(json "$priv/slow.json" 'j["slow_pkts"]')
check '[ "$hits" = 0 ] && [ "${slow:-0}" -gt 1000 ]' \
	"--no-flow-cache: 0 fast-path hits, ${slow:-none} packets on the slow path"

# --- aging ---------------------------------------------------------------
# With 1 s timeouts, the flows and NAT sessions of a ping stream are gone
# within the timeout plus one aging pass (CPE_AGE_PASS_MS, 2 s) after the
# last ping; the router, idle meanwhile, sleeps in 1 s waits.
ip netns del "$lan"; ip netns del "$wan"
ip netns add "$lan"; ip netns add "$wan"
start_router aging --icmp-timeout 1 --flow-timeout 1
host_v4 $LAN_RT $LAN_H $WAN_H
L ping -c 1 -W 3 $LAN_RT >/dev/null 2>&1
W ping -c 1 -W 3 $WAN_RT >/dev/null 2>&1
out=$(L ping -c 5 -i 0.2 -W 5 $WAN_H 2>&1)
check 'answered "$out" 5' "aging run: ping through NAT"
sleep 6
stop_router aging
j=$priv/aging.json
check '[ "$(json "$j" '"'"'j["nat"]["sessions"]'"'"')" = 0 ] && [ "$(json "$j" '"'"'j["fast"]["flows"]'"'"')" = 0 ] && [ "$(json "$j" '"'"'j["nat"]["expired"]'"'"')" -ge 1 ] && [ "$(json "$j" '"'"'j["fast"]["evictions"]'"'"')" -ge 1 ]' \
	"aging: 6 s after the last ping, NAT sessions $(json "$j" 'j["nat"]["sessions"]') (expired $(json "$j" 'j["nat"]["expired"]')), flows $(json "$j" 'j["fast"]["flows"]') (evicted $(json "$j" 'j["fast"]["evictions"]')): 0 left, at least 1 gone each"

[ $fail -ne 0 ] && cat "$priv/main.json" 2>/dev/null
cpe_lib_done
