# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# The model's truth (issue 42): the simulated adapter's personalities on
# the guest's USB bus, taken by Linux's own host drivers. app/ch39x-usbip
# serves them over USB/IP on the guest's loopback; Debian's usbip tool
# attaches each to vhci-hcd, and cdc_ncm or cdc_ether binds as to any
# adapter. Each model's cable is a TAP (wire=tap:...) moved into a network
# namespace of its own, the far host. Run by guest.sh for the boot
# "usbip" (SPEEDS=usbip bash tests/vm/run.sh runs it alone). Checked:
#
#   - usbip list -r shows every device the server exports;
#   - each binds its driver, whose netdev has the model's own address
#     (iMACAddress) and carrier from the model's notifications;
#   - ncm, ecm: echo requests of every size 0..1472 (DF set) each answered
#     intact through the kernel's netdev, iperf3 TCP both ways; no RX
#     error on the netdev, no bad NTB or frame at the model;
#   - each quirk of the NCM model against what cdc_ncm (6.1) does with
#     it: ndp_end (NDP after the datagrams: parsed, every size answered);
#     no_max_datagram (no Get/SetMaxDatagramSize reaches the model, the
#     MTU is wMaxSegmentSize's); ntb32_only (cdc_ncm asks for NTB16, the
#     model refuses it, and cdc_ncm keeps sending NTB16: no traffic
#     passes, each side counts the other's blocks as bad);
#   - rndis: the RNDIS model (f_rndis's descriptors: IAD, Header, Call
#     Management, ACM, Union) taken by rndis_host: pings of every size and
#     iperf3 both ways as above, every encapsulated command parsed by the
#     model and every response taken, none dropped;
#   - mbim (issue 43): the simulated MBIM modem, its control messages cut
#     to 128 bytes (its caps, subscriber status and IP configuration come
#     in fragments): cdc_mbim binds it (wwan netdev, cdc-wdm), Debian's
#     mbimcli (libmbim 1.28) reads its caps, subscriber, registration,
#     attaches, connects with an APN and reads the IP configuration (the
#     model's §24 addresses); a wrong APN is refused; a command longer than
#     128 bytes is cut there by cdc-wdm (libmbim only fragments above
#     4096) and the model answers LengthMismatch; the session carries
#     every ping size 0..1472, IPv6 after the session's RA (SLAAC), and
#     iperf3 both ways to the model's far host;
#     a disconnect stops it; the model saw no bad NTB; then the PMD takes
#     the same modem (cdc_mbim detached) as ch39x-cpe's WAN and dials it:
#     a LAN host (the TAP of a simulated NCM LAN port) reaches the
#     operator's host through NAT, pings of several sizes and iperf3 both
#     ways; cdc_mbim is bound again when the router exits;
#   - usbip detach gives every device back: the server sees each client
#     go, the kernel's log has no warning.
#
# Another personality of the sim goes on the bus with a line in UIP_DEVS
# (BUSID:TAG:DEVARGS, the PMD's simulated-adapter devargs) and its checks
# in usbip_run; the helpers (uip_*) take a TAG. The NIC guide's testing
# page ("The model on Linux's USB stack") says how.
#
# Sourced by guest.sh (result, param, up, kernel_log, $S, $OUT, $SPEED);
# it sources pmd.sh (nstat) and cpe.sh (nsx, ns_new).

. "/host${S%/*}/pmd.sh"
. "/host${S%/*}/cpe.sh"

