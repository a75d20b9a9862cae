# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# RNDIS in the guest, sourced by pmd.sh (busybox sh).
#
# rndismodel: the model's truth. The simulated adapter's RNDIS function
# (lib/ch39x_sim/ch39x_sim_rndis.c), served over FunctionFS by
# tests/vm/ch39x_gadget.c --function rndis as Android's class triple
# (E0/01/03: FunctionFS takes no CDC functional descriptor, and Linux
# hard-wires interfaces 0 and 1 for an RNDIS function without a Union), is
# taken by Linux's own rndis_host. Through the kernel's netdev: pings of
# every payload size 0..1472 (tests/vm/ping_sweep.py: each reply checked
# byte for byte; the sizes around 512-byte multiples of message length are
# where a transfer needs its pad byte), iperf3 both ways, then the
# counters of both ends: the host's netdev without errors, the model with
# no command it could not parse, no bad data message, every response
# taken; the netdev's address is the model's permanent address.
# The model's cable is a TAP interface moved into a network namespace, so
# that the traffic crosses USB between two stacks of one kernel.
#
# Uses pmd.sh's ffs_gadget, gstat, and guest.sh's result(), $SPEED, $G.
# §N: section N of doc/guides/nics/ch39x_protocol.rst

RN_NS=rnfar
RN_TAP=tapRn
RN_MAC=02:1a:86:00:39:5e
RN_NET=169.254.86

rn_nsx() {	# command in the far namespace (from the host root)
	chroot /host /usr/sbin/ip netns exec $RN_NS "$@"
}

# The netdev rndis_host made on interface 0 of the device at $1, or "".
rn_netdev() {
	for n in /sys/bus/usb/devices/"$1":*.0/net/*; do
		[ -e "$n" ] || continue
		d=$(readlink "${n%/net/*}/driver")
		[ "${d##*/}" = rndis_host ] && basename "$n"
	done
}

