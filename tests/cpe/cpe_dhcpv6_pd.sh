#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# DHCPv6 prefix delegation on a DHCP WAN (doc/guides/cpe.rst "IPv6 prefix
# delegation"): no IPv6 address or prefix in the router's config (--wan
# 1=dhcp, --lan 0=pd). The ISP in the WAN namespace: ISC dhcpd -6
# delegating a /56 from a pool of one, dnsmasq's router advertisements
# (the default route). The router's WAN TAP: ISC dhclient -6 -P with
# usertools/ch39x-cpe-dhclient6, which hands the prefix over and puts
# the LAN's /64 on the LAN TAP, where dnsmasq (constructor:) advertises
# it to the LAN host.
#
# Checks: no prefix and no IPv6 way out before the delegation; the
# delegated /56 in /cpe/wan, the LAN's /64 (router ::1) in /cpe/routes
# and on the LAN TAP, the default route via the ISP router's link-local
# address from its RA; the LAN host's SLAAC address in the /64, ping6 and
# an iperf3 TCP transfer to the WAN server through the fast path (IPv6
# flow-cache hits in /cpe/stats); WAN -> LAN new connections into the
# prefix dropped (fwd_new counted); the server's pool moved: the router
# follows (old /64 gone from /cpe/routes, old states closed and counted,
# a LAN source in the old prefix dropped as spoof_lan, the new prefix
# carries traffic); bad /cpe/wan/prefix6 values refused; a release
# clears it; the exit JSON.
#
# Usage: cpe_dhcpv6_pd.sh path/to/ch39x-cpe path/to/librte_net_ch39x.so
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cpe_lib.sh"
cpe_lib_init cpe_dhcpv6_pd "$@" dnsmasq dhcpd dhclient
ctl_py=$here/../../usertools/ch39x-cpe-ctl
hook=$here/../../usertools/ch39x-cpe-dhclient6
LAN_RT=192.168.74.1 LAN_H=192.168.74.2
ISP6=2001:db8:1::1			# the ISP's server on the WAN link
pl=pl$id pw=pw$id
dq= dl= dc= ra= bg=
extra_cleanup() {
	local p
	for p in $dq $dl $dc $ra $bg; do kill "$p" 2>/dev/null; done
	return 0
}
cpe_lib_extra_cleanup=extra_cleanup
R() { timeout 30 ip netns exec "$rt" "$@"; }
pfx_is() { [ "$(field "$(ctl /cpe/wan)" prefix6)" = "$1" ]; }

# dhcpd6 POOL: the ISP's DHCPv6 server delegating POOL::/56 (one prefix),
# short lifetimes so that the client renews every 5 s. Preferred for 30 s:
# with 10 a busy machine's late renewal let the LAN host's address go
# deprecated before the check saw it.
dhcpd6() {
	[ -n "$dq" ] && { kill "$dq" 2>/dev/null; wait "$dq" 2>/dev/null; }
	cat > "$priv/dhcpd6.conf" <<CONF
default-lease-time 60;
preferred-lifetime 30;
max-lease-time 60;
option dhcp-renewal-time 5;
option dhcp-rebinding-time 8;
subnet6 2001:db8:1::/64 {
	prefix6 $1:: $1:: /56;
}
CONF
	: > "$priv/dhcpd6.$1.leases"
	ip netns exec "$wan" timeout 300 dhcpd -6 -f -d -cf "$priv/dhcpd6.conf" \
		-lf "$priv/dhcpd6.$1.leases" -pf "$priv/dhcpd6.pid" "$tw" \
		> "$priv/dhcpd6.$1.log" 2>&1 &
	dq=$!
}

start_tap_wan dhcp "lan 0=pd" "tap 0=$pl"
for n in "$rt" "$lan" "$wan"; do
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0
	ip netns exec "$n" sysctl -qw net.ipv6.conf.default.accept_dad=0
done
ip netns exec "$lan" sysctl -qw "net.ipv6.conf.$tl.accept_ra=2"
ip -n "$wan" -6 addr add $ISP6/64 dev "$tw" nodad
ip -n "$wan" -6 addr add 2001:db8:ffff::80/128 dev lo	# the server
until_ok 20 eval 'ip -n "$rt" link show "$pl" | grep -q ",UP"'
if ! until_ok 30 eval 'ctl /cpe/wan | grep -q mode'; then
	echo "FAIL: the router's telemetry does not answer"; fail=1; cpe_lib_done
fi

r=$(ctl /cpe/wan)
check '[ "$(field "$r" prefix6)" = none ] && [ "$(field "$r" gateway6)" = none ]' "before the delegation: no prefix, no IPv6 gateway ($r)"

# The ISP: RAs on the WAN link (router lifetime 120 s, every 4 s), the
# DHCPv6 server.
ip netns exec "$wan" timeout 300 dnsmasq --no-daemon --port=0 \
	--interface="$tw" --bind-interfaces --enable-ra \
	--dhcp-range=2001:db8:1::,ra-only,64 --ra-param="$tw",4,120 \
	> "$priv/dnsmasq_wan.log" 2>&1 &
