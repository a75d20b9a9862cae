#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# End-to-end test of ch39x-cpe's control plane (the exception path,
# --tap): a Linux TAP per router port in the router's netns, dnsmasq on
# the LAN TAP.
#
#   LAN host netns -- simulated CH398 -- ch39x-cpe -- simulated CH398 --
#   WAN host netns;  ch39x-cpe <-> TAPs pl$$ (LAN), pw$$ (WAN) in the
#   router netns, where dnsmasq and the test's servers run
#
# The LAN host starts without an address: busybox udhcpc gets one from
# dnsmasq (DISCOVER to 255.255.255.255 punted to the TAP, dnsmasq's offer
# out of the LAN port), installs it with the default route dnsmasq gave,
# then pings the WAN host through NAT; busybox nslookup asks dnsmasq for a
# name of --address=/printer.lan/...; a TCP server (an "SSH" banner and an
# echo) on the router's LAN address answers the LAN host; Linux in the
# router netns pings the LAN host and the WAN host (its own ARP out of the
# ports, the replies punted back) and a TCP server on the WAN address
# answers the WAN host. The exit statistics must show the punted packets
# and Linux's frames sent, no punt drops and no local drops. Without
# --tap, no lease and the DISCOVERs are local drops; --tap on an existing
# interface that is no TAP (lo) stops the router with the option named.
#
# Then SLAAC: dnsmasq --enable-ra on the LAN TAP, the LAN host takes a
# global address from the router advertisements and pings the WAN host
# over IPv6. That needs the router's IPv6 forwarding: until ch39x-cpe has
# it (--help names IPv6), that part reports SKIP with the reason.
#
# Usage: cpe_dhcp.sh path/to/ch39x-cpe path/to/librte_net_ch39x.so
# Exit 77 (skip) when not root: netns and TAP need CAP_NET_ADMIN.
set -uo pipefail
. "$(dirname "$0")/cpe_lib.sh"
cpe_lib_init cpe_dhcp "$@" dnsmasq busybox

LAN_RT=192.168.60.1 WAN_RT=203.0.113.2 WAN_H=203.0.113.1
PRINTER=192.168.60.77
pl=pl$id pw=pw$id		# the control plane's TAPs, in the router netns
R() { timeout 30 ip netns exec "$rt" "$@"; }	# (servers: their own timeout)

dnsmasq_pid=
srv_pids=
extra_cleanup() {
	local p
	for p in $dnsmasq_pid $srv_pids; do kill "$p" 2>/dev/null; done
	return 0
}
cpe_lib_extra_cleanup=extra_cleanup

# wait_for WHAT SECONDS CMD...: CMD until it succeeds, bounded.
wait_for() {
	local what=$1 secs=$2 i
	shift 2
	for i in $(seq $((secs * 10))); do
		"$@" >/dev/null 2>&1 && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "FAIL: $what (waited $secs s)"
	fail=1
	return 1
}
tap_up() { ip -n "$rt" link show "$1" | grep -q ',UP'; }

cat > "$priv/cpe.conf" <<CONF
vdev net_ch39x0,wire=tap:$tl
vdev net_ch39x1,wire=tap:$tw
lan 0=$LAN_RT/24
wan 1=$WAN_RT/24
route default,$WAN_H
tap 0=$pl
tap 1=$pw
# The WAN host's TCP to Linux on the router (2223, below): the firewall
# keeps router ports closed to the WAN unless opened.
fw-open tcp/2223
json
CONF

# IPv6 (the SLAAC part) when this ch39x-cpe routes it: the ports get
# prefixes as further --lan/--wan addresses.
V6_LAN=2001:db8:60::1 V6_WAN=2001:db8:ff::2 V6_WAN_H=2001:db8:ff::1
has_v6=0
# (grep without -q reads all: no SIGPIPE to fail the pipe under pipefail)
"$cpe" --help 2>/dev/null | grep IPv6 >/dev/null && has_v6=1
[ $has_v6 = 1 ] && printf 'lan 0=%s/64\nwan 1=%s/64\n' $V6_LAN $V6_WAN >> "$priv/cpe.conf"

start_router main
wait_for "the router's control-plane TAPs $pl and $pw up" 20 \
	eval 'tap_up $pl && tap_up $pw' || cpe_lib_done
ip -n "$lan" link set "$tl" up
ip -n "$wan" addr add "$WAN_H/24" dev "$tw"
ip -n "$wan" link set "$tw" up

