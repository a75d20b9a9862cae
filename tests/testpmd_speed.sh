#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
# dpdk-testpmd sets the link speed of two simulated CH398 adapters cabled
# back to back ("port config N speed 100 duplex full"):
#  1. port 0 alone forced to 100 full: port 0 shows 100 Mbps full-duplex,
#     autoneg off; port 1, still autonegotiating, finds 100 Mbps by
#     parallel detection and runs it half-duplex, as real PHYs do;
#  2. port 1 forced the same: both ends show 100 Mbps full-duplex;
#  3. frames forwarded at that speed reach both ports without errors.
set -euo pipefail

pmd_so=${1:?usage: testpmd_speed.sh librte_net_ch39x.so}
testpmd=$(command -v dpdk-testpmd)

# EAL refuses plugins below a world-writable directory (such as /tmp):
# load a private copy.
priv=$(mktemp -d "${XDG_RUNTIME_DIR:-$HOME}/ch39x-testpmd.XXXXXX")
trap 'rm -rf "$priv"' EXIT
chmod 700 "$priv"
cp "$pmd_so" "$priv/"
log=$priv/testpmd.log

. "$(dirname "$0")/testpmd_lib.sh"
# Each report is awaited in the log; the ones after a change are asked
# again until they show the change (or 30 s pass): a renegotiation takes
# its time, more of it on a busy machine. info/N: what port N said.
info=$priv/info
{
	tp_until "$log" "show port info 0" "$TP_PORT_INFO" \
		"0, 1 Gbps, full-duplex, autoneg On"; echo "$TP_OUT" > "$info.1"
	tp_until "$log" "show port info 1" "$TP_PORT_INFO" \
		"1, 1 Gbps, full-duplex, autoneg On"; echo "$TP_OUT" > "$info.2"
	echo "port stop 0"
	echo "port config 0 speed 100 duplex full"
	echo "port start 0"
	tp_until "$log" "show port info 0" "$TP_PORT_INFO" \
		"0, 100 Mbps, full-duplex, autoneg Off"; echo "$TP_OUT" > "$info.3"
	tp_until "$log" "show port info 1" "$TP_PORT_INFO" \
		"1, 100 Mbps, half-duplex, autoneg On"; echo "$TP_OUT" > "$info.4"
	echo "port stop 1"
	echo "port config 1 speed 100 duplex full"
	echo "port start 1"
	tp_until "$log" "show port info 0" "$TP_PORT_INFO" \
		"0, 100 Mbps, full-duplex, autoneg Off"; echo "$TP_OUT" > "$info.5"
	tp_until "$log" "show port info 1" "$TP_PORT_INFO" \
		"1, 100 Mbps, full-duplex, autoneg Off"; echo "$TP_OUT" > "$info.6"
	echo "start tx_first"
	# Forwarding until both ports have received more than 100 frames.
	tp_until "$log" "show port stats all" \
		'/RX-packets:/ { n++; if ($2 > 100) ok++ } END { if (n) print (ok == 2) }' \
		1 || true
	echo "stop"
	echo "show port stats all"
	echo "quit"
} | timeout 300 $TP_LINEBUF "$testpmd" --no-huge --no-pci -m 512 \
	--file-prefix "ch39x_sp_$$" \
	-d "$priv/$(basename "$pmd_so")" \
	--vdev "net_ch39x0,wire=pair:sp$$" \
	--vdev "net_ch39x1,wire=pair:sp$$" \
	-- -i --total-num-mbufs=8192 --nb-cores=1 > "$log" 2>&1 || {
	echo "dpdk-testpmd failed:"; tail -30 "$log"; exit 1; }

fail=0
. "$(dirname "$0")/check.sh"

info=()
for n in 1 2 3 4 5 6; do info+=("$(cat "$priv/info.$n" 2>/dev/null)"); done
printf '  %s\n' "${info[@]}"
check '[ "${info[0]}" = "0, 1 Gbps, full-duplex, autoneg On" ] && [ "${info[1]}" = "1, 1 Gbps, full-duplex, autoneg On" ]' \
	"both ends autonegotiate 1 Gbps at first"
check '[ "${info[2]}" = "0, 100 Mbps, full-duplex, autoneg Off" ]' \
	"port 0 forced to 100 Mbps full-duplex"
check '[ "${info[3]}" = "1, 100 Mbps, half-duplex, autoneg On" ]' \
	"port 1 detects 100 Mbps, half-duplex (parallel detection)"
check '[ "${info[4]}" = "0, 100 Mbps, full-duplex, autoneg Off" ] && [ "${info[5]}" = "1, 100 Mbps, full-duplex, autoneg Off" ]' \
	"both ends 100 Mbps full-duplex"
mapfile -t port_rx < <(sed -n '/Forward statistics for port/,/------/p' "$log" |
	awk '/RX-packets:/ {print $2}')
# The last "show port stats all" (the feeder asked it while waiting too).
mapfile -t errors < <(awk '/NIC statistics for port/ { p = $6 }
	/RX-errors:/ { rx[p] = $2 } /TX-errors:/ { tx[p] = $4 }
	END { if (0 in rx) print rx[0] "\n" tx[0]; if (1 in rx) print rx[1] "\n" tx[1] }' "$log")
check '[ "${#port_rx[@]}" -eq 2 ] && [ "${port_rx[0]}" -gt 100 ] && [ "${port_rx[1]}" -gt 100 ]' \
	"frames forwarded at 100 Mbps reach both ports (${port_rx[*]:-none})"
check '[ "${#errors[@]}" -eq 4 ] && [ "$(printf "%s\n" "${errors[@]}" | sort -u)" = 0 ]' \
	"zero RX/TX errors on both ports (${errors[*]:-none})"
if [ $fail -ne 0 ]; then
	echo "--- testpmd log ---"; tail -80 "$log"
fi
exit $fail