rndis_model_run() {
	gmax=high-speed
	[ "$SPEED" = super ] && gmax=super-speed
	grep -q '^rndis_host ' /proc/modules ||
		for m in usbnet cdc_ether rndis_host; do
			grep -q "^$m " /proc/modules ||
				insmod "/modules/$m.ko" 2>/dev/null
		done
	if ! FFS_ARGS="--function rndis --mac $RN_MAC" \
	     ffs_gadget rndis 0x0039 1 $RN_TAP $gmax; then
		result FAIL rndis-model-bind "the FunctionFS RNDIS gadget did not start (/out/gadget-$SPEED-rndis.log)"
		return
	fi
	i=0
	rn=""
	while [ -z "$rn" ] && [ $i -lt 100 ]; do
		rn=$(rn_netdev "$FFS_PATH")
		[ -n "$rn" ] || sleep 0.1
		i=$((i + 1))
	done
	if [ -z "$rn" ]; then
		result FAIL rndis-model-bind "no rndis_host netdev on $FFS_PATH:1.0 after 10 s (interfaces: $(ls -d /sys/bus/usb/devices/"$FFS_PATH":* 2>/dev/null | tr '\n' ' '))"
		ffs_gadget_stop rndis
		return
	fi
	addr=$(cat "/sys/class/net/$rn/address")
	if [ "$addr" = "$RN_MAC" ]; then
		result PASS rndis-model-bind "rndis_host bound $FFS_PATH:1.0 as $rn with the model's permanent address $addr"
	else
		result FAIL rndis-model-bind "rndis_host's $rn has $addr, the model's permanent address is $RN_MAC"
	fi
	chroot /host /usr/sbin/ip netns add $RN_NS
	chroot /host /usr/sbin/ip link set $RN_TAP netns $RN_NS
	rn_nsx /usr/sbin/ip link set lo up
	rn_nsx /usr/sbin/ip addr add $RN_NET.1/24 dev $RN_TAP
	rn_nsx /usr/sbin/ip link set $RN_TAP up
	ip addr add $RN_NET.2/24 dev "$rn"
	ip link set "$rn" up

	# A first reply within 30 s (one ping a second: on a loaded machine
	# the model's first transfers can take seconds), else nothing more
	# to try.
	if ! chroot /host /usr/bin/ping -n -q -c 1 -w 30 -I "$rn" \
	     $RN_NET.1 > /dev/null 2>&1; then
		result FAIL rndis-model-ping "no reply to a first ping in 30 s"
		rn_counters "$rn"
		return
	fi
	o=$(chroot /host python3 "$ROOT/tests/vm/ping_sweep.py" "$rn" \
		$RN_NET.1 0 1472 --window 8 --deadline 240 2>&1)
	case $o in
	*"1473 answered intact, 0 lost, 0 corrupted"*)
		result PASS rndis-model-ping "$o (rndis_host <-> the model over $SPEED-speed USB)" ;;
	*)	result FAIL rndis-model-ping "${o:-ping_sweep.py printed nothing}" ;;
	esac

	# iperf3 both ways, 3 s each, the server beyond the model.
	rn_nsx /usr/bin/iperf3 -s -D -1 -B $RN_NET.1 > /dev/null 2>&1
	sleep 0.5
	up=$(chroot /host /usr/bin/iperf3 -c $RN_NET.1 -t 3 -f m 2>&1 |
		sed -n 's/.* \([0-9.]*\) Mbits\/sec.*receiver.*/\1/p' | tail -n 1)
	rn_nsx /usr/bin/iperf3 -s -D -1 -B $RN_NET.1 > /dev/null 2>&1
	sleep 0.5
	down=$(chroot /host /usr/bin/iperf3 -c $RN_NET.1 -t 3 -R -f m 2>&1 |
		sed -n 's/.* \([0-9.]*\) Mbits\/sec.*receiver.*/\1/p' | tail -n 1)
	# Data came through each way (the receiver's rate is not 0); how fast
	# is the machine's load, not the model's: no threshold.
	if [ -n "$(echo "$up" | tr -d '0.')" ] &&
	   [ -n "$(echo "$down" | tr -d '0.')" ]; then
		result PASS rndis-model-iperf3 "TCP through rndis_host and the model: host -> model $up Mbit/s, model -> host $down Mbit/s (3 s each)"
	else
		result FAIL rndis-model-iperf3 "host -> model '${up:-none}' Mbit/s, model -> host '${down:-none}' Mbit/s"
	fi

	rn_counters "$rn"
}

# Both ends' counters after the traffic, then the gadget and namespace go.
rn_counters() {
	rn=$1
	kill -USR1 "$FFS_PID" 2>/dev/null
	sleep 0.5
	cp "/host$FFS_STATS" "/out/gadget-$SPEED-rndis.stats" 2>/dev/null
	{ ip -s link show "$rn"; rn_nsx /usr/sbin/ip -s addr; } \
		> "/out/rndis-$SPEED-links.txt" 2>&1
	s=/sys/class/net/$rn/statistics
	rxe=$(cat $s/rx_errors) rxf=$(cat $s/rx_frame_errors)
	txe=$(cat $s/tx_errors) rxp=$(cat $s/rx_packets)
	bad=$(gstat model_rndis_bad_msgs)
	resp=$(gstat model_rndis_responses)
	drop=$(gstat model_rndis_resp_dropped)
	tbad=$(gstat model_tx_bad_records)
	tok=$(gstat model_tx_frames)
	if [ "$rxe" = 0 ] && [ "$rxf" = 0 ] && [ "$txe" = 0 ] &&
	   [ "$bad" = 0 ] && [ "$tbad" = 0 ] && [ "${resp:-0}" -ge 4 ] &&
	   [ "$drop" = 0 ] && [ "${tok:-0}" -ge 1473 ]; then
		result PASS rndis-model-counters "host $rn: rx_packets $rxp, rx_errors 0, rx_frame_errors 0, tx_errors 0; model: $resp responses taken, none dropped, 0 unparsable commands, $tok frames from bulk OUT, 0 bad data messages"
	else
		result FAIL rndis-model-counters "host $rn: rx_packets $rxp, rx_errors $rxe, rx_frame_errors $rxf, tx_errors $txe; model: responses ${resp:-?} (dropped ${drop:-?}), unparsable commands ${bad:-?}, bulk OUT frames ${tok:-?}, bad data messages ${tbad:-?}, from the cable $(gstat model_wire_rx_frames) (filtered $(gstat model_rx_filtered)), into bulk IN $(gstat model_rx_delivered); gadget: IN transfers $(gstat in_xfers), IN errors $(gstat in_errors), model errors $(gstat model_errors)"
	fi
	ffs_gadget_stop rndis
	chroot /host /usr/sbin/ip netns del $RN_NS 2>/dev/null
}