# --- the TAPs as the app configured them --------------------------------
tap_mac=$(ip -n "$rt" -br link show "$pl" | awk '{print $3}')
addr=$(ip -n "$rt" -4 -br addr show "$pl" | awk '{print $3}')
check '[ "$addr" = "$LAN_RT/24" ]' "LAN TAP $pl carries $LAN_RT/24 (has: $addr)"
mtu=$(ip -n "$rt" link show "$pl" | grep -o 'mtu [0-9]*' | cut -d' ' -f2)
check '[ "$mtu" = 1500 ]' "LAN TAP MTU is the port's, 1500 (has: $mtu)"
ai=$(ip netns exec "$rt" cat /proc/sys/net/ipv4/conf/$pl/arp_ignore)
check '[ "$ai" = 1 ]' "LAN TAP arp_ignore is 1 (has: $ai)"

# --- DHCP: dnsmasq on the LAN TAP, udhcpc on the LAN host ---------------
ip netns exec "$rt" timeout 300 dnsmasq --keep-in-foreground --no-resolv --no-hosts --user=root \
	--interface="$pl" --bind-interfaces \
	--dhcp-range=192.168.60.100,192.168.60.150,255.255.255.0,10m \
	--address=/printer.lan/$PRINTER --dhcp-authoritative \
	--dhcp-leasefile="$priv/leases" --pid-file="$priv/dnsmasq.pid" \
	--log-facility="$priv/dnsmasq.log" --log-dhcp \
	2> "$priv/dnsmasq.err" &
dnsmasq_pid=$!
wait_for "dnsmasq listening on $LAN_RT:53" 20 \
	eval 'R ss -lun | grep -q "$LAN_RT:53 "'

# udhcpc's script: the lease into the LAN host's interface and routes.
cat > "$priv/udhcpc.sh" <<SH
#!/bin/sh
case "\$1" in
bound|renew)
	ip addr flush dev "\$interface"
	ip addr add "\$ip/\$subnet" dev "\$interface"
	ip route replace default via "\$router" dev "\$interface"
	echo "\$ip \$router \$dns" > "$priv/lease"
	;;
esac
exit 0
SH
chmod 700 "$priv/udhcpc.sh"
L busybox udhcpc -i "$tl" -f -q -n -t 5 -T 3 -s "$priv/udhcpc.sh" \
	> "$priv/udhcpc.out" 2>&1
read -r h_ip h_router h_dns < "$priv/lease" 2>/dev/null
lan_mac=$(ip -n "$lan" -br link show "$tl" | awk '{print $3}')
check 'case "${h_ip:-}" in 192.168.60.1[0-4][0-9]|192.168.60.150) true;; *) false;; esac' \
	"DHCP: the LAN host leased ${h_ip:-nothing} from the range 192.168.60.100-150"
check '[ "${h_router:-}" = "$LAN_RT" ] && [ "${h_dns:-}" = "$LAN_RT" ]' \
	"DHCP: router ${h_router:-none} and DNS server ${h_dns:-none} are the router's LAN address"
check 'grep -qi "$lan_mac ${h_ip:-x} " "$priv/leases"' \
	"dnsmasq's lease file has $lan_mac -> ${h_ip:-nothing}"
H=${h_ip:-192.168.60.2}

# --- the leased address works through the router ------------------------
# As cpe_netns.sh: both hosts reach the router first (fresh namespaces),
# so that every ARP is learned before the asserted pings.
L ping -c 1 -W 5 $LAN_RT >/dev/null 2>&1
W ping -c 1 -W 5 $WAN_RT >/dev/null 2>&1
out=$(L ping -c 3 -i 0.2 -W 5 $WAN_H 2>&1)
check 'answered "$out" 3' "from the leased address, ping the WAN host $WAN_H through NAT ($(echo "$out" | grep -o "[0-9]* received.*loss"))"
out=$(L ping -c 2 -i 0.2 -W 5 $LAN_RT 2>&1)
check 'answered "$out" 2' "ping the router's LAN address (the app answers) ($(echo "$out" | grep -o "[0-9]* received.*loss"))"
rt_mac=$(ip -n "$lan" neigh show "$LAN_RT" | grep -o 'lladdr [0-9a-f:]*' | cut -d' ' -f2)
check '[ -n "$rt_mac" ] && [ "$rt_mac" = "$tap_mac" ]' \
	"the LAN TAP has the port's MAC (TAP $tap_mac, the router's ARP reply ${rt_mac:-none})"

