#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every dpdk-testpmd recipe of README.md and doc/guides/nics/ch39x.rst, typed
# as the docs give it, with the outcome the docs claim checked. Each recipe
# names its section; keep them in step when a doc changes. The docs' "..."
# stands for "--no-huge --no-pci -m 512 -d ~/ch39x/librte_net_ch39x.so";
# here the -d copy is in a private temporary directory (EAL refuses plugins
# below a world-writable one). The recipe of "meson install" and testpmd
# without -d is tests/check_install.sh autoload.
#
# usage: recipes.sh librte_net_ch39x.so tcp_pcap.py
set -euo pipefail

pmd_so=${1:?usage: recipes.sh librte_net_ch39x.so tcp_pcap.py}
gen=${2:?usage: recipes.sh librte_net_ch39x.so tcp_pcap.py}
testpmd=$(command -v dpdk-testpmd)
priv=$(mktemp -d "${XDG_RUNTIME_DIR:-$HOME}/ch39x-recipes.XXXXXX")
chmod 700 "$priv"
trap 'rm -rf "$priv"' EXIT
cp "$pmd_so" "$priv/"
dots=(--no-huge --no-pci -m 512 -d "$priv/$(basename "$pmd_so")")
fail=0
# "Traffic both ways" means more than the 32-frame bursts tx_first sends
# from each port: forwarding went on. The counts depend on the machine's
# load, so no rate is asserted; the sleeps leave room for a loaded one.
. "$(dirname "$0")/check.sh"
. "$(dirname "$0")/testpmd_lib.sh"

# run NAME EAL-AND-TESTPMD-ARGS...: testpmd reads the commands on stdin, one
# a line; a line "sleep N" waits instead, counted from when testpmd has
# run every command before it (tp_prompts), not from when they were
# written: a busy machine makes testpmd's start-up and "port start" slow.
# The log is $priv/NAME.log.
run() {
	local name=$1 line sent=0
	shift
	{
		while IFS= read -r line; do
			case "$line" in
			sleep*)
				tp_prompts "$priv/$name.log" $((sent + 1)) 120 ||
					echo "$name: testpmd still busy after 120 s" >&2
				$line ;;
			*) echo "$line"; sent=$((sent + 1)) ;;
			esac
		done
		echo quit
	} | (cd "$priv" && timeout 240 "$testpmd" "${dots[@]}" \
		--file-prefix "ch39x_rc_$$" "$@") > "$priv/$name.log" 2>&1 || {
		echo "FAIL: $name: testpmd failed"; tail -20 "$priv/$name.log"
		fail=1; }
}
# Per-port RX-packets (or TX-packets, TX-dropped) of "stop"'s statistics.
fwd() {
	sed -n '/Forward statistics for port/,/------/p' "$priv/$1.log" |
		awk -v k="$2" '$1 == k":" {print $2} k == "TX-dropped" && $1 == "TX-packets:" {print $4}' |
		tr '\n' ' '
}
xstat() { awk -v k="$2:" '$1 == k {v = $2} END {print v + 0}' "$priv/$1.log"; }
pcap_frames() {
	python3 - "$@" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
off, n, tagged = 24, 0, 0
while off + 16 <= len(b):
    cap = struct.unpack_from("<I", b, off + 8)[0]
    f = b[off + 16:off + 16 + cap]
    n += 1
    tagged += f[12:14] == b"\x81\x00"
    off += 16 + cap
print(n, tagged)
PY
}

# README "Building and loading the PMD" and the guide's "Usage with
# testpmd": a CH398 pair forwarding, the USB counters, link down and up.
run pair --vdev net_ch39x0,wire=pair:a --vdev net_ch39x1,wire=pair:a \
	-- -i --total-num-mbufs=8192 <<'EOF'