# ---- frndis: the PMD against Linux's f_rndis, beside an ACM port ----
#
# A modem's shape: one configfs gadget (1209:000d) with an ACM serial
# function (usb_f_acm, interfaces 0-1) and f_rndis (usb_f_rndis, 2-3) in
# one configuration, on its own UDC. The host's cdc_acm keeps interface 0
# and its ttyACM; f_rndis's netdev (usbN) is the far end, in the root
# namespace at $RF_NET.1. Checked:
# - ch39x-usb status: protocol rndis, the function at 2+3, composite;
# - dpdk-testpmd with no proto (proto=auto: RNDIS, since the device offers
#   nothing the PMD prefers) takes the RNDIS interfaces only: cdc_acm
#   keeps interface 0, and its ttyACM carries a line to the gadget's ttyGS
#   while testpmd (icmpecho) answers pings of every payload size 0..1472
#   from the gadget's netdev (ping_sweep.py, every reply checked byte for
#   byte);
# - the packet filter from the gadget's side, in the same testpmd:
#   f_rndis's carrier is on while the PMD has a filter set (it starts the
#   data with a non-zero one); with promiscuous off and one multicast
#   group, frames the gadget sends to the port's address, to the group and
#   to broadcast arrive, to another unicast address and another group are
#   dropped by the PMD (f_rndis passes everything) and counted in
#   rx_rndis_filtered; with promiscuous on, all arrive;
# - iperf3 both ways (proto=rndis): testpmd forwards (io) between the
#   RNDIS port and an af_packet port on a veth pair whose far end, in a
#   namespace, runs the iperf3 server.

RF_G=frndis
RF_NET=169.254.87
RF_MAC=02:1a:86:00:87:02		# the host's address f_rndis gives
RF_DEV=02:1a:86:00:87:01		# the gadget's own

rf_gadget() {
	gadget $RF_G 0x1209 0x000d || return 1
	mkdir "$G/$RF_G/functions/acm.$RF_G" || return 1
	gfunc $RF_G rndis.$RF_G $RF_DEV $RF_MAC || return 1
	config $RF_G c.1 acm.$RF_G rndis.$RF_G || return 1
	u=$(udc_free) && echo "$u" > "$G/$RF_G/UDC" || return 1
	i=0
	RF_PATH=""
	while [ -z "$RF_PATH" ] && [ $i -lt 100 ]; do
		RF_PATH=$(devpath 1209 000d)
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$RF_PATH" ] || return 1
	RF_IF=$(netdev $RF_G rndis.$RF_G $RF_NET.1/24)
	RF_GS=/dev/ttyGS$(cat "$G/$RF_G/functions/acm.$RF_G/port_num")
	i=0
	RF_ACM=""
	while [ -z "$RF_ACM" ] && [ $i -lt 100 ]; do
		RF_ACM=$(ls /sys/bus/usb/devices/"$RF_PATH":1.0/tty 2>/dev/null |
			head -n 1)
		[ -n "$RF_ACM" ] || sleep 0.1
		i=$((i + 1))
	done
	[ -n "$RF_IF" ] && [ -n "$RF_ACM" ]
}

