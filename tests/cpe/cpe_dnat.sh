#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# Port forwarding (--fw-forward, DNAT) and hairpin NAT of ch39x-cpe
# (doc/guides/cpe.rst, "Port forwarding"), with Linux hosts in namespaces:
#
#   LAN host netns: 192.168.71.2 (a client) and 192.168.71.3 (the
#   servers), one TAP; router 192.168.71.1 / 203.0.113.2; WAN host
#   203.0.113.1.
#
# Checks: a WAN host reaches the LAN server through a forwarded TCP port
# (to another port) and a forwarded UDP range (same ports), the server
# seeing the WAN host's address (no source rewrite); a port not forwarded
# stays closed; a LAN host reaches the server through the WAN address
# and the forwarded port (hairpin), the server seeing the router's LAN
# address so that its replies come back through the router; a LAN
# connection from a forwarded port number gets another external port
# (forwarded ports are reserved); endpoint-independent mapping for UDP
# and TCP; the counters by forward; bad option values refused with the
# allowed forms.
#
# Usage: cpe_dnat.sh path/to/ch39x-cpe path/to/librte_net_ch39x.so
set -uo pipefail
. "$(dirname "$0")/cpe_lib.sh"
cpe_lib_init cpe_dnat "$@"
PY=/usr/bin/python3
tool=$(cd "$(dirname "$0")" && pwd)/cpe_fw_tool.py
LAN_RT=192.168.71.1 LAN_C=192.168.71.2 LAN_S=192.168.71.3
WAN_RT=203.0.113.2 WAN_H=203.0.113.1
bg_pids=

# --- bad values: refused before anything starts, with the allowed forms --
for bad in "tcp/0=192.168.71.3" "sctp/80=192.168.71.3" "tcp/80=192.168.71.3:70000" \
	   "tcp/80-90=192.168.71.3:65530" "tcp/80=127.0.0.1" "tcp/80"; do
	out=$(timeout 60 "$cpe" --no-huge --no-pci -m 256 --no-shconf -l 0 \
		-d "$priv/pmd.so" -- --lan 0=$LAN_RT/24 --wan 1=$WAN_RT/24 \
		--fw-forward "$bad" 2>&1)
	check 'echo "$out" | grep -q "tcp/8080=192.168.1.10:80"' "--fw-forward $bad refused with the allowed forms"
done
out=$(timeout 60 "$cpe" --no-huge --no-pci -m 256 --no-shconf -l 0 \
	-d "$priv/pmd.so" --vdev net_ch39x0 --vdev net_ch39x1 -- \
	--lan 0=$LAN_RT/24 --wan 1=$WAN_RT/24 --fw-forward tcp/80-90=$LAN_S \
	--fw-forward tcp/85=$LAN_C 2>&1)
check 'echo "$out" | grep -q "not forwarded by an earlier"' "overlapping forwards refused"
out=$(timeout 60 "$cpe" --no-huge --no-pci -m 256 --no-shconf -l 0 \
	-d "$priv/pmd.so" --vdev net_ch39x0 --vdev net_ch39x1 -- \
	--lan 0=$LAN_RT/24 --wan 1=$WAN_RT/24 --fw-forward tcp/80=10.9.9.9 \
	--duration 1 2>&1)
check 'echo "$out" | grep -q "on no --lan subnet"' "a forward to no LAN host refused ($(echo "$out" | grep -m1 fw-forward))"

# --- the router ---------------------------------------------------------
cat > "$priv/cpe.conf" <<CONF
vdev net_ch39x0,wire=tap:$tl
vdev net_ch39x1,wire=tap:$tw
lan 0=$LAN_RT/24
wan 1=$WAN_RT/24
route default,$WAN_H
fw-forward tcp/8080=$LAN_S:80
fw-forward udp/5000-5001=$LAN_S
json
CONF
start_router main
host_v4 $LAN_RT $LAN_C $WAN_H
ip -n "$lan" addr add $LAN_S/24 dev "$tl"
serve "$lan" srv tcp:80 tcp:8081 udp:5000 udp:5001
serve "$wan" wan tcp:9000
W ping -c 1 -W 5 $WAN_RT >/dev/null 2>&1
L ping -c 1 -W 5 $LAN_RT >/dev/null 2>&1

