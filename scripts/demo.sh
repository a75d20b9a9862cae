#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The main job on the embedded default: dpdk-testpmd forwards traffic
# between two simulated CH398 adapters cabled back to back, then shows the
# port statistics and the USB efficiency xstats.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${BUILDDIR:-$top/build}
secs=${1:-5}

bash "$top/scripts/build.sh"
so=$builddir/drivers/net/ch39x/librte_net_ch39x.so
# EAL refuses plugins below a world-writable directory: use a private copy.
priv=$(mktemp -d "${XDG_RUNTIME_DIR:-$HOME}/ch39x-demo.XXXXXX")
trap 'rm -rf "$priv"' EXIT
chmod 700 "$priv"
cp "$so" "$priv/"

echo "demo: dpdk-testpmd, two simulated CH398 (USB 3.0, 1 Gbit/s) on one cable, ${secs} s of io forwarding"
{
	sleep 1
	echo "show port info 0"
	echo "start tx_first"
	sleep "$secs"
	echo "stop"
	echo "show port stats all"
	echo "show port xstats 0"
	echo "quit"
} | timeout $((secs + 60)) dpdk-testpmd --no-huge --no-pci -m 512 \
	--file-prefix "ch39x_demo_$$" -d "$priv/librte_net_ch39x.so" \
	--vdev net_ch39x0,sim=ch398,wire=pair:demo \
	--vdev net_ch39x1,sim=ch398,wire=pair:demo \
	-- -i --total-num-mbufs=8192 --nb-cores=1 > "$priv/log" 2>&1 || true

sed -n '/Infos for port 0/,/Maximum MTU/p' "$priv/log" |
	grep -E 'MAC address|Device name|Driver name|Firmware|Link status|Link speed|MTU'
sed -n '/Accumulated forward statistics/,/+++/p' "$priv/log"
sed -n '/NIC statistics for port/,/#####*$/p' "$priv/log" | grep -E 'NIC stat|packets|errors'
echo "USB efficiency xstats of port 0:"
grep -E '^(rx|tx)_(usb_xfers|usb_bytes|frames_per_xfer_x1000|usb_efficiency_permille|framing_bytes)|dev_(rx|tx)_packets|link_events' "$priv/log" |
	sed 's/^/  /'
grep -q 'RX-packets: [1-9]' "$priv/log" || { echo "demo: no traffic"; tail -40 "$priv/log"; exit 1; }
