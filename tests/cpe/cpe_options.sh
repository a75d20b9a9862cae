#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# ch39x-cpe's option errors (no EAL, no ports needed): each bad value
# exits non-zero naming the option and the allowed values; a config file
# error names the file and line; --help exits 0.
# Usage: cpe_options.sh path/to/ch39x-cpe
set -uo pipefail
cpe=${1:?usage: cpe_options.sh ch39x-cpe}
priv=$(mktemp -d)
trap 'rm -rf "$priv"' EXIT
. "$(dirname "$0")/../exe_wrap.sh"
cpe=$(exe_wrap "$cpe" "$priv")
fail=0
# expect WANT ARGS...: non-zero exit and WANT on stderr.
expect() {
	local want=$1 rc=0
	shift
	timeout 20 "$cpe" "$@" > /dev/null 2> "$priv/err" || rc=$?
	if [ $rc -ne 0 ] && grep -qF -- "$want" "$priv/err"; then
		echo "ok: exit $rc, stderr names '$want': $*"
	else
		echo "FAIL: want a non-zero exit naming '$want' (exit $rc): $*"
		cat "$priv/err"; fail=1
	fi
}
ok="--lan 0=192.168.1.1/24 --wan 1=203.0.113.2/24"
rc=0; "$cpe" -- --help > "$priv/out" || rc=$?
if [ $rc -eq 0 ] && grep -q -- "--no-flow-cache" "$priv/out" &&
   grep -q -- "--no-vlan-offload" "$priv/out" && grep -q "PORT.VLAN" "$priv/out" &&
   grep -q -- "--down-rate RATE" "$priv/out" &&
   grep -q -- "--synflood-rate N" "$priv/out" &&
   grep -q "as OpenWrt" "$priv/out" &&
   grep -q "1..1000000 (default: 25)" "$priv/out"; then
	echo "ok: --help"; else echo "FAIL: --help (exit $rc)"; fail=1; fi
