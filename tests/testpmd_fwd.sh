#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dpdk-testpmd as the client: two simulated CH398 adapters cabled back to
# back, "start tx_first", io forwarding for a bounded time, then the port
# and forwarding statistics are checked: packets both ways, zero errors.
# A third argument adds devargs to both ports (e.g. sim=ncm: the adapters
# speak CDC-NCM).
set -euo pipefail

pmd_so=${1:?usage: testpmd_fwd.sh librte_net_ch39x.so [seconds] [devargs]}
secs=${2:-3}
extra=${3:+,$3}
testpmd=$(command -v dpdk-testpmd)

# EAL refuses plugins below a world-writable directory (such as /tmp):
# load a private copy.
priv=$(mktemp -d "${XDG_RUNTIME_DIR:-$HOME}/ch39x-testpmd.XXXXXX")
trap 'rm -rf "$priv"' EXIT
chmod 700 "$priv"
cp "$pmd_so" "$priv/"
log=$priv/testpmd.log

# The forwarding time counts from testpmd's answer to "start", not from
# when the command was written: on a busy machine testpmd's start-up can
# take longer than any fixed sleep, and a "stop" written before it reads
# "start" ended a run after a few milliseconds (99 frames forwarded).
. "$(dirname "$0")/testpmd_lib.sh"
{
	tp_ask "$log" "start tx_first" '/packet forwarding - ports=/ {
		print 1; exit }' 120 || echo "testpmd did not start forwarding" >&2
	sleep "$secs"
	echo "stop"
	echo "show port stats all"
	echo "show port xstats 0"
	echo "show port info all"
	echo "quit"
} | timeout $((secs + 180)) $TP_LINEBUF "$testpmd" --no-huge --no-pci -m 512 \
	--file-prefix "ch39x_tp_$$" \
	-d "$priv/$(basename "$pmd_so")" \
	--vdev "net_ch39x0,wire=pair:tp$$$extra" \
	--vdev "net_ch39x1,wire=pair:tp$$$extra" \
	-- -i --total-num-mbufs=8192 --nb-cores=1 > "$log" 2>&1 || {
	echo "dpdk-testpmd failed:"; tail -30 "$log"; exit 1; }

fail=0
. "$(dirname "$0")/check.sh"

# "stop" prints per-port forward statistics, then the accumulated ones.
acc=$(sed -n '/Accumulated forward statistics/,/+++/p' "$log")
rx_total=$(echo "$acc" | awk '/RX-packets:/ {print $2}')
tx_total=$(echo "$acc" | awk '/TX-packets:/ {print $2}')
rx_drop=$(echo "$acc" | awk '/RX-packets:/ {print $4}')
tx_drop=$(echo "$acc" | awk '/TX-packets:/ {print $4}')
mapfile -t port_rx < <(sed -n '/Forward statistics for port/,/------/p' "$log" |
	awk '/RX-packets:/ {print $2}')
mapfile -t errors < <(sed -n '/NIC statistics for port/,/#####*$/p' "$log" |
	awk '/RX-errors:/ {print $2} /TX-errors:/ {print $4}')

echo "forwarded: rx $rx_total tx $tx_total (drops rx $rx_drop tx $tx_drop)"
check '[ "${#port_rx[@]}" -eq 2 ] && [ "${port_rx[0]}" -gt 1000 ] && [ "${port_rx[1]}" -gt 1000 ]' \
	"packets received on both ports (${port_rx[*]:-none})"
check '[ "${rx_total:-0}" -gt 0 ] && [ "$rx_drop" -eq 0 ] && [ "$tx_drop" -eq 0 ]' \
	"no forwarding drops"
check '[ "${#errors[@]}" -eq 4 ] && [ "$(printf "%s\n" "${errors[@]}" | sort -u)" = 0 ]' \
	"zero RX/TX errors on both ports (${errors[*]:-none})"
check 'grep -Eq "rx_frames_per_xfer_x1000: [1-9][0-9]{3,}" "$log"' \
	"bulk IN transfers carry more than one frame"
check 'grep -Eq "tx_usb_xfers: [1-9]" "$log"' "bulk OUT transfers counted"
check '[ "$(grep -c "Link status: up" "$log")" -eq 2 ] && [ "$(grep -c "Link speed: 1 Gbps" "$log")" -eq 2 ]' \
	"both links up at 1 Gbit/s"
if [ $fail -ne 0 ]; then
	echo "--- testpmd log ---"; tail -60 "$log"
fi
exit $fail