# Frames from the gadget's netdev to five destinations, N each (python3
# in the chroot: a raw socket).
rf_send() {	# N
	chroot /host python3 - "$RF_IF" "$1" <<'PY'
import socket, sys
ifname, n = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifname, 0))
src = s.getsockname()[4]
for dst in ("02:1a:86:00:87:02", "02:1a:86:00:87:99",
            "01:00:5e:00:00:fb", "01:00:5e:00:00:fc",
            "ff:ff:ff:ff:ff:ff"):
    d = bytes.fromhex(dst.replace(":", ""))
    for i in range(n):
        s.send(d + src + b"\x88\xb5" + bytes([i]) * 60)
PY
}

# rf_xstats: ask the running testpmd for a port's xstats and await them
# in its log (a new KEY line: at most 10 s)
rf_xstats() {	# KEY port
	c0=$(grep -c "^$1:" "$TP_LOG")
	echo "show port xstats $2" >&3
	i=0
	while [ "$(grep -c "^$1:" "$TP_LOG")" -le "$c0" ] && [ $i -lt 50 ]; do
		sleep 0.2
		i=$((i + 1))
	done
}

# rf_snap: "RX-packets rx_rndis_filtered" of the running testpmd, now
rf_snap() {
	echo "show port stats 0" >&3
	rf_xstats rx_rndis_filtered 0
	echo "$(tp_stat RX-packets) $(tp_xstat rx_rndis_filtered)"
}

# The filter, in the testpmd that answered the pings. The gadget's
# neighbour entry for the port is made permanent first: an ARP probe of
# its own in the window would be one frame more (IPv6 is off in the guest).
rf_filter() {
	car=$(cat /sys/class/net/$RF_IF/carrier 2>/dev/null)
	chroot /host /usr/sbin/ip neigh replace $RF_NET.2 lladdr $RF_MAC nud permanent dev "$RF_IF"
	echo "set promisc 0 off" >&3
	echo "mcast_addr add 0 01:00:5e:00:00:fb" >&3
	sleep 1
	set -- $(rf_snap)
	rx0=$1 f0=$2
	rf_send 10
	sleep 2
	set -- $(rf_snap)
	rx1=$(($1 - rx0)) f1=$(($2 - f0))
	echo "set promisc 0 on" >&3
	sleep 1
	rf_send 10
	sleep 2
	set -- $(rf_snap)
	rx2=$(($1 - rx0 - rx1)) f2=$(($2 - f0 - f1))
	chroot /host /usr/sbin/ip neigh del $RF_NET.2 dev "$RF_IF" 2>/dev/null
	if [ "$car" = 1 ] && [ "$rx1" = 30 ] && [ "$f1" = 20 ] &&
	   [ "$rx2" = 50 ] && [ "$f2" = 0 ]; then
		result PASS frndis-filter "f_rndis's carrier on with the PMD's filter set; promiscuous off with one group: 30 of 50 frames from the gadget taken (own address, the group, broadcast), 20 dropped and counted (rx_rndis_filtered +$f1); promiscuous on: 50 of 50"
	else
		result FAIL frndis-filter "carrier ${car:-?}; promiscuous off: $rx1 taken (want 30), rx_rndis_filtered +$f1 (want 20); on: $rx2 taken (want 50), rx_rndis_filtered +$f2 (want 0)"
	fi
}

