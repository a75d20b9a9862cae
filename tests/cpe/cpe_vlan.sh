#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# End-to-end test of ch39x-cpe's 802.1Q sub-interfaces:
#
#   LAN netns: TAP $tl, untagged host 192.168.50.2 -+- bridge (VID 10) -- TAP
#              -- VLAN host netns, 192.168.10.2
#   router:    --lan 0=192.168.50.1/24 --lan 0.10=192.168.10.1/24
#              --wan 1.100=203.0.113.2/24 (port 1: tagged only)
#   WAN netns: TAP $tw -- bridge (VID 100) -- TAP -- WAN host netns,
#              203.0.113.1
#
# This kernel has no 8021q (no "type vlan" links), so the VLAN hosts sit
# behind cpe_vlan_bridge.py, a user-space access port that also counts the
# VLAN ids seen on the router's cables (AF_PACKET auxdata). Checks: pings
# to the router's three addresses, through NAT from both LAN hosts, a
# 1500-byte DF ping over tags on both sides (the tag is not part of the IP
# MTU), iperf3 TCP through NAT from the VLAN host, the wrong VLAN and
# untagged frames on a tagged-only port dropped and counted, fast-path
# hits, per-interface counters, only the expected tags on each cable. Run
# three times: with the CH398's VLAN offloads (PMD strips and inserts),
# with --no-vlan-offload (the router does), and that with the WAN shaper
# (--wan-rate), whose held packets must leave tagged as well.
#
# Usage: cpe_vlan.sh path/to/ch39x-cpe path/to/librte_net_ch39x.so
# Exit 77 (skip) when not root: netns and TAP need CAP_NET_ADMIN.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cpe_lib.sh"
cpe_lib_init cpe_vlan "$@"

LAN_RT=192.168.50.1 LAN_H=192.168.50.2
V10_RT=192.168.10.1 V10_H=192.168.10.2
WAN_RT=203.0.113.2 WAN_H=203.0.113.1
lanv=cpe_lanv_$id wanh=cpe_wanh_$id
vt=cv$id wt=cx$id
bpids=
vlan_cleanup() {
	local p
	for p in $bpids; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	ip netns del "$lanv" 2>/dev/null
	ip netns del "$wanh" 2>/dev/null
}
cpe_lib_extra_cleanup=vlan_cleanup
LV() { timeout 30 ip netns exec "$lanv" "$@"; }
WH() { timeout 30 ip netns exec "$wanh" "$@"; }

cat > "$priv/cpe.conf" <<CONF
vdev net_ch39x0,wire=tap:$tl
vdev net_ch39x1,wire=tap:$tw
lan 0=$LAN_RT/24
lan 0.10=$V10_RT/24
wan 1.100=$WAN_RT/24
route default,$WAN_H
json
CONF

# bridge NETNS TRUNK VID TAP HOSTNS ADDR GW NAME: the VLAN host behind it.
bridge() {
	local ns=$1 trunk=$2 vid=$3 tap=$4 hns=$5 addr=$6 gw=$7 name=$8 i
	rm -f "$priv/$name.ready"
	ip netns exec "$ns" python3 "$here/cpe_vlan_bridge.py" "$trunk" "$vid" \
		"$tap" "$priv/$name.ready" "$priv/$name.counts" 200 &
	bpids="$bpids $!"
	for i in $(seq 100); do [ -e "$priv/$name.ready" ] && break; sleep 0.1; done
	ip -n "$ns" link set "$tap" netns "$hns" || { echo "FAIL: bridge $name"; exit 1; }
	ip -n "$hns" addr add "$addr/24" dev "$tap"
	ip -n "$hns" link set "$tap" up
	ip -n "$hns" route add default via "$gw"
}

# wait_ping NS ADDR: a reply within 10 tries (the first also waits for
# ARP on both sides; the user-space bridges may lose a frame under load).
wait_ping() {
	local i
	for i in $(seq 10); do
		timeout 5 ip netns exec "$1" ping -c 1 -W 2 "$2" >/dev/null 2>&1 && return 0
	done
	return 1
}

