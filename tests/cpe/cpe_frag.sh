#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# Fragments and MSS through ch39x-cpe (doc/guides/cpe.rst, "Fragments
# and MSS"), with Linux hosts in namespaces: the LAN at MTU 9000, the WAN
# at 1500, NAT and the firewall on (the defaults).
#
# Checks: a 4000-byte DF-clear ping from the LAN is cut into fragments by
# the router and its fragmented reply comes back through NAT (IPv4); a
# 3000-byte UDP datagram that the LAN host itself fragments (a route with
# MTU 1400) goes out through NAT and its fragmented echo comes back
# whole; a fragmented IPv6 echo reply from the WAN reaches the LAN host
# (the firewall follows the first fragment's verdict); an overlapping
# IPv6 fragment from the WAN (scapy) drops its datagram, which the LAN
# host never gets; a tiny first fragment is dropped; TCP SYNs from the
# jumbo LAN leave with the WAN's MSS (1460, IPv6 1440) and the
# connection carries data; the counters; bad option values refused.
#
# Usage: cpe_frag.sh path/to/ch39x-cpe path/to/librte_net_ch39x.so
set -uo pipefail
. "$(dirname "$0")/cpe_lib.sh"
need=()
/usr/bin/python3 -c "import scapy" 2>/dev/null || need+=(python3-scapy)
if [ ${#need[@]} -gt 0 ] && [ "$(id -u)" -eq 0 ]; then
	DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq \
		--no-install-recommends "${need[@]}" >/dev/null 2>&1
fi
cpe_lib_init cpe_frag "$@"
PY=/usr/bin/python3
LAN_RT=192.168.72.1 LAN_H=192.168.72.2 WAN_RT=203.0.113.2 WAN_H=203.0.113.1
LAN6_RT=2001:db8:72::1 LAN6_H=2001:db8:72::2
WAN6_RT=2001:db8:ff::2 WAN6_H=2001:db8:ff::1
bg_pids=
extra_cleanup() { local p; for p in $bg_pids; do kill "$p" 2>/dev/null; done; return 0; }
cpe_lib_extra_cleanup=extra_cleanup

for bad in "--frag-max -1" "--frag-max 2000000" "--frag-timeout 0" "--frag-timeout 121"; do
	set -- $bad
	out=$(timeout 60 "$cpe" --no-huge --no-pci -m 256 --no-shconf -l 0 \
		-d "$priv/pmd.so" -- --lan 0=$LAN_RT/24 --wan 1=$WAN_RT/24 \
		"$1" "$2" 2>&1)
	check 'echo "$out" | grep -q "0 (off)..1048576\|1..120 seconds"' "$bad refused with the allowed values"
done

cat > "$priv/cpe.conf" <<CONF
vdev net_ch39x0,wire=tap:$tl
vdev net_ch39x1,wire=tap:$tw
lan 0=$LAN_RT/24
lan 0=$LAN6_RT/64
wan 1=$WAN_RT/24
wan 1=$WAN6_RT/64
route default,$WAN_H
route ::/0,$WAN6_H
mtu 0=9000
json
CONF
start_router main
for n in "$lan" "$wan"; do
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0
	ip netns exec "$n" sysctl -qw net.ipv6.conf.default.accept_dad=0
done
ip -n "$lan" link set "$tl" mtu 9000
host_v4 $LAN_RT $LAN_H $WAN_H
ip -n "$lan" -6 addr add $LAN6_H/64 dev "$tl" nodad
ip -n "$lan" -6 route add default via $LAN6_RT
ip -n "$wan" -6 addr add $WAN6_H/64 dev "$tw" nodad
ip -n "$wan" -6 route add 2001:db8:72::/64 via $WAN6_RT
L ping -c 1 -W 5 $WAN_H >/dev/null 2>&1
L ping -6 -c 1 -W 5 $WAN6_H >/dev/null 2>&1

# 0. MSS: SYNs from the jumbo LAN leave with the WAN's MSS (first: no
# path MTU is cached yet from the fragmentation-needed below).
rm -f "$priv/mss" "$priv/mss.ready" "$priv/mss.stop"
# The sniffer's own deadline and a stop file bound it, not W's 30 s
# (on a busy machine the transfers below can take longer); a large
# receive buffer so that the bulk data does not push a SYN out.
timeout 120 ip netns exec "$wan" $PY -c "
import os, socket, struct, time
r = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
r.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE
r.bind(('$tw', 0))
r.settimeout(1); open('$priv/mss.ready', 'w').close()
res = {}
deadline = time.time() + 100
while len(res) < 2 and time.time() < deadline:
    try:
        f = r.recv(65535)
    except OSError:
        if os.path.exists('$priv/mss.stop'):
            break
        continue
    if len(f) < 74:
        continue
    et = struct.unpack('!H', f[12:14])[0]
    if et == 0x0800 and f[23] == 6:
        t = f[14 + (f[14] & 15) * 4:]; fam = '4'
    elif et == 0x86dd and f[20] == 6:
        t = f[54:]; fam = '6'
    else:
        continue
    if not (t[13] & 2) or (t[13] & 16):
        continue
    o, oend = 20, min((t[12] >> 4) * 4, len(t) - 4)
    while o < oend:
        if t[o] == 0: break
        if t[o] == 1: o += 1; continue
        if t[o] == 2: res[fam] = struct.unpack('!H', t[o + 2:o + 4])[0]
        o += max(t[o + 1], 2)
open('$priv/mss', 'w').write('%s %s' % (res.get('4', 0), res.get('6', 0)))
" &
sp=$!
wait_file "$priv/mss.ready" 20
rm -f "$priv/tcp.ready"
W $PY -c "
import socket
l = socket.socket(socket.AF_INET6); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0); l.bind(('::', 7001)); l.listen(4)
l.settimeout(20); open('$priv/tcp.ready', 'w').close()
for i in range(2):
    c, a = l.accept(); c.settimeout(10); n = 0
    while n < 200000:
        d = c.recv(65536)
        if not d: break
        n += len(d)
    c.sendall(str(n).encode()); c.close()
" &
bg_pids="$bg_pids $!"
wait_file "$priv/tcp.ready" 20
v=$(L $PY -c "
import socket
r = []
for a in ('$WAN_H', '$WAN6_H'):
    s = socket.create_connection((a, 7001), timeout=10)
    s.sendall(b'z' * 200000); r.append(s.recv(100).decode()); s.close()
print(' '.join(r))" 2>&1)
check '[ "$v" = "200000 200000" ]' "TCP from the jumbo LAN over both families carries 200000 bytes each ($v)"
touch "$priv/mss.stop"
wait "$sp"
read -r m4 m6 < "$priv/mss"
check '[ "${m4:-0}" = 1460 ] && [ "${m6:-0}" = 1440 ]' "SYNs on the WAN carry MSS 1460 (IPv4) and 1440 (IPv6), not the LAN's 8960/8940 (${m4:-?} ${m6:-?})"

# 1. DF clear, over the WAN's MTU: the router cuts, the reply is fragmented.
out=$(L ping -M dont -s 4000 -c 3 -i 0.3 -W 5 $WAN_H 2>&1)
check 'answered "$out" 3 && echo "$out" | grep -q "^4008 bytes from"' "ping -M dont -s 4000 through NAT: cut by the router, fragmented replies back ($(echo "$out" | grep -o '[0-9]* received'))"
out=$(L ping -M do -s 4000 -c 1 -W 3 $WAN_H 2>&1)
check 'echo "$out" | grep -qi "mtu\|too long\|frag needed"' "ping -M do -s 4000: fragmentation needed, not cut"

# 2. Fragments from the LAN host (route MTU 1400), echoed fragmented.
ip -n "$lan" route add $WAN_H/32 via $LAN_RT mtu 1400
rm -f "$priv/echo.ready"
W $PY -c "
import socket
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('$WAN_H', 7000))
u.settimeout(20); open('$priv/echo.ready', 'w').close()
for i in range(3):
    d, a = u.recvfrom(65535); u.sendto(d, a)
" &
bg_pids="$bg_pids $!"
wait_file "$priv/echo.ready" 20
v=$(L $PY -c "
import socket
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(5)
ok = 0
for i in range(3):
    d = bytes((i * 7 + j) & 255 for j in range(3000))
    u.sendto(d, ('$WAN_H', 7000))
    try:
        ok += u.recv(65535) == d
    except OSError:
        pass
print(ok)")
check '[ "${v:-0}" -ge 2 ]' "3000-byte UDP fragmented by the LAN host, out through NAT and echoed back whole (${v:-0} of 3)"
ip -n "$lan" route del $WAN_H/32

# 3. IPv6: the WAN host's fragmented echo replies pass the firewall.
ip -n "$lan" -6 route add $WAN6_H/128 via $LAN6_RT mtu 1400
out=$(L ping -6 -s 3000 -c 3 -i 0.3 -W 5 $WAN6_H 2>&1)
check 'answered "$out" 3' "ping -6 -s 3000: fragments both ways, replies through the firewall ($(echo "$out" | grep -o '[0-9]* received'))"
ip -n "$lan" -6 route del $WAN6_H/128

# 4. Attacks from the WAN (scapy): overlapping IPv6 fragments of a UDP
# datagram for a flow the LAN host opened; a tiny IPv4 first fragment.
rm -f "$priv/u6.ready" "$priv/u6"
L $PY -c "
import socket
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.bind(('$LAN6_H', 5555))
s.sendto(b'x', ('$WAN6_H', 9999)); s.settimeout(4)
open('$priv/u6.ready', 'w').close()
got = []
try:
    while True:
        got.append(s.recv(65535))
except OSError:
    pass
open('$priv/u6', 'w').write(' '.join(d[:8].decode(errors='replace') for d in got))
" &
lp=$!
wait_file "$priv/u6.ready" 20
W $PY - "$tw" "$WAN6_H" "$LAN6_H" "$WAN_H" "$WAN_RT" <<'PY' >/dev/null 2>&1
import sys
from scapy.all import Ether, IPv6, IPv6ExtHdrFragment, UDP, IP, Raw, sendp, getmacbyip6, conf
conf.verb = 0
ifc, s6, d6, s4, d4 = sys.argv[1:6]
import subprocess
def mac_of(a):
    out = subprocess.run(["ip", "neigh", "show", a], capture_output=True, text=True).stdout.split()
    return out[out.index("lladdr") + 1] if "lladdr" in out else "ff:ff:ff:ff:ff:ff"
m6, m4 = mac_of("2001:db8:ff::2"), mac_of(d4)
pay = b"OVERLAP!" + b"A" * 40
udp = bytes(UDP(sport=9999, dport=5555, len=8 + len(pay)) / Raw(pay))
# A whole, unfragmented control datagram first: it must arrive.
sendp(Ether(dst=m6) / IPv6(src=s6, dst=d6) / UDP(sport=9999, dport=5555) / Raw(b"CONTROL!"), iface=ifc)
f1 = IPv6(src=s6, dst=d6, nh=44) / IPv6ExtHdrFragment(nh=17, offset=0, m=1, id=77) / Raw(udp[:32])
f2 = IPv6(src=s6, dst=d6, nh=44) / IPv6ExtHdrFragment(nh=17, offset=2, m=0, id=77) / Raw(udp[16:])
sendp([Ether(dst=m6) / f1, Ether(dst=m6) / f2], iface=ifc)
# Tiny: an IPv4 first fragment holding 4 bytes of UDP, to the router.
sendp(Ether(dst=m4) / IP(src=s4, dst=d4, proto=17, flags=1, frag=0, id=5) / Raw(b"\x00\x35\x00\x35"), iface=ifc)
PY
wait "$lp"
v=$(cat "$priv/u6" 2>/dev/null)
check 'echo "$v" | grep -q CONTROL && ! echo "$v" | grep -q OVERLAP' "overlapping IPv6 fragments: the datagram dropped, an unfragmented one delivered (got: ${v:-nothing})"

stop_router main
j=$priv/main.json
v=$(json "$j" "' '.join(str(x) for x in (j['fragments']['split'], j['fragments']['first'], j['fragments']['later'], j['fragments']['drops']['overlap'], j['fragments']['drops']['tiny'], j['fragments']['mss_clamped']))")
check 'echo "$v" | awk "NF == 6 && \$1 >= 2 && \$2 >= 4 && \$3 >= 6 && \$4 >= 1 && \$5 >= 1 && \$6 >= 2 {ok=1} END {exit !ok}"' \
	"counters: split, first, later, overlap, tiny, mss_clamped ($v)"
cpe_lib_done