# --- DNS: dnsmasq answers the LAN host ----------------------------------
out=$(L busybox nslookup printer.lan $LAN_RT 2>&1)
check 'echo "$out" | sed -n "/printer.lan/,\$p" | grep -q "Address.*$PRINTER"' \
	"DNS: dnsmasq answers printer.lan -> $PRINTER ($(echo "$out" | grep -c Address) Address lines)"

# --- TCP to Linux on the router: an SSH-like banner and an echo ---------
cat > "$priv/tcp_srv.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(1)
s.settimeout(60)
open(sys.argv[3], "w").close()  # listening: the client may start
try:
    c, a = s.accept()
except socket.timeout:
    sys.exit(1)
c.settimeout(10)
c.sendall(b"SSH-2.0-ch39x-cpe-test\r\n")
data = b""
while not data.endswith(b"\n"):
    d = c.recv(4096)
    if not d:
        break
    data += d
c.sendall(data[::-1])
print(a[0])
PY
cat > "$priv/tcp_cli.py" <<'PY'
import socket, sys
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
f = c.makefile("rb")
banner = f.readline().strip().decode()
msg = b"hello from " + sys.argv[3].encode() + b" " + b"x" * 3000 + b"\n"
c.sendall(msg)
got = b""
while len(got) < len(msg):
    d = c.recv(65536)
    if not d:
        break
    got += d
print(banner, "echo-ok" if got == msg[::-1] else "echo-bad")
PY
# tcp_check NAME SRV_ADDR PORT CLIENT_NS_CMD WANT_PEER
tcp_check() {
	local name=$1 addr=$2 port=$3 who=$4 peer=$5 out srv
	rm -f "$priv/tcp.ready"
	ip netns exec "$rt" timeout 90 python3 "$priv/tcp_srv.py" "$addr" "$port" "$priv/tcp.ready" \
		> "$priv/tcp_srv.out" 2>&1 &
	srv=$!
	srv_pids="$srv_pids $srv"
	wait_for "$name: the TCP server on $addr:$port" 40 \
		test -e "$priv/tcp.ready"
	out=$($who python3 "$priv/tcp_cli.py" "$addr" "$port" "$name" 2>&1)
	wait "$srv"
	check '[ "$out" = "SSH-2.0-ch39x-cpe-test echo-ok" ] && [ "$(cat "$priv/tcp_srv.out")" = "$peer" ]' \
		"$name: TCP to Linux on $addr:$port (client: $out; server saw: $(cat "$priv/tcp_srv.out"))"
}
tcp_check "LAN host -> router LAN address" $LAN_RT 2222 L "$H"
tcp_check "WAN host -> router WAN address" $WAN_RT 2223 W "$WAN_H"

# --- Linux on the router reaches the hosts (its own ARP) ---------------
out=$(R ping -c 2 -i 0.2 -W 5 "$H" 2>&1); echo "$out" > "$priv/rping.out"
check 'answered "$out" 2' "Linux in the router netns pings the LAN host $H (via $pl) ($(echo "$out" | grep -o "[0-9]* received.*loss"))"
out=$(R ping -c 2 -i 0.2 -W 5 $WAN_H 2>&1)
check 'answered "$out" 2' "Linux in the router netns pings the WAN host $WAN_H (via $pw) ($(echo "$out" | grep -o "[0-9]* received.*loss"))"
neigh=$(ip -n "$rt" neigh show dev "$pl" | grep "^$H ")
check 'echo "$neigh" | grep -qi "lladdr $lan_mac"' "Linux resolved the LAN host's MAC on $pl ($neigh)"

# --- SLAAC (router advertisements from dnsmasq), IPv6 through ------------
if [ $has_v6 = 0 ]; then
	echo "SKIP: SLAAC and IPv6 through the router: this ch39x-cpe has no IPv6 forwarding (its --help names no IPv6)"