start tx_first
sleep 3
stop
show port xstats 0
set link-down port 1
sleep 4
show port info 0
set link-up port 1
sleep 4
show port info 0
EOF
read -r rx0 rx1 <<<"$(fwd pair RX-packets)"
check '[ "${rx0:-0}" -gt 64 ] && [ "${rx1:-0}" -gt 64 ]' \
	"pair: both ports receive (RX-packets $rx0 $rx1)"
check '[ "$(xstat pair rx_usb_xfers)" -gt 0 ] && grep -q "rx_frames_per_xfer_x1000: [0-9]" "$priv/pair.log"' \
	"pair: show port xstats 0 has rx_usb_xfers and rx_frames_per_xfer_x1000"
check '[ "$(grep -o "Link status: [a-z]*" "$priv/pair.log" | tr "\n" " ")" = "Link status: down Link status: up " ]' \
	"pair: set link-down port 1 takes port 0's link down, link-up brings it back"

# The guide's "Usage with testpmd": replaying a capture, sent back out.
python3 "$gen" gen "$priv/in.pcap" --ip 4 --frames 8 --frame-len 1000
run replay --vdev net_ch39x0,wire=pcap:in.pcap:out.pcap \
	-- -i --total-num-mbufs=8192 --port-topology=loop --no-flush-rx <<'EOF'
start
sleep 3
stop
EOF
check 'python3 "$gen" same "$priv/in.pcap" "$priv/out.pcap" >/dev/null' \
	"replay: out.pcap holds the frames of in.pcap"

# The guide's "Jumbo frames": a replayed frame longer than the port takes
# is dropped with a log line and counted in sim_rx_oversize.
python3 "$gen" gen "$priv/jumbo.pcap" --ip 4 --frames 8 --frame-len 9014
run oversize --vdev net_ch39x0,wire=pcap:jumbo.pcap:out2.pcap \
	-- -i --total-num-mbufs=8192 --port-topology=loop --no-flush-rx <<'EOF'
start
sleep 3
stop
show port xstats 0
EOF
check '[ "$(xstat oversize sim_rx_oversize)" -eq 8 ] && [ "$(grep -c "dropped a 9014-byte frame from the pcap file" "$priv/oversize.log")" -eq 1 ]' \
	"oversize: 8 frames in sim_rx_oversize, one (rate-limited) log line"

# The guide's "Usage with testpmd": a CH397 pair, 100 Mbit/s.
run ch397 --vdev net_ch39x0,sim=ch397,wire=pair:b \
	--vdev net_ch39x1,sim=ch397,wire=pair:b -- -i --total-num-mbufs=8192 <<'EOF'
start tx_first
sleep 3
stop
show port info 0
EOF
read -r rx0 rx1 <<<"$(fwd ch397 RX-packets)"
check '[ "${rx0:-0}" -gt 64 ] && [ "${rx1:-0}" -gt 64 ] && grep -q "Link speed: 100 Mbps" "$priv/ch397.log"' \
	"ch397: both ports receive ($rx0 $rx1) at 100 Mbit/s"

# The guide's "Jumbo frames": 9000-byte frames both ways, as chains.
run jumbo --vdev net_ch39x0,wire=pair:j --vdev net_ch39x1,wire=pair:j \
	-- -i --total-num-mbufs=8192 --enable-scatter --mbuf-size=2048 \
	--max-pkt-len=9216 <<'EOF'
set txpkts 2000,2000,2000,2000,1000
start tx_first
sleep 5
stop
show port xstats 0
EOF
read -r rx0 rx1 <<<"$(fwd jumbo RX-packets)"
read -r tx0 tx1 <<<"$(fwd jumbo TX-packets)"
read -r td0 td1 <<<"$(fwd jumbo TX-dropped)"
check '[ "${rx0:-0}" -gt 32 ] && [ "${rx1:-0}" -gt 32 ]' \
	"jumbo: both ports receive (RX-packets $rx0 $rx1)"