rf_iperf() {
	# Both hosts in namespaces of their own: the gadget's netdev (the
	# client) and the veth's far end (the server); the PMD bridges them.
	na=rfa
	nb=rfb
	chroot /host /usr/sbin/ip netns add $na
	chroot /host /usr/sbin/ip netns add $nb
	chroot /host /usr/sbin/ip link set "$RF_IF" netns $na
	chroot /host /usr/sbin/ip -n $na addr add $RF_NET.1/24 dev "$RF_IF"
	chroot /host /usr/sbin/ip -n $na link set "$RF_IF" up
	chroot /host /usr/sbin/ip link add rfv0 type veth peer name rfv1
	chroot /host /usr/sbin/ip link set rfv1 netns $nb
	chroot /host /usr/sbin/ip -n $nb addr add $RF_NET.2/24 dev rfv1
	chroot /host /usr/sbin/ip -n $nb link set rfv1 up
	# af_packet takes what the veth hands it as is: no checksum left to
	# the hardware, no segments bigger than a frame.
	chroot /host /usr/sbin/ip netns exec $nb /usr/sbin/ethtool -K rfv1 \
		tx off tso off gso off > /dev/null 2>&1
	chroot /host /usr/sbin/ethtool -K rfv0 rx off gro off > /dev/null 2>&1
	ip link set rfv0 up
	# pmd_prepare left EAL one plugin; net_af_packet's is loaded by name.
	afp=$(ls /host/run/dpdk-pmds-all/librte_net_af_packet.so.[0-9]* |
		head -n 1 | sed 's,^/host,,')
	TP_EAL="-d $afp --vdev net_af_packet0,iface=rfv0"
	if ! tp_start frndis-iperf "dev=1209:000d,path=$RF_PATH,proto=rndis" \
	     --forward-mode=io; then
		result FAIL frndis-iperf3 "testpmd: $TP_ERR"
	else
		echo "set promisc all on" >&3
		p0=$(rf_polls)
		t0=$(date +%s)
		up=$(rf_iperf_one "")
		down=$(rf_iperf_one -R)
		# Port 0 is af_packet's: the RNDIS port's counters are 1's.
		p1=$(rf_polls)
		t1=$(date +%s)
		tp_finish
		bad=$(tp_xstat rx_rndis_bad_lengths)
		rf_intr_check "$p0" "$p1" $((t1 - t0))
		# Data each way (no rate threshold: that is the load's)
		if [ -n "$(echo "$up" | tr -d '0.')" ] &&
		   [ -n "$(echo "$down" | tr -d '0.')" ] && [ "$bad" = 0 ]; then
			result PASS frndis-iperf3 "TCP through f_rndis and the PMD (testpmd io to af_packet): gadget -> PMD $up Mbit/s, PMD -> gadget $down Mbit/s (3 s each)"
		else
			result FAIL frndis-iperf3 "gadget -> PMD '${up:-none}' Mbit/s, PMD -> gadget '${down:-none}' Mbit/s, bad lengths $bad"
		fi
	fi
	# shellcheck disable=SC2034 # tp_start (pmd.sh) reads it
	TP_EAL=""
	ip link del rfv0 2>/dev/null
	chroot /host /usr/sbin/ip netns del $nb 2>/dev/null
	# The gadget's netdev comes back to the initial namespace.
	chroot /host /usr/sbin/ip netns del $na 2>/dev/null
}

# rf_polls: the RNDIS port's intr_polls in the running testpmd, now
rf_polls() {
	rf_xstats intr_polls 1
	tp_xstat intr_polls
}

# While testpmd forwards (its polls reap the interrupt transfer), the
# interrupt endpoint's alarm looks only when the hook brings news and
# every 100 ms (it looked every 2 ms before: ~190-500 a second); and
# f_rndis's stall of its empty response queue, ending the read of every
# notification, is not a failed control request.
rf_intr_check() {	# polls-before polls-after seconds
	looks=$(($2 - $1))
	stalls=$(tp_xstat rndis_empty_stalls)
	errs=$(tp_xstat ctrl_errors)
	if [ "$3" -gt 0 ] && [ "$looks" -le $((30 * $3 + 10)) ] &&
	   [ "$stalls" -ge 1 ] && [ "$errs" = 0 ]; then
		result PASS frndis-intr "forwarding for $3 s: $looks looks at the interrupt endpoint (at most 30/s), $stalls empty-queue stalls, ctrl_errors 0"
	else
		result FAIL frndis-intr "forwarding for $3 s: $looks looks at the interrupt endpoint (at most 30/s), empty-queue stalls $stalls, ctrl_errors $errs"
	fi
}

