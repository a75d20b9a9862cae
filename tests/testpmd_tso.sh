#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# TSO and checksum offload through pcap wires, with dpdk-testpmd's csum
# engine as the application: 9000-byte TCP frames are received on port 0
# (scattered into 2 KiB mbufs) and sent out of port 1 with "tso set MSS 1".
# The output capture must hold correct segments (tcp_pcap.py check), tshark
# must find every IP and TCP checksum good, and the hardware path (the
# simulated CH398 segments) and the software path (tso=sw) must put the
# same bytes on the wire.
set -euo pipefail

pmd_so=${1:?usage: testpmd_tso.sh librte_net_ch39x.so}
here=$(cd "$(dirname "$0")" && pwd)
priv=$(mktemp -d "${XDG_RUNTIME_DIR:-$HOME}/ch39x-tso.XXXXXX")
trap 'rm -rf "$priv"' EXIT
chmod 700 "$priv"
cp "$pmd_so" "$priv/"
so=$priv/$(basename "$pmd_so")
fail=0
. "$here/testpmd_lib.sh"

# run IP MSS TSO-MODE OUT-PCAP EXPECTED-PATH [INPUT-MTU]
# Port 0 receives frames of INPUT-MTU (default 9000); port 1 sends at MTU
# 9000.
run() {
	local ip=$1 mss=$2 mode=$3 out=$4 in_mtu=${6:-9000}
	local in=$priv/in$1-$in_mtu.pcap log=$priv/log
	[ -f "$in" ] || python3 "$here/tcp_pcap.py" gen "$in" --ip "$ip" \
		--frames 8 --frame-len $((in_mtu + 14))
	rm -f "$out"
	{
		echo "port stop all"
		echo "csum set ip hw 1"
		echo "csum set tcp hw 1"
		echo "tso set $mss 1"
		echo "port config mtu 0 $in_mtu"
		echo "port start all"
		echo "set fwd csum"
		echo "start"
		# Until the 8 super-frames have been sent (30 s at most).
		tp_until "$log" "show port xstats 1" '/tx_tso_(hw|sw)_frames:/ {
			n++; t += $2 } END { if (n == 2) print (t >= 8) }' 1 || true
		echo "stop"
		echo "show port xstats 1"
		echo "quit"
	} | timeout 120 $TP_LINEBUF dpdk-testpmd --no-huge --no-pci -m 512 \
		--file-prefix "ch39x_tso_$$" -d "$so" \
		--vdev "net_ch39x0,wire=pcap:$in:" \
		--vdev "net_ch39x1,wire=pcap::$out,tso=$mode" \
		-- -i --total-num-mbufs=8192 --enable-scatter --mbuf-size=2048 \
		--max-pkt-len=9018 --nb-cores=1 --no-flush-rx > "$log" 2>&1 || {
		echo "FAIL: testpmd ipv$ip mss $mss tso=$mode"; tail -20 "$log"
		fail=1; return; }
	# Segments must fit the MTU the MSS was chosen for: 1500 or 9000.
	local max=$(( mss < 2000 ? 1514 : 9014 ))
	if python3 "$here/tcp_pcap.py" check "$in" "$out" --max-frame "$max" \
		--mss "$mss"; then
		echo "ok: ipv$ip mss $mss tso=$mode: segments reassemble to the input"
	else
		echo "FAIL: ipv$ip mss $mss tso=$mode"; fail=1
	fi
	local bad total
	total=$(tshark -r "$out" 2>/dev/null | wc -l)
	bad=$(tshark -r "$out" -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE \
		-Y "ip.checksum.status != 1 || tcp.checksum.status != 1" 2>/dev/null | wc -l)
	if [ "$total" -ge 16 ] && [ "$bad" -eq 0 ]; then
		echo "ok: tshark: $total frames, every checksum good"
	else
		echo "FAIL: tshark: $total frames, $bad with a bad checksum"; fail=1
	fi
	# Which path did the work: the chip's (hardware) or the PMD's.
	local hw sw
	# The last report (the feeder asked while waiting too).
	hw=$(awk '/tx_tso_hw_frames:/ { v = $2 } END { print v }' "$log")
	sw=$(awk '/tx_tso_sw_frames:/ { v = $2 } END { print v }' "$log")
	if [ "$5" = hw ] && [ "${hw:-0}" -eq 8 ] && [ "${sw:-0}" -eq 0 ]; then
		echo "ok: hardware TSO took all 8 super-frames"
	elif [ "$5" = sw ] && [ "${sw:-0}" -eq 8 ] && [ "${hw:-0}" -eq 0 ]; then
		echo "ok: software TSO took all 8 super-frames"
	else
		echo "FAIL: expected $5 TSO, counters hw=$hw sw=$sw"; fail=1
	fi
}

# The MSS that fills an MTU of 1500 or 9000 with TCP over IPv4 or IPv6.
for ip in 4 6; do
	small=$(( ip == 4 ? 1448 : 1440 ))
	big=$(( ip == 4 ? 8960 : 8940 ))
	run $ip $small auto "$priv/hw$ip.pcap" hw
	run $ip $small sw "$priv/sw$ip.pcap" sw
	if python3 "$here/tcp_pcap.py" same "$priv/hw$ip.pcap" "$priv/sw$ip.pcap"; then
		echo "ok: ipv$ip hardware and software TSO put identical bytes on the wire"
	else
		echo "FAIL: ipv$ip hardware and software TSO differ"; fail=1
	fi
	# A jumbo MSS is beyond the chip's 2047-byte limit: software TSO.
	run $ip $big auto "$priv/jumbo$ip.pcap" sw 9198
done
exit $fail