ra=$!
dhcpd6 2001:db8:100
# The LAN's advertisements: dnsmasq on the LAN TAP, the prefix from the
# address the hook puts there.
ip netns exec "$rt" timeout 300 dnsmasq --no-daemon --port=0 \
	--interface="$pl" --bind-interfaces --enable-ra \
	--dhcp-range=::,constructor:"$pl",ra-only,64 "$(lan_ra "$pl")" \
	> "$priv/dnsmasq_lan.log" 2>&1 &
dl=$!
sleep 0.5
# dhclient gives its script a clean environment: the settings by -e.
dhclient6() {
	ip netns exec "$rt" timeout "$1" dhclient -6 -P -v \
		-e CPE_PREFIX="cpe_${id}_main" -e CPE_CTL="$ctl_py" \
		-e CPE_STATE="$priv/prefix6.lan" -sf "$hook" \
		-lf "$priv/dhclient6.leases" -pf "$priv/dhclient6.pid" \
		"${@:2}" "$pw" >> "$priv/dhclient6.log" 2>&1
}
dhclient6 300 -d &
dc=$!

check 'until_ok 60 pfx_is 2001:db8:100::/56' "the delegated 2001:db8:100::/56 reaches the router"
r=$(ctl /cpe/wan)
check 'echo "$r" | grep -q "\"lan6\": \[\"$pl=2001:db8:100::1/64\"\]"' "/cpe/wan: LAN 0 has /64 number 0, router 2001:db8:100::1 ($(echo "$r" | grep -o '"lan6": \[[^]]*\]'))"
check 'echo "$(ctl /cpe/routes)" | grep -q "2001:db8:100::/64"' "/cpe/routes: the connected 2001:db8:100::/64"
check 'until_ok 30 eval "ip -n $rt -6 addr show dev $pl | grep -q 2001:db8:100::1/64"' "the hook put 2001:db8:100::1/64 on the LAN TAP"
isp_ll=$(ip -n "$wan" -6 addr show dev "$tw" scope link | sed -n 's/.*inet6 \(fe80::[0-9a-f:]*\)\/64.*/\1/p')
check 'until_ok 30 eval "[ \"\$(field \"\$(ctl /cpe/wan)\" gateway6)\" = $isp_ll ]"' "the default route via the ISP router's link-local $isp_ll (its RA)"
# The ISP routes the delegated prefixes to the router's WAN link-local.
rt_ll=$(ip -n "$rt" -6 addr show dev "$pw" scope link | sed -n 's/.*inet6 \(fe80::[0-9a-f:]*\)\/64.*/\1/p')
ip -n "$wan" -6 route add 2001:db8:100::/56 via "$rt_ll" dev "$tw"
ip -n "$wan" -6 route add 2001:db8:200::/56 via "$rt_ll" dev "$tw"

# SLAAC on the LAN host from dnsmasq's RAs.
slaac() { ip -n "$lan" -6 addr show dev "$tl" scope global -tentative -deprecated | sed -n "s/.*inet6 \($1[0-9a-f:]*\)\/64.*/\1/p" | head -1; }
check 'until_ok 40 eval "[ -n \"\$(slaac 2001:db8:100:0:)\" ]"' "the LAN host configured an address in 2001:db8:100::/64 by SLAAC"
h1=$(slaac 2001:db8:100:0:)
out=$(L ping -6 -c 3 -i 0.3 -W 5 2001:db8:ffff::80 2>&1)
check 'answered "$out" 3' "ping6 from $h1 to the WAN server ($(echo "$out" | grep -o "[0-9]* received"))"

# iperf3 TCP through the fast path.
W iperf3 -s -1 -J -B 2001:db8:ffff::80 > "$priv/srv.json" 2>&1 &
sp=$!
listening "$wan" 5201
hits0=$(field "$(ctl /cpe/stats)" fast_hits6)
L timeout 30 iperf3 -6 -c 2001:db8:ffff::80 -t 3 -J > "$priv/cli.json" 2>&1
wait "$sp"
rh=$(json "$priv/srv.json" 'j["start"]["connected"][0]["remote_host"]')
rx=$(json "$priv/srv.json" 'int(j["end"]["sum_received"]["bytes"])')
mbps=$(json "$priv/cli.json" 'int(j["end"]["sum_received"]["bits_per_second"]/1e6)')
hits=$(( $(field "$(ctl /cpe/stats)" fast_hits6) - ${hits0:-0} ))
check '[ "$rh" = "$h1" ] && [ "${rx:-0}" -gt 1000000 ]' "iperf3 -6 TCP from $rh: $rx bytes ($mbps Mbit/s)"
check '[ "$hits" -gt 1000 ]' "IPv6 fast-path hits during the transfer: $hits"

# WAN -> LAN: no new connection into the delegated prefix.
d0=$(field "$(ctl /cpe/stats)" fw_drop_wan_to_lan_new)
W python3 -c "
import socket
s = socket.socket(socket.AF_INET6); s.settimeout(2)
try: s.connect(('$h1', 22))
except OSError: pass" 2>/dev/null
out=$(W ping -6 -c 1 -W 2 "$h1" 2>&1)
d1=$(field "$(ctl /cpe/stats)" fw_drop_wan_to_lan_new)
check '[ $((d1 - d0)) -ge 2 ]' "WAN -> LAN new TCP connection into the prefix dropped (fwd_new +$((d1 - d0)))"