# One iperf3 run of 3 s from the gadget's side (-R: the other way), at
# most 30 s: the receiver's Mbit/s, or nothing.
rf_iperf_one() {
	chroot /host /usr/sbin/ip netns exec rfb /usr/bin/iperf3 -s -D -1 \
		-B $RF_NET.2 > /dev/null 2>&1
	sleep 0.5
	timeout 30 chroot /host /usr/sbin/ip netns exec rfa /usr/bin/iperf3 \
		-c $RF_NET.2 --connect-timeout 5000 -t 3 -f m $1 2>&1 |
		sed -n 's/.* \([0-9.]*\) Mbits\/sec.*receiver.*/\1/p'
}

# The pings of every size, with a line on the ACM port at the same time:
# the host writes it on ttyACM, the gadget's ttyGS must read it.
rf_ping_acm() {
	stty -F "$RF_GS" raw -echo 2>/dev/null
	stty -F "/dev/$RF_ACM" raw -echo 2>/dev/null
	head -c 6 "$RF_GS" > /tmp/rf.gs &
	gp=$!
	chroot /host python3 "$ROOT/tests/vm/ping_sweep.py" "$RF_IF" \
		$RF_NET.2 0 1472 --window 8 --deadline 240 > /tmp/rf.ping 2>&1 &
	pp=$!
	sleep 1
	printf 'AT+X\r\n' > "/dev/$RF_ACM"
	wait $pp
	i=0
	while kill -0 $gp 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill $gp 2>/dev/null
	RF_LINE=$(tr -d '\r\n' < /tmp/rf.gs 2>/dev/null)
	RF_SWEEP=$(cat /tmp/rf.ping)
}

rndis_frndis_run() {
	if ! rf_gadget; then
		result FAIL frndis-gadget "ACM + f_rndis gadget at '$RF_PATH': ttyACM '$RF_ACM', RNDIS netdev '$RF_IF'"
		echo "" > "$G/$RF_G/UDC" 2>/dev/null
		return
	fi
	usb_status frndis
	usb_expect usbtool-frndis frndis "$RF_PATH" proto=rndis \
		proto_config=1 kernel_drivers=cdc_acm,rndis_host composite=true
	if ! tp_start frndis "dev=1209:000d,path=$RF_PATH"; then
		result FAIL frndis-probe "$TP_ERR"
		tp_finish
		echo "" > "$G/$RF_G/UDC" 2>/dev/null
		return
	fi
	d0=$(basename "$(readlink /sys/bus/usb/devices/"$RF_PATH":1.0/driver)")
	d2=$(basename "$(readlink /sys/bus/usb/devices/"$RF_PATH":1.2/driver 2>/dev/null)" 2>/dev/null)
	result PASS frndis-probe "testpmd icmpecho on the ACM + f_rndis gadget at $RF_PATH, proto=auto"
	rf_ping_acm
	case $RF_SWEEP in
	*"1473 answered intact, 0 lost, 0 corrupted"*)
		result PASS frndis-ping "$RF_SWEEP (f_rndis <-> the PMD, testpmd icmpecho)" ;;
	*)	result FAIL frndis-ping "${RF_SWEEP:-ping_sweep.py printed nothing}" ;;
	esac
	if [ "$d0" = cdc_acm ] && [ "$d2" != rndis_host ] &&
	   [ "$RF_LINE" = "AT+X" ]; then
		result PASS frndis-acm "the PMD took the RNDIS interfaces only (interface 0: $d0, $RF_ACM; interface 2: ${d2:-none}); $RF_ACM carried 'AT+X' to the gadget's ttyGS during the pings"
	else
		result FAIL frndis-acm "interface 0 driver '$d0' (cdc_acm wanted), interface 2 '$d2'; serial line got '$RF_LINE' (AT+X wanted)"
	fi
	rf_filter
	tp_finish
	echo "[pmd] frndis icmpecho: RX errors $(tp_stat RX-errors), rx_rndis_pad_bytes $(tp_xstat rx_rndis_pad_bytes)"
	rf_iperf
	echo "" > "$G/$RF_G/UDC" 2>/dev/null
}

