#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# The WAN over PPPoE against the servers an ISP runs (doc/guides/cpe.rst
# "WAN by PPPoE"): pppoe-server (Debian's pppoe package; built without
# kernel mode, so the session runs through its pppoe process) with
# pppd as the access concentrator in the WAN namespace (CHAP, an address
# pool, DNS), and in the router's namespace pppd with its rp-pppoe plugin
# on ch39x-cpe's WAN TAP, usertools/ch39x-cpe-pppoe as its ip-up and
# ip-down scripts. Needs a kernel with PPP and PPPoE (ppp_generic, pppox,
# pppoe): this host's has none and loads no modules, so it runs in the
# QEMU guest (PPPOE=1 tests/vm/run.sh); elsewhere it skips (exit 77).
#
# Checks: pppd dials through the router (discovery, LCP, CHAP and IPCP
# pass the router's TAP); the hook hands the session over: /cpe/wan has
# the session id and concentrator the kernel's /proc/net/pppoe shows and
# IPCP's addresses; the LAN reaches a server behind the concentrator
# (ping, iperf3 TCP) through the router's fast path (flow-cache hits, the
# session's data counters), MSS 1452; the router's Linux (pppd's ppp0)
# reaches the server too: its frames leave by the TAP and the replies,
# for the router's address, go up to it in the session; nmap from the
# ISP's side finds no open port of the session's address though the
# router's Linux listens (the firewall's drops counted); LCP echoes
# (1 s) answered all along; the concentrator killed: pppd sees the
# session go (LCP echo failures or PADT), ip-down clears the router, the
# server restarted: pppd re-dials, a new session id reaches the router
# and traffic resumes; wrong credentials: pppd fails with its
# authentication status (19) and the router keeps no session.
#
# Usage: cpe_pppoe_real.sh path/to/ch39x-cpe path/to/librte_net_ch39x.so
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" -eq 0 ] && [ ! -e /proc/net/pppoe ]; then
	echo "cpe_pppoe_real: no PPPoE in this kernel (/proc/net/pppoe): skipped; it runs in the VM: PPPOE=1 tests/vm/run.sh"
	exit 77
fi
. "$here/cpe_lib.sh"
cpe_lib_init cpe_pppoe_real "$@" pppd pppoe-server unshare nmap
ctl_py=$here/../../usertools/ch39x-cpe-ctl
hook=$here/../../usertools/ch39x-cpe-pppoe
LAN_RT=192.168.75.1 LAN_H=192.168.75.2
AC_IP=100.64.0.1 POOL=100.64.0.10 SERVER=198.51.100.1
pw=pw$id
bg_pids= srv= cli=
extra_cleanup() {
	local p
	for p in $bg_pids $cli $srv; do kill "$p" 2>/dev/null; done
	return 0
}
cpe_lib_extra_cleanup=extra_cleanup
[ -e /dev/ppp ] || mknod /dev/ppp c 108 0
# /etc/ppp of each side: a directory of the test's, bound over /etc/ppp
# in a mount namespace of the process (the guest's root is read-only).
for side in srv cli bad; do
	mkdir -p "$priv/$side"
	: > "$priv/$side/options"