tcp_run() {
	local tag=$1 secs=$2 i
	WH iperf3 -s -1 -J -B $WAN_H > "$priv/srv_$tag.json" 2>&1 &
	local sp=$!
	for i in $(seq 100); do
		ip netns exec "$wanh" ss -Hltn 'sport = :5201' | grep -q . && break
		sleep 0.1
	done
	LV timeout 30 iperf3 -c $WAN_H -t "$secs" -J > "$priv/cli_$tag.json" 2>&1
	wait $sp
}

cat > "$priv/judge.py" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
mode = sys.argv[2]
lc = dict(map(int, x.split(":")) for x in sys.argv[3].split())
wc = dict(map(int, x.split(":")) for x in sys.argv[4].split())
v, ph = j["vlan"], j["vlan"]["phys"]


def say(ok, what):
    print("%s|%s" % ("ok" if ok else "FAIL", what))


say([p["vlan"] for p in j["ports"]] == [0, 10, 100],
    "interfaces 0, 0.10, 1.100 in the statistics")
say(all(p["rx"] > 0 and p["tx"] > 0 for p in j["ports"]),
    "every interface received and sent (rx, tx): %s"
    % [(p["rx"], p["tx"]) for p in j["ports"]])
say(j["fast"]["hits"] > 100,
    "fast-path hits for the VLAN flows: %d" % j["fast"]["hits"])
say(ph[0]["vlan_unknown"] == 5,
    "5 frames of VLAN 20 on port 0 dropped, vlan_unknown %d"
    % ph[0]["vlan_unknown"])
say(ph[1]["untagged_drops"] >= 1, "untagged frames on the tagged-only port "
    "1 dropped, untagged_drops %d" % ph[1]["untagged_drops"])
say(j["drops"]["mtu"] == 0, "no MTU drops (%d)" % j["drops"]["mtu"])
if mode == "offload":
    ok = (v["rx_offload"] > 100 and v["tx_offload"] > 100 and
          v["rx_sw"] == 0 and v["tx_sw"] == 0 and
          all(p["rx_offload"] and p["tx_offload"] for p in ph))
else:
    ok = (v["rx_sw"] > 100 and v["tx_sw"] > 100 and
          v["rx_offload"] == 0 and v["tx_offload"] == 0 and
          not any(p["rx_offload"] or p["tx_offload"] for p in ph))
say(ok, "tags added and removed by the %s path: %s" % (mode, v))
# On the cables (vid: frames, 0: untagged): port 0 sends untagged and
# VLAN 10 only, port 1 VLAN 100 only.
say(set(lc) == {0, 10} and lc[10] > 100,
    "LAN cable from the router: untagged and VLAN 10 only (%s)" % sys.argv[3])
say(set(wc) == {100} and wc[100] > 100,
    "WAN cable from the router: VLAN 100 only (%s)" % sys.argv[4])
PY

