#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# ch39x-cpe through its ports' removal and return (issue 25,
# app/ch39x-cpe/hotplug.c), with Linux hosts in network namespaces:
#
#   LAN host -- TAP -- net_ch39x0 -- ch39x-cpe (NAT) -- net_ch39x1 -- TAP
#   -- WAN host
#
# A UDP flow through NAT lives through it all: a client on the LAN host
# (port 40000) sends every 0.1 s to a server on the WAN host, which echoes
# each datagram and pushes one of its own every 0.2 s to the last peer;
# the server logs every distinct peer (address:port) it sees, so one line
# means one NAT session, one external port, throughout.
#
# Run 1, reconnect=on (the PMD's default): /cpe/sim/unplug,1 takes the
# WAN's simulated adapter off its USB bus (telemetry, from outside the
# process): /cpe/ports says down, pings fail, down_drops grows, the cached
# flows out of the WAN are dropped (flow_down_invalidated > 0); routes,
# neighbours (same MAC) and the NAT session stay. /cpe/sim/replug,1: up
# again, the same flow carries on (the server still sees one peer), pings
# pass; IPv6 is routed too. While the WAN is away the client pauses for
# 8 s, longer than arp-timeout (4) and udp-timeout (5): nothing may expire
# (the clocks of the port's neighbours and of the NAT sessions stop).
# Then the same for the LAN port 0 (the server's pushes are what the
# router cannot send). Run 2, reconnect=off on the WAN vdev: the
# unplug raises RMV and the router removes and probes the port again by
# itself (port_reprobes 1), after 3 failed tries while a TUN device holds
# the TAP's name (the back-off); the new simulated adapter's TAP is moved to
# the WAN host again with the old TAP's MAC and address (the cable's far
# end, which a real re-enumeration leaves alone), and the same flow, NAT
# session and pings carry on. Run 3: /cpe/sim/unplug on a port of another
# PMD (net_ring) answers -ENOTSUP. Every wait is on a counter or a state,
# with generous deadlines; the exit statistics (JSON) must agree.
#
# Usage: cpe_replug.sh path/to/ch39x-cpe path/to/librte_net_ch39x.so
# Exit 77 (skip) when not root.
set -uo pipefail
. "$(dirname "$0")/cpe_lib.sh"
cpe_lib_init cpe_replug "$@"

LAN_RT=192.168.50.1 LAN_H=192.168.50.2 WAN_RT=203.0.113.2 WAN_H=203.0.113.1
LAN6_RT=fd00:5::1 LAN6_H=fd00:5::2 WAN6_RT=2001:db8:1::2 WAN6_H=2001:db8:1::1

# The WAN host's server: echoes, pushes to the last peer, logs each new
# peer; argv: log, stop file, seconds.
cat > "$priv/srv.py" <<'PY'
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 7777))
s.settimeout(0.05)
end = time.time() + float(sys.argv[3])
peers, last, push = set(), None, 0.0
with open(sys.argv[1], "w") as log:
    while time.time() < end and not os.path.exists(sys.argv[2]):
        try:
            data, peer = s.recvfrom(2048)
            if peer not in peers:
                peers.add(peer)
                log.write("peer %s:%d\n" % peer)
                log.flush()
            last = peer
            s.sendto(b"echo " + data, peer)  # as long: cacheable
        except (socket.timeout, OSError):
            pass
        if last is not None and time.time() >= push:
            push = time.time() + 0.2
            try:
                s.sendto(b"push ".ljust(64, b"."), last)
            except OSError:
                pass  # the WAN TAP is being replaced (run 2)
