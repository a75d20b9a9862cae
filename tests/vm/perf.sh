# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# A bounded throughput comparison in the guest (run.sh with PERF=1; not
# part of the default run): on the same CDC gadget, the PMD (testpmd
# rxonly / txonly) against the kernel's own host driver (cdc_ncm,
# cdc_ether), with the kernel's pktgen as the source on the other side.
#
#   gadget -> host: pktgen on the gadget's netdev, to the host side's MAC;
#                   counted by testpmd (RX-packets) or by the kernel
#                   driver's netdev (rx_packets)
#   host -> gadget: testpmd txonly, or pktgen on the kernel driver's
#                   netdev; counted by the gadget's netdev (rx_packets)
#
# Each figure is frames counted at the receiver over a PERF_SECS window
# divided by the window (uptime), for 60- and 1514-byte frames; the kernel
# driver and the PMD take turns PERF_REPS times and the medians are
# reported (every sample is kept in /out/perf.txt). PERF_DEEP=1 adds the
# PMD with rx_xfers=64,tx_xfers=64. Under TCG these are ratios, not
# hardware rates. PASS/FAIL per gadget and size: FAIL when a direction
# moved no frame.
#
# Sourced by guest.sh after pmd.sh (uses tp_start, tp_finish, tp_stat,
# nstat, result, up, param, $P1, $P2, $N1, $N2).

PERF_SECS=$(param vmt_perf_secs)
PERF_SECS=${PERF_SECS:-5}
PERF_REPS=$(param vmt_perf_reps)
PERF_REPS=${PERF_REPS:-3}
PERF_DEEP=$(param vmt_perf_deep)
PERF_VALS=/tmp/perf.vals
PERF_SIZES="60 1514"
PG=/proc/net/pktgen

perf_line() {	# text
	echo "$1" >> /out/perf.txt
	echo "[perf] $1"
}

# perf_val KEY G2H H2G: one sample of both directions
perf_val() {
	echo "$1 $2 $3" >> $PERF_VALS
	perf_line "$1 gadget->host=$2 host->gadget=$3 frames/s"
}

# median of the samples of KEY, column 2 (gadget->host) or 3
perf_median() {
	awk -v k="$1" -v c="$2" '{ key = $1; for (i = 2; i < NF - 1; i++)
		key = key " " $i } key == k { print $(NF - 2 + c) }' $PERF_VALS |
		sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'
}

# pg_run IFNAME SIZE DSTMAC: pktgen on IFNAME for PERF_SECS (bounded: no
# count, stopped by time)
pg_setup() {
	echo "rem_device_all" > $PG/kpktgend_0
	echo "add_device $1" > $PG/kpktgend_0
	echo "count 0" > "$PG/$1"
	echo "clone_skb 0" > "$PG/$1"
	echo "pkt_size $2" > "$PG/$1"
	echo "delay 0" > "$PG/$1"
	echo "dst 169.254.99.2" > "$PG/$1"
	echo "dst_mac $3" > "$PG/$1"
}

# rate COUNTER-COMMAND: runs the source, samples the receiver before and
# after a PERF_SECS window; prints frames/s
window() {	# start-cmd stop-cmd counter-cmd
	eval "$1"
	sleep 1
	c0=$(eval "$3")
	t0=$(up)
	sleep "$PERF_SECS"
	c1=$(eval "$3")
	t1=$(up)
	eval "$2"
	echo "$c0 $c1 $t0 $t1" | awk '{ printf "%d", ($2 - $1) / ($4 - $3) }'
}

pg_start() {
	echo start > $PG/pgctrl &
	PG_PID=$!
}
pg_stop() {
	echo stop > $PG/pgctrl
	wait $PG_PID 2>/dev/null
}

# host-side netdev of the kernel driver bound to PATH's interface 0
kdrv_netdev() {
	ls "/sys/bus/usb/devices/$1:1.0/net" 2>/dev/null | head -n 1
}