# run NAME [router options]: one router with both hosts, every check.
run() {
	local name=$1
	shift
	local ns
	for ns in "$lanv" "$wanh"; do ip netns add "$ns"; ip -n "$ns" link set lo up; done
	start_router "$name" "$@"
	ip -n "$lan" addr add $LAN_H/24 dev "$tl"
	ip -n "$lan" link set "$tl" up
	ip -n "$lan" route add default via $LAN_RT
	ip -n "$wan" link set "$tw" up
	bpids=
	bridge "$lan" "$tl" 10 "$vt" "$lanv" $V10_H $V10_RT "${name}_lan"
	bridge "$wan" "$tw" 100 "$wt" "$wanh" $WAN_H $WAN_RT "${name}_wan"

	check 'wait_ping "$lan" $LAN_RT' "$name: untagged LAN host pings $LAN_RT (port 0)"
	check 'wait_ping "$lanv" $V10_RT' "$name: VLAN 10 host pings $V10_RT (port 0.10)"
	check 'wait_ping "$wanh" $WAN_RT' "$name: VLAN 100 WAN host pings $WAN_RT (port 1.100)"
	check 'wait_ping "$lanv" $WAN_H' "$name: VLAN 10 -> NAT -> VLAN 100: ping $WAN_H"
	check 'wait_ping "$lan" $WAN_H' "$name: untagged LAN -> NAT -> VLAN 100: ping $WAN_H"
	# 1500-byte IP packets tagged on both cables: 1518-byte frames. (A
	# reply may be lost in the user-space bridges on a busy machine.)
	out=$(LV ping -M do -s 1472 -c 5 -i 0.2 -W 3 $WAN_H 2>&1)
	check 'echo "$out" | grep -q "^1480 bytes from $WAN_H"' \
		"$name: MTU 1500 over tags: ping -M do -s 1472, 1480-byte replies ($(echo "$out" | grep -c "^1480 bytes") of 5)"

	tcp_run "$name" 3
	read -r rh rx mbps < <(python3 - "$priv/srv_$name.json" "$priv/cli_$name.json" <<'PY' 2>/dev/null
import json, sys
s, c = (json.load(open(f)) for f in sys.argv[1:3])
print(s["start"]["connected"][0]["remote_host"],
      int(s["end"]["sum_received"]["bytes"]),
      round(c["end"]["sum_received"]["bits_per_second"] / 1e6, 1))
PY
)
	check '[ "${rh:-}" = "$WAN_RT" ] && [ "${rx:-0}" -gt 200000 ]' \
		"$name: iperf3 TCP from VLAN 10: ${rx:-no} bytes (${mbps:-?} Mbit/s, through user-space bridges), the server sees ${rh:-nothing}"
	[ "${rx:-0}" -gt 0 ] || tail -5 "$priv/cli_$name.json"
	# The wrong VLAN: 5 ARP requests tagged 20 (port 0 has 0 and 10).
	L python3 - "$tl" <<'PY'
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
src = bytes.fromhex("020000000020")
arp = bytes.fromhex("0001080006040001") + src + socket.inet_aton("192.168.10.3") \
    + bytes(6) + socket.inet_aton("192.168.10.1")
for i in range(5):
    s.send(b"\xff" * 6 + src + bytes.fromhex("81000014") + b"\x08\x06" + arp)
PY
	# Untagged frames on port 1, which has VLAN 100 only: dropped.
	ip -n "$wan" addr add 203.0.113.9/24 dev "$tw"
	out=$(W ping -c 2 -i 0.5 -W 1 $WAN_RT 2>&1)
	check 'echo "$out" | grep -q "100% packet loss"' "$name: untagged on the tagged-only WAN port: no answer"
	ip -n "$wan" addr flush dev "$tw"
	sleep 0.5
	stop_router "$name"
	for p in $bpids; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	bpids=

	# The exit statistics and the bridges' counts, judged in one python
	# run (its start-up is slow on a busy machine): "ok|what" lines.
	python3 "$priv/judge.py" "$priv/$name.json" "$name" \
		"$(cat "$priv/${name}_lan.counts" 2>/dev/null)" \
		"$(cat "$priv/${name}_wan.counts" 2>/dev/null)" > "$priv/judge.out"
	check '[ -s "$priv/judge.out" ]' "$name: statistics judged"
	while IFS='|' read -r res what; do
		check '[ "$res" = ok ]' "$name: $what"
	done < "$priv/judge.out"
	for ns in "$lan" "$wan" "$lanv" "$wanh"; do ip netns del "$ns"; done
	ip netns add "$lan"; ip netns add "$wan"
}

run offload
run software --no-vlan-offload
# The WAN scheduler holds WAN packets and lets them out later: they must
# leave tagged too (the judge's "WAN cable: VLAN 100 only").
run shaped --no-vlan-offload --wan-rate 50M

cpe_lib_done