PY
# The LAN host's client: argv: server, status file, stop file, seconds,
# pause file (no sends while it exists). The status file says "echo N
# push M", replaced atomically.
cat > "$priv/cli.py" <<'PY'
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 40000))
s.settimeout(0.02)
end = time.time() + float(sys.argv[4])
seq, n, send = 0, {b"echo": 0, b"push": 0}, 0.0
while time.time() < end and not os.path.exists(sys.argv[3]):
    if time.time() >= send and not os.path.exists(sys.argv[5]):
        send = time.time() + 0.1
        seq += 1
        try:
            # 64 bytes: the flow cache takes frames of 54 bytes and more
            s.sendto((b"%d " % seq).ljust(64, b"."), (sys.argv[1], 7777))
        except OSError:
            pass
    try:
        data = s.recv(2048)
        k = data.split(b" ")[0]
        if k in n:
            n[k] += 1
            with open(sys.argv[2] + ".new", "w") as f:
                f.write("echo %d push %d\n" % (n[b"echo"], n[b"push"]))
            os.rename(sys.argv[2] + ".new", sys.argv[2])
    except (socket.timeout, OSError):
        pass
PY

tel_pid= srv_pid= cli_pid=
stop_helpers() {
	touch "$priv/stop"
	local p
	for p in $cli_pid $srv_pid; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	cli_pid= srv_pid=
}