done
echo '"cpe" * "s3cret" *' > "$priv/srv/chap-secrets"
cp "$priv/srv/chap-secrets" "$priv/cli/chap-secrets"
echo '"cpe" * "wrong" *' > "$priv/bad/chap-secrets"
chmod 600 "$priv"/*/chap-secrets
cat > "$priv/srv/pppoe-server-options" <<OPT
require-chap
lcp-echo-interval 1
lcp-echo-failure 5
ms-dns 198.51.100.53
nodefaultroute
noipx
logfile $priv/srv-pppd.log
OPT
sed -i '/^noipx$/d' "$priv/srv/pppoe-server-options"
ln -s "$hook" "$priv/ch39x-cpe-pppoe-down"
# in NS SIDE CMD...: CMD in namespace NS with SIDE's /etc/ppp (a mount
# namespace of its own), bounded by 250 s.
in_etc() {
	local ns=$1 side=$2
	shift 2
	ip netns exec "$ns" timeout 250 unshare -m sh -c \
		'mount --bind "$0" /etc/ppp && exec "$@"' "$priv/$side" "$@"
}
server_start() {
	in_etc "$wan" srv pppoe-server -F -I "$tw" -L $AC_IP -R $POOL \
		-N 4 -C "isp$id" -S internet -O /etc/ppp/pppoe-server-options \
		> "$priv/srv.log" 2>&1 &
	srv=$!
}
server_stop() {
	local p
	# pppoe-server and the pppd it started for the session.
	for p in $(ip netns pids "$wan"); do
		case $(cat "/proc/$p/comm" 2>/dev/null) in
		pppoe-server|pppd) kill -9 "$p" 2>/dev/null ;;
		esac
	done
	wait "$srv" 2>/dev/null
	srv=
}
# client SIDE LOG [extra pppd options]: pppd on the router's WAN TAP.
client() {
	local side=$1 log=$2
	shift 2
	in_etc "$rt" "$side" pppd nodetach plugin rp-pppoe.so "$pw" user cpe \
		noipdefault usepeerdns noauth nodefaultroute \
		lcp-echo-interval 1 lcp-echo-failure 3 \
		set CPE_PREFIX="cpe_${id}_main" set CPE_CTL="$ctl_py" \
		set CPE_RESOLV="$priv/resolv.conf" \
		ip-up-script "$hook" ip-down-script "$priv/ch39x-cpe-pppoe-down" \
		logfile "$priv/$log" "$@" > "$priv/$log.out" 2>&1
}

start_tap_wan pppoe
W ip addr add $SERVER/32 dev lo

# --- wrong credentials first: a clear failure, no session -------------------
server_start
sleep 1
client bad pppd-bad.log maxfail 1
rc=$?
# The concentrator ends the link after the failure: pppd says why in
# its log and exits non-zero (16, the link hung up, or 19 when it gives
# up first).
check '[ $rc -ne 0 ] && grep -q "CHAP authentication failed" "$priv/pppd-bad.log"' "wrong credentials: pppd fails, saying so (exit $rc; $(grep -i "authentication failed" "$priv/pppd-bad.log" 2>/dev/null | tail -1))"
r=$(ctl /cpe/wan)
check '[ "$(field "$r" pppoe_session_id)" = 0 ] && [ "$(field "$r" address)" = none ]' "wrong credentials: the router has no session"

# --- the session ---------------------------------------------------------------
client cli pppd.log persist maxfail 0 holdoff 1 &
cli=$!
# wait_wan SECS COND: until COND (with $r the /cpe/wan reply) holds.
wait_wan() {
	local end=$((SECONDS + $1))
	while [ $SECONDS -lt $end ]; do
		r=$(ctl /cpe/wan)
		eval "$2" && return 0
		sleep 0.5
	done
	return 1
}
has_session() { [ "$(field "$r" pppoe_session_id)" != 0 ] && [ "$(field "$r" address)" != none ]; }
show_logs() {
	local f
	for f in pppd-bad.log pppd.log pppd.log.out srv.log srv-pppd.log; do
		echo "--- $f ---"; tail -n 25 "$priv/$f" 2>/dev/null
	done
}
if ! wait_wan 60 has_session; then
	check false "pppd dials through the router, ip-up hands the session over ($(ctl /cpe/wan | tr -d '\n' | cut -c1-300))"
	show_logs
	stop_router main
	cpe_lib_done
fi
check true "pppd dials through the router, ip-up hands the session over"
r=$(ctl /cpe/wan)
kline=$(ip netns exec "$rt" awk -v d="$pw" '$3 == d' /proc/net/pppoe)
ksid=$(( 0x$(echo "$kline" | awk '{print $1}') ))
ksid=$(( ((ksid & 255) << 8) | ((ksid >> 8) & 255) ))
kmac=$(echo "$kline" | awk '{print $2}')
check '[ "$(field "$r" pppoe_session_id)" = "$ksid" ] && [ "$(field "$r" pppoe_concentrator)" = "$kmac" ] && [ "$(field "$r" gateway)" = $AC_IP ]' "/cpe/wan: the kernel's session $ksid via $kmac, $(field "$r" address) peer $AC_IP"
check 'grep -q "nameserver 198.51.100.53" "$priv/resolv.conf"' "the concentrator's DNS server written for dnsmasq"

out=$(L ping -c 3 -i 0.3 -W 5 $SERVER 2>&1)
check 'answered "$out" 3' "LAN -> the ISP's server through the session ($(echo "$out" | grep -o '[0-9]* received'))"
W timeout 60 iperf3 -s -1 -B $SERVER -p 5275 > "$priv/iperf_s.log" 2>&1 &
bg_pids="$bg_pids $!"
sleep 0.5
out=$(timeout 60 ip netns exec "$lan" iperf3 -c $SERVER -p 5275 -t 3 --connect-timeout 5000 2>&1)
check 'echo "$out" | grep -q receiver' "iperf3 TCP LAN -> server in the session ($(echo "$out" | grep receiver | awk '{print $7, $8}'))"
ppp_if=$(ip -n "$rt" -br link show type ppp | awk '{print $1; exit}')
out=$(ip netns exec "$rt" timeout 30 ping -c 3 -i 0.3 -W 5 -I "$ppp_if" $AC_IP 2>&1)
check 'answered "$out" 3' "the router's Linux (pppd's $ppp_if) reaches the concentrator: replies go up in the session ($(echo "$out" | grep -o '[0-9]* received'))"
check 'ip -n "$rt" link show "$ppp_if" | grep -q "mtu 1492"' "pppd's interface has MTU 1492 ($(ip -n "$rt" link show "$ppp_if" | grep -o 'mtu [0-9]*'))"
# The Internet's view of the session's address: nmap from the ISP's side
# finds nothing open, though the router's Linux listens on every address
# (TCP 2222, UDP 5353): the firewall drops what is new from the WAN to
# the router (fw_drop_wan_to_router, not a missing path).
ip netns exec "$rt" timeout 300 python3 -c '
import socket, time
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("0.0.0.0", 2222)); t.listen(8)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("0.0.0.0", 5353))
time.sleep(280)' &
bg_pids="$bg_pids $!"
sleep 1
addr=$(field "$(ctl /cpe/wan)" address)
addr=${addr%/*}
d0=$(field "$(ctl /cpe/stats)" fw_drop_wan_to_router)
scan=$(timeout 300 ip netns exec "$wan" nmap -n -Pn --max-retries 1 \
	--host-timeout 120s -sS -sU -p T:22,80,2222,8443,U:53,5353 "$addr" -oG - 2>&1)
open=$(echo "$scan" | grep -o '[0-9]*/open/[a-z]*' | paste -sd, -)
d1=$(field "$(ctl /cpe/stats)" fw_drop_wan_to_router)
check '[ -z "$open" ] && echo "$scan" | grep -q "Ports:" && [ "$((d1 - d0))" -ge 6 ]' \
	"nmap -sS -sU from the ISP's side of the session: no port of $addr open (router listens on TCP 2222, UDP 5353; fw_drop_wan_to_router $d0 -> $d1)"