# The pool moves: the server forgets the old prefix and delegates
# 2001:db8:200::/56 at the client's next renewal; a ping from the old
# address runs across the change (a tracked state of the old prefix).
L ping -6 -i 0.5 -c 80 -I "$h1" 2001:db8:ffff::80 > "$priv/ping_across" 2>&1 &
bg=$!
until_ok 10 eval '[ "$(field "$(ctl /cpe/stats)" fw_states)" -ge 1 ]'
sessions=$(field "$(ctl /cpe/stats)" fw_states)
dhcpd6 2001:db8:200
check 'until_ok 90 pfx_is 2001:db8:200::/56' "the new prefix 2001:db8:200::/56 reaches the router"
r=$(ctl /cpe/wan)
routes=$(ctl /cpe/routes)
check '! echo "$routes" | grep -q "2001:db8:100::/64" && echo "$routes" | grep -q "2001:db8:200::/64"' "/cpe/routes: 2001:db8:100::/64 gone, 2001:db8:200::/64 there ($routes)"
# dhclient reported the old prefix expired after binding the new one.
check 'grep -q "reason EXPIRE6 prefix  old 2001:db8:100::/56" "$priv/dhclient6.log" && [ "$(field "$r" prefix6_clears)" = 0 ]' "the old prefix's expiry did not withdraw the new one (clears $(field "$r" prefix6_clears))"
check '[ "$(field "$r" prefix6_changes)" -ge 1 ] && [ "$(field "$r" prefix6_fw_closed)" -ge 1 ]' "a change counted, the old prefix's states closed (changes $(field "$r" prefix6_changes), fw_closed $(field "$r" prefix6_fw_closed) of $sessions)"
check 'until_ok 40 eval "[ -n \"\$(slaac 2001:db8:200:0:)\" ]"' "the LAN host configured an address in 2001:db8:200::/64"
h2=$(slaac 2001:db8:200:0:)
kill "$bg" 2>/dev/null; wait "$bg" 2>/dev/null; bg=
s0=$(field "$(ctl /cpe/stats)" fw_drop_lan_foreign_source)
out=$(L ping -6 -c 2 -i 0.3 -W 2 -I "$h1" 2001:db8:ffff::80 2>&1)
s1=$(field "$(ctl /cpe/stats)" fw_drop_lan_foreign_source)
check 'echo "$out" | grep -q " 0 received" && [ $((s1 - s0)) -ge 2 ]' "from the old prefix ($h1): dropped as spoof_lan (+$((s1 - s0)))"
out=$(L ping -6 -c 3 -i 0.3 -W 5 -I "$h2" 2001:db8:ffff::80 2>&1)
check 'answered "$out" 3' "from the new prefix ($h2): ping6 passes ($(echo "$out" | grep -o "[0-9]* received"))"

# Bad values over the control, refused with what is allowed.
r=$(ctl /cpe/wan/prefix6,2001:db8:300::/65,10,20)
check 'echo "$r" | grep -q "LEN 1..64"' "/cpe/wan/prefix6 with /65 refused ($r)"
r=$(ctl /cpe/wan/prefix6,2001:db8:300::/56,30,20)
check 'echo "$r" | grep -q "PREFERRED <= VALID"' "/cpe/wan/prefix6 with preferred > valid refused"
r=$(ctl /cpe/wan/prefix6/clear,2001:db8:100::/56)
check '[ "$(field "$r" prefix6)" = 2001:db8:200::/56 ]' "/cpe/wan/prefix6/clear of another prefix than the current: kept"

# Released: the prefix, its /64 and its route gone.
kill "$dc" 2>/dev/null; wait "$dc" 2>/dev/null; dc=
dhclient6 60 -r
check 'until_ok 20 pfx_is none' "a release withdraws the prefix"
check '! echo "$(ctl /cpe/routes)" | grep -q "2001:db8:200::/64"' "the released /64's route gone"
stop_router main
j=$priv/main.json
v=$(json "$j" "j['wan']['ipv6']['sets'], j['wan']['ipv6']['changes'], j['wan']['ipv6']['clears'], j['wan']['ipv6']['renewals'], j['wan']['ipv6']['ra_rcvd'], j['ipv6']['fast_hits']")
check 'echo "$v" | awk "\$1 == 2 && \$2 == 1 && \$3 == 1 && \$4 >= 1 && \$5 >= 1 && \$6 > 1000 {ok=1} END {exit !ok}"' "exit statistics: prefix sets, changes, clears, renewals, RAs, IPv6 fast hits ($v)"
if [ "$fail" -ne 0 ]; then
	grep -h "reason\|PRC\|refused" "$priv/dhclient6.log" | tail -30
	tail -20 "$priv"/dhcpd6.*.log "$priv/dnsmasq_lan.log"
fi
cpe_lib_done