# ---- rndisreplay: the fuzz corpus's malformed messages over a real bus ----
#
# The FunctionFS RNDIS model with --replay: before its first data
# transfer it sends every bad_* case of tests/fuzz/corpus/fuzz_rndis on
# bulk IN, and counts with the codec what a host must drop. testpmd
# (icmpecho, proto=rndis) must count exactly those drops in its rx_rndis_*
# xstats, stay up, and answer pings from the model's far end afterwards.

RR_NS=rrfar
RR_TAP=tapRr
RR_NET=169.254.88

rndis_replay_run() {
	gmax=high-speed
	[ "$SPEED" = super ] && gmax=super-speed
	if ! FFS_ARGS="--function rndis --mac 02:1a:86:00:88:02 --replay $ROOT/tests/fuzz/corpus/fuzz_rndis" \
	     ffs_gadget rndisr 0x003a 1 $RR_TAP $gmax; then
		result FAIL rndis-replay "the FunctionFS RNDIS gadget did not start"
		return
	fi
	chroot /host /usr/sbin/ip netns add $RR_NS
	chroot /host /usr/sbin/ip link set $RR_TAP netns $RR_NS
	rr_nsx() { chroot /host /usr/sbin/ip netns exec $RR_NS "$@"; }
	rr_nsx /usr/sbin/ip link set lo up
	rr_nsx /usr/sbin/ip addr add $RR_NET.1/24 dev $RR_TAP
	rr_nsx /usr/sbin/ip link set $RR_TAP up
	if ! tp_start rndis-replay "dev=1a86:003a,path=$FFS_PATH,proto=rndis"; then
		result FAIL rndis-replay "testpmd: $TP_ERR"
		tp_finish
	else
		# The first ping makes the model send data: the replay first.
		rr_nsx /usr/bin/ping -n -q -c 3 -w 20 $RR_NET.2 > /dev/null 2>&1
		o=$(rr_nsx /usr/bin/ping -n -q -c 5 -i 0.2 -w 20 -s 1000 \
			$RR_NET.2 2>&1 |
			sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\1 \2/p')
		kill -USR1 "$FFS_PID" 2>/dev/null
		sleep 0.5
		tp_finish
		done=$(gstat replay_done)
		want=$(gstat replay_bad)
		n=$(gstat replay_xfers)
		got=0
		for k in rx_rndis_bad_types rx_rndis_bad_lengths \
			 rx_rndis_bad_data rx_rndis_runts rx_rndis_oversize; do
			got=$((got + $(tp_xstat $k)))
		done
		if [ "$done" = 1 ] && [ "${want:-0}" -gt 0 ] &&
		   [ "$got" = "$want" ] && [ "${o#* }" = 5 ]; then
			result PASS rndis-replay "$n transfers of the corpus's bad_* cases from the device: the PMD dropped and counted $got messages (the codec says $want), testpmd stayed up and answered 5 of 5 pings after"
		else
			result FAIL rndis-replay "replay done ${done:-?} ($n transfers); bad messages counted $got, expected ${want:-?}; pings after: ${o:-none} (sent received)"
		fi
	fi
	ffs_gadget_stop rndisr
	chroot /host /usr/sbin/ip netns del $RR_NS 2>/dev/null
}
