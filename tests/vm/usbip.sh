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
1-5:ntb32:sim=ncm,usb_speed=high,sim_quirks=ntb32_only"
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
	for m in $(cat /modules/usbip.list) $(cat /modules/hostdrv.list); do
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
	uip_traffic ncm cdc_ncm 0 1472 1 iperf
	nq=$UIP_NET
	uip_traffic ecm cdc_ether 0 1472 1 iperf
	uip_traffic ndpend cdc_ncm 0 1472 7
	uip_traffic nomaxdg cdc_ncm 0 1472 97
	uip_quirk_maxdg
	uip_quirk_ntb32
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