tel_start() {
	local sock=/var/run/dpdk/cpe_${id}_$1/dpdk_telemetry.v2 i
	# The socket comes with EAL, the router's commands once its ports
	# run ("forwarding on"): asked in between (seen at load 9), they
	# are not there yet.
	for i in $(seq 300); do
		[ -S "$sock" ] && grep -q "forwarding on" "$priv/$1.err" && break
		sleep 0.1
	done
	coproc TEL { timeout 250 python3 "$(dirname "$0")/cpe_tel.py" "$sock"; }
	tel_pid=$TEL_PID
	local ready=
	read -r -t 60 ready <&"${TEL[0]}"
	check '[ "$ready" = ready ]' "$1: a telemetry client connected to $sock"
}
tel_stop() {
	kill "$tel_pid" 2>/dev/null
	wait "$tel_pid" 2>/dev/null
	tel_pid=
}
cleanup_all() { stop_helpers; tel_stop; }
cpe_lib_extra_cleanup=cleanup_all
num() { echo "$2" | sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p"; }
cstat() { num "$1" "$(tel /cpe/stats)"; }
# wait_for SECONDS CMD: until CMD succeeds, polled every 0.2 s.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	while [ $SECONDS -lt $end ]; do
		eval "$1" && return 0
		sleep 0.2
	done
	eval "$1"
}
# No pipes from tel: a pipeline's subshell has no coproc descriptors.
port_state() { local r; r=$(tel /cpe/ports); [[ $r =~ \"$1\ [a-z]+\ $2\  ]]; }
echoes() { awk '{print $2}' "$priv/cli.status" 2>/dev/null || echo 0; }
pushes() { awk '{print $4}' "$priv/cli.status" 2>/dev/null || echo 0; }
peers() { wc -l < "$priv/srv.log" 2>/dev/null || echo 0; }
gw_mac() { local r; r=$(tel /cpe/neighs); echo "$r" | grep -o "\"$WAN_H lladdr [0-9a-f:]* port 1 [a-z]*\""; }
# Run 1 has IPv6 too: the WAN host's ND entry.
gw6_mac() { local r; r=$(tel /cpe/neighs); echo "$r" | grep -o "\"$WAN6_H lladdr [0-9a-f:]* port 1 [a-z]*\""; }

flow_start() {
	rm -f "$priv/stop" "$priv/cli.status" "$priv/srv.log" "$priv/pause"
	ip netns exec "$wan" timeout 240 python3 "$priv/srv.py" \
		"$priv/srv.log" "$priv/stop" 230 &
	srv_pid=$!
	ip netns exec "$lan" timeout 240 python3 "$priv/cli.py" $WAN_H \
		"$priv/cli.status" "$priv/stop" 230 "$priv/pause" &
	cli_pid=$!
	wait_for 60 '[ "$(echoes)" -ge 10 ] && [ "$(pushes)" -ge 5 ]'
	check '[ "$(echoes)" -ge 10 ] && [ "$(pushes)" -ge 5 ]' \
		"$1: the UDP flow through NAT runs ($(echoes) echoes, $(pushes) pushes)"
	check '[ "$(peers)" = 1 ] && grep -q "^peer $WAN_RT:" "$priv/srv.log"' \
		"$1: the server sees one peer, the router's WAN address ($(cat "$priv/srv.log"))"
	ext=$(cat "$priv/srv.log")
}

# away NAME PORT [rmv]: unplug PORT's adapter; everything kept, nothing
# sent. rmv (reconnect=off): the router re-probes at once, the port's
# new TAP is not at the WAN host yet; waits for the re-probe instead.
away() {
	local n=$1 p=$2 mode=${3:-} out fi d0 dd
	routes0=$(tel /cpe/routes)
	gw0=$(gw_mac) gw60=$(gw6_mac)
	fi=$(cstat flow_down_invalidated)
	d0=$(cstat down_drops)
	out=$(tel /cpe/sim/unplug,$p)
	check 'echo "$out" | grep -q "\"unplugged\""' "$n: /cpe/sim/unplug,$p ($out)"
	if [ "$mode" = rmv ]; then
		# A TUN device holds the TAP's name in the router's
		# namespace: the probes fail until it goes (the back-off).
		wait_for 60 '[ "$(cstat port_reprobe_errors)" -ge 3 ]'
		check '[ "$(cstat port_reprobe_errors)" -ge 3 ] && port_state $p reprobing' \
			"$n: probes fail while the name is taken, the port is reprobing ($(cstat port_reprobe_errors) failed; $(tel /cpe/ports))"
		ip -n "$rt" tuntap del dev "$tw" mode tun
		wait_for 60 '[ "$(cstat port_reprobes)" = 1 ]'
		check '[ "$(cstat port_reprobes)" = 1 ]' "$n: the router probed the port again (port_reprobes 1)"
		check '[ "$(cstat port_rmv_events)" -ge 1 ]' "$n: the RMV event counted"
	else
		wait_for 60 'port_state $p down'
		check 'port_state $p down' "$n: /cpe/ports: port $p down ($(tel /cpe/ports))"
	fi
	out=$(L ping -c 3 -i 0.2 -W 1 $WAN_H 2>&1)
	check 'echo "$out" | grep -q " 0 received"' "$n: pings fail while port $p is away"
	if [ "$mode" != rmv ]; then
		# The client sends (WAN away) or the server pushes (LAN
		# away): what the router cannot send is counted.
		wait_for 60 '[ "$(cstat down_drops)" -ge $((d0 + 10)) ]'
		dd=$(cstat down_drops)
		check '[ "$dd" -ge $((d0 + 10)) ]' "$n: down_drops grew ($d0 -> $dd)"
	fi
	fi2=$(cstat flow_down_invalidated)
	check '[ "$fi2" -gt "$fi" ]' "$n: cached flows out of port $p invalidated ($fi -> $fi2)"
	if [ "$mode" = hold ]; then
		# Nothing touches the gateway's entry or the NAT session for
		# longer than --arp-timeout and --udp-timeout: their clocks
		# must stand still while the port is down.
		local ex0 ax0 nx0 t
		ex0=$(cstat nat_expired) ax0=$(cstat arp_expired)
		nx0=$(cstat nd_expired)
		touch "$priv/pause"
		t=$((SECONDS + 8))
		while [ $SECONDS -lt $t ]; do sleep 1; done
		# The port's own entries are checked by name (below and
		# after the loop): arp_expired and nd_expired count the LAN
		# host's entries too, which the router keeps by probing the
		# host, whose answers a machine at load 10 delayed past the
		# 4 s (they are printed, not asserted).
		check '[ "$(cstat nat_expired)" = "$ex0" ]' \
			"$n: 8 s away (timeouts: ARP/ND 4 s, UDP 5 s): no NAT session expired (nat_expired $ex0 -> $(cstat nat_expired); arp_expired $ax0 -> $(cstat arp_expired), nd_expired $nx0 -> $(cstat nd_expired))"
		check '[ -n "$gw0" ] && [ "$(gw_mac)" = "$gw0" ]' "$n: the gateway's neighbour entry as it was, state too ($(gw_mac))"
		check '[ -n "$gw60" ] && [ "$(gw6_mac)" = "$gw60" ]' "$n: the IPv6 gateway's ND entry kept ($(gw6_mac))"
		rm -f "$priv/pause"
	fi
	check '[ "$(tel /cpe/routes)" = "$routes0" ]' "$n: routes kept while away"
	# The entry and its MAC. With rmv the port is back by now but its
	# far end is not (back() moves the new TAP to the WAN host): the
	# entry's lifetime runs again from the re-probe, its probes go
	# unanswered, and on a slow machine (load 10) it can expire before
	# this check; then it must be being resolved anew, and back()
	# checks that the same MAC is learnt again.
	local gw
	gw=$(gw_mac)
	if [ "$mode" = rmv ] && [ "${gw% *}" != "${gw0% *}" ]; then
		check '[ -n "$gw0" ] && echo "$gw" | grep -q " incomplete\"$"' \
			"$n: the gateway's entry expired after the re-probe, its far end away, and is being resolved again (before: $gw0; now: $gw)"
	else
		check '[ -n "$gw0" ] && [ "${gw% *}" = "${gw0% *}" ]' \
			"$n: the gateway's neighbour entry kept (before: $gw0; now: $gw)"
	fi
	check '[ "$(cstat nat_sessions)" -ge 1 ]' "$n: NAT sessions kept ($(cstat nat_sessions))"
}

# back NAME PORT [SETUP]: SETUP (run 2: re-attach the TAP) or replug;
# the same flow and session carry on.
back() {
	local n=$1 p=$2 out e0 p0
	e0=$(echoes) p0=$(pushes)
	if [ -n "${3:-}" ]; then
		$3
	else
		out=$(tel /cpe/sim/replug,$p)
		check 'echo "$out" | grep -q "\"replugged\""' "$n: /cpe/sim/replug,$p ($out)"
	fi
	wait_for 60 'port_state $p up'
	check 'port_state $p up' "$n: /cpe/ports: port $p up ($(tel /cpe/ports))"
	wait_for 60 '[ "$(echoes)" -ge $((e0 + 10)) ] && [ "$(pushes)" -ge $((p0 + 5)) ]'
	check '[ "$(echoes)" -ge $((e0 + 10)) ] && [ "$(pushes)" -ge $((p0 + 5)) ]' \
		"$n: the UDP flow carries on (echoes $e0 -> $(echoes), pushes $p0 -> $(pushes))"
	check '[ "$(cat "$priv/srv.log")" = "$ext" ]' \
		"$n: same NAT session: the server still sees only $ext ($(cat "$priv/srv.log" | tr '\n' ' '))"
	out=$(L ping -c 3 -i 0.2 -W 5 $WAN_H 2>&1)
	check 'answered "$out" 3' "$n: pings pass again"
	check '[ "$(tel /cpe/routes)" = "$routes0" ]' "$n: routes as before"
	# ARP's 4 s here: on a busy machine the entry may be between its
	# expiry and the answer to its re-ask; it is the same MAC once there.
	wait_for 30 '[ "$(gw_mac)" = "$gw0" ]'
	check '[ "$(gw_mac)" = "$gw0" ]' "$n: the gateway's neighbour entry as before ($(gw_mac))"
	if [ -n "$gw60" ]; then
		out=$(L ping -6 -c 3 -i 0.2 -W 5 $WAN6_H 2>&1)
		check 'answered "$out" 3' "$n: ping6 passes again"
		check '[ "$(gw6_mac)" = "$gw60" ]' "$n: the IPv6 gateway's ND entry as before ($(gw6_mac))"
	fi
}

# --- run 1: reconnect=on ---------------------------------------------------
cat > "$priv/cpe.conf" <<CONF
vdev net_ch39x0,wire=tap:$tl
vdev net_ch39x1,wire=tap:$tw
lan 0=$LAN_RT/24
wan 1=$WAN_RT/24
lan 0=$LAN6_RT/64
wan 1=$WAN6_RT/64
route default,$WAN_H
route ::/0,$WAN6_H
arp-timeout 4
udp-timeout 5
json
CONF
start_router on
for n in "$lan" "$wan"; do
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0
done
host_v4 $LAN_RT $LAN_H $WAN_H
ip -n "$lan" -6 addr add $LAN6_H/64 dev "$tl" nodad
ip -n "$lan" -6 route add default via $LAN6_RT
ip -n "$wan" -6 addr add $WAN6_H/64 dev "$tw" nodad
ip -n "$wan" -6 route add fd00:5::/64 via $WAN6_RT dev "$tw"
tel_start on
out=$(L ping -c 3 -i 0.2 -W 5 $WAN_H 2>&1)
check 'answered "$out" 3' "on: ping $WAN_H through NAT"
out=$(L ping -6 -c 3 -i 0.2 -W 5 $WAN6_H 2>&1)
check 'answered "$out" 3' "on: ping6 $WAN6_H (routed)"
check '[ -n "$(gw6_mac)" ]' "on: the IPv6 gateway's ND entry learnt ($(gw6_mac))"
flow_start on
out=$(tel /cpe/sim/replug,1 /cpe/sim/unplug,7 /cpe/sim/unplug,x)
check 'echo "$out" | sed -n 1p | grep -q "not unplugged"' "on: replug of a plugged port refused ($(echo "$out" | sed -n 1p))"
check 'echo "$out" | sed -n 2p | grep -q "\"allowed\": \[\"0\", \"1\"\]"' "on: unplug of no router port names the allowed ports"
check 'echo "$out" | sed -n 3p | grep -q "\"allowed\": \"PORT"' "on: a bad port number names the allowed values"
away on-wan 1 hold
back on-wan 1
away on-lan 0
back on-lan 0
s=$(tel /cpe/stats)
echo "  /cpe/stats: $s"
check '[ "$(num port_down_events "$s")" = 2 ] && [ "$(num port_up_events "$s")" = 2 ] && [ "$(num port_reprobes "$s")" = 0 ] && [ "$(num port_rmv_events "$s")" = 0 ]' \
	"on: 2 down and 2 up events, no RMV, no re-probe"
cleanup_all
stop_router on
j="$priv/on.json"
c=$(json "$j" '"%d %d %d %d" % (j["hotplug"]["down"], j["hotplug"]["up"], j["fast"]["down_invalidated"], min(p["down_drops"] for p in j["ports"]))')
check '[ "${c% * *}" = "2 2" ] && [ "$(echo $c | cut -d" " -f3)" -gt 0 ] && [ "${c##* }" -gt 0 ]' \
	"on: exit stats: down/up 2/2, flows invalidated > 0, down_drops > 0 on both ports ($c)"

# --- run 2: reconnect=off on the WAN: the router re-probes -------------------
sed -i "s/^vdev net_ch39x1,.*/vdev net_ch39x1,wire=tap:$tw,reconnect=off/" "$priv/cpe.conf"
start_router off
host_v4 $LAN_RT $LAN_H $WAN_H
wmac=$(ip -n "$wan" -o link show "$tw" | sed 's/.*link\/ether \([0-9a-f:]*\).*/\1/')
tel_start off
flow_start off
rtmac=$(ip -n "$wan" neigh show $WAN_RT | grep -o 'lladdr [0-9a-f:]*')
# The simulated adapter's TAP goes with its device; the new one is moved
# to the WAN host as the cable's far end (its MAC and address as before).
reattach() {
	wait_for 60 'ip -n "$rt" link show "$tw" >/dev/null 2>&1'
	check 'ip -n "$rt" link show "$tw" >/dev/null 2>&1' "off: the new adapter's TAP $tw exists"
	ip -n "$rt" link set "$tw" netns "$wan"
	ip -n "$wan" link set "$tw" address "$wmac"
	ip -n "$wan" addr add "$WAN_H/24" dev "$tw"
	ip -n "$wan" link set "$tw" up
}
ip -n "$rt" tuntap add dev "$tw" mode tun
away off-wan 1 rmv
back off-wan 1 reattach
s=$(tel /cpe/stats /cpe/ports)
echo "  /cpe/stats, /cpe/ports: $s"
check 'echo "$s" | grep -q "\"1 wan up reprobes 1 "' "off: /cpe/ports: port 1 up after 1 re-probe"
r=$(ip -n "$wan" neigh show $WAN_RT | grep -o 'lladdr [0-9a-f:]*')
check '[ -n "$rtmac" ] && [ "$r" = "$rtmac" ]' "off: the re-probed port has the router's old MAC ($rtmac, now $r)"
check '[ "$(num port_rmv_events "$s")" -ge 1 ] && [ "$(num port_reprobe_errors "$s")" -ge 3 ] && [ "$(num port_reprobe_gave_up "$s")" = 0 ]' \
	"off: RMV seen, $(num port_reprobe_errors "$s") failed probes before the good one, none given up"
cleanup_all
stop_router off
j="$priv/off.json"
c=$(json "$j" '"%d %d %d %d" % (j["hotplug"]["reprobes"], j["hotplug"]["removed"], j["fast"]["down_invalidated"], j["idle"]["intr_ports"])')
check '[ "${c%% *}" = 1 ] && [ "$(echo $c | cut -d" " -f2)" -ge 1 ] && [ "$(echo $c | cut -d" " -f3)" -gt 0 ] && [ "${c##* }" = 2 ]' \
	"off: exit stats: 1 re-probe, RMV counted, flows invalidated, both ports' Rx interrupts in the idle wait ($c)"

# --- run 3: a port of another PMD (DPDK's net_ring) -------------------------
# /cpe/sim/unplug on it answers -ENOTSUP and says why; the simulated WAN
# (wire=loop) beside it still unplugs. Skipped when this DPDK has no
# net_ring (a minimal build).
cat > "$priv/ring.conf" <<CONF
vdev net_ring0
vdev net_ch39x1,wire=loop
lan 0=192.168.60.1/24
wan 1=$WAN_RT/24
CONF
ip netns exec "$rt" timeout 100 "$cpe" --no-huge --no-pci -m 512 \
	--file-prefix "cpe_${id}_ring" -l 0 -d "$priv/pmd.so" \
	-- --config "$priv/ring.conf" > "$priv/ring.json" 2> "$priv/ring.err" &
pid=$!
sock=/var/run/dpdk/cpe_${id}_ring/dpdk_telemetry.v2
wait_for 30 '[ -S "$sock" ] || ! kill -0 $pid 2>/dev/null'
if ! kill -0 $pid 2>/dev/null; then
	echo "ring: the router did not start with net_ring0 (no net_ring PMD in this DPDK?): -ENOTSUP check skipped"
	sed 's/^/  router: /' "$priv/ring.err" | grep -v EAL: | tail -3
	wait $pid; pid=
else
	tel_start ring
	out=$(tel /cpe/sim/unplug,0 /cpe/sim/unplug,1 /cpe/ports)
	check 'echo "$out" | sed -n 1p | grep -q "(-95): not a simulated net_ch39x adapter"' \
		"ring: /cpe/sim/unplug on the net_ring port: -ENOTSUP ($(echo "$out" | sed -n 1p))"
	check 'echo "$out" | sed -n 2p | grep -q "\"unplugged\""' "ring: the simulated port beside it unplugs"
	tel_stop
	stop_router ring
fi
cpe_lib_done
