# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# reconnect=on on a real USB stack (issue 25), run by pmd.sh as the PMD
# test "replug": dpdk-testpmd (icmpecho) drives guest.sh's NCM gadget
# through the libusb backend, chosen by serial number
# (dev=1209:0001,serial=ncm-0001), and the gadget leaves the bus and
# comes back while the guest's Linux pings the DPDK port:
#
#   cycles    the gadget's UDC unbound and bound again, REPLUG_CYCLES
#             times (vmt_replug_cycles, default 20) under a ping stream:
#             every cycle recovered without restarting testpmd; the times
#             from the device's enumeration to the PMD's "device back"
#             and to the first echo reply; testpmd's open file
#             descriptors, resident memory and mbufs in use the same
#             after the cycles as before them
#   moved     bound to another UDC: the device returns at another bus
#             path, found by its serial number
#   other     it returns in the port's place as another product (same
#             serial, idProduct changed): refused, the refusal logged
#             once and counted (reconnect_refused); then as itself again
#   authorized  sysfs authorized 0 then 1: the same device number, its
#             interfaces gone and back: taken again
#   reset     a port reset by another program (USBDEVFS_RESET on its
#             node): likewise
#   stopped   the port stopped: the gadget unbound and bound again, then
#             deauthorized and authorized again; each removal and return
#             seen by the kernel's device events (presence=events): the
#             PMD's lines come, and no GET_STATUS request was asked
#             (xstat presence_polls 0, bus_events counted); started
#             again, it answers
#
# Sourced by pmd.sh (tp_start, tp_finish, tp_xstat, ping3, result, up,
# $G, $P1, $N1, $SPEED).

REPLUG_CYCLES=$(param vmt_replug_cycles)
REPLUG_CYCLES=${REPLUG_CYCLES:-20}
REPLUG_UDC=dummy_udc.0		# guest.sh's for the ncm gadget
REPLUG_UDC2=dummy_udc.3		# fake398's, free during the PMD tests

# The testpmd process itself (not its timeout and chroot wrappers).
rp_pid() {
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = dpdk-testpmd ] &&
			{ echo "${p#/proc/}"; return; }
	done
}

# rp_mbufs: testpmd's mbufs in use (dump_mempool: size minus the common
# pool and the lcore caches), asked on the FIFO and read from its log.
RP_DUMPS=0
rp_mbufs() {
	RP_DUMPS=$((RP_DUMPS + 1))
	echo "dump_mempool" >&3
	i=0
	while [ $i -lt 100 ]; do
		n=$(grep -c '^  common_pool_count=' "$TP_LOG")
		[ "$n" -ge "$RP_DUMPS" ] && break
		sleep 0.1
		i=$((i + 1))
	done
	awk '/^  size=/ { split($0, a, "="); s = a[2] }
	     /total_cache_count=/ { split($0, a, "="); c = a[2] }
	     /^  common_pool_count=/ { split($0, a, "="); p = a[2]; u = s - c - p }
	     END { print u + 0 }' "$TP_LOG"
}

# rp_wait_reply IFNAME DST SECONDS: pings every 0.2 s or so until an
# echo reply; prints the uptime when it came, nothing when none did.
rp_wait_reply() {
	end=$(awk -v u="$(up)" -v s="$3" 'BEGIN { print u + s }')
	while awk -v u="$(up)" -v e="$end" 'BEGIN { exit !(u < e) }'; do
		if chroot /host /usr/bin/ping -n -q -c 1 -W 0.2 -I "$1" "$2" \
		    > /dev/null 2>&1; then
			up
			return 0
		fi
	done
	return 1
}

