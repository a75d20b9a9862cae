#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# 9 KB jumbo frames with dpdk-testpmd: scattered RX into 2 KiB mbufs and
# multi-segment TX.
# 1. io forwarding both ways between two pcap-wired ports: every 9000-byte
#    frame of each input capture leaves the other port byte for byte, and
#    each port counts every frame as an mbuf chain.
# 2. txonly with "set txpkts" (5-segment 9000-byte frames): the output
#    capture holds 9000-byte frames whose IPv4 header checksum is good.
set -euo pipefail

pmd_so=${1:?usage: testpmd_jumbo.sh librte_net_ch39x.so}
here=$(cd "$(dirname "$0")" && pwd)
priv=$(mktemp -d "${XDG_RUNTIME_DIR:-$HOME}/ch39x-jumbo.XXXXXX")
trap 'rm -rf "$priv"' EXIT
chmod 700 "$priv"
cp "$pmd_so" "$priv/"
so=$priv/$(basename "$pmd_so")
fail=0
eal=(--no-huge --no-pci -m 512 --file-prefix "ch39x_jumbo_$$" -d "$so")
tpargs=(-i --total-num-mbufs=8192 --enable-scatter --mbuf-size=2048
	--max-pkt-len=9216 --nb-cores=1 --no-flush-rx)

python3 "$here/tcp_pcap.py" gen "$priv/a.pcap" --ip 4 --frames 20 --frame-len 9014
python3 "$here/tcp_pcap.py" gen "$priv/b.pcap" --ip 6 --frames 20 --frame-len 9000
. "$here/testpmd_lib.sh"
{
	echo "set fwd io"
	echo "start"
	# Until both ports have taken their 20 frames (30 s at most).
	tp_until "$priv/io.log" "show port xstats all" '/rx_chained_frames:/ {
		n++; t += ($2 == 20) } END { if (n == 2) print t }' 2 || true
	echo "stop"
	echo "show port xstats all"
	echo "quit"
} | timeout 120 $TP_LINEBUF dpdk-testpmd "${eal[@]}" \
	--vdev "net_ch39x0,wire=pcap:$priv/a.pcap:$priv/b-out.pcap" \
	--vdev "net_ch39x1,wire=pcap:$priv/b.pcap:$priv/a-out.pcap" \
	-- "${tpargs[@]}" > "$priv/io.log" 2>&1 || { tail -30 "$priv/io.log"; exit 1; }

for d in a b; do
	if python3 "$here/tcp_pcap.py" same "$priv/$d.pcap" "$priv/$d-out.pcap"; then
		echo "ok: $d.pcap forwarded byte for byte"
	else
		echo "FAIL: $d.pcap changed on the way"; fail=1
	fi
done
# The last report of both ports (the feeder asked while waiting too).
chains=$(awk '/rx_chained_frames:/ {print $2}' "$priv/io.log" | tail -n 2 |
	paste -sd' ')
if [ "$chains" = "20 20" ]; then
	echo "ok: every frame arrived as an mbuf chain on both ports ($chains)"
else
	echo "FAIL: rx_chained_frames $chains, want 20 20"; fail=1
fi

{
	echo "set fwd txonly"
	echo "set txpkts 2000,2000,2000,2000,1000"
	echo "set burst 8"
	echo "start"
	tp_until "$priv/tx.log" "show port xstats 0" \
		'/tx_good_packets:/ { print ($2 >= 64); exit }' 1 || true
	echo "stop"
	echo "show port xstats 0"
	echo "quit"
} | timeout 120 $TP_LINEBUF dpdk-testpmd "${eal[@]}" \
	--vdev "net_ch39x0,wire=pcap::$priv/tx.pcap" \
	--vdev "net_ch39x1,wire=loop" \
	-- "${tpargs[@]}" > "$priv/tx.log" 2>&1 || { tail -30 "$priv/tx.log"; exit 1; }
sent=$(awk '/tx_good_packets:/ { v = $2 } END { print v }' "$priv/tx.log")
frames=$(tshark -r "$priv/tx.pcap" 2>/dev/null | wc -l)
n9000=$(tshark -r "$priv/tx.pcap" -Y "frame.len == 9000" 2>/dev/null | wc -l)
badip=$(tshark -r "$priv/tx.pcap" -o ip.check_checksum:TRUE \
	-Y "ip.checksum.status != 1" 2>/dev/null | wc -l)
if [ "${sent:-0}" -gt 0 ] && [ "$frames" -eq "$sent" ] &&
   [ "$n9000" -eq "$frames" ] && [ "$badip" -eq 0 ]; then
	echo "ok: txonly sent $sent five-segment frames, all 9000 bytes on the wire"
else
	echo "FAIL: txonly sent ${sent:-0}, pcap has $frames frames, $n9000 of 9000 bytes, $badip bad IP checksums"
	fail=1
fi
exit $fail