UIP_BIN=${PMD_SO%/drivers/net/ch39x/*}/app/ch39x-usbip/ch39x-usbip
UIP_RUN=/run/ch39x-usbip		# in the chroot
UIP_STATS=$UIP_RUN/stats
UIP_PORT=3240
VHCI=/sys/devices/platform/vhci_hcd.0
# BUSID:TAG:DEVARGS, one device a line; TAG names its TAP (uipTAG), its
# namespace and its results. Device N (the line's number) gets the
# addresses 10.99.N.1 (the kernel's netdev) and 10.99.N.2 (the far host).
UIP_DEVS="1-1:ncm:sim=ncm,usb_speed=super
1-2:ecm:sim=ecm,usb_speed=high
1-3:ndpend:sim=ncm,usb_speed=high,sim_quirks=ndp_end
1-4:nomaxdg:sim=ncm,usb_speed=high,sim_quirks=no_max_datagram
1-5:ntb32:sim=ncm,usb_speed=high,sim_quirks=ntb32_only
1-6:rndis:sim=rndis,usb_speed=high
1-7:mbim:sim=mbim,usb_speed=high,sim_apn=internet,sim_max_ctrl=128,sim_register_ms=300"
UIP_IPERF_SECS=3

# ---- helpers ----

uip_field() {	# TAG FIELD(1 busid, 3 devargs, n: the line's number)
	echo "$UIP_DEVS" | awk -F: -v t="$1" -v f="$2" '$2 == t {
		if (f == "n") print NR; else if (f == 3) print substr($0,
		length($1) + length($2) + 3); else print $f }'
}

# uip_stat BUSID KEY: from the server's last counters (uip_stats first)
uip_stat() {
	us_v=$(sed -n "s/^$1\\.$2=//p" "/host$UIP_STATS" 2>/dev/null | tail -n 1)
	echo "${us_v:-0}"
}

# (The helpers' variables have names of their own: sh has no locals, and a
# caller's loop counter must survive them.)

# uip_stats: the server writes its counters (SIGUSR1); waits for them
uip_stats() {
	rm -f "/host$UIP_STATS"
	kill -USR1 "$UIP_PID" 2>/dev/null
	uc_i=0
	while [ ! -f "/host$UIP_STATS" ] && [ $uc_i -lt 50 ]; do
		sleep 0.1
		uc_i=$((uc_i + 1))
	done
	cp "/host$UIP_STATS" "/out/usbip-stats.txt" 2>/dev/null
}

# uip_port BUSID: "PORT LOCAL_BUSID" of the vhci port the device is on
# (vhci's status lists each port's devid, busnum << 16 | devnum, and the
# server numbers its devices 1, 2, ... in UIP_DEVS' order). The port's
# leading zeros go before it is a number: busybox awk reads them as octal.
uip_port() {
	up_n=$(echo "$UIP_DEVS" | awk -F: -v b="$1" '$1 == b { print NR }')
	up_id=$(printf '%08x' $((65536 + up_n)))
	awk -v d="$up_id" '$5 == d && $7 != "0-0" { p = $2;
		sub(/^0+/, "", p); print p + 0, $7 }' \
		"$VHCI/status" "$VHCI"/status.* 2>/dev/null | head -n 1
}

# uip_attach BUSID: usbip attach, then the device on the guest's bus
# (bounded). One at a time: the tool lists the used ports' devices, and
# one still enumerating makes it fail ("open vhci_driver"); tried again.
uip_attach() {
	ua_t=0
	while [ $ua_t -lt 3 ]; do
		UIP_ERR=$(chroot /host /usr/sbin/usbip --tcp-port $UIP_PORT \
			attach -r 127.0.0.1 -b "$1" 2>&1 | grep -v 'info: using port')
		ua_i=0
		while [ $ua_i -lt 100 ]; do
			ua_lb=$(uip_port "$1" | cut -d' ' -f2)
			[ -n "$ua_lb" ] &&
				[ -e "/sys/bus/usb/devices/$ua_lb/idVendor" ] &&
				return 0
			sleep 0.1
			ua_i=$((ua_i + 1))
		done
		ua_t=$((ua_t + 1))
	done
	return 1
}

# uip_bound TAG DRIVER: the driver bound to interface 0 of the device
# with a netdev (bounded); sets UIP_PATH, UIP_NET
uip_bound() {
	ub_b=$(uip_field "$1" 1)
	ub_i=0
	UIP_PATH=""
	UIP_NET=""
	while [ $ub_i -lt 150 ]; do
		UIP_PATH=$(uip_port "$ub_b" | cut -d' ' -f2)
		ub_d=/sys/bus/usb/devices/$UIP_PATH:1.0
		if [ -n "$UIP_PATH" ] && [ -e "$ub_d/driver" ] &&
		   [ "$(basename "$(readlink "$ub_d/driver")")" = "$2" ]; then
			UIP_NET=$(ls "$ub_d/net" 2>/dev/null | head -n 1)
			[ -n "$UIP_NET" ] && return 0
		fi
		sleep 0.2
		ub_i=$((ub_i + 1))
	done
	return 1
}

# uip_link TAG: the kernel's netdev up with 10.99.N.1, the model's TAP in
# namespace uipTAG with 10.99.N.2, carrier (bounded)
uip_link() {
	ul_n=$(uip_field "$1" n)
	ul_ns=uip$1
	ns_new "$ul_ns" || return 1
	$IPB link set "uip$1" netns "$ul_ns" || return 1
	$IPB -n "$ul_ns" addr add "10.99.$ul_n.2/24" dev "uip$1"
	$IPB -n "$ul_ns" link set "uip$1" up
	$IPB addr add "10.99.$ul_n.1/24" dev "$UIP_NET"
	$IPB link set "$UIP_NET" up
	ul_i=0
	while [ $ul_i -lt 100 ]; do
		[ "$(cat "/sys/class/net/$UIP_NET/carrier" 2>/dev/null)" = 1 ] &&
			return 0
		sleep 0.1
		ul_i=$((ul_i + 1))
	done
	return 1
}

# uip_sweep TAG LO HI [STEP]: ping_sweep.py from the kernel's netdev to
# the far host; sets UIP_SWEEP (its line); returns its status
uip_sweep() {
	uw_n=$(uip_field "$1" n)
	# The first one resolves the far host's address.
	chroot /host /usr/bin/ping -n -q -c 1 -w 10 -I "$UIP_NET" \
		"10.99.$uw_n.2" > /dev/null 2>&1
	UIP_SWEEP=$(timeout 240 chroot /host python3 \
		"$ROOT/tests/vm/ping_sweep.py" "$UIP_NET" "10.99.$uw_n.2" \
		"$2" "$3" --step "${4:-1}" 2>&1)
}

# uip_iperf TAG: iperf3 TCP to the far host and back (-R), UIP_IPERF_SECS
# each; sets UIP_IPERF ("up X Mbit/s, down Y Mbit/s") and returns 0 when
# both moved data and ended cleanly
uip_iperf() {
	ui_n=$(uip_field "$1" n)
	ui_ok=0
	UIP_IPERF=""
	for ui_dir in up down; do
		ui_j=usbip-iperf-$1-$ui_dir.txt
		nsx "uip$1" timeout $((UIP_IPERF_SECS + 60)) iperf3 -s -1 \
			> "/out/usbip-iperf-$1-$ui_dir-srv.txt" 2>&1 &
		ui_sp=$!
		iperf_listening "uip$1"
		ui_r=""
		[ $ui_dir = down ] && ui_r=-R
		timeout $((UIP_IPERF_SECS + 50)) chroot /host iperf3 \
			-c "10.99.$ui_n.2" -B "10.99.$ui_n.1" -t $UIP_IPERF_SECS \
			$ui_r > "/out/$ui_j" 2>&1
		ui_rc=$?
		# The server ends with the test; a lost goodbye is not waited out.
		ui_i=0
		while kill -0 $ui_sp 2>/dev/null && [ $ui_i -lt 25 ]; do
			sleep 0.2
			ui_i=$((ui_i + 1))
		done
		kill $ui_sp 2>/dev/null
		wait $ui_sp 2>/dev/null
		ui_bps=$(iperf_rate "/out/$ui_j")
		UIP_IPERF="$UIP_IPERF$ui_dir ${ui_bps% *} Mbit/s (${ui_bps#* } bytes), "
		[ $ui_rc -eq 0 ] && [ "${ui_bps#* }" -gt 0 ] 2>/dev/null &&
			ui_ok=$((ui_ok + 1))
	done
	UIP_IPERF=${UIP_IPERF%, }
	[ $ui_ok -eq 2 ]
}

# uip_mac TAG: the address the model was made with (its serial and MAC
# come from its position, ch39x_sim.c sim_identity): the netdev's must be
# the iMACAddress the model's descriptor names
uip_mac_ok() {
	m=$(cat "/sys/class/net/$UIP_NET/address")
	case $m in 02:1a:86:98:*) return 0 ;; esac
	return 1
}

# ---- one personality's checks ----

# uip_traffic TAG DRIVER LO HI STEP: bind, link, sweep, iperf3, counters
uip_traffic() {
	tag=$1
	drv=$2
	b=$(uip_field "$tag" 1)
	if ! uip_bound "$tag" "$drv"; then
		result FAIL "usbip-$tag-bind" "$b: no $drv with a netdev on interface 0 (port: $(uip_port "$b"))"
		return 1
	fi
	sp=$(cat "/sys/bus/usb/devices/$UIP_PATH/speed")
	if uip_mac_ok && uip_link "$tag"; then
		result PASS "usbip-$tag-bind" "$b at $UIP_PATH ($sp Mb/s): $drv bound, $UIP_NET with the model's address $(cat /sys/class/net/$UIP_NET/address), carrier from its notifications, MTU $(cat /sys/class/net/$UIP_NET/mtu)"
	else
		result FAIL "usbip-$tag-bind" "$b at $UIP_PATH: $drv bound, $UIP_NET address $(cat /sys/class/net/$UIP_NET/address) (02:1a:86:98:... expected), carrier $(cat /sys/class/net/$UIP_NET/carrier 2>/dev/null)"
		return 1
	fi
	e0=$(nstat "$UIP_NET" rx_errors)
	if uip_sweep "$tag" "$3" "$4" "$5"; then
		result PASS "usbip-$tag-ping" "$UIP_NET -> far host, DF set: $UIP_SWEEP"
	else
		result FAIL "usbip-$tag-ping" "$UIP_NET -> far host: $UIP_SWEEP"
	fi
	if [ -n "$6" ]; then
		if uip_iperf "$tag"; then
			result PASS "usbip-$tag-iperf" "iperf3 TCP ${UIP_IPERF_SECS} s each way through $UIP_NET: $UIP_IPERF"
		else
			result FAIL "usbip-$tag-iperf" "iperf3 TCP through $UIP_NET: $UIP_IPERF (see /out/usbip-iperf-$tag-*.txt)"
		fi
	fi
	uip_stats
	e1=$(nstat "$UIP_NET" rx_errors)
	bad=$(uip_stat "$b" model_tx_bad_records)
	fl=$(( $(uip_stat "$b" bulk_in_failed) + $(uip_stat "$b" bulk_out_failed) ))
	msg="$UIP_NET rx_errors $((e1 - e0)), rx_packets $(nstat "$UIP_NET" rx_packets); model: $(uip_stat "$b" model_tx_frames) frames to the cable, $(uip_stat "$b" model_rx_delivered) delivered, $bad bad; URBs: $(uip_stat "$b" bulk_in_completed) bulk IN, $(uip_stat "$b" bulk_out_completed) bulk OUT ($fl failed), $(uip_stat "$b" intr_in_completed) interrupt, $(uip_stat "$b" unlinks) unlinks"
	if [ $((e1 - e0)) -eq 0 ] && [ "$bad" = 0 ] && [ "$fl" = 0 ]; then
		result PASS "usbip-$tag-counters" "$msg"
	else
		result FAIL "usbip-$tag-counters" "$msg"
	fi
	return 0
}

# The RNDIS model's control channel after rndis_host's bind and traffic:
# its INITIALIZE, queries and SETs all parsed, every response taken.
uip_rndis_ctrl() {
	b=$(uip_field rndis 1)
	uip_stats
	rr=$(uip_stat "$b" model_rndis_responses)
	rd=$(uip_stat "$b" model_rndis_resp_dropped)
	rb=$(uip_stat "$b" model_rndis_bad_msgs)
	if [ "$rr" -ge 4 ] && [ "$rd" = 0 ] && [ "$rb" = 0 ]; then
		result PASS usbip-rndis-control "rndis_host took $rr responses of the model, none dropped, no command it could not parse; SEND_ENCAPSULATED_COMMAND $(uip_stat "$b" class_req_0x00), GET_ENCAPSULATED_RESPONSE $(uip_stat "$b" class_req_0x01)"
	else
		result FAIL usbip-rndis-control "responses taken $rr (4+ expected), dropped $rd, unparsable commands $rb"
	fi
}

# ---- the quirks against cdc_ncm ----

# no_max_datagram: cdc_ncm asks GET_MAX_DATAGRAM_SIZE (0x87) only of a
# device whose NCM descriptor has the capability (cdc_ncm_set_dgram_size);
# the plain NCM model (ncm) has it.
uip_quirk_maxdg() {
	bn=$(uip_field ncm 1)
	bq=$(uip_field nomaxdg 1)
	gn=$(uip_stat "$bn" class_req_0x87)
	gq=$(uip_stat "$bq" class_req_0x87)
	sq=$(uip_stat "$bq" class_req_0x88)
	mtu=$(cat "/sys/class/net/$UIP_NET/mtu")
	if [ "$gn" -ge 1 ] && [ "$gq" = 0 ] && [ "$sq" = 0 ] &&
	   [ "$mtu" = 1500 ]; then
		result PASS usbip-quirk-no_max_datagram "cdc_ncm sent GET_MAX_DATAGRAM_SIZE $gn time(s) to the model with the capability, none (and no SET) to the one without; MTU $mtu from wMaxSegmentSize 1514"
	else
		result FAIL usbip-quirk-no_max_datagram "GET_MAX_DATAGRAM_SIZE: $gn to the model with the capability (1+ expected), $gq/$sq GET/SET to the one without (0 expected); MTU $mtu (1500 expected)"
	fi
}

# ntb32_only: cdc_ncm_init sends SET_NTB_FORMAT(NTB16) (0x84) to a device
# that lists NTB32; the model refuses it (it has no NTB16), cdc_ncm logs
# "SET_NTB_FORMAT failed" and goes on with NTB16. Nothing passes: the
# model counts cdc_ncm's NTB16 blocks as bad, cdc_ncm counts the model's
# NTB32 blocks as RX errors.
uip_quirk_ntb32() {
	tag=ntb32
	b=$(uip_field $tag 1)
	if ! uip_bound $tag cdc_ncm || ! uip_link $tag; then
		result FAIL usbip-quirk-ntb32_only "$b: no cdc_ncm netdev with carrier"
		return
	fi
	n=$(uip_field $tag n)
	e0=$(nstat "$UIP_NET" rx_errors)
	o=$(chroot /host /usr/bin/ping -n -q -c 2 -i 0.3 -w 2 -I "$UIP_NET" \
		"10.99.$n.2" 2>&1 | sed -n 's/.* \([0-9]*\) received.*/\1/p')
	# The far host's ARP requests come to the kernel in NTB32 blocks.
	nsx uip$tag /usr/bin/ping -n -q -c 2 -i 0.3 -w 2 "10.99.$n.1" \
		> /dev/null 2>&1
	uip_stats
	e1=$(nstat "$UIP_NET" rx_errors)
	st=$(uip_stat "$b" class_stall_0x84)
	bad=$(uip_stat "$b" model_tx_bad_records)
	lg=$(dmesg | grep -c "SET_NTB_FORMAT failed")
	if [ "$st" -ge 1 ] && [ "$lg" -ge 1 ] && [ "$bad" -ge 1 ] &&
	   [ $((e1 - e0)) -ge 1 ] && [ "${o:-0}" = 0 ]; then
		result PASS usbip-quirk-ntb32_only "cdc_ncm asked for NTB16 ($st SET_NTB_FORMAT refused by the model, logged \"SET_NTB_FORMAT failed\") and kept it: the model dropped $bad of its NTB16 blocks as bad, $UIP_NET counted $((e1 - e0)) RX errors on the model's NTB32 blocks, 0 of 2 echo replies"
	else
		result FAIL usbip-quirk-ntb32_only "SET_NTB_FORMAT refused $st time(s), logged $lg time(s); model bad blocks $bad; $UIP_NET RX errors $((e1 - e0)); echo replies ${o:-0} of 2 (0 expected)"
	fi
}