# testpmd's RX-packets now: asks for the statistics and waits (bounded)
# until the new block is in the log
tp_rx() {
	nb=$(grep -c "NIC statistics for port 0" "$TP_LOG")
	echo "show port stats 0" >&3
	i=0
	while [ "$(grep -c "####*$" "$TP_LOG")" -lt $((2 * nb + 2)) ] &&
	      [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	tp_stat RX-packets
}

# perf_gadget NAME VID:PID PATH GADGET-IF GADGET-MAC HOST-MAC DRIVER
perf_gadget() {
	pn=$1
	vp=$2
	path=$3
	gif=$4
	gmac=$5
	hmac=$6
	drv=$7
	ip link set "$gif" up
	# The kernel's driver first (bound since guest.sh loaded it).
	kif=$(kdrv_netdev "$path")
	if [ -z "$kif" ]; then
		result FAIL "perf-$pn-kernel" "no $drv netdev on $path"
	else
		ip link set "$kif" up
		sleep 1
		for s in $PERF_SIZES; do
			pg_setup "$gif" "$s" "$hmac"
			g2h=$(window pg_start pg_stop "nstat $kif rx_packets")
			pg_setup "$kif" "$s" "$gmac"
			h2g=$(window pg_start pg_stop "nstat $gif rx_packets")
			perf_val "$SPEED $pn $drv size=$s" "$g2h" "$h2g"
		done
		echo "rem_device_all" > $PG/kpktgend_0
		ip link set "$kif" down
	fi
	perf_pmd "$pn" "$vp" "$path" "$gif" "$gmac" "$hmac" "$drv" ""
	# Deeper transfer queues, to see whether the queue depth limits it.
	[ "$PERF_DEEP" = 1 ] &&
		perf_pmd "$pn" "$vp" "$path" "$gif" "$gmac" "$hmac" "$drv" \
			",rx_xfers=64,tx_xfers=64"
}

# perf_pmd NAME VID:PID PATH GADGET-IF GADGET-MAC HOST-MAC DRIVER DEVARGS
perf_pmd() {
	pn=$1
	vp=$2
	path=$3
	gif=$4
	gmac=$5
	hmac=$6
	drv=$7
	extra=$8
	# The PMD takes the interfaces from the kernel driver and gives them
	# back at close.
	if ! tp_start "perf-$pn${extra:+-deep}" "dev=$vp,path=$path$extra" \
		--forward-mode=rxonly --eth-peer=0,$gmac; then
		result FAIL "perf-$pn-pmd" "$TP_ERR"
		tp_finish
		return
	fi
	sleep 1
	for s in $PERF_SIZES; do
		pg_setup "$gif" "$s" "$hmac"
		g2h=$(window pg_start pg_stop tp_rx)
		echo "stop" >&3
		echo "set fwd txonly" >&3
		echo "set txpkts $s" >&3
		sleep 0.5
		h2g=$(window 'echo start >&3' 'echo stop >&3' "nstat $gif rx_packets")
		echo "set fwd rxonly" >&3
		echo "start" >&3
		sleep 0.5
		perf_val "$SPEED $pn net_ch39x$extra size=$s" "$g2h" "$h2g"
	done
	echo "rem_device_all" > $PG/kpktgend_0
	tp_finish
}

# perf_summary NAME DRIVER: medians, one result line per size
perf_summary() {
	for s in $PERF_SIZES; do
		line=""
		ok=1
		for d in "$2" net_ch39x net_ch39x,rx_xfers=64,tx_xfers=64; do
			k="$SPEED $1 $d size=$s"
			grep -q "^$k " $PERF_VALS || continue
			g=$(perf_median "$k" 1)
			h=$(perf_median "$k" 2)
			[ "$g" -gt 0 ] && [ "$h" -gt 0 ] || ok=0
			n=$(grep -c "^$k " $PERF_VALS)
			line="$line; $d $g, $h"
			perf_line "median of $n: $k gadget->host=$g host->gadget=$h frames/s"
		done
		if [ $ok = 1 ] && [ -n "$line" ]; then
			result PASS "perf-$1-$s" "frames/s gadget->host, host->gadget (median of $PERF_REPS x ${PERF_SECS} s)${line}"
		else
			result FAIL "perf-$1-$s" "a direction moved nothing${line:-, no samples}"
		fi
	done
}

# The issue's "same app on the gadget": app/ch39x-perf (built next to the
# PMD) on each gadget, rxonly while pktgen sends from the gadget, txonly
# while the gadget's netdev counts. Its JSON gives frames/s and the USB
# frames per transfer it measured from the PMD's xstats.
APP=${PMD_SO%/drivers/net/ch39x/*}/app/ch39x-perf/ch39x-perf

# jval KEY JSON: the value after the first "KEY": in JSON (the top-level
# figure comes before the per-direction ones)
jval() {
	echo "$2" | awk -v k="\"$1\":" '{ i = index($0, k); if (i) {
		s = substr($0, i + length(k)); sub(/^ */, "", s);
		sub(/[,}].*/, "", s); print s } }'
}

# jnum KEY JSON: that value as a whole number (null: 0)
jnum() {
	jval "$1" "$2" | awk '{ printf "%d", $1 + 0.5 }'
}

