# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# ch39x-cpe through its WAN adapter's absence on a real USB stack (issue
# 25), run by pmd.sh as the PMD test "cpereplug": cpe.sh's two gadgets
# are the router's ports (net_ch39x, reconnect=on by default, the WAN
# chosen by path), each a composite device as a modem is (issue 42): a
# serial (ACM) port beside the network function, ECM on the LAN, NCM on
# the WAN (CR_LAN_FUNCS, CR_WAN_FUNCS). The LAN host runs an iperf3 TCP
# upload to the WAN host and pings it every 0.1 s, and in the middle of
# the transfer the WAN gadget's UDC is unbound for 2 s and bound again.
# Checked:
#
#   - the same router process forwards before and after (no restart);
#   - the PMD logged the removal and the return, the router counted one
#     down and one up event of its ports (the exit JSON's "hotplug");
#   - the TCP transfer completes, and the server received data in the
#     seconds after the return (iperf3's intervals);
#   - the first ping reply after the bind, and the pings lost;
#   - ch39x-cpe exits 0 on SIGTERM and the kernel's drivers get both
#     gadgets' network functions back;
#   - the serial ports stay with cdc_acm while the router holds the
#     network functions: 32 KiB each way over each (composite.sh's
#     acm_start), the WAN's before it is pulled, the LAN's through the
#     WAN's replug, complete and intact.
#
# Sourced by pmd.sh after cpe.sh (cpe_gadgets, app_up, app_stop,
# app_exit_result, ping_through, nsx, $PL, $PW, $GW, ...) and composite.sh
# (acm_start, acm_check, host_tty, if_drivers).

# iperf3 -t: room after the return for TCP's retransmission back-off
# (about 3.5 s of outage: its next try comes seconds after the port is
# back) and for f_ncm's held NTB below, on a guest that a busy host slows
# (16 s once left no data after the return: the reply came 15 s after the
# bind, the one fill itself slow to start).
CR_SECS=30
CR_PULL=5	# the WAN leaves this many seconds into the transfer
CR_AWAY=2	# and is away this long
CR_LAN_FUNCS="acm.cl ecm.0"
CR_WAN_FUNCS="acm.cw ncm.0"

