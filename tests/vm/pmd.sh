# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# The PMD on a real USB stack, run by tests/vm/guest.sh (busybox sh, in the
# guest) after the transport tests. dpdk-testpmd from the host root, in
# icmpecho mode, drives one gadget through net_ch39x's libusb backend
# (--vdev net_ch39x0,dev=VID:PID,path=...), and the guest's own Linux
# pings the DPDK port:
#
#   ffs-ch398  1a86:5398 configuration 3   tests/vm/ch39x_gadget.c: the
#   ffs-ch397  1a86:5397 configuration 1   simulated chip served over
#              (USB 2.0 part: high speed   FunctionFS, its cable a TAP
#              only)                       interface the guest pings from
#   ncm        1209:0001 (guest.sh)        f_ncm: pinged from its netdev
#   ecm        1209:0002 (guest.sh)        f_ecm: likewise, plus jumbo
#   handover   1209:0003 (guest.sh)        ECM in configuration 1, NCM in
#                                          2: the PMD switches to 2 and
#                                          back; then ch39x-usb bind, a
#                                          run, ch39x-usb unbind
#   replug     the ncm gadget              reconnect=on: unplugged and
#                                          back (tests/vm/replug.sh); the
#                                          ECM and vendor runs end with
#                                          RP_SHORT such cycles
#                                          (rp_cycles)
#   cpereplug  cpe.sh's two gadgets, each  ch39x-cpe's WAN pulled in an
#              ACM + ECM/NCM               iperf3 transfer (cpe_replug.sh)
#   composite  1209:000a, 1209:000b        a serial port beside NCM and
#              (composite.sh)              ECM: the PMD takes only the
#                                          network function
#   twins      1209:0004 x 2 (here)        two identical ECM gadgets told
#                                          apart by serial and path,
#                                          driven by testpmd as an
#                                          unprivileged user with the udev
#                                          rule's access
#
# The --vdev strings of the vendor gadgets are the ones ch39x-usb status
# prints. After each CDC run the kernel's driver (cdc_ncm, cdc_ether) must
# be bound again with its netdev, and that netdev must pass traffic.
#
# Every ping run asserts the replies counted by ping (N transmitted, N
# received for each payload size), then the counters on both ends:
# testpmd's port statistics, the gadget's netdev or the FunctionFS
# program's and device model's counters.
#
# Sourced by guest.sh, which provides result(), param(), up(), devpath(),
# gadget(), gfunc(), config(), netdev(), usbtool(), usb_status(),
# usb_expect(), usb_get(), $G, $SPEED, $OUT, $ROOT, $KDRV, and has loaded
# the USB modules.
# §N: section N of doc/guides/nics/ch39x_protocol.rst

. "/host${S%/*}/replug.sh"

PMD_SO=$(param vmt_pmd)
GBIN=$(param vmt_gadget)
PMD_TESTS=$(param vmt_pmd_tests | tr ',' ' ')
PRIV=/run/ch39x-pmd		# in the chroot: tmpfs, not world-writable
TP_TIMEOUT=${TP_TIMEOUT:-240}	# one testpmd run, seconds
# 462/463 and 974/975: the vendor TX record (8-byte header, frame, padded
# to 4) is exactly 512 / 1024 bytes at the first of each pair
PING_SIZES="56 128 256 462 463 512 974 975 1400 1472"
PING_COUNT=3

# EAL refuses a plugin below a world-writable directory: /run is the
# init's tmpfs (1777), made 0755 here; the copy lives in a 0700 directory.
pmd_prepare() {
	chmod 755 /host/run
	mkdir -p /host$PRIV
	chmod 700 /host$PRIV
	if [ -z "$PMD_SO" ] || [ ! -f "/host$PMD_SO" ]; then
		result FAIL pmd-setup "no PMD at '$PMD_SO' (build it first: ninja -C build)"
		return 1
	fi
	cp "/host$PMD_SO" /host$PRIV/librte_net_ch39x.so
	# EAL dlopens every plugin of the default directory (Debian: 128
	# drivers) at each start: seconds under TCG over 9p. In the guest,
	# that directory shows the ring mempool driver testpmd needs as a
	# plugin, and every library under its soname only (which the dynamic
	# linker finds for testpmd's own dependencies and EAL skips).
	for d in /host/usr/lib/*/dpdk/pmds-*; do
		[ -f "$d/librte_mempool_ring.so" ] || continue
		all=/run/dpdk-pmds-all
		mkdir -p "/host$all"
		mount --bind "$d" "/host$all" || continue
		mount -t tmpfs -o mode=755 tmpfs "$d" || continue
		for f in "/host$all"/*.so.[0-9]*; do
			f=${f##*/}
			case $f in
			*.so.[0-9]*.*) ;;
			*) ln -s "$all/$f" "$d/$f" ;;
			esac
		done
		ln -s "$all/librte_mempool_ring.so" "$d/librte_mempool_ring.so"
		echo "[pmd] EAL plugins in ${d#/host}: librte_mempool_ring.so only"
	done
	if [ ! -x "/host/usr/bin/dpdk-testpmd" ]; then
		result FAIL pmd-setup "no /usr/bin/dpdk-testpmd on the host (dpdk package)"
		return 1
	fi
	if [ ! -x /host/usr/bin/ping ] && [ ! -x /host/bin/ping ]; then
		result FAIL pmd-setup "no iputils ping on the host (iputils-ping package)"
		return 1
	fi
	return 0
}

# ---- dpdk-testpmd, driven through a FIFO ----