# app_exec DEVARGS SECONDS MODE-ARGS...: one bounded ch39x-perf run
app_exec() {
	devargs=$1
	secs=$2
	shift 2
	TP_N=$((TP_N + 1))
	timeout $((secs + 90)) chroot /host "$APP" -l 0-1 \
		--no-huge --no-pci --no-shconf -m 192 \
		--file-prefix "ch39x_app$TP_N" \
		-d $PRIV/librte_net_ch39x.so --vdev "net_ch39x0,$devargs" \
		-- --duration "$secs" --json "$@"
}

# app_run DEVARGS MODE-ARGS...: a PERF_SECS run, its JSON on one line
app_run() {
	devargs=$1
	shift
	app_exec "$devargs" "$PERF_SECS" "$@" 2>> /out/perf-app.log | tr -d '\n'
}

# perf_app NAME VID:PID PATH GADGET-IF HOST-MAC
perf_app() {
	pn=$1
	vp=$2
	path=$3
	gif=$4
	hmac=$5
	if [ ! -x "/host$APP" ]; then
		result FAIL "perf-app-$pn" "no ch39x-perf at $APP"
		return
	fi
	for s in $PERF_SIZES; do
		# Taking the device resets the gadget's link: pktgen starts
		# once the app reports its first second, and the rate is the
		# median of the app's per-second lines after that.
		ae=/tmp/app.$pn.$s.err
		aj=/tmp/app.$pn.$s.json
		: > "$ae"
		app_exec "dev=$vp,path=$path" $((PERF_SECS + 3)) --mode rxonly \
			> "$aj" 2> "$ae" &
		ap=$!
		i=0
		while ! grep -q "^ch39x-perf: *1\.0 s" "$ae" && [ $i -lt 600 ]; do
			sleep 0.2
			i=$((i + 1))
		done
		pg_setup "$gif" "$s" "$hmac"
		pg_start
		wait $ap
		pg_stop
		echo "rem_device_all" > $PG/kpktgend_0
		cat "$ae" >> /out/perf-app.log
		j=$(tr -d '\n' < "$aj")
		g2h=$(grep -E "^ch39x-perf: +[0-9.]+ s +rx " "$ae" |
			awk '{ print $5 }' | tail -n +3 | sort -n |
			awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }')
		gfx=$(jval frames_per_xfer "$j")
		c0=$(nstat "$gif" rx_packets)
		t0=$(up)
		j=$(app_run "dev=$vp,path=$path" --mode txonly --frame-size "$s")
		c1=$(nstat "$gif" rx_packets)
		t1=$(up)
		h2g=$(echo "$c0 $c1 $PERF_SECS" | awk '{ printf "%d", ($2 - $1) / $3 }')
		hfx=$(jval frames_per_xfer "$j")
		perf_line "$SPEED $pn ch39x-perf size=$s gadget->host=$g2h (${gfx:-?} frames/transfer) host->gadget=$h2g received by the gadget (app sent $(jnum pps "$j")/s, ${hfx:-?} frames/transfer)"
		if [ "${g2h:-0}" -gt 0 ] && [ "${h2g:-0}" -gt 0 ]; then
			result PASS "perf-app-$pn-$s" "ch39x-perf: gadget->host $g2h frames/s (${gfx:-?} per transfer), host->gadget $h2g frames/s (${hfx:-?} per transfer)"
		else
			result FAIL "perf-app-$pn-$s" "ch39x-perf moved nothing: gadget->host ${g2h:-none}, host->gadget ${h2g:-none}; see perf-app.log"
		fi
	done
}

perf_run() {
	for m in $(cat /modules/perf.list 2>/dev/null); do
		insmod "/modules/$m.ko" || echo "[guest] insmod $m failed"
	done
	if [ ! -d $PG ]; then
		result FAIL perf "no pktgen in the guest"
		return
	fi
	rm -f $PERF_VALS
	echo "[guest] perf starts at uptime $(up) s"
	r=0
	while [ $r -lt "$PERF_REPS" ]; do
		perf_gadget ncm 1209:0001 "$P1" "$N1" 02:00:00:00:00:01 \
			02:00:00:00:00:02 cdc_ncm
		perf_gadget ecm 1209:0002 "$P2" "$N2" 02:00:00:00:01:01 \
			02:00:00:00:01:02 cdc_ether
		r=$((r + 1))
	done
	perf_summary ncm cdc_ncm
	perf_summary ecm cdc_ether
	perf_app ncm 1209:0001 "$P1" "$N1" 02:00:00:00:00:02
	perf_app ecm 1209:0002 "$P2" "$N2" 02:00:00:00:01:02
	echo "[guest] perf done at uptime $(up) s"
}