check '[ "$(xstat jumbo rx_good_bytes)" -eq $(( $(xstat jumbo rx_good_packets) * 9000 )) ] && [ "$(xstat jumbo rx_chained_frames)" -eq "$(xstat jumbo rx_good_packets)" ]' \
	"jumbo: every frame port 0 receives is 9000 bytes, an mbuf chain"
check '[ "${td0:-99}" -le 32 ] && [ "${td1:-99}" -le 32 ]' \
	"jumbo: TX-dropped ($td0 $td1, of TX-packets $tx0 $tx1) at most the first burst"

# The guide's "Offloads": checksums and TSO with the csum engine, fed with
# 9000-byte TCP frames from the repository's generator.
run offload --vdev net_ch39x0,wire=pcap:jumbo.pcap:tso.pcap \
	-- -i --total-num-mbufs=8192 --enable-scatter --mbuf-size=2048 \
	--max-pkt-len=9216 --port-topology=loop --no-flush-rx <<'EOF'
port stop 0
csum set ip hw 0
csum set tcp hw 0
csum set udp hw 0
tso set 1448 0
port config 0 rx_offload vlan_strip on
port config 0 rx_offload ipv4_cksum on
port start 0
set fwd csum
start
sleep 3
stop
show port xstats 0
EOF
check '[ "$(xstat offload tx_tso_hw_frames)" -eq 8 ] && python3 "$gen" check "$priv/jumbo.pcap" "$priv/tso.pcap" --max-frame 1514 --mss 1448 >/dev/null' \
	"offload: 8 super-frames cut by the chip into 1448-byte segments that reassemble to the input"

# The guide's "Offloads": VLAN insertion with the mac engine.
run vlan --vdev net_ch39x0,wire=pcap:in.pcap:vlan.pcap \
	-- -i --total-num-mbufs=8192 --port-topology=loop --no-flush-rx <<'EOF'
port stop 0
tx_vlan set 0 5
port start 0
set fwd mac
start
sleep 3
stop
EOF
check '[ "$(pcap_frames "$priv/vlan.pcap")" = "8 8" ]' \
	"vlan: all 8 frames leave tagged"

# The guide's "CDC-NCM and CDC-ECM": an NCM pair.
run ncm --vdev net_ch39x0,sim=ncm,wire=pair:n \
	--vdev net_ch39x1,sim=ncm,wire=pair:n -- -i --total-num-mbufs=8192 <<'EOF'
start tx_first
sleep 3
stop
EOF
read -r rx0 rx1 <<<"$(fwd ncm RX-packets)"
check '[ "${rx0:-0}" -gt 64 ] && [ "${rx1:-0}" -gt 64 ]' \
	"ncm: both ports receive (RX-packets $rx0 $rx1)"

# The guide's "RNDIS": an RNDIS pair, several messages a transfer, the
# device's packet and byte limits in the firmware version.
run rndis --vdev net_ch39x0,sim=rndis,wire=pair:r \
	--vdev net_ch39x1,sim=rndis,wire=pair:r -- -i --total-num-mbufs=8192 <<'EOF'
start tx_first
sleep 3
stop
show port xstats 0
show port info 0
EOF
read -r rx0 rx1 <<<"$(fwd rndis RX-packets)"
check '[ "${rx0:-0}" -gt 64 ] && [ "${rx1:-0}" -gt 64 ]' \
	"rndis: both ports receive (RX-packets $rx0 $rx1)"
tx=$(xstat rndis tx_rndis_packets) txx=$(xstat rndis tx_rndis_xfers)
check '[ "$txx" -gt 0 ] && [ "$tx" -gt "$txx" ] &&
	[ "$(xstat rndis rx_rndis_bad_lengths)" = 0 ]' \
	"rndis: several messages a transfer ($tx in $txx), no bad message"
check 'grep -q "Firmware-version: RNDIS 1.0 16 pkts/16384 B" "$priv/rndis.log"' \
	"rndis: show port info names the device's limits"

exit $fail