else
	# The router has $V6_LAN/64 on the LAN, $V6_WAN/64 on the WAN;
	# Linux gets the LAN one on its TAP for dnsmasq's constructor.
	ip -n "$rt" -6 addr add "$V6_LAN/64" dev "$pl" nodad
	ip netns exec "$lan" sysctl -qw "net.ipv6.conf.$tl.accept_ra=2"
	ip -n "$wan" -6 addr add "$V6_WAN_H/64" dev "$tw" nodad
	ip -n "$wan" -6 route add 2001:db8:60::/64 via "$V6_WAN"
	kill "$dnsmasq_pid"; wait "$dnsmasq_pid" 2>/dev/null
	ip netns exec "$rt" timeout 300 dnsmasq --keep-in-foreground --no-resolv --no-hosts --user=root \
		--interface="$pl" --bind-interfaces --enable-ra \
		--dhcp-range=::,constructor:"$pl",ra-only,64,10m \
		"$(lan_ra "$pl")" --pid-file="$priv/dnsmasq6.pid" \
		--log-facility="$priv/dnsmasq6.log" 2> "$priv/dnsmasq6.err" &
	dnsmasq_pid=$!
	# Usable once duplicate address detection is over (not tentative).
	v6_global() { ip -n "$lan" -6 addr show dev "$tl" scope global -tentative | grep -q "inet6 2001:db8:60:"; }
	wait_for "SLAAC: the LAN host's global address in 2001:db8:60::/64" 30 v6_global
	g6=$(ip -n "$lan" -6 -br addr show dev "$tl" | grep -o '2001:db8:60:[0-9a-f:]*')
	check '[ -n "$g6" ]' "SLAAC: the LAN host configured ${g6:-nothing} from the router advertisements"
	rtr=$(ip -n "$lan" -6 route show default)
	check 'echo "$rtr" | grep -q "via fe80::"' "SLAAC: a default route via the router's link-local address ($rtr)"
	out=$(L ping -6 -c 3 -i 0.2 -W 5 $V6_WAN_H 2>&1)
	check 'answered "$out" 3' "IPv6: the LAN host pings the WAN host $V6_WAN_H ($(echo "$out" | grep -o "[0-9]* received.*loss"))"
fi

stop_router main
j=$priv/main.json
# One python run for all the counters: a loaded machine starts it slowly.
read -r punted pdrops trx ttx tdrops local_d < <(json "$j" \
	'" ".join(str(v) for v in (j["tap"]["punted"], j["tap"]["punt_drops"], j["tap"]["tap_rx"], j["tap"]["tap_tx"], j["tap"]["tap_drops"], j["drops"]["local"]))')
# At least: DISCOVER + REQUEST, a DNS query, two TCP connections of a few
# segments each, Linux's ARP replies and echo replies back.
check '[ "${punted:-0}" -ge 12 ] && [ "${pdrops:-x}" = 0 ] && [ "${local_d:-x}" = 0 ]' \
	"stats: punted ${punted:-none}, punt_drops ${pdrops:-none}, local drops ${local_d:-none}"
check '[ "${trx:-0}" -ge 12 ] && [ "${ttx:-0}" = "${trx:-x}" ] && [ "${tdrops:-x}" = 0 ]' \
	"stats: from Linux tap_rx ${trx:-none}, tap_tx ${ttx:-none}, tap_drops ${tdrops:-none}"

# --- without --tap: the same traffic is dropped and counted as local ----
ip netns del "$lan"; ip netns del "$wan"
ip netns add "$lan"; ip netns add "$wan"
kill "$dnsmasq_pid" 2>/dev/null; wait "$dnsmasq_pid" 2>/dev/null; dnsmasq_pid=
sed -i '/^tap /d' "$priv/cpe.conf"
start_router notap
ip -n "$lan" link set "$tl" up
rm -f "$priv/lease"
L busybox udhcpc -i "$tl" -f -q -n -t 2 -T 1 -s "$priv/udhcpc.sh" \
	> "$priv/udhcpc2.out" 2>&1
check '[ ! -e "$priv/lease" ]' "without --tap: no lease"
check '! ip -n "$rt" link show "$pl" >/dev/null 2>&1' "without --tap: no TAP $pl"
stop_router notap
read -r local_d punted < <(json "$priv/notap.json" \
	'j["drops"]["local"], j["tap"]["punted"]')
check '[ "${local_d:-0}" -ge 2 ] && [ "${punted:-x}" = 0 ]' \
	"without --tap: the DISCOVERs counted as local drops (${local_d:-none}), punted ${punted:-none}"

# --- a name taken by another kind of interface: a clear error ----------
ip netns exec "$rt" timeout 60 "$cpe" --no-huge --no-pci -m 512 \
	--file-prefix "cpe_${id}_lo" -l 0 -d "$priv/pmd.so" -- \
	--config "$priv/cpe.conf" --tap 0=lo --duration 1 \
	> /dev/null 2> "$priv/lo.err"
rc=$?
check '[ $rc -ne 0 ] && grep -q -- "--tap 0=lo: cannot create the TAP" "$priv/lo.err"' \
	"--tap 0=lo (not a TAP): exit $rc, the error names the option"

if [ $fail -ne 0 ]; then
	for f in dnsmasq.log udhcpc.out rping.out main.json; do
		echo "--- $f ---"; tail -20 "$priv/$f" 2>/dev/null
	done
fi
cpe_lib_done