# ---- the MBIM modem against cdc_mbim and mbimcli ----

# uip_mbimcli ARGS...: mbimcli on the modem's cdc-wdm (UIP_WDM), bounded;
# its output in UIP_MBIM, appended to /out/usbip-mbimcli.log
uip_mbimcli() {
	UIP_MBIM=$(timeout 60 chroot /host /usr/bin/mbimcli -d "/dev/$UIP_WDM" \
		"$@" 2>&1)
	um_rc=$?
	printf '$ mbimcli %s\n%s\n(exit %s)\n' "$*" "$UIP_MBIM" $um_rc \
		>> /out/usbip-mbimcli.log
	return $um_rc
}

# uip_has TEXT...: every TEXT is in UIP_MBIM
uip_has() {
	for uh_t in "$@"; do
		case $UIP_MBIM in *"$uh_t"*) ;; *) return 1 ;; esac
	done
	return 0
}

uip_mbim() {
	tag=mbim
	b=$(uip_field $tag 1)
	if ! uip_bound $tag cdc_mbim; then
		result FAIL usbip-mbim-bind "$b: no cdc_mbim with a netdev on interface 0 (port: $(uip_port "$b"))"
		return
	fi
	UIP_WDM=$(ls "/sys/bus/usb/devices/$UIP_PATH:1.0/usbmisc" 2>/dev/null |
		head -n 1)
	if [ -n "$UIP_WDM" ] && [ -c "/dev/$UIP_WDM" ]; then
		result PASS usbip-mbim-bind "$b at $UIP_PATH: cdc_mbim bound, $UIP_NET (MTU $(cat /sys/class/net/$UIP_NET/mtu)) and /dev/$UIP_WDM"
	else
		result FAIL usbip-mbim-bind "$b at $UIP_PATH: cdc_mbim bound, $UIP_NET, but no cdc-wdm node (${UIP_WDM:-none})"
		return
	fi
	# Caps and subscriber; the registration after the model's search.
	uip_mbimcli --query-device-caps &&
		uip_has "Max sessions: '4'" "Firmware info: 'ch39x-sim MBIM 1.0'" \
			"Device ID: '860039000000391'"
	c1=$?
	uip_mbimcli --query-subscriber-ready-status &&
		uip_has "Ready state: 'initialized'" \
			"Subscriber ID: '001010000000039'"
	c2=$?
	i=0
	while [ $i -lt 20 ]; do
		uip_mbimcli --query-registration-state &&
			uip_has "Register state: 'home'" && break
		sleep 0.5
		i=$((i + 1))
	done
	uip_has "Register state: 'home'" "Provider name: 'ch39x sim'"
	c3=$?
	if [ $c1 = 0 ] && [ $c2 = 0 ] && [ $c3 = 0 ]; then
		result PASS usbip-mbim-query "mbimcli, answers in 128-byte fragments: device caps (4 sessions, the model's firmware and IMEI), subscriber initialized, registered home with 'ch39x sim'"
	else
		result FAIL usbip-mbim-query "mbimcli: caps $c1, subscriber $c2, registration $c3 (0 = as expected; see usbip-mbimcli.log)"
	fi
	uip_mbimcli --attach-packet-service &&
		uip_has "Packet service state: 'attached'"
	c1=$?
	uip_mbimcli "--connect=access-string=internet,ip-type=ipv4v6" &&
		uip_has "Successfully connected" "Activation state: 'activated'" \
			"IP [0]: '100.64.39.2/30'" "Gateway: '100.64.39.1'" \
			"DNS [0]: '198.51.100.1'" "MTU: '1500'" \
			"IP [0]: '2001:db8:39::2/64'" "Gateway: 'fe80::1'"
	c2=$?
	uip_mbimcli --query-ip-configuration &&
		uip_has "IP [0]: '100.64.39.2/30'" "IP [0]: '2001:db8:39::2/64'"
	c3=$?
	# Session 1 with a wrong APN: refused by the network.
	uip_mbimcli "--connect=session-id=1,access-string=wrong" &&
		uip_has "Successfully connected"
	c4=$?
	w4=$(echo "$UIP_MBIM" | tail -n 1)
	# 188 bytes, cut at 128 by cdc-wdm: the model sees a short message.
	uip_mbimcli "--connect=session-id=2,access-string=a-forty-character-access-point-name.test"
	c5=$?
	if [ $c1 = 0 ] && [ $c2 = 0 ] && [ $c3 = 0 ] && [ $c4 != 0 ] &&
	   echo "$w4" | grep -qi "InvalidAccessString\|invalid-access-string\|access string" &&
	   [ $c5 != 0 ] && uip_has "LengthMismatch"; then
		result PASS usbip-mbim-connect "mbimcli: attached, connected with apn=internet (IPv4v6): 100.64.39.2/30 via 100.64.39.1, DNS 198.51.100.1, MTU 1500, 2001:db8:39::2/64 via fe80::1, read back with --query-ip-configuration; apn=wrong refused ($w4); a 188-byte CONNECT cut to 128 by cdc-wdm answered LengthMismatch"
	else
		result FAIL usbip-mbim-connect "mbimcli: attach $c1, connect $c2, ip configuration $c3 (0 expected), wrong APN $c4 ($w4), 188-byte CONNECT $c5 (refusals expected; see usbip-mbimcli.log)"
		return
	fi
	# The session as the kernel's netdev; the model's far host in a
	# namespace at 198.51.100.1, routing the UE's /30 to the modem.
	ns=uip$tag
	ns_new $ns && $IPB link set uip$tag netns $ns &&
		$IPB -n $ns addr add 198.51.100.1/24 dev uip$tag &&
		$IPB -n $ns link set uip$tag up &&
		$IPB -n $ns route add 100.64.39.0/30 via 198.51.100.2 &&
		$IPB addr add 100.64.39.2/30 dev "$UIP_NET" &&
		$IPB link set "$UIP_NET" up &&
		$IPB route add 198.51.100.0/24 via 100.64.39.1 dev "$UIP_NET"
	e0=$(nstat "$UIP_NET" rx_errors)
	if ! chroot /host /usr/bin/ping -n -q -c 1 -w 10 -I "$UIP_NET" \
		198.51.100.1 > /dev/null 2>&1; then
		result FAIL usbip-mbim-ping "$UIP_NET -> 198.51.100.1: no echo reply in 10 s"
		return
	fi
	UIP_SWEEP=$(timeout 240 chroot /host python3 \
		"$ROOT/tests/vm/ping_sweep.py" "$UIP_NET" 198.51.100.1 0 1472 \
		--step 1 2>&1)
	if [ $? = 0 ]; then
		result PASS usbip-mbim-ping "$UIP_NET (session 0) -> the operator's host, DF set: $UIP_SWEEP"
	else
		result FAIL usbip-mbim-ping "$UIP_NET -> 198.51.100.1: $UIP_SWEEP"
	fi
	# IPv6: the session's router advertisement (the model's answer to
	# wwan0's solicitation) gives wwan0 an address in 2001:db8:39::/64;
	# echo to the operator's host at 2001:db8:ff::1.
	nsx $ns /bin/sh -c "echo 0 > /proc/sys/net/ipv6/conf/uip$tag/disable_ipv6"
	# guest.sh turns IPv6 off for every new netdev: on for wwan0 (up
	# already), which then takes its link-local address and solicits.
	echo 0 > "/proc/sys/net/ipv6/conf/$UIP_NET/disable_ipv6"
	$IPB -n $ns addr add 2001:db8:ff::1/64 dev uip$tag nodad
	$IPB -n $ns route add 2001:db8:39::/64 via 2001:db8:ff::2
	i=0
	a6=""
	while [ $i -lt 50 ] && [ -z "$a6" ]; do
		a6=$($IPB -6 addr show dev "$UIP_NET" scope global 2>/dev/null |
			sed -n 's/.*inet6 \(2001:db8:39:[^ ]*\).*/\1/p' | head -n 1)
		[ -n "$a6" ] && break
		sleep 0.2
		i=$((i + 1))
	done
	rx6=$(chroot /host /usr/bin/ping -6 -n -q -c 3 -i 0.3 -w 8 \
		-I "$UIP_NET" 2001:db8:ff::1 2>&1 |
		sed -n 's/.* \([0-9]*\) received.*/\1/p')
	r6=$($IPB -6 route show dev "$UIP_NET" default 2>/dev/null | head -n 1)
	if [ -n "$a6" ] && [ "${rx6:-0}" = 3 ]; then
		result PASS usbip-mbim-ipv6 "$UIP_NET took $a6 from the session's RA (default: ${r6:-none}); 3 of 3 echo replies from 2001:db8:ff::1"
	else
		result FAIL usbip-mbim-ipv6 "$UIP_NET: address from the RA '${a6:-none}', default route '${r6:-none}', ${rx6:-0} of 3 echo replies from 2001:db8:ff::1"
	fi
	# iperf3 as uip_iperf, with the session's addresses.
	ok=0
	UIP_IPERF=""
	for dir in up down; do
		j=usbip-iperf-$tag-$dir.json
		nsx $ns timeout $((UIP_IPERF_SECS + 60)) iperf3 -s -1 -J \
			> "/out/usbip-iperf-$tag-$dir-srv.json" 2>&1 &
		sp=$!
		i=0
		while [ $i -lt 50 ] && ! nsx $ns ss -Hltn 'sport = :5201' |
			grep -q LISTEN; do
			sleep 0.2
			i=$((i + 1))
		done
		r=""
		[ $dir = down ] && r=-R
		timeout $((UIP_IPERF_SECS + 50)) chroot /host iperf3 \
			-c 198.51.100.1 -B 100.64.39.2 -t $UIP_IPERF_SECS $r -J \
			> "/out/$j" 2>&1
		rc=$?
		i=0
		while kill -0 $sp 2>/dev/null && [ $i -lt 25 ]; do
			sleep 0.2
			i=$((i + 1))
		done
		kill $sp 2>/dev/null
		wait $sp 2>/dev/null
		bps=$(chroot /host python3 -c '
import json, sys
try:
    e = json.load(open(sys.argv[1]))["end"]["sum_received"]
    print("%.1f %d" % (e["bits_per_second"] / 1e6, e["bytes"]))
except Exception:
    print("- 0")' "$OUT/$j")
		UIP_IPERF="$UIP_IPERF$dir ${bps% *} Mbit/s (${bps#* } bytes), "
		[ $rc -eq 0 ] && [ "${bps#* }" -gt 0 ] 2>/dev/null &&
			ok=$((ok + 1))
	done
	if [ $ok = 2 ]; then
		result PASS usbip-mbim-iperf "iperf3 TCP ${UIP_IPERF_SECS} s each way through $UIP_NET: ${UIP_IPERF%, }"
	else
		result FAIL usbip-mbim-iperf "iperf3 TCP through $UIP_NET: ${UIP_IPERF%, } (see /out/usbip-iperf-$tag-*.json)"
	fi
	# Disconnected, the session carries nothing.
	uip_mbimcli --disconnect && uip_has "Successfully disconnected"
	c1=$?
	rx=$(chroot /host /usr/bin/ping -n -q -c 3 -i 0.3 -w 4 -I "$UIP_NET" \
		198.51.100.1 2>&1 | sed -n 's/.* \([0-9]*\) received.*/\1/p')
	uip_stats
	e1=$(nstat "$UIP_NET" rx_errors)
	bad=$(uip_stat "$b" model_tx_bad_records)
	fl=$(( $(uip_stat "$b" bulk_in_failed) + $(uip_stat "$b" bulk_out_failed) ))
	if [ $c1 = 0 ] && [ "${rx:-0}" = 0 ] && [ $((e1 - e0)) = 0 ] &&
	   [ "$bad" = 0 ] && [ "$fl" = 0 ]; then
		result PASS usbip-mbim-disconnect "mbimcli --disconnect: 0 of 3 echo replies after it; $UIP_NET rx_errors 0, model: $bad bad NTBs, $fl failed URBs, $(uip_stat "$b" intr_in_completed) RESPONSE_AVAILABLE notifications, $(uip_stat "$b" class_req_0x00) SEND_ENCAPSULATED_COMMAND"
	else
		result FAIL usbip-mbim-disconnect "disconnect $c1, echo replies after it ${rx:-0} (0 expected), $UIP_NET rx_errors $((e1 - e0)), model bad NTBs $bad, failed URBs $fl"
	fi
}

# ---- the PMD on the same modem over USB/IP: ch39x-cpe's MBIM WAN ----

# uip_cpe_ctl CMD: the guest's router's telemetry (ch39x-cpe-ctl), JSON
uip_cpe_ctl() {
	timeout 20 chroot /host python3 "$ROOT/usertools/ch39x-cpe-ctl" \
		-p cpe_uip "$1" 2>/dev/null
}

# uip_mbim_pmd: ch39x-cpe in the guest, its WAN the modem through the
# PMD's libusb backend (cdc_mbim detached, bound again at exit), its LAN
# a simulated NCM port whose TAP is a LAN host (namespace uiplan,
# 192.168.75.2). The PMD dials the modem (apn=internet); the router
# follows the session (--wan 1=mbim): its 100.64.39.2/30 (protocol
# reference section 24) and gateway, its /64 on the LAN (pd, router
# 2001:db8:39::1), ::/0 from the session's RA, no ARP or ND asked of the
# PMD; the LAN host reaches the operator's host (uip_mbim's namespace
# uipmbim, 198.51.100.1 and 2001:db8:ff::1) through NAT and the modem:
# pings of several sizes, IPv6 pings, iperf3 both ways; the port's
# counters; cdc_mbim back after. About 45 s of guest time under TCG (the
# dial 16 s of it).
uip_mbim_pmd() {
	tag=mbim
	b=$(uip_field $tag 1)
	path=$(uip_port "$b" | cut -d' ' -f2)
	cpe_bin=${PMD_SO%/drivers/net/ch39x/*}/app/ch39x-cpe/ch39x-cpe
	if ! pmd_prepare || [ ! -x "/host$cpe_bin" ] || [ -z "$path" ]; then
		result FAIL usbip-mbim-pmd "no PMD, ch39x-cpe ($cpe_bin) or modem ($path)"
		return
	fi
	ns_new uiplan
	timeout 150 chroot /host "$cpe_bin" -l 1 --no-huge --no-pci -m 256 \
		--file-prefix cpe_uip -d "$PRIV/librte_net_ch39x.so" \
		--vdev "net_ch39x0,sim=ncm,sim_rate=unlimited,wire=tap:uiplan0" \
		--vdev "net_ch39x1,dev=1a86:*,path=$path,proto=mbim,apn=internet" \
		-- --lan 0=192.168.75.1/24 --lan 0=pd --tap 0=uipl6 \
		--wan 1=mbim --json \
		> /out/usbip-mbim-cpe.json 2> /out/usbip-mbim-cpe.err &
	job=$!
	i=0
	while [ $i -lt 240 ] && ! grep -q "forwarding on 2 ports" \
		/out/usbip-mbim-cpe.err 2>/dev/null; do
		kill -0 $job 2>/dev/null || break
		sleep 0.25
		i=$((i + 1))
	done
	if ! grep -q "forwarding on 2 ports" /out/usbip-mbim-cpe.err; then
		result FAIL usbip-mbim-pmd "ch39x-cpe did not start: $(grep -v '^EAL: Detected' /out/usbip-mbim-cpe.err | tail -n 4 | tr '\n' ' ')"
		kill $job 2>/dev/null
		wait $job 2>/dev/null
		return
	fi
	$IPB link set uiplan0 netns uiplan
	$IPB -n uiplan addr add 192.168.75.2/24 dev uiplan0
	$IPB -n uiplan link set uiplan0 up
	$IPB -n uiplan route add default via 192.168.75.1
	nsx uiplan /bin/sh -c "echo 0 > /proc/sys/net/ipv6/conf/uiplan0/disable_ipv6"
	$IPB -n uiplan addr add 2001:db8:39::100/64 dev uiplan0 nodad
	$IPB -n uiplan -6 route add default via 2001:db8:39::1
	i=0
	st=""
	while [ $i -lt 60 ]; do
		st=$(uip_cpe_ctl /ch39x/mbim,1)
		case $st in *'"state": "connected"'*) break ;; esac
		sleep 0.5
		i=$((i + 1))
	done
	case $st in
	*'"address": "100.64.39.2/30"'*'"gateway": "100.64.39.1"'*)
		result PASS usbip-mbim-pmd-dial "the PMD dialed the modem over USB/IP (cdc_mbim detached): $(echo "$st" | tr -d '\n' | cut -c1-300)" ;;
	*)
		result FAIL usbip-mbim-pmd-dial "/ch39x/mbim,1 after 30 s: $st"
		kill -TERM $job 2>/dev/null
		wait $job 2>/dev/null
		return ;;
	esac
	# The router follows the session: /cpe/wan (the RA may come later).
	i=0
	wv=""
	while [ $i -lt 40 ]; do
		wv=$(uip_cpe_ctl /cpe/wan | chroot /host python3 -c '
import json, sys
j = json.load(sys.stdin)
print(j["mode"], j["address"], j["gateway"], j["prefix6"], j["gateway6"], j["mbim_state"])' 2>/dev/null)
		[ "$wv" = "mbim 100.64.39.2/30 100.64.39.1 2001:db8:39::/64 fe80::1 connected" ] && break
		sleep 0.5
		i=$((i + 1))
	done
	if [ "$wv" = "mbim 100.64.39.2/30 100.64.39.1 2001:db8:39::/64 fe80::1 connected" ]; then
		result PASS usbip-mbim-pmd-wan "--wan 1=mbim: the router took the session's configuration (mode address gateway prefix6 gateway6 state: $wv)"
	else
		result FAIL usbip-mbim-pmd-wan "/cpe/wan: '$wv'"
	fi
	rx6=$(nsx uiplan /usr/bin/ping -6 -n -q -c 3 -i 0.3 -w 10 \
		2001:db8:ff::1 2>&1 | sed -n 's/.* \([0-9]*\) received.*/\1/p')
	if [ "${rx6:-0}" = 3 ]; then
		result PASS usbip-mbim-pmd-ipv6 "LAN host 2001:db8:39::100 -> 2001:db8:ff::1 through ch39x-cpe and the PMD's MBIM session: 3 of 3 echo replies"
	else
		result FAIL usbip-mbim-pmd-ipv6 "LAN host -> 2001:db8:ff::1: ${rx6:-0} of 3 echo replies"
	fi
	# The LAN host to the operator's host: sizes, NAT, the modem.
	ok=0
	n=0
	for sz in 0 56 100 512 1000 1400 1472; do
		n=$((n + 1))
		nsx uiplan /usr/bin/ping -n -q -c 2 -i 0.3 -W 5 -M do -s $sz \
			198.51.100.1 > /dev/null 2>&1 && ok=$((ok + 1))
	done
	UIP_IPERF=""
	io=0
	for dir in up down; do
		nsx uipmbim timeout 60 iperf3 -s -1 -B 198.51.100.1 -J \
			> "/out/usbip-mbim-pmd-$dir-srv.json" 2>&1 &
		sp=$!
		i=0
		while [ $i -lt 50 ] && ! nsx uipmbim ss -Hltn 'sport = :5201' |
			grep -q LISTEN; do
			sleep 0.2
			i=$((i + 1))
		done
		r=""
		[ $dir = down ] && r=-R
		nsx uiplan timeout 50 iperf3 -c 198.51.100.1 \
			-t $UIP_IPERF_SECS $r -J \
			> "/out/usbip-mbim-pmd-$dir.json" 2>&1
		rc=$?
		wait $sp 2>/dev/null
		bps=$(chroot /host python3 -c '
import json, sys
try:
    e = json.load(open(sys.argv[1]))["end"]["sum_received"]
    print("%.1f %d" % (e["bits_per_second"] / 1e6, e["bytes"]))
except Exception:
    print("- 0")' "$OUT/usbip-mbim-pmd-$dir.json")
		UIP_IPERF="$UIP_IPERF$dir ${bps% *} Mbit/s, "
		[ $rc -eq 0 ] && [ "${bps#* }" -gt 0 ] 2>/dev/null &&
			io=$((io + 1))
	done
	xs=$(uip_cpe_ctl /ethdev/xstats,1)
	xv=$(echo "$xs" | chroot /host python3 -c '
import json, sys
j = json.load(sys.stdin)
print(j["tx_mbim_answered"], j["rx_ncm_bad_datagrams"], j["mbim_function_errors"], j["mbim_dials"], j["rx_good_packets"], j["tx_good_packets"])' 2>/dev/null)
	# Point to point: the router asked the PMD no ARP or ND.
	if [ $ok = $n ] && [ $io = 2 ] && [ "${xv%% *}" = 0 ]; then
		result PASS usbip-mbim-pmd-nat "LAN host -> 198.51.100.1 through ch39x-cpe's NAT and the PMD's MBIM port: $ok of $n ping sizes 0..1472 (DF), iperf3 TCP ${UIP_IPERF%, }; WAN port: answered/bad datagrams/FUNCTION_ERROR/dials/rx/tx $xv"
	else
		result FAIL usbip-mbim-pmd-nat "pings $ok of $n, iperf3 ${UIP_IPERF%, } ($io of 2); WAN port $xv"
	fi
	kill -TERM $job 2>/dev/null
	i=0
	while kill -0 $job 2>/dev/null && [ $i -lt 150 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	wait $job
	arc=$?
	uip_stats
	bad=$(uip_stat "$b" model_tx_bad_records)
	if [ $arc = 0 ] && uip_bound $tag cdc_mbim && [ "$bad" = 0 ]; then
		result PASS usbip-mbim-pmd-exit "ch39x-cpe exited 0 (the session hung up, the function closed); cdc_mbim bound again ($UIP_NET); the model saw $bad bad NTBs"
	else
		result FAIL usbip-mbim-pmd-exit "ch39x-cpe exit $arc, cdc_mbim '$UIP_NET', model bad NTBs $bad: $(tail -n 3 /out/usbip-mbim-cpe.err | tr '\n' ' ')"
	fi
}

# ---- the run ----

uip_start() {
	mkdir -p "/host$UIP_RUN"
	args=""
	for l in $UIP_DEVS; do
		bid=${l%%:*}
		rest=${l#*:}
		tag=${rest%%:*}
		args="$args --dev $bid=${rest#*:},wire=tap:uip$tag"
	done
	rm -f "/host$UIP_RUN/ready"
	# shellcheck disable=SC2086
	chroot /host "$UIP_BIN" --listen 127.0.0.1:$UIP_PORT \
		--stats $UIP_STATS --ready $UIP_RUN/ready $args \
		> /out/usbip-server.log 2>&1 &
	UIP_PID=$!
	i=0
	while [ ! -f "/host$UIP_RUN/ready" ] && [ $i -lt 100 ]; do
		kill -0 $UIP_PID 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	[ -f "/host$UIP_RUN/ready" ]
}

uip_stop() {
	kill -TERM "$UIP_PID" 2>/dev/null
	i=0
	while kill -0 "$UIP_PID" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -9 "$UIP_PID" 2>/dev/null
	wait "$UIP_PID" 2>/dev/null
	cp "/host$UIP_STATS" /out/usbip-stats.txt 2>/dev/null
}

usbip_run() {
	mp=""
	if [ "$(param vmt_mbim_perf)" = 1 ]; then
		# MBIM_PERF=1: the modem alone, Linux and ch39x-cpe through it.
		. "/host${S%/*}/mbim_perf.sh"
		UIP_DEVS=$(echo "$UIP_DEVS" | grep ':mbim:')
		mp="$(cat /modules/perf.list) $(cat /modules/cpe.list)"
	fi
	# shellcheck disable=SC2046
	for m in $(cat /modules/usbip.list) $(cat /modules/hostdrv.list) \
		 $(cat /modules/mbim.list) $mp; do
		insmod "/modules/$m.ko" || echo "[guest] insmod $m failed"
	done
	if [ ! -x "/host$UIP_BIN" ] || [ ! -x /host/usr/sbin/usbip ] ||
	   [ ! -x /host/usr/bin/iperf3 ]; then
		result FAIL usbip-setup "need $UIP_BIN (ninja -C build), Debian's usbip and iperf3 on the host"
		return
	fi
	if [ ! -e "$VHCI/attach" ] || ! uip_start; then
		result FAIL usbip-setup "vhci-hcd ($VHCI/attach) or the server did not come up: $(tail -n 3 /out/usbip-server.log | tr '\n' ' ')"
		return
	fi
	# The tool's own listing of what the server exports.
	l=$(chroot /host /usr/sbin/usbip --tcp-port $UIP_PORT list -r 127.0.0.1 2>&1)
	echo "$l" > /out/usbip-list.txt
	miss=""
	for l2 in $UIP_DEVS; do
		echo "$l" | grep -q "^ *${l2%%:*}: .*(1a86:5398)" ||
			miss="$miss ${l2%%:*}"
	done
	if [ -z "$miss" ]; then
		result PASS usbip-list "usbip list -r: $(echo "$l" | grep -c '(1a86:') devices, $(echo "$UIP_DEVS" | wc -l) expected, each 1a86:5398 with its interfaces"
	else
		result FAIL usbip-list "usbip list -r misses$miss: $(echo "$l" | tr '\n' ' ')"
	fi
	t0=$(up)
	for l2 in $UIP_DEVS; do
		uip_attach "${l2%%:*}" || echo "[usbip] attach ${l2%%:*}: $UIP_ERR"
	done
	echo "[usbip] attached at uptime $(up) s ($(echo "$t0 $(up)" | awk '{ printf "%.1f", $2 - $1 }') s)"
	cat "$VHCI/status" > /out/usbip-vhci-status.txt
	if [ -n "$mp" ]; then
		mbim_perf
		uip_stop
		return
	fi
	uip_traffic ncm cdc_ncm 0 1472 1 iperf
	nq=$UIP_NET
	uip_traffic ecm cdc_ether 0 1472 1 iperf
	uip_traffic ndpend cdc_ncm 0 1472 7
	uip_traffic nomaxdg cdc_ncm 0 1472 97
	uip_quirk_maxdg
	uip_quirk_ntb32
	uip_traffic rndis rndis_host 0 1472 1 iperf && uip_rndis_ctrl
	uip_mbim
	uip_mbim_pmd
	# Every port given back; the server sees each client go.
	for l2 in $UIP_DEVS; do
		p=$(uip_port "${l2%%:*}" | cut -d' ' -f1)
		[ -n "$p" ] && timeout 30 chroot /host /usr/sbin/usbip detach \
			-p "$p" > /dev/null 2>&1
	done
	# Ports in use still name the device they hold (local_busid).
	i=0
	while [ $i -lt 50 ]; do
		uip_stats
		att=0
		for l2 in $UIP_DEVS; do
			att=$((att + $(uip_stat "${l2%%:*}" attached)))
		done
		left=$(awk 'FNR > 1 && $7 != "0-0"' "$VHCI/status" \
			"$VHCI"/status.* 2>/dev/null | wc -l)
		[ $att = 0 ] && [ "$left" = 0 ] && break
		sleep 0.2
		i=$((i + 1))
	done
	cat "$VHCI/status" > /out/usbip-vhci-status-end.txt
	if [ $att = 0 ] && [ "$left" = 0 ] && [ ! -e "/sys/class/net/$nq" ]; then
		result PASS usbip-detach "usbip detach: every port free again, the server saw each client go ($(uip_stat 1-1 detaches) detach of 1-1), $nq gone"
	else
		result FAIL usbip-detach "still attached at the server: $att; vhci ports not free: $left; $nq present: $([ -e "/sys/class/net/$nq" ] && echo yes || echo no)"
	fi
	uip_stop
}