cpe_replug_run() {
	REP=replug
	if [ ! -x "/host$CPE_BIN" ] || [ ! -x /host/usr/bin/iperf3 ]; then
		result FAIL cpereplug-setup "need $CPE_BIN (ninja -C build) and /usr/bin/iperf3 on the host (scripts/setup.sh --tests)"
		return
	fi
	# cpe_gadgets' nftables sink
	for m in $(cat /modules/cpe.list 2>/dev/null); do
		insmod "/modules/$m.ko" 2>/dev/null
	done
	if ! cpe_gadgets "$CR_LAN_FUNCS" "$CR_WAN_FUNCS"; then
		result FAIL cpereplug-gadgets "LAN $CR_LAN_FUNCS at '$PL', WAN $CR_WAN_FUNCS at '$PW', with the kernel's drivers"
		return
	fi
	LT=$(host_tty "$PL" 0)
	WT=$(host_tty "$PW" 0)
	# shellcheck disable=SC2086
	LG=$(gtty cpel $CR_LAN_FUNCS)
	# shellcheck disable=SC2086
	WG=$(gtty cpew $CR_WAN_FUNCS)
	if ! app_up poll || ! ping_through; then
		result FAIL cpereplug-start "${CPE_ERR:-no ping from the LAN host to the WAN host through ch39x-cpe}"
		[ -n "$RTR_PID" ] && app_stop poll
		return
	fi
	pid0=$RTR_PID
	err=/out/cpe-app-$tag.err
	ACM_BYTES=32768
	acm_start l "$LT" "$LG"
	acm_start w "$WT" "$WG"
	srv=/out/cpereplug-srv.json
	nsx $WAN_NS timeout $((CR_SECS + 60)) iperf3 -s -1 -J > $srv 2>&1 &
	sp=$!
	iperf_listening $WAN_NS
	nsx $LAN_NS timeout $((CR_SECS + 50)) iperf3 -c $WAN_IP -t $CR_SECS \
		-J > /out/cpereplug-cli.json 2>&1 &
	cp=$!
	nsx $LAN_NS /usr/bin/ping -n -q -i 0.1 -w $((CR_SECS + 5)) $WAN_IP \
		> /tmp/cpereplug-ping.log 2>&1 &
	pp=$!
	sleep $CR_PULL
	# The WAN's serial port before its gadget goes away.
	during="$(if_drivers "$PL")$(if_drivers "$PW")"
	if acm_check w && [ "$during" = "1.0=cdc_acm 1.1=cdc_acm 1.2=usbfs 1.3=usbfs 1.0=cdc_acm 1.1=cdc_acm 1.2=usbfs 1.3=usbfs " ]; then
		result PASS cpereplug-acm-wan "WAN $WT <-> $WG through cdc_acm while ch39x-cpe forwarded on the NCM function: $ACM_MSG, intact; interfaces $during"
	else
		result FAIL cpereplug-acm-wan "WAN $WT <-> $WG: $ACM_MSG; interfaces while ch39x-cpe ran: $during"
	fi
	echo "" > "$G/cpew/UDC"
	sleep $CR_AWAY
	echo dummy_udc.5 > "$G/cpew/UDC"
	tb=$(up)
	t1=""
	held=""
	fills=0
	fill_pids=""
	i=0
	while [ $i -lt 150 ] && [ -z "$t1" ]; do
		nsx $LAN_NS /usr/bin/ping -n -q -c 1 -W 0.2 $WAN_IP \
			> /dev/null 2>&1 && t1=$(up)
		# No reply 3 s after the bind: the WAN host's frames (its ARP
		# for the router) may sit in a half-filled NTB of the gadget's
		# f_ncm, whose flush timer fired while it was unbound (Linux
		# 6.1; the NIC guide's replug section): 40 frames of a local
		# EtherType on its netdev fill it; noted in the result.
		# Again every 3 s without a reply: on a composite gadget the
		# host's drivers take longer to enumerate, and frames written
		# before the PMD has the function again are dropped by f_ncm.
		if [ -z "$t1" ] &&
		   awk -v a="$tb" -v b="$(up)" -v n="${fills:-0}" \
		   'BEGIN { exit !(b - a > 3 * (n + 1)) }'; then
			[ -z "$held" ] && held=$(awk -v a="$tb" -v b="$(up)" 'BEGIN { printf "%d", (b - a) * 1000 }')
			fills=$((${fills:-0} + 1))
			# In the background: the pings go on meanwhile (a
			# python start-up in a loaded guest takes seconds).
			rp_fill "$GW" 40 $WAN_NS > /dev/null &
			fill_pids="$fill_pids $!"
		fi
		i=$((i + 1))
	done
	hnote=""
	[ -n "$held" ] && hnote=" (none in the first ${held} ms: 40 frames written to the WAN host's $GW then, for f_ncm's held NTB, $fills time(s), 3 s apart)"
	# shellcheck disable=SC2086
	[ -z "$fill_pids" ] || wait $fill_pids
	wait $cp
	crc=$?
	wait $sp
	wait $pp
	pid1=$(pidof ch39x-cpe | cut -d' ' -f1)
	back=$(grep -c "device back after" "$err")
	gone=$(grep -c "device removed; the port waits" "$err")
	app_stop poll
	# After the return: bytes the server got in intervals that began
	# CR_AWAY + 2 s after the pull or later.
	after=$(chroot /host python3 -c '
import json, sys
d = json.load(sys.stdin)
t = float(sys.argv[1])
print(int(sum(i["sum"]["bytes"] for i in d.get("intervals", [])
	if i["sum"]["start"] >= t)))
print(int(d.get("end", {}).get("sum_received", {}).get("bytes", 0)))' \
		$((CR_PULL + CR_AWAY + 3)) < "$srv" 2>/dev/null | tr '\n' ' ')
	pings=$(sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\2 of \1/p' /tmp/cpereplug-ping.log)
	ms=""
	[ -n "$t1" ] && ms=$(awk -v a="$tb" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
	# the exit JSON's "hotplug": {"down": N, "up": N, ...}
	stats=$(tr -d ' \n' < "/out/cpe-app-$tag.json" |
		sed -n 's/.*"hotplug":{"down":\([0-9]*\),"up":\([0-9]*\).*/\1 \2/p')
	a=${after% *}
	a=${a%% *}
	tot=${after#* }
	if [ "$pid0" = "$pid1" ] && [ "$back" = 1 ] && [ "$gone" = 1 ] &&
	   [ "$crc" = 0 ] && [ "${a:-0}" -gt 0 ] && [ -n "$ms" ] &&
	   [ "$stats" = "1 1" ]; then
		result PASS cpereplug-wan "WAN gadget away ${CR_AWAY} s in the middle of iperf3 -t $CR_SECS: the same ch39x-cpe (pid $pid0) forwarded on; first ping reply ${ms} ms after the bind$hnote; the server received ${a} bytes after the return (${tot% } in all); pings every 0.1 s: $pings answered; WAN down/up events: ${stats:-?}"
	else
		result FAIL cpereplug-wan "router pid $pid0 -> ${pid1:-none}; removal/return lines $gone/$back (1/1 expected); iperf3 client exit $crc; server bytes after the return '${a:-}' (all: ${tot:-}); first reply ${ms:-none} ms after the bind$hnote; pings $pings; WAN down/up ${stats:-?}"
	fi
	app_exit_result cpereplug-exit ""
	if acm_check l; then
		result PASS cpereplug-acm-lan "LAN $LT <-> $LG through cdc_acm while ch39x-cpe forwarded on the ECM function, across the WAN's replug: $ACM_MSG, intact"
	else
		result FAIL cpereplug-acm-lan "LAN $LT <-> $LG: $ACM_MSG"
	fi
	ACM_BYTES=65536
	kill $LPID $WPID 2>/dev/null
	$IPB netns del $LAN_NS 2>/dev/null
	$IPB netns del $WAN_NS 2>/dev/null
}