r=$(ctl /cpe/wan)
check '[ "$(field "$r" pppoe_rx_ctl)" -ge 3 ] && [ "$(field "$r" pppoe_rx_data)" -ge 100 ] && [ "$(field "$r" pppoe_tx_data)" -ge 100 ]' "LCP echoes to pppd, data both ways in the fast path (rx_ctl $(field "$r" pppoe_rx_ctl), rx_data $(field "$r" pppoe_rx_data), tx_data $(field "$r" pppoe_tx_data))"
sid1=$(field "$r" pppoe_session_id)

# --- the concentrator goes and comes back ------------------------------------
t0=$SECONDS
server_stop
check 'wait_wan 30 "! has_session"' "the concentrator killed: pppd's ip-down clears the router's session (after $((SECONDS - t0)) s)"
out=$(L ping -c 1 -W 2 $SERVER 2>&1)
check 'echo "$out" | grep -q "100% packet loss\|Unreachable"' "without the session the LAN cannot reach the server"
t1=$SECONDS
server_start
check 'wait_wan 90 has_session' "the server restarted: pppd re-dials, ip-up hands the new session over ($((SECONDS - t1)) s after the restart, $((SECONDS - t0)) s after the kill)"
r=$(ctl /cpe/wan)
check '[ "$(field "$r" pppoe_sessions)" -ge 2 ]' "a second session counted (id $sid1 -> $(field "$r" pppoe_session_id), sessions $(field "$r" pppoe_sessions))"
out=$(L ping -c 3 -i 0.3 -W 5 $SERVER 2>&1)
check 'answered "$out" 3' "traffic resumes after the re-dial ($(echo "$out" | grep -o '[0-9]* received'))"

kill "$cli" 2>/dev/null; wait "$cli" 2>/dev/null; cli=
server_stop
stop_router main
j=$priv/main.json
v=$(json "$j" "j['wan']['mode'], j['pppoe']['sessions'], j['pppoe']['rx_data'], j['pppoe']['tx_data'], j['fast']['hits']")
check 'echo "$v" | awk "\$1 == \"pppoe\" && \$2 >= 2 && \$3 > 100 && \$4 > 100 && \$5 > 100 {ok=1} END {exit !ok}"' "exit JSON: mode pppoe, sessions, data both ways, fast-path hits ($v)"
[ "$fail" -ne 0 ] && show_logs
cpe_lib_done