TP_N=0
# tp_start NAME DEVARGS [testpmd args...]: starts interactive testpmd with
# forwarding already on (icmpecho unless the args say otherwise) and waits
# for its prompt. Sets TP_LOG; returns 1 (with TP_ERR) when it never got
# there. TP_AS: a command testpmd runs under (another user); TP_EAL: more
# EAL arguments; TP_PLUGIN: the PMD to load; TP_DRV: its device name (the
# --vdev is "$TP_DRV,DEVARGS").
TP_AS=""
TP_EAL=""
TP_PLUGIN=$PRIV/librte_net_ch39x.so
TP_DRV=net_ch39x0
tp_start() {
	name=$1
	devargs=$2
	shift 2
	TP_N=$((TP_N + 1))
	TP_LOG=/out/testpmd-$SPEED-$name.log
	TP_FIFO=/tmp/tp.fifo.$TP_N
	rm -f "$TP_FIFO"
	mkfifo "$TP_FIFO"
	# Line-buffered, so that statistics asked for mid-run reach the log.
	# shellcheck disable=SC2086
	timeout "$TP_TIMEOUT" chroot /host $TP_AS /usr/bin/stdbuf -oL \
		/usr/bin/dpdk-testpmd -l 0-1 \
		--no-huge --no-pci --no-shconf -m 192 \
		--file-prefix "ch39x_vm$TP_N" $TP_EAL \
		-d "$TP_PLUGIN" --vdev "$TP_DRV,$devargs" \
		-- -i --auto-start --nb-cores=1 --total-num-mbufs=2048 \
		--forward-mode=icmpecho "$@" \
		< "$TP_FIFO" > "$TP_LOG" 2>&1 &
	TP_PID=$!
	exec 3> "$TP_FIFO"
	TP_ERR=""
	i=0
	while [ $i -lt 600 ]; do
		# The prompt is written unbuffered, the rest of stdout only
		# when flushed: the prompt after --auto-start means the port
		# is started and forwarding. Line-buffered output can land in
		# the middle of the prompt ("teDone...stpmd> "), so the line
		# that auto-start prints counts as well.
		if grep -qE "testpmd> |^Start automatic packet forwarding" \
		    "$TP_LOG" 2>/dev/null; then
			return 0
		fi
		if ! kill -0 "$TP_PID" 2>/dev/null; then
			TP_ERR=$(grep -E "net_ch39x|ch39x|af_packet|af_xdp|AF_XDP|EAL: Error|Cause" "$TP_LOG" |
				grep -v '^EAL: Detected' | tail -n 4 | tr '\n' ' ')
			[ -n "$TP_ERR" ] || TP_ERR="testpmd exited: $(tail -n 3 "$TP_LOG" | tr '\n' ' ')"
			exec 3>&-
			return 1
		fi
		sleep 0.2
		i=$((i + 1))
	done
	TP_ERR="no testpmd prompt in 120 s"
	return 1
}

# tp_finish: stop forwarding, print the statistics, quit; waits (bounded).
tp_finish() {
	if kill -0 "$TP_PID" 2>/dev/null; then
		echo "stop" >&3
		echo "show port stats 0" >&3
		echo "show port xstats 0" >&3
		echo "quit" >&3
	fi
	exec 3>&-
	i=0
	while kill -0 "$TP_PID" 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	if kill -0 "$TP_PID" 2>/dev/null; then
		kill "$TP_PID" 2>/dev/null
		sleep 1
		kill -9 "$TP_PID" 2>/dev/null
		echo "[pmd] testpmd did not quit; killed"
	fi
	wait "$TP_PID" 2>/dev/null
	rm -f "$TP_FIFO"
}

# Values from the last "show port stats" / "show port xstats" of the log.
tp_stat() {	# RX-packets|RX-errors|TX-packets|RX-bytes|TX-bytes
	case $1 in
	RX-packets|RX-bytes|TX-packets|TX-bytes)
		sed -n '/NIC statistics for port 0/,/####/p' "$TP_LOG" |
			awk -v k="$1:" '{ for (i = 1; i < NF; i++) if ($i == k) v = $(i + 1) } END { print v + 0 }' ;;
	RX-errors)
		sed -n '/NIC statistics for port 0/,/####/p' "$TP_LOG" |
			awk '$1 == "RX-errors:" { v = $2 } END { print v + 0 }' ;;
	TX-errors)
		sed -n '/NIC statistics for port 0/,/####/p' "$TP_LOG" |
			awk '$1 == "TX-packets:" { v = $4 } END { print v + 0 }' ;;
	esac
}
tp_xstat() {	# name
	awk -v k="$1:" '$1 == k { v = $2 } END { print v + 0 }' "$TP_LOG"
}

# ---- pings from the guest's kernel ----

# The guest kernel's ICMP counters (/proc/net/snmp), e.g. OutEchos.
icmp_ctr() {
	awk -v k="$1" '$1 == "Icmp:" { if (!h) { for (i = 2; i <= NF; i++)
		c[$i] = i; h = 1 } else print $(c[k]) }' /proc/net/snmp
}

# Wait (bounded) until every echo request the kernel sent since the
# snapshot has its reply: late replies still count.
icmp_settle() {	# OutEchos-before InEchoReps-before
	i=0
	while [ $i -lt 30 ]; do
		ICMP_OUT=$(($(icmp_ctr OutEchos) - $1))
		ICMP_IN=$(($(icmp_ctr InEchoReps) - $2))
		[ "$ICMP_IN" -ge "$ICMP_OUT" ] && return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}