# rp_udc UDC: the ncm gadget bound to UDC ("" unbinds it); its path once
# enumerated is set in RP_PATH.
rp_udc() {
	echo "$1" > "$G/ncm/UDC" 2>/dev/null
	RP_PATH=""
	[ -n "$1" ] || return 0
	i=0
	while [ $i -lt 100 ]; do
		RP_PATH=$(devpath 1209 0001)
		[ -n "$RP_PATH" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# rp_dist MS...: median, p90, min, max and how many within 1 s
rp_dist() {
	echo "$@" | tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1; if ($1 <= 1000) w++ }
		END { if (NR) printf "median %d ms, p90 %d, min %d, max %d; %d of %d within 1 s", v[int((NR + 1) / 2)], v[int((NR * 9 + 9) / 10)], v[1], v[NR], w, NR }'
}

# rp_flow: the two directions' counters now, as "pmd_rx pmd_tx if_tx
# if_rx": testpmd's port statistics (asked on the FIFO, the last answer
# read back) and the guest netdev's. Which of them stands still while
# nothing is answered says where frames stop.
RP_STATS=0
rp_flow() {
	RP_STATS=$((RP_STATS + 1))
	echo "show port stats 0" >&3
	i=0
	while [ "$(grep -c 'NIC statistics for port 0' "$TP_LOG")" -lt "$RP_STATS" ] &&
	      [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.2
	awk '/NIC statistics for port 0/ { r = ""; t = "" }
	     { for (i = 1; i < NF; i++) { if ($i == "RX-packets:") r = $(i + 1);
	       if ($i == "TX-packets:") t = $(i + 1) } }
	     END { printf "%s %s", r, t }' "$TP_LOG"
	echo " $(nstat "$N1" tx_packets) $(nstat "$N1" rx_packets)"
}

# rp_fill IFNAME N [NETNS]: N frames of a local EtherType (0x88b5, which
# testpmd's icmpecho drops) written to IFNAME (in NETNS), to fill a held
# NTB (cpe_replug.sh too).
RP_FILL_PY='import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
f = b"\xff" * 6 + bytes.fromhex(sys.argv[3].replace(":", "")) + b"\x88\xb5" + bytes(46)
for i in range(int(sys.argv[2])):
	s.send(f)'
rp_fill() {
	if [ -n "${3:-}" ]; then
		chroot /host /usr/sbin/ip netns exec "$3" python3 -c "$RP_FILL_PY" \
			"$1" "$2" "$(chroot /host /usr/sbin/ip netns exec "$3" \
			cat "/sys/class/net/$1/address")" 2>&1
	else
		chroot /host python3 -c "$RP_FILL_PY" "$1" "$2" \
			"$(cat "/sys/class/net/$1/address")" 2>&1
	fi
}

# rp_log_count REGEX: lines of testpmd's log matching it.
rp_log_count() {
	grep -cE "$1" "$TP_LOG"
}

# rp_wait_log REGEX N SECONDS: until N lines match (bounded); 0 when they do.
rp_wait_log() {
	i=0
	while [ "$(rp_log_count "$1")" -lt "$2" ] && [ $i -lt $(($3 * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(rp_log_count "$1")" -ge "$2" ]
}

# rp_stopped DST: the stopped port's removals and returns, by the bus's
# events (the unbind/bind and authorized 0/1); sets RS_OK and RS_WHY.
rp_stopped() {
	gone_re="device removed; the port waits"
	back_re="device back after .* set up \(stopped\)"
	echo "stop" >&3
	echo "port stop 0" >&3
	rp_wait_log "Stopping ports" 1 10
	sleep 1
	g=$(rp_log_count "$gone_re")
	b=$(rp_log_count "$back_re")
	RS_OK=0
	RS_WHY=""
	rp_udc ""
	rp_wait_log "$gone_re" $((g + 1)) 10 || RS_WHY="unbind not seen;"
	sleep 0.3
	rp_udc $REPLUG_UDC
	rp_wait_log "$back_re" $((b + 1)) 30 || RS_WHY="$RS_WHY bind not seen;"
	# Deauthorized: the device stays, its interfaces go; GET_STATUS
	# would still be answered, only the events and sysfs tell.
	pa=$(devpath 1209 0001)
	echo 0 > "/sys/bus/usb/devices/$pa/authorized"
	rp_wait_log "$gone_re" $((g + 2)) 10 ||
		RS_WHY="$RS_WHY authorized 0 not seen;"
	echo 1 > "/sys/bus/usb/devices/$pa/authorized"
	rp_wait_log "$back_re" $((b + 2)) 30 ||
		RS_WHY="$RS_WHY authorized 1 not taken;"
	echo "port start 0" >&3
	echo "start" >&3
	RS_T=$(rp_wait_reply "$N1" "$1" 30)
	[ -n "$RS_T" ] || RS_WHY="$RS_WHY no echo reply after the start;"
	[ -z "$RS_WHY" ] && RS_OK=1
}

# rp_cycles NAME DEVARGS GADGET UDC VID PID IFNAME DST: a testpmd of its
# own on one more gadget (ECM, the vendor models), whose UDC is unbound
# and bound again RP_SHORT times; each return recovered (the PMD's line)
# and answering, without restarting testpmd.
RP_SHORT=3
rp_cycles() {
	tpt=$TP_TIMEOUT
	TP_TIMEOUT=$((RP_SHORT * 60 + 120))
	tp_start "$1-replug" "$2"
	rc=$?
	TP_TIMEOUT=$tpt
	if [ $rc != 0 ]; then
		result FAIL "$1-replug" "$TP_ERR"
		tp_finish
		return 1
	fi
	ok=0
	why=""
	[ -n "$(rp_wait_reply "$7" "$8" 30)" ] || why="no echo reply before;"
	k=0
	while [ -z "$why" ] && [ $k -lt $RP_SHORT ]; do
		k=$((k + 1))
		nb=$(rp_log_count "device back after")
		echo "" > "$G/$3/UDC"
		rp_wait_log "device removed; the port waits" "$k" 10 ||
			why="cycle $k: removal not seen;"
		sleep 0.3
		echo "$4" > "$G/$3/UDC"
		rp_wait_log "device back after" $((nb + 1)) 30 ||
			why="$why cycle $k: not back;"
		[ -n "$(rp_wait_reply "$7" "$8" 30)" ] ||
			why="$why cycle $k: no echo reply;"
		[ -z "$why" ] && ok=$((ok + 1))
	done
	p=$(devpath "$5" "$6")
	tp_finish
	if [ "$ok" = "$RP_SHORT" ] && [ "$(tp_xstat reconnects)" = "$RP_SHORT" ]; then
		result PASS "$1-replug" "$ok of $RP_SHORT UDC unbind/bind cycles recovered by the same testpmd ($2, back at ${p:-?}): reconnects $(tp_xstat reconnects), $(grep -o 'device back after [0-9]* ms' "$TP_LOG" | sed 's/device back after //' | tr '\n' ' ')"
	else
		result FAIL "$1-replug" "$ok of $RP_SHORT cycles recovered; $why reconnects $(tp_xstat reconnects)"
	fi
}

pmd_replug() {
	dst=169.254.77.2
	# a cycle takes 1-5 s under TCG; a slow one up to the 30 s deadline
	tpt=$TP_TIMEOUT
	TP_TIMEOUT=$((REPLUG_CYCLES * 10 + 300))
	tp_start replug "dev=1209:0001,serial=ncm-0001"
	rc=$?
	TP_TIMEOUT=$tpt
	if [ $rc != 0 ]; then
		result FAIL replug-probe "$TP_ERR"
		tp_finish
		return 1
	fi
	pid=$(rp_pid)
	if [ -z "$(rp_wait_reply "$N1" $dst 30)" ] || [ -z "$pid" ]; then
		result FAIL replug-probe "no echo reply from the port before any replug (testpmd pid ${pid:-none})"
		tp_finish
		return 1
	fi
	fd0=$(ls "/proc/$pid/fd" | wc -l)
	rss0=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
	mb0=$(rp_mbufs)
	# The stream across the cycles: requests while the gadget is away
	# find no host, those in between are answered.
	chroot /host /usr/bin/ping -n -q -i 0.2 -w $((REPLUG_CYCLES * 30 + 60)) \
		-I "$N1" $dst > /tmp/replug-stream.log 2>&1 &
	spid=$!
	ok=0
	kicks=0
	flushed=0
	times=""
	rtimes=""
	k=0
	while [ $k -lt "$REPLUG_CYCLES" ]; do
		k=$((k + 1))
		rp_udc ""
		sleep 0.3
		nb=$(rp_log_count "device back after")
		rp_udc $REPLUG_UDC
		t0=$(up)
		# t0: enumerated (rp_udc waits for it); the PMD's part ends
		# with its "device back" line
		w=0
		while [ "$(rp_log_count "device back after")" -le "$nb" ] &&
		      [ $w -lt 300 ]; do
			sleep 0.05
			w=$((w + 1))
		done
		tr0=$(up)
		rtimes="$rtimes $(awk -v a="$t0" -v b="$tr0" 'BEGIN { printf "%d", (b - a) * 1000 }')"
		t1=$(rp_wait_reply "$N1" $dst 10)
		if [ -z "$t1" ]; then
			# Now and then (about 1 cycle in 30) nothing passes for
			# 20-30 s after the PMD is back: the guest's ARP entry
			# for the port stays INCOMPLETE while neither $N1's
			# nor testpmd's counters move: the frames are held in
			# the gadget (below); the NIC guide says more.
			f0=$(rp_flow)
			sleep 2
			f1=$(rp_flow)
			echo "[replug] cycle $k: no reply in 10 s, the PMD back: $(rp_log_count "device back after") lines; $N1: $(chroot /host /usr/sbin/ip neigh show dev "$N1" | tr '\n' ' ') carrier $(cat /sys/class/net/$N1/carrier 2>/dev/null); testpmd rx tx, $N1 tx rx: $f0 -> 2 s -> $f1"
			kicks=$((kicks + 1))
			# The gadget's f_ncm holds an NTB begun before the
			# unbind, whose flush timer fired while it was
			# disconnected: it goes out at its 32nd datagram
			# (about 30 ARP requests a second apart). 40 frames
			# of our own fill it: the reply then comes at once
			# if that is what holds it.
			tf=$(up)
			rp_fill "$N1" 40
			t1=$(rp_wait_reply "$N1" $dst 40)
			[ -n "$t1" ] && echo "[replug] cycle $k: 40 frames written to $N1: first reply $(awk -v a="$tf" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }') ms later; testpmd rx tx, $N1 tx rx: $(rp_flow)"
			flushed=$((flushed + 1))
		fi
		if [ -n "$t1" ]; then
			ok=$((ok + 1))
			ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
			times="$times $ms"
			# a slow one: what the link and the neighbour said then
			[ "$ms" -gt 3000 ] && echo "[replug] cycle $k: first reply after $ms ms; $N1 carrier $(cat /sys/class/net/$N1/carrier 2>/dev/null) rx $(nstat "$N1" rx_packets) tx $(nstat "$N1" tx_packets); $(chroot /host /usr/sbin/ip neigh show dev "$N1" | tr '\n' ' ')"
		else
			echo "[replug] cycle $k: no echo reply within 50 s of its enumeration"
		fi
	done
	kill -INT "$spid" 2>/dev/null	# ping prints its summary
	wait "$spid" 2>/dev/null
	stat=$(rp_dist $times)
	rstat=$(rp_dist $rtimes)
	sleep 1
	fd1=$(ls "/proc/$pid/fd" | wc -l)
	rss1=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
	mb1=$(rp_mbufs)
	back=$(rp_log_count "device back after")
	if [ "$ok" = "$REPLUG_CYCLES" ] && [ "$back" -ge "$REPLUG_CYCLES" ]; then
		result PASS replug-cycles "$ok of $REPLUG_CYCLES UDC unbind/bind cycles recovered by the same testpmd ($back \"device back\" lines); from its enumeration to the PMD's restored port: $rstat; to the first echo reply: $stat ($kicks over 10 s, each then released by 40 frames written to $N1: $flushed); ping stream every 0.2 s: $(sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\2 of \1/p' /tmp/replug-stream.log) answered"
	else
		result FAIL replug-cycles "$ok of $REPLUG_CYCLES cycles answered, $back \"device back\" lines; $stat"
	fi
	# A leak per cycle would show REPLUG_CYCLES times over; the caches
	# and the Rx side may hold a burst's worth more or less.
	if [ "$fd1" = "$fd0" ] && [ "$mb1" -le $((mb0 + 32)) ] &&
	   [ "$rss1" -le $((rss0 + 2048)) ]; then
		result PASS replug-leaks "after $REPLUG_CYCLES cycles: open files $fd0 -> $fd1, mbufs in use $mb0 -> $mb1, resident $rss0 -> $rss1 kB"
	else
		result FAIL replug-leaks "after $REPLUG_CYCLES cycles: open files $fd0 -> $fd1, mbufs in use $mb0 -> $mb1, resident $rss0 -> $rss1 kB"
	fi

	# Back at another bus path: found by the serial number.
	p0=$RP_PATH
	rp_udc ""
	sleep 0.3
	rp_udc $REPLUG_UDC2
	p1=$RP_PATH
	if [ -n "$p1" ] && [ "$p1" != "$p0" ] &&
	   [ -n "$(rp_wait_reply "$N1" $dst 30)" ]; then
		result PASS replug-moved "the gadget left $p0 and came back at $p1: the port found it by serial and answers"
	else
		result FAIL replug-moved "left ${p0:-?}, back at ${p1:-nowhere}: no echo reply"
	fi

	# In the port's place as another product: refused until it is itself.
	rp_udc ""
	echo 0x0005 > "$G/ncm/idProduct"
	echo $REPLUG_UDC > "$G/ncm/UDC"
	ref=0
	i=0
	while [ $i -lt 100 ]; do
		ref=$(rp_log_count "not the port's, refused: it is 1209:0005")
		[ "$ref" -ge 1 ] && break
		sleep 0.2
		i=$((i + 1))
	done
	sleep 2		# 40 more looks at it: still one line
	ref=$(rp_log_count "not the port's, refused")
	rp_udc ""
	echo 0x0001 > "$G/ncm/idProduct"
	rp_udc $REPLUG_UDC
	t=$(rp_wait_reply "$N1" $dst 30)
	# Deauthorized and authorized again: the same device number.
	pa=$(devpath 1209 0001)
	b0=$(rp_log_count "device back after")
	echo 0 > "/sys/bus/usb/devices/$pa/authorized"
	sleep 0.3
	echo 1 > "/sys/bus/usb/devices/$pa/authorized"
	ta=$(rp_wait_reply "$N1" $dst 30)
	b1=$(rp_log_count "device back after")
	# A port reset by another program (USBDEVFS_RESET): same number too.
	pa=$(devpath 1209 0001)
	node=$(printf "/dev/bus/usb/%03d/%03d" "$(cat /sys/bus/usb/devices/$pa/busnum)" "$(cat /sys/bus/usb/devices/$pa/devnum)")
	chroot /host python3 -c 'import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
fcntl.ioctl(fd, 0x5514, 0)' "$node" > /tmp/replug-reset.log 2>&1
	tr=$(rp_wait_reply "$N1" $dst 30)
	b2=$(rp_log_count "device back after")
	rp_stopped $dst
	tp_finish
	refused=$(tp_xstat reconnect_refused)
	recon=$(tp_xstat reconnects)
	if [ "$ref" = 1 ] && [ "$refused" = 1 ] && [ -n "$t" ]; then
		result PASS replug-other "back as 1209:0005 with its serial: refused, logged once ($(grep -m 1 -o "not the port's, refused: .*" "$TP_LOG")), reconnect_refused $refused; then as itself: answers again"
	else
		result FAIL replug-other "refusal lines $ref (expected 1), reconnect_refused ${refused:-?} (expected 1), echo reply after its return: ${t:-none}"
	fi
	if [ -n "$ta" ] && [ "$b1" = $((b0 + 1)) ]; then
		result PASS replug-authorized "authorized 0 then 1 at $pa (the same device number): the port took it again and answers"
	else
		result FAIL replug-authorized "authorized 0 then 1 at $pa: echo reply ${ta:-none}, device back lines $b0 -> $b1"
	fi
	if [ -n "$tr" ] && [ "$b2" = $((b1 + 1)) ]; then
		result PASS replug-reset "USBDEVFS_RESET on $node by another program (the same device number): the port took it again and answers"
	else
		result FAIL replug-reset "USBDEVFS_RESET on $node: $(cat /tmp/replug-reset.log) echo reply ${tr:-none}, device back lines $b1 -> $b2"
	fi
	polls=$(tp_xstat presence_polls)
	bev=$(tp_xstat bus_events)
	if [ "$RS_OK" = 1 ] && [ "$polls" = 0 ] && [ "$bev" -ge 4 ]; then
		result PASS replug-stopped "port stopped: unbind/bind and authorized 0/1 each seen by the kernel's device events (\"device removed\" and \"set up (stopped)\" lines), started again it answers; presence_polls $polls, bus_events $bev"
	else
		result FAIL replug-stopped "${RS_WHY:-} presence_polls ${polls:-?} (expected 0), bus_events ${bev:-?} (expected 4 or more)"
	fi
	if [ "$recon" -ge $((REPLUG_CYCLES + 6)) ]; then
		result PASS replug-xstats "reconnects $recon (cycles + moved + other + authorized + reset + stopped twice), reconnect_last_us $(tp_xstat reconnect_last_us)"
	else
		result FAIL replug-xstats "reconnects ${recon:-?}, expected at least $((REPLUG_CYCLES + 6))"
	fi
	# The later tests find the gadget where guest.sh put it.
	P1=$(devpath 1209 0001)
}