expect "--lan 0=192.168.1.1/33: allowed values are PORT=ADDR/LEN" -- --lan 0=192.168.1.1/33 --wan 1=1.2.3.4/24
expect "--wan: the router needs one --wan" -- --lan 0=10.0.0.1/24
expect "--wan 2=1.2.3.4/24: allowed values are one --wan port only" -- $ok --wan 2=1.2.3.4/24
expect "--lan 1=1.2.3.4/24: allowed values are a port not already given" -- $ok --lan 1=1.2.3.4/24
expect "--mtu 99999: allowed values are 68..9198" -- $ok --mtu 99999
# 802.1Q sub-interfaces: PORT.VLAN, VLAN 1..4094, one per (port, VLAN).
expect "--lan 0.0=10.0.0.1/24: allowed values are PORT=ADDR/LEN or PORT=pd[:ID], PORT a DPDK port id 0..1023 or PORT.VLAN with an 802.1Q VLAN id 1..4094" -- $ok --lan 0.0=10.0.0.1/24
expect "--lan 0.4095=10.0.0.1/24: allowed values are PORT=ADDR/LEN" -- $ok --lan 0.4095=10.0.0.1/24
expect "--wan 1.x=10.0.0.1/24: allowed values are PORT=ADDR/LEN" -- --lan 0=10.1.0.1/24 --wan 1.x=10.0.0.1/24
expect "--lan 0.10=10.2.0.1/24: allowed values are one IPv4 address a port" -- $ok --lan 0.10=10.1.0.1/24 --lan 0.10=10.2.0.1/24
expect "--lan/--wan: 9 DPDK ports; allowed values are interfaces on at most 8 DPDK ports" -- $ok $(for i in 2 3 4 5 6 7 8; do echo --lan $i=10.$i.0.1/24; done)
expect "--no-vlan-offload takes no value" -- $ok --no-vlan-offload=1
expect "--route 10.0.0.1/8,192.168.1.9: allowed values are a prefix without host bits" -- $ok --route 10.0.0.1/8,192.168.1.9
expect "--nat-ports 5-2: allowed values are LO-HI" -- $ok --nat-ports 5-2
expect "--udp-timeout 0: allowed values are 1..86400" -- $ok --udp-timeout 0
expect "--firewall no: allowed values are on, off" -- $ok --firewall no
expect "--fw-open tcp/0: allowed values are PROTO/PORT[-PORT], PROTO tcp or udp, PORT 1..65535" -- $ok --fw-open tcp/0
expect "--fw-open icmp/22: allowed values are PROTO/PORT[-PORT]" -- $ok --fw-open icmp/22
expect "--fw-pinhole tcp/[2001:db8::1]: allowed values are PROTO/[IPV6[/PLEN]]:PORT[-PORT]" -- $ok --fw-pinhole "tcp/[2001:db8::1]"
expect "--fw-pinhole tcp/[2001:db8::/129]:80: allowed values" -- $ok --fw-pinhole "tcp/[2001:db8::/129]:80"
expect "--fw-states 10: allowed values are 1024..4194304" -- $ok --fw-states 10
# SYN-flood protection (doc/guides/cpe.rst, "Under a flood").
expect "--synflood-protect yes: allowed values are on, off" -- $ok --synflood-protect yes
expect "--synflood-rate 0: allowed values are 1..1000000 (a second)" -- $ok --synflood-rate 0
expect "--synflood-burst 1000001: allowed values are 1..1000000" -- $ok --synflood-burst 1000001
expect "--synflood-budget x: allowed values are 0 (no budget)..10000000" -- $ok --synflood-budget x
expect "--tcp-syn-timeout 0: allowed values are 1..86400" -- $ok --tcp-syn-timeout 0
expect "--udp-unreplied-timeout 86401: allowed values are 1..86400" -- $ok --udp-unreplied-timeout 86401
expect "--bench-gen 2: allowed values are TX,RX" -- $ok --bench-gen 2
expect "--neigh 1.2.3.4,ff:ff:ff:ff:ff:ff: allowed values are ADDR,XX" -- $ok --neigh 1.2.3.4,ff:ff:ff:ff:ff:ff
expect "--idle sleep: allowed values are poll, adaptive, interrupt" -- $ok --idle sleep
expect "--idle-spin 100001: allowed values are 0..100000 (microseconds)" -- $ok --idle-spin 100001
expect "--idle-spin -1: allowed values are 0..100000 (microseconds)" -- $ok --idle-spin -1
expect "unknown option '--bogus'; allowed options are --lan, --wan" -- $ok --bogus
expect "--vdev" -- $ok --vdev net_null0
# IPv6 (--lan/--wan repeated per port, --route, --mtu PORT=N)
expect "--lan 0=fe80::1/64: allowed values are PORT=ADDR/LEN" -- $ok --lan 0=fe80::1/64
expect "--lan 0=ff02::1/64: allowed values are PORT=ADDR/LEN" -- $ok --lan 0=ff02::1/64
expect "--lan 0=fd00::1/129: allowed values are PORT=ADDR/LEN" -- $ok --lan 0=fd00::1/129
expect "--lan 0=fd00::1/0: allowed values are PORT=ADDR/LEN" -- $ok --lan 0=fd00::1/0
expect "--lan 0=fd00:::1/64: allowed values are PORT=ADDR/LEN" -- $ok --lan 0=fd00:::1/64
expect "--lan 0=10.9.9.1/24: allowed values are one IPv4 address a port" -- $ok --lan 0=10.9.9.1/24
expect "--lan 1=fd00::1/64: allowed values are a port not already given to --wan" -- $ok --lan 1=fd00::1/64
expect "--lan 0=fd00:5::1/64: allowed values are at most 4 IPv6 prefixes" -- $ok --lan 0=fd00:1::1/64 --lan 0=fd00:2::1/64 --lan 0=fd00:3::1/64 --lan 0=fd00:4::1/64 --lan 0=fd00:5::1/64
expect "--route 2001:db8::1/32,2001:db8:1::1: allowed values are a prefix without host bits" -- $ok --route 2001:db8::1/32,2001:db8:1::1
expect "--route ::/0,ff02::1: allowed values are PREFIX/LEN,GATEWAY with an IPv6 prefix" -- $ok --route ::/0,ff02::1
# A /64 of the delegated prefix (--lan PORT=pd[:ID]): its TAPs, its ids.
pd="--lan 0=192.168.1.1/24 --wan 1=dhcp --tap 0=pl0 --tap 1=pw0"
expect "--lan 0=pdx: allowed values are PORT=ADDR/LEN or PORT=pd[:ID]" -- $pd --lan 0=pdx
expect "--lan 0=pd:65536: allowed values are PORT=ADDR/LEN or PORT=pd[:ID]" -- $pd --lan 0=pd:65536
expect "--wan 1=pd: allowed values are PORT=ADDR/LEN, PORT=dhcp, PORT=pppoe or PORT=mbim" -- $pd --wan 1=pd
expect "--lan 0=pd:2: allowed values are one pd a port" -- $pd --lan 0=pd --lan 0=pd:2
expect "--lan 2=pd: the LAN's router advertisements come from its TAP; allowed: add --tap 2=IFNAME" -- $pd --lan 0=pd --lan 2=pd
expect "--lan 0=pd: the DHCPv6 client runs on the WAN's TAP; allowed: add --tap 1=IFNAME" -- --lan 0=192.168.1.1/24 --wan 1=203.0.113.2/24 --tap 0=pl0 --lan 0=pd
expect "--lan 2=pd:3: /64 number 3 given to port 0 already" -- $pd --tap 2=pl2 --lan 0=pd:3 --lan 2=pd:3
expect "--lan 0=pd: the delegated prefix is one of the port's 4 IPv6 prefixes; allowed: at most 3 static ones beside pd" -- $pd --lan 0=fd00:1::1/64 --lan 0=fd00:2::1/64 --lan 0=fd00:3::1/64 --lan 0=fd00:4::1/64 --lan 0=pd
expect "--route default,2001:db8::1: allowed values are PREFIX/LEN,GATEWAY with an IPv6" -- $ok --route default,2001:db8::1
expect "--route ::/0,203.0.113.1: allowed values are PREFIX/LEN,GATEWAY with an IPv6" -- $ok --route ::/0,203.0.113.1
expect "--mtu 1=20: allowed values are N (68..9198, every port) or PORT=N" -- $ok --mtu 1=20
expect "--mtu 5=1400: port 5 is no router port" -- $ok --mtu 5=1400
expect "--mtu 1000: port 1 has IPv6 prefixes; allowed values are 1280..9198" -- $ok --wan 1=2001:db8::2/64 --mtu 1000
expect "--wan: NAPT needs an IPv4 address on the WAN port" -- --lan 0=192.168.1.1/24 --wan 1=2001:db8::2/64
expect "--tap 0: allowed values are PORT=IFNAME" -- $ok --tap 0
expect "--tap 0=a/b: allowed values are PORT=IFNAME" -- $ok --tap 0=a/b
expect "--tap 0=abcdefghijklmnop: allowed values are PORT=IFNAME" -- $ok --tap 0=abcdefghijklmnop
expect "--tap 5=t5: port 5 is no router port" -- $ok --tap 5=t5
expect "--tap 1=t0: port or name already given to --tap" -- $ok --tap 0=t0 --tap 1=t0
expect "--tap 0=t1: port or name already given to --tap" -- $ok --tap 0=t0 --tap 0=t1
expect "--wan-rate 5G5: allowed values are a rate in bits/s, 64k..10G" -- $ok --wan-rate 5G5
expect "--wan-rate 1k: allowed values are a rate in bits/s, 64k..10G" -- $ok --wan-rate 1k
expect "--qos-classes: the WAN scheduler runs only under its shaper; allowed with --wan-rate" -- $ok --qos-classes 2
expect "--qos-map 46=3: class beyond --qos-classes 2; allowed classes are 0..1" -- $ok --qos-map ef=3 --wan-rate 20M --qos-classes 2
expect "--qos-map af14=1: allowed values are DSCP=CLASS" -- $ok --wan-rate 20M --qos-map af14=1
expect "--qos-pcp-map 9=0: allowed values are PCP=CLASS" -- $ok --wan-rate 20M --qos-pcp-map 9=0
expect "--qos-queue 20000: allowed values are 1..16384" -- $ok --wan-rate 20M --qos-queue 20000
expect "--qos-fq yes: allowed values are on (flow queues" -- $ok --wan-rate 20M --qos-fq yes
expect "--qos-target 5: allowed values are a time 100us..1s" -- $ok --wan-rate 20M --qos-target 5
expect "--qos-target 200000us: not below --qos-interval 100000us" -- $ok --wan-rate 20M --qos-target 200ms
expect "--qos-flows: an option of the flow queues; allowed with --qos-fq on" -- $ok --wan-rate 20M --qos-fq off --qos-flows 64
expect "--qos-catchup 2s: allowed values are a time 0us..1s" -- $ok --wan-rate 20M --qos-catchup 2s
expect "--qos-catchup: the WAN scheduler runs only under its shaper; allowed with --wan-rate" -- $ok --qos-catchup 5ms
# The downlink's shaper: the same rates; the --qos-* options go with it
# alone too (the error below comes after they were taken).
expect "--down-rate 5G5: allowed values are a rate in bits/s, 64k..10G" -- $ok --down-rate 5G5
expect "--down-rate 11G: allowed values are a rate in bits/s, 64k..10G" -- $ok --down-rate 11G
expect "--down-rate : allowed values are a rate in bits/s" -- $ok --down-rate ""
expect "allowed with --wan-rate RATE or --down-rate RATE" -- $ok --qos-fq off
expect "--qos-map 46=3: class beyond --qos-classes 2; allowed classes are 0..1" -- $ok --down-rate 60M --qos-classes 2 --qos-map ef=3
printf 'lan 0=10.0.0.1/24\nwan 1=10.1.0.1/24\nroute 10.0.0.0/8,x\n' > "$priv/c1"
expect "$priv/c1:3: --route 10.0.0.0/8,x: allowed values" -- --config "$priv/c1"
printf 'lan 0=10.0.0.1/24\nspeed 9\n' > "$priv/c2"
expect "$priv/c2:2: unknown key 'speed'; allowed keys are: lan, wan" -- --config "$priv/c2"
expect "--config /nonexistent: cannot open" -- --config /nonexistent
# The firewall's options are config keys too.
printf 'lan 0=10.0.0.1/24\nwan 1=10.1.0.1/24\nfw-open tcp/22\nfw-open udp/70000\n' > "$priv/c3"
expect "$priv/c3:4: --fw-open udp/70000: allowed values are PROTO/PORT[-PORT]" -- --config "$priv/c3"
exit $fail