v=$(ok_drop W $PY "$tool" client tcp $WAN_RT 8080 fromwan1)
check '[ "$v" = pass ]' "WAN -> $WAN_RT:8080 reaches $LAN_S:80 ($v)"
check 'grep -qF "tcp 80 ::ffff:$WAN_H b'"'"'fromwan1'"'"'" "$priv/srv.log"' "the LAN server sees the WAN host's address ($(grep fromwan1 "$priv/srv.log"))"
v=$(ok_drop W $PY "$tool" client udp $WAN_RT 5001 udpfwd)
check '[ "$v" = pass ]' "WAN -> udp $WAN_RT:5001 reaches $LAN_S:5001 ($v)"
v=$(ok_drop W $PY "$tool" client tcp $WAN_RT 8081 notfwd)
check '[ "$v" = drop ]' "WAN -> $WAN_RT:8081 (not forwarded) closed ($v)"
check '! grep -q notfwd "$priv/srv.log"' "nothing of port 8081 reached the LAN server"
# Hairpin: the LAN client uses the WAN address.
v=$(ok_drop L $PY -c "
import socket, sys
s = socket.create_connection(('$WAN_RT', 8080), timeout=5, source_address=('$LAN_C', 0))
s.sendall(b'hairpin1'); d = s.recv(200); sys.exit(0 if d.startswith(b'pong') else 1)")
check '[ "$v" = pass ]' "hairpin: $LAN_C -> $WAN_RT:8080 reaches $LAN_S:80 ($v)"
check 'grep -qF "tcp 80 ::ffff:$LAN_RT b'"'"'hairpin1'"'"'" "$priv/srv.log"' "hairpin: the server sees the router's LAN address ($(grep hairpin1 "$priv/srv.log"))"
v=$(ok_drop W $PY "$tool" client tcp $WAN_RT 8080 fromwan2)
check '[ "$v" = pass ]' "a second WAN connection to the forward ($v)"
# A LAN connection from port 8080 out: another external port (8080 is
# forwarded, so reserved).
rm -f "$priv/peer" "$priv/peer.ready"
W $PY -c "
import socket
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(('$WAN_H', 9001)); l.listen(1); l.settimeout(20)
open('$priv/peer.ready', 'w').close()
c, a = l.accept(); open('$priv/peer', 'w').write('%d' % a[1])" &
wp=$!
wait_file "$priv/peer.ready" 20
L $PY -c "
import socket
s = socket.create_connection(('$WAN_H', 9001), timeout=5, source_address=('$LAN_C', 8080))
s.close()" >/dev/null 2>&1
wait "$wp"
peer=$(cat "$priv/peer" 2>/dev/null)
check '[ -n "$peer" ] && [ "$peer" != 8080 ]' "LAN $LAN_C:8080 -> WAN: external port ${peer:-none}, not the forwarded 8080"
# Endpoint-independent mapping (RFC 4787 REQ-1, RFC 5382 REQ-1): one LAN
# address and port to two remote ends, UDP and TCP: one external port.
rm -f "$priv/eim" "$priv/eim.ready"
W $PY -c "
import select, socket, time
ss = []
for p in (9100, 9101):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(('$WAN_H', p)); ss.append(u)
for p in (9102, 9103):
    t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    t.bind(('$WAN_H', p)); t.listen(2); ss.append(t)
open('$priv/eim.ready', 'w').close()
got, end = {}, time.time() + 20
while len(got) < 4 and time.time() < end:
    for x in select.select(ss, [], [], 1)[0]:
        if x.type == socket.SOCK_DGRAM:
            d, a = x.recvfrom(100)
        else:
            c, a = x.accept(); c.close()
        got[x.getsockname()[1]] = a[1]
open('$priv/eim', 'w').write(' '.join(str(got.get(p, 0)) for p in (9100, 9101, 9102, 9103)))
" &
wp=$!
wait_file "$priv/eim.ready" 20
L $PY -c "
import socket
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('$LAN_C', 40000))
for p in (9100, 9101):
    u.sendto(b'eim', ('$WAN_H', p))
for p in (9102, 9103):
    t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    t.bind(('$LAN_C', 40001)); t.settimeout(5); t.connect(('$WAN_H', p)); t.close()
" >/dev/null 2>&1
wait "$wp"
read -r u1 u2 t1 t2 < "$priv/eim"
check '[ "${u1:-0}" != 0 ] && [ "$u1" = "$u2" ]' "endpoint-independent mapping, UDP: $LAN_C:40000 to two WAN ports leaves from one external port (${u1:-?} ${u2:-?})"
check '[ "${t1:-0}" != 0 ] && [ "$t1" = "$t2" ]' "endpoint-independent mapping, TCP: $LAN_C:40001 to two WAN ports leaves from one external port (${t1:-?} ${t2:-?})"
stop_router main
j=$priv/main.json
v=$(json "$j" "j['firewall']['forwards'][0]['hits'], j['firewall']['forwards'][0]['hairpin'], j['firewall']['forwards'][1]['hits']")
check 'echo "$v" | awk "NF == 3 && \$1 == 3 && \$2 == 1 && \$3 >= 1 {ok=1} END {exit !ok}"' \
	"counters: tcp/8080 hits 3 (2 from the WAN, 1 hairpin), hairpin 1, the UDP range hit ($v)"
cpe_lib_done