# ping_sizes TAG IFACE DST: PING_COUNT replies for each of PING_SIZES, one
# ping process per size, all at once; one result line. With -c and -w,
# iputils sends every -i until it has -c replies (a slow reply makes it
# send one more), so the exact check is the kernel's: echo requests out
# == echo replies in, once the stragglers are in. Sets PS_OUT and PS_IN
# (the kernel's counts) and PING_TX, PING_RX (ping's).
ping_sizes() {
	tag=$1
	ifc=$2
	dst=$3
	PING_TX=0
	PING_RX=0
	bad=""
	# The first one resolves the address.
	chroot /host /usr/bin/ping -n -q -c 1 -w 10 -I "$ifc" "$dst" > /dev/null 2>&1
	o0=$(icmp_ctr OutEchos)
	i0=$(icmp_ctr InEchoReps)
	pids=""
	for s in $PING_SIZES; do
		chroot /host /usr/bin/ping -n -q -c $PING_COUNT -i 0.2 -w 20 \
			-I "$ifc" -s "$s" "$dst" > /tmp/ping.$s 2>&1 &
		pids="$pids $!"
	done
	wait $pids
	icmp_settle "$o0" "$i0"
	PS_OUT=$ICMP_OUT
	PS_IN=$ICMP_IN
	for s in $PING_SIZES; do
		cat /tmp/ping.$s >> "/out/ping-$SPEED-$tag.log"
		o=$(sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\1 \2/p' /tmp/ping.$s)
		t=${o% *}
		r=${o#* }
		[ -n "$o" ] || { t=0; r=0; }
		PING_TX=$((PING_TX + t))
		PING_RX=$((PING_RX + r))
		# A late reply can make ping send and get one more: at least
		# PING_COUNT; the kernel's counters check that none was lost.
		[ "${r:-0}" -ge $PING_COUNT ] || bad="$bad $s:$r/$t"
	done
	if [ -z "$bad" ] && [ "$ICMP_OUT" = "$ICMP_IN" ] &&
	   [ "$ICMP_OUT" = "$PING_TX" ]; then
		result PASS "$tag-ping" "$PING_COUNT echo replies for each payload size $(echo $PING_SIZES | tr ' ' ','); kernel: $ICMP_OUT requests out, $ICMP_IN replies in"
	else
		result FAIL "$tag-ping" "replies/requests per size:$bad (sizes not listed got $PING_COUNT); kernel: $ICMP_OUT requests out ($PING_TX by ping), $ICMP_IN replies in"
	fi
}

# netdev counters of the guest's side of the link
nstat() {	# ifname counter
	cat "/sys/class/net/$1/statistics/$2" 2>/dev/null || echo 0
}

# ---- the FunctionFS vendor gadget ----

GS=/host/run/ch39x-gadget	# FunctionFS mounts and stats, in the chroot
UDC_NEXT=4			# dummy_udc.0..3 belong to guest.sh

# ffs_gadget NAME PID CONFIG TAP MAXSPEED: a configfs gadget with one
# FunctionFS function, its program started and the gadget bound. Sets
# FFS_PID (the program), FFS_PATH (USB path), FFS_STATS.
ffs_gadget() {
	gname=$1
	gpid=$2
	gcfg=$3
	gtap=$4
	gmax=$5
	mkdir -p "$GS/$gname"
	gadget "$gname" 0x1a86 "$gpid" || return 1
	echo "$gmax" > "$G/$gname/max_speed"
	mkdir "$G/$gname/functions/ffs.$gname" || return 1
	config "$gname" "c.$gcfg" "ffs.$gname" || return 1
	mount -t functionfs "$gname" "$GS/$gname" || return 1
	gspeed=$SPEED
	[ "$gmax" = high-speed ] && gspeed=high
	FFS_STATS=/run/ch39x-gadget/$gname.stats
	rm -f "$GS/$gname.ready"
	chroot /host "$GBIN" --ffs "/run/ch39x-gadget/$gname" --pid "$gpid" \
		--speed "$gspeed" --tap "$gtap" --stats "$FFS_STATS" \
		--ready "/run/ch39x-gadget/$gname.ready" \
		> "/out/gadget-$SPEED-$gname.log" 2>&1 &
	FFS_PID=$!
	i=0
	while [ ! -f "$GS/$gname.ready" ] && [ $i -lt 100 ]; do
		kill -0 $FFS_PID 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	if [ ! -f "$GS/$gname.ready" ]; then
		echo "[pmd] gadget program: $(cat /out/gadget-$SPEED-$gname.log)"
		return 1
	fi
	FFS_UDC=dummy_udc.$UDC_NEXT
	echo "$FFS_UDC" > "$G/$gname/UDC" || return 1
	UDC_NEXT=$((UDC_NEXT + 1))
	FFS_PATH=$(devpath_wait 1a86 "${gpid#0x}") || return 1
	ip link set "$gtap" up
	return 0
}

ffs_gadget_stop() {	# NAME
	kill -TERM $FFS_PID 2>/dev/null
	i=0
	while kill -0 $FFS_PID 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -9 $FFS_PID 2>/dev/null
	wait $FFS_PID 2>/dev/null
	echo "" > "$G/$1/UDC" 2>/dev/null
}

gstat() {	# counter: from the gadget program's last stats file
	sed -n "s/^$1=//p" "/host$FFS_STATS" | tail -n 1
}

# pmd_ffs NAME PID CONFIG MAXSPEED NET: the whole run on one vendor gadget
pmd_ffs() {
	name=ffs-$1
	tap=cht$1
	net=$5
	if ! ffs_gadget "$1" "$2" "$3" "$tap" "$4"; then
		result FAIL "$name-gadget" "FunctionFS gadget $2 did not come up (see /out/gadget-$SPEED-$1.log)"
		return
	fi
	ip addr add "$net.1/24" dev "$tap"
	sp=$(cat /sys/bus/usb/devices/$FFS_PATH/speed)
	result PASS "$name-gadget" "1a86:${2#0x} at $FFS_PATH, $sp Mb/s, configuration $(cat /sys/bus/usb/devices/$FFS_PATH/bConfigurationValue), cable $tap"
	# ch39x-usb: a CH39x by its IDs, vendor mode, in the configuration
	# it is in; testpmd gets the --vdev string it prints.
	usb_status "$name"
	usb_expect "usbtool-$name" "$name" "$FFS_PATH" proto=vendor \
		chip="$(echo "$1" | tr a-z A-Z)" proto_config="$3" \
		switch_needed=false kernel_drivers=- held_by=- \
		vdev="net_ch39x0,dev=1a86:${2#0x},path=$FFS_PATH"
	vdev=$(usb_get "$name" "$FFS_PATH" vdev)
	t0=$(up)
	if ! tp_start "$name" "${vdev#net_ch39x0,}"; then
		result FAIL "$name-probe" "$TP_ERR"
		tp_finish
		ffs_gadget_stop "$1"
		return
	fi
	t1=$(up)
	result PASS "$name-probe" "testpmd forwarding on $(grep -o 'Port 0: [0-9A-F:]*' "$TP_LOG" | head -n 1 | cut -c9-) after $(echo "$t1 $t0" | awk '{printf "%.1f", $1 - $2}') s"
	tx0=$(nstat "$tap" tx_packets)
	rx0=$(nstat "$tap" rx_packets)
	ping_sizes "$name" "$tap" "$net.2"
	# One at a time, so that nothing shares their transfers: the replies
	# make bulk OUT records of exactly 512 and 1024 bytes, which need
	# the chip's end-of-transfer mark (ZLP on the CH397, TX_LS at high
	# speed on the CH398, none at SuperSpeed, §5).
	eb=""
	for s in 462 974; do
		o=$(chroot /host /usr/bin/ping -n -q -c 1 -w 10 -I "$tap" -s $s \
			"$net.2" 2>&1 | sed -n 's/.* \([0-9]*\) received.*/\1/p')
		[ "$o" = 1 ] || eb="$eb $s"
	done
	tx1=$(nstat "$tap" tx_packets)
	rx1=$(nstat "$tap" rx_packets)
	tp_finish
	kill -USR1 $FFS_PID 2>/dev/null
	sleep 0.5
	prx=$(tp_stat RX-packets)
	ptx=$(tp_stat TX-packets)
	perr=$(tp_stat RX-errors)
	ptxe=$(tp_stat TX-errors)
	echo "[pmd] $name: testpmd rx=$prx tx=$ptx rx_err=$perr tx_err=$ptxe; $tap tx=$((tx1 - tx0)) rx=$((rx1 - rx0))"
	echo "[pmd] $name: gadget $(tr '\n' ' ' < "/host$FFS_STATS")"
	# Every request the guest sent reached testpmd over bulk IN, every
	# reply came back over bulk OUT: the ping counts, the PMD's counts,
	# the model's and the TAP's agree.
	if [ "$PS_IN" -gt 0 ] && [ "$prx" -ge "$PS_OUT" ] &&
	   [ "$ptx" -ge "$PS_IN" ] && [ "$perr" = 0 ] && [ "$ptxe" = 0 ] &&
	   [ "$(gstat model_rx_delivered)" -ge "$PS_OUT" ] &&
	   [ "$(gstat model_tx_frames)" -ge "$PS_IN" ] &&
	   [ "$((rx1 - rx0))" -ge "$PS_IN" ]; then
		result PASS "$name-counters" "testpmd rx $prx tx $ptx (0 errors); model delivered $(gstat model_rx_delivered) frames in $(gstat in_xfers) bulk IN transfers, sent $(gstat model_tx_frames) from $(gstat out_xfers) bulk OUT transfers; $tap received $((rx1 - rx0))"
	else
		result FAIL "$name-counters" "kernel echo requests $PS_OUT, replies $PS_IN; testpmd rx $prx tx $ptx errors $perr/$ptxe; model rx_delivered $(gstat model_rx_delivered) tx_frames $(gstat model_tx_frames); $tap rx $((rx1 - rx0))"
	fi
	# The vendor protocol on the bus: requests answered, transfers framed
	# as the chip expects (the end marks seen for the lone 512/1024-byte
	# records), events delivered.
	case "$2/$gspeed" in
	0x5397/*) endk=out_zlp_end; endn=2 ;;
	0x5398/high) endk=model_tx_ls_seen; endn=2 ;;
	*) endk=out_record_end; endn=1 ;;
	esac
	if [ -n "$eb" ]; then
		result FAIL "$name-end-marks" "no reply to the lone ping of size$eb"
	elif [ "$(gstat $endk)" -ge $endn ]; then
		result PASS "$name-end-marks" "lone 512- and 1024-byte TX records: $endk $(gstat $endk) (at least $endn), replies received"
	else
		result FAIL "$name-end-marks" "lone 512- and 1024-byte TX records: $endk $(gstat $endk), expected at least $endn"
	fi
	if [ "$(gstat ctrl_vendor)" -gt 0 ] && [ "$(gstat ctrl_nonvendor)" = 0 ] &&
	   [ "$(gstat ctrl_out_refused)" = 0 ] &&
	   [ "$(gstat model_tx_bad_records)" = 0 ] &&
	   [ "$(gstat model_tx_unterminated)" = 0 ] &&
	   [ "$(gstat model_errors)" = 0 ] && [ "$(gstat intr_events)" -gt 0 ]; then
		result PASS "$name-protocol" "$(gstat ctrl_vendor) vendor requests ($(gstat ctrl_stalled) stalled by the model), $(gstat out_xfers) OUT transfers: $(gstat out_short_end) short-packet ends, $(gstat out_zlp_end) ZLP, $(gstat out_record_end) record-boundary, TX_LS $(gstat model_tx_ls_seen); 0 bad records, 0 unterminated; $(gstat in_zlps) IN ZLPs; $(gstat intr_events) interrupt events"
	else
		result FAIL "$name-protocol" "vendor requests $(gstat ctrl_vendor) (non-vendor $(gstat ctrl_nonvendor), OUT refused $(gstat ctrl_out_refused)); bad records $(gstat model_tx_bad_records), unterminated $(gstat model_tx_unterminated), model errors $(gstat model_errors), interrupt events $(gstat intr_events)"
	fi
	# reconnect=on on the vendor function, the place given by path=
	rp_cycles "$name" "${vdev#net_ch39x0,}" "$1" "$FFS_UDC" 1a86 "${2#0x}" \
		"$tap" "$net.2"
	ffs_gadget_stop "$1"
}

# ---- the CDC gadgets of guest.sh ----

# pmd_cdc TAG VID:PID PATH IFNAME NET [testpmd args]
pmd_cdc() {
	name=$1
	vp=$2
	path=$3
	ifc=$4
	net=$5
	shift 5
	if ! tp_start "$name" "dev=$vp,path=$path" "$@"; then
		result FAIL "$name-probe" "$TP_ERR"
		tp_finish
		return 1
	fi
	result PASS "$name-probe" "testpmd forwarding on $vp at $path"
	tx0=$(nstat "$ifc" tx_packets)
	rx0=$(nstat "$ifc" rx_packets)
	ping_sizes "$name" "$ifc" "$net.2"
	rx1=$(nstat "$ifc" rx_packets)
	return 0
}

pmd_cdc_counters() {	# TAG IFNAME TX-ERRORS-EXPECTED
	prx=$(tp_stat RX-packets)
	ptx=$(tp_stat TX-packets)
	perr=$(tp_stat RX-errors)
	ptxe=$(tp_stat TX-errors)
	if [ "$PS_IN" -gt 0 ] && [ "$prx" -ge "$PS_OUT" ] &&
	   [ "$ptx" -ge "$PS_IN" ] && [ "$perr" = 0 ] &&
	   [ "$ptxe" = "$3" ] && [ "$((rx1 - rx0))" -ge "$PS_IN" ]; then
		result PASS "$1-counters" "testpmd rx $prx tx $ptx (RX errors 0, TX errors $ptxe of $3 expected); $2 received $((rx1 - rx0))"
	else
		result FAIL "$1-counters" "kernel echo requests $PS_OUT, replies $PS_IN; testpmd rx $prx tx $ptx errors $perr/$ptxe; $2 rx $((rx1 - rx0))"
	fi
}

# jumbo DEADLINE IFNAME DST: ping -M do -s 8972 (9014-byte frames);
# prints "sent received"
jumbo_ping() {
	chroot /host /usr/bin/ping -n -q -M do -c 3 -i 0.5 -w "$1" -I "$2" -s 8972 "$3" 2>&1 |
		sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\1 \2/p'
}

# ---- hand-over between the kernel and the PMD ----

# kdrv_back NAME PATH GADGET-IFNAME NET DRIVER [CONFIG [IFNUM]]: after
# testpmd has quit (or ch39x-usb unbind), the kernel's driver is bound
# again to the communication interface (IFNUM, default 0: a composite
# gadget's network function sits after its serial port) with a netdev, in
# CONFIG when given, and
# that netdev passes traffic: moved into a network namespace of its own
# (the guest has both ends of the link: without one the local routing
# table would short-cut the ping), given NET.3 and pinged from the gadget
# side (NET.1).
kdrv_back() {
	kb=$1
	kp=$2
	kg=$3
	kn=$4
	kd=$5
	kc=${6:-}
	ki=${7:-0}
	[ "$KDRV" = 1 ] || return 0
	i=0
	hn=""
	while [ $i -lt 50 ]; do
		cfg=$(cat "/sys/bus/usb/devices/$kp/bConfigurationValue")
		d=/sys/bus/usb/devices/$kp:$cfg.$ki
		if [ -e "$d/driver" ] &&
		   [ "$(basename "$(readlink "$d/driver")")" = "$kd" ] &&
		   { [ -z "$kc" ] || [ "$cfg" = "$kc" ]; }; then
			hn=$(ls "$d/net" 2>/dev/null | head -n 1)
			[ -n "$hn" ] && break
		fi
		sleep 0.1
		i=$((i + 1))
	done
	if [ -z "$hn" ]; then
		drv=none
		[ -e "$d/driver" ] && drv=$(basename "$(readlink "$d/driver")")
		result FAIL "$kb-kdrv-back" "$kp: configuration $cfg (expected ${kc:-any}), $kp:$cfg.$ki driver $drv (expected $kd) with no netdev"
		return 1
	fi
	ipc="chroot /host /usr/sbin/ip"
	$ipc netns add kdrv
	$ipc link set "$hn" netns kdrv
	$ipc -n kdrv addr add "$kn.3/24" dev "$hn"
	$ipc -n kdrv link set "$hn" up
	o=$(chroot /host /usr/bin/ping -n -q -c 3 -i 0.3 -w 20 -I "$kg" "$kn.3" 2>&1 |
		sed -n 's/.* \([0-9]*\) received.*/\1/p')
	$ipc netns del kdrv
	# The netdev comes back to the initial namespace as the namespace goes.
	i=0
	while [ ! -e "/sys/class/net/$hn" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ "${o:-0}" -ge 3 ]; then
		result PASS "$kb-kdrv-back" "$kp configuration $cfg: $kd bound again with $hn, which passes traffic ($kg -> $hn: ${o} of 3 echo replies)"
	else
		result FAIL "$kb-kdrv-back" "$kp configuration $cfg: $kd bound again with $hn, but $kg -> $hn: ${o:-0} of 3 echo replies"
	fi
}

# ping3 IFNAME DST: echo replies of 3 requests
ping3() {
	chroot /host /usr/bin/ping -n -q -c 3 -i 0.3 -w 20 -I "$1" "$2" 2>&1 |
		sed -n 's/.* \([0-9]*\) received.*/\1/p'
}

# The two-configuration gadget of guest.sh (ECM in 1, NCM in 2): the PMD
# switches to NCM and back by itself; then ch39x-usb bind makes the switch,
# the PMD finds the device free and leaves it so, ch39x-usb unbind hands
# it back; then kernel_driver=keep leaves the PMD's switch in place and
# ch39x-usb unbind hands the device back.
pmd_handover() {
	if tp_start handover-pmd "dev=1209:0003,path=$P3"; then
		o=$(ping3 "$N4" 169.254.80.2)
		tp_finish
		tk=$(grep -c "taken from kernel driver" "$TP_LOG")
		rs=$(grep -c "configuration 1 restored (the backend had switched to 2)" "$TP_LOG")
		want=0
		[ "$KDRV" = 1 ] && want=1
		if [ "${o:-0}" -ge 3 ] && [ "$rs" = 1 ] && [ "$tk" -ge "$want" ]; then
			result PASS handover-pmd "testpmd on $P3 (proto=auto: NCM, configuration 2): ${o} of 3 echo replies on $N4; log: $tk interface(s) taken from a kernel driver, configuration 1 restored at close: $(grep -m 1 "restored (the backend" "$TP_LOG" | sed 's/.*net_ch39x0: //')"
		else
			result FAIL handover-pmd "testpmd on $P3: ${o:-0} of 3 echo replies on $N4; $tk 'taken from kernel driver' line(s) (at least $want expected), $rs 'configuration 1 restored' line(s) (1 expected)"
		fi
	else
		result FAIL handover-pmd "$TP_ERR"
		tp_finish
	fi
	kdrv_back handover-pmd "$P3" "$N3" 169.254.79 cdc_ether 1
	o=$(usbtool bind "$P3" 2>&1)
	usb_status handover-bound
	usb_expect usbtool-bind handover-bound "$P3" active_config=2 \
		switch_needed=false state=free kernel_drivers=- \
		bound_by_tool=true
	echo "[pmd] ch39x-usb bind $P3: $(echo "$o" | tr '\n' ' ')"
	if tp_start handover-bound "dev=1209:0003,path=$P3"; then
		o=$(ping3 "$N4" 169.254.80.2)
		tp_finish
		tk=$(grep -cE "taken from kernel driver|restored \(the backend" "$TP_LOG")
		usb_status handover-after
		if [ "${o:-0}" -ge 3 ] && [ "$tk" = 0 ] &&
		   chroot /host python3 "$ROOT/tests/vm/usbtool_check.py" \
			"$OUT/usb-$SPEED-handover-after.json" "$P3" \
			active_config=2 state=free held_by=- > /dev/null; then
			result PASS handover-bound "testpmd on the bound $P3: ${o} of 3 echo replies on $N4; nothing taken from or given back to the kernel; after quitting still configuration 2 without kernel drivers"
		else
			result FAIL handover-bound "testpmd on the bound $P3: ${o:-0} of 3 echo replies on $N4; $tk hand-over log line(s) (0 expected); after: $(chroot /host python3 "$ROOT/tests/vm/usbtool_check.py" "$OUT/usb-$SPEED-handover-after.json" "$P3")"
		fi
	else
		result FAIL handover-bound "$TP_ERR"
		tp_finish
	fi
	o=$(usbtool unbind "$P3" 2>&1)
	echo "[pmd] ch39x-usb unbind $P3: $(echo "$o" | tr '\n' ' ')"
	if [ "$KDRV" = 1 ]; then
		kdrv_back usbtool-unbind "$P3" "$N3" 169.254.79 cdc_ether 1
	else
		usb_status handover-unbound
		usb_expect usbtool-unbind handover-unbound "$P3" active_config=1
	fi
	# kernel_driver=keep: the PMD switches to 2 and leaves it so; ch39x-usb
	# unbind (nothing saved by bind) lets the kernel choose as at plug-in.
	if tp_start handover-keep "dev=1209:0003,path=$P3,kernel_driver=keep"; then
		o=$(ping3 "$N4" 169.254.80.2)
		tp_finish
		kp=$(grep -c "kernel_driver=keep: left in configuration 2" "$TP_LOG")
		usb_status handover-keep
		if [ "${o:-0}" -ge 3 ] && [ "$kp" = 1 ] &&
		   chroot /host python3 "$ROOT/tests/vm/usbtool_check.py" \
			"$OUT/usb-$SPEED-handover-keep.json" "$P3" \
			active_config=2 kernel_drivers=- held_by=- > /dev/null; then
			result PASS handover-keep "kernel_driver=keep: ${o} of 3 echo replies on $N4; after quitting $P3 stays in configuration 2 without kernel drivers, as logged: $(grep -m 1 "kernel_driver=keep: left" "$TP_LOG" | sed 's/.*net_ch39x0: //')"
		else
			result FAIL handover-keep "kernel_driver=keep: ${o:-0} of 3 echo replies on $N4; $kp 'left in configuration 2' line(s) (1 expected); after: $(chroot /host python3 "$ROOT/tests/vm/usbtool_check.py" "$OUT/usb-$SPEED-handover-keep.json" "$P3" active_config=2 kernel_drivers=-)"
		fi
	else
		result FAIL handover-keep "$TP_ERR"
		tp_finish
	fi
	o=$(usbtool unbind "$P3" 2>&1)
	echo "[pmd] ch39x-usb unbind $P3: $(echo "$o" | tr '\n' ' ')"
	if [ "$KDRV" = 1 ]; then
		kdrv_back usbtool-unbind-keep-pmd "$P3" "$N3" 169.254.79 \
			cdc_ether 1
	else
		usb_status handover-keep-unbound
		usb_expect usbtool-unbind-keep-pmd handover-keep-unbound "$P3" \
			active_config=1
	fi
}

# ---- two identical gadgets, an unprivileged user ----

# The udev rule (usertools/70-ch39x-usb.rules) applied by the host's
# systemd-udevd, run in the chroot just for this: the group ch39x (gid
# 4243) added to a copy of the host's /etc/group, the rule in
# /run/udev/rules.d, every USB device replayed, and udevd stopped again
# before it sees other events (it would rename netdevs).
udev_rule() {
	cp /host/etc/group /tmp/group.ch39x
	echo "ch39x:x:4243:" >> /tmp/group.ch39x
	mount --bind /tmp/group.ch39x /host/etc/group || return 1
	mkdir -p /host/run/udev/rules.d
	cp "/host$ROOT/usertools/70-ch39x-usb.rules" /host/run/udev/rules.d/ ||
		return 1
	chroot /host /lib/systemd/systemd-udevd --debug > /out/udevd-$SPEED.log 2>&1 &
	ud=$!
	# udevadm ignores requests made from a chroot unless told otherwise.
	uadm="chroot /host /usr/bin/env SYSTEMD_IGNORE_CHROOT=1 udevadm"
	i=0
	until $uadm control --ping -t 2 2>/dev/null; do
		kill -0 $ud 2>/dev/null && [ $i -lt 60 ] || { kill $ud; return 1; }
		sleep 0.5
		i=$((i + 1))
	done
	$uadm trigger --verbose --subsystem-match=usb --action=add \
		> /out/udevd-trigger-$SPEED.log 2>&1
	$uadm settle -t 60
	$uadm control --exit
	i=0
	while kill -0 $ud 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	kill -9 $ud 2>/dev/null
	wait $ud 2>/dev/null
	rm -f /host/run/udev/control
	return 0
}

# "mode:group" of a USB device's node
node_mode() {	# path
	b=$(cat "/sys/bus/usb/devices/$1/busnum")
	n=$(cat "/sys/bus/usb/devices/$1/devnum")
	stat -c '%a:%g' "$(printf '/dev/bus/usb/%03d/%03d' "$b" "$n")"
}

serpath() {	# serial: the device's path
	for d in /sys/bus/usb/devices/*; do
		[ -f "$d/serial" ] && [ "$(cat "$d/serial")" = "$1" ] &&
			basename "$d"
	done
}

pmd_twins() {
	for t in a b; do
		gadget twin$t 0x1209 0x0004 || return
		x=5
		[ $t = b ] && x=6
		gfunc twin$t ecm.0 02:00:00:00:0$x:01 02:00:00:00:0$x:02
		config twin$t c.1 ecm.0
		echo "dummy_udc.$UDC_NEXT" > "$G/twin$t/UDC"
		UDC_NEXT=$((UDC_NEXT + 1))
	done
	TA=$(netdev twina ecm.0 169.254.83.1/24)
	TB=$(netdev twinb ecm.0 169.254.84.1/24)
	i=0
	while [ $i -lt 100 ]; do
		PA=$(serpath twina-0001)
		PB=$(serpath twinb-0001)
		[ -n "$PA" ] && [ -n "$PB" ] && break
		sleep 0.1
		i=$((i + 1))
	done
	if [ -z "$PA" ] || [ -z "$PB" ]; then
		result FAIL twins-gadgets "two 1209:0004 gadgets did not enumerate: twina at '$PA', twinb at '$PB'"
		return
	fi
	# cdc_ether binds as they enumerate
	sleep 1
	usb_status twins
	for t in a b; do
		p=$PA
		[ $t = b ] && p=$PB
		usb_expect usbtool-twin$t twins "$p" proto=ecm serial=twin$t-0001 \
			kernel_drivers=$KE vdev="net_ch39x0,dev=1209:0004,path=$p" \
			vdev_serial="net_ch39x0,dev=1209:0004,serial=twin$t-0001"
	done
	if udev_rule; then
		ma=$(node_mode "$PA")
		mb=$(node_mode "$PB")
		mn=$(node_mode "$P1")
		mr=$(stat -c '%a:%g' /dev/bus/usb/001/001)
		if [ "$ma" = 664:4243 ] && [ "$mb" = 664:4243 ] &&
		   [ "$mn" = 664:4243 ] && [ "${mr#*:}" = 0 ]; then
			result PASS udev-rule "70-ch39x-usb.rules under systemd-udevd: nodes of twina (ECM) $ma, twinb $mb, ncm (NCM) $mn (mode:gid, ch39x is 4243); root hub untouched ($mr)"
		else
			result FAIL udev-rule "mode:gid of twina $ma, twinb $mb, ncm $mn, root hub $mr; expected 664:4243 for the first three (udevd log: $(tail -n 3 /out/udevd-$SPEED.log | tr '\n' ' '))"
		fi
	else
		result FAIL udev-rule "could not run systemd-udevd with the rule in the chroot"
	fi
	# The PMD for a user: a 0755 directory of root's, a 0644 copy.
	mkdir -p /host/run/ch39x-user
	chmod 755 /host/run/ch39x-user
	cp "/host$PRIV/librte_net_ch39x.so" /host/run/ch39x-user/
	chmod 644 /host/run/ch39x-user/librte_net_ch39x.so
	va=$(usb_get twins "$PA" vdev)
	TP_AS="/usr/bin/setpriv --reuid=4242 --regid=4242 --groups=4243"
	TP_PLUGIN=/run/ch39x-user/librte_net_ch39x.so
	TP_EAL="--log-level=pmd.net.ch39x:info --vdev net_ch39x1,${va#net_ch39x0,}"
	# Port 0: twinb by serial, port 1: twina by path.
	if tp_start twins "dev=1209:0004,serial=twinb-0001" --port-topology=loop; then
		usb_status twins-running
		hp=$(usb_get twins-running "$PA" holders)
		uid=$(awk '$1 == "Uid:" { print $2 }' "/proc/${hp##*:}/status" 2>/dev/null)
		cap=$(awk '$1 == "CapEff:" { print $2 }' "/proc/${hp##*:}/status" 2>/dev/null)
		oa=$(ping3 "$TA" 169.254.83.2)
		ob=$(ping3 "$TB" 169.254.84.2)
		tp_finish
		la=$(grep -c "net_ch39x1: 1209:0004 serial=twina-0001 path=$PA ecm" "$TP_LOG")
		lb=$(grep -c "net_ch39x0: 1209:0004 serial=twinb-0001 path=$PB ecm" "$TP_LOG")
		if [ "$la" = 1 ] && [ "$lb" = 1 ] && [ "${oa:-0}" -ge 3 ] &&
		   [ "${ob:-0}" -ge 3 ]; then
			result PASS twins-probe "serial=twinb-0001 opened $PB, path=$PA opened twina-0001; ${oa} and ${ob} of 3 echo replies through each"
		else
			result FAIL twins-probe "describe lines: twina by path $la, twinb by serial $lb (1 each expected); echo replies $oa/$ob of 3"
		fi
		if [ "$uid" = 4242 ] && [ "$cap" = 0000000000000000 ] &&
		   [ "${oa:-0}" -ge 3 ]; then
			result PASS user-probe "testpmd ($hp) ran as uid $uid (groups 4243 ch39x), effective capabilities $cap: it probed, took the interfaces from cdc_ether and drove both gadgets"
		else
			result FAIL user-probe "testpmd holder '$hp' uid '$uid' (4242 expected), CapEff '$cap' (0 expected), echo replies $oa"
		fi
	else
		result FAIL twins-probe "$TP_ERR"
		result FAIL user-probe "testpmd as uid 4242 did not start: $TP_ERR"
		tp_finish
	fi
	TP_AS=""
	TP_EAL=""
	TP_PLUGIN=$PRIV/librte_net_ch39x.so
	# Given back by the unprivileged process too.
	kdrv_back twina "$PA" "$TA" 169.254.83 cdc_ether 1
	kdrv_back twinb "$PB" "$TB" 169.254.84 cdc_ether 1
	echo "" > "$G/twina/UDC" 2>/dev/null
	echo "" > "$G/twinb/UDC" 2>/dev/null
}

pmd_run() {
	pmd_prepare || return
	# The fake CH398 of the transport tests would make dev=1a86:5398
	# ambiguous; it is done.
	echo "" > "$G/fake398/UDC" 2>/dev/null
	mkdir -p "$GS"
	for t in $PMD_TESTS; do
		echo "[guest] pmd test $t starts at uptime $(up) s"
		case $t in
		ch398)
			pmd_ffs ch398 0x5398 3 super-speed 169.254.81 ;;
		ch397)
			pmd_ffs ch397 0x5397 1 high-speed 169.254.82 ;;
		ncm)
			# f_ncm (6.1) announces wMaxSegmentSize 1514 and no
			# max-datagram capability, and drops longer datagrams
			# from the host. Gadget -> host jumbo works: the 9014-byte
			# requests reach testpmd; its replies must be refused by
			# the PMD, counted, and the limit said at configure time.
			ip link set "$N1" mtu 9000
			if pmd_cdc ncm 1209:0001 "$P1" "$N1" 169.254.77 \
				--max-pkt-len=9018 --mbuf-size=9728; then
				# ch39x-usb sees the DPDK process holding it.
				usb_status ncm-running
				usb_expect usbtool-held ncm-running "$P1" \
					held_dpdk=true state=userspace
				b0=$(nstat "$N1" tx_bytes)
				o=$(jumbo_ping 3 "$N1" 169.254.77.2)
				b1=$(nstat "$N1" tx_bytes)
				tp_finish
				inv=$(tp_xstat tx_invalid_length_drops)
				# The refused jumbo replies are TX errors.
				pmd_cdc_counters ncm "$N1" "$inv"
				rxb=$(tp_xstat rx_good_bytes)
				msg=$(grep -o "NCM device takes datagrams of at most [0-9]* bytes" "$TP_LOG" | head -n 1)
				js=${o% *}
				if [ -n "$o" ] && [ "$js" -ge 3 ] && [ "${o#* }" = 0 ] &&
				   [ "$inv" = "$js" ] &&
				   [ "$((b1 - b0))" -ge $((js * 9014)) ] &&
				   [ "$rxb" -ge $((js * 9014)) ] && [ -n "$msg" ]; then
					result PASS ncm-jumbo "ping -M do -s 8972 from $N1: $js 9014-byte requests reached testpmd ($N1 sent $((b1 - b0)) bytes, testpmd rx bytes $rxb), 0 replies: the PMD refused each one (tx_invalid_length_drops $inv) and said why at configure: \"$msg\""
				else
					result FAIL ncm-jumbo "ping -M do -s 8972: ${o:-no ping output} (sent received), expected N 0; tx_invalid_length_drops $inv; $N1 sent $((b1 - b0)) bytes; testpmd rx bytes $rxb; limit message: ${msg:-none}"
				fi
			fi
			ip link set "$N1" mtu 1500
			kdrv_back ncm "$P1" "$N1" 169.254.77 cdc_ncm 1 ;;
		ecm)
			# The gadget sizes its receive requests from the MTU when
			# the host selects the data alt setting: raise it first.
			ip link set "$N2" mtu 9000
			if pmd_cdc ecm 1209:0002 "$P2" "$N2" 169.254.78 \
				--max-pkt-len=9018 --mbuf-size=9728; then
				o0=$(icmp_ctr OutEchos)
				i0=$(icmp_ctr InEchoReps)
				o=$(jumbo_ping 20 "$N2" 169.254.78.2)
				icmp_settle "$o0" "$i0"
				tp_finish
				pmd_cdc_counters ecm "$N2" 0
				if [ "${o#* }" = 3 ] && [ "$ICMP_OUT" = "$ICMP_IN" ]; then
					result PASS ecm-jumbo "ping -M do -s 8972: 3 replies (9014-byte frames both ways); kernel: $ICMP_OUT requests out, $ICMP_IN replies in"
				else
					result FAIL ecm-jumbo "ping -M do -s 8972: ${o:-no ping output} (sent received); kernel: $ICMP_OUT requests out, $ICMP_IN replies in"
				fi
			fi
			ip link set "$N2" mtu 1500
			# reconnect=on on ECM, the place given by path=
			rp_cycles ecm "dev=1209:0002,path=$P2" ecm dummy_udc.1 \
				1209 0002 "$N2" 169.254.78.2
			kdrv_back ecm "$P2" "$N2" 169.254.78 cdc_ether 1 ;;
		handover)
			pmd_handover ;;
		twins)
			pmd_twins ;;
		replug)
			pmd_replug ;;
		many)
			. "/host${S%/*}/many.sh"
			pmd_many ;;
		cpereplug)
			. "/host${S%/*}/cpe.sh"
			. "/host${S%/*}/composite.sh"
			. "/host${S%/*}/cpe_replug.sh"
			cpe_replug_run ;;
		composite)
			. "/host${S%/*}/composite.sh"
			pmd_composite ;;
		esac
	done
	echo "[guest] pmd tests done at uptime $(up) s"
}
