# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# MBIM forwarding, ch39x-cpe against Linux (run.sh with MBIM_PERF=1, the
# boot "usbip" only; not part of the default run). The simulated MBIM
# modem (tests/vm/usbip.sh's "mbim" device) is the WAN of both routers
# over USB/IP; the LAN is a veth pair:
#
#   mpl: LAN host 192.168.76.2/24 (veth mpl0), pktgen's 60-byte UDP flood
#        to 198.51.100.1:9, one flow
#     |  veth mpr0 (the router's LAN, 192.168.76.1/24)
#   router, in turn:
#     linux      mbimcli connects session 0 (APN internet), wwan0 takes
#                100.64.39.2/30 with the default route via 100.64.39.1,
#                ip_forward=1, nftables masquerade on wwan0 (cdc_mbim)
#     ch39x-cpe  net_af_packet on mpr0 (LAN), the PMD's MBIM port on the
#                modem (cdc_mbim detached, bound again at exit), which
#                dials it; --wan 1=100.64.39.2/30, --route default via the
#                session's gateway; --idle MODE on vCPU 1, for each
#                MODE of CPE_MODES (default poll): router ch39x-cpe-MODE
#     |  the modem (USB/IP, ch39x-usbip's model), its cable a TAP
#   uipmbim: the operator's host 198.51.100.1/24 (route 100.64.0.0/10 to
#        the modem), the flood dropped at its input (nftables counter)
#
# Each of CPE_REPS rounds measures both routers for CPE_SECS: frames/s the
# operator's host received (its TAP's rx_packets), frames/s pktgen sent,
# the guest's busy CPU. /out/mbim-perf.csv has every sample,
# /out/mbim-perf.txt the medians and the ratio ch39x-cpe / linux. Both
# paths share the same USB/IP server, vhci-hcd and TCG: read the ratio,
# not the rates. PASS/FAIL: each router forwards (a ping through it, the
# flood reaches the host); rates are measured, not asserted.
#
# Sourced by usbip.sh (uip_*, nsx, ns_new, anchor, ndev, kpktgend_pids,
# pmd_prepare, result, $PRIV, $PMD_SO, $CPE_REPS, $CPE_SECS).

MP_CSV=/out/mbim-perf.csv
MP_MODES=$(param vmt_cpe_modes | tr , ' ')
MP_MODES=${MP_MODES:-poll}
MP_SUM=/out/mbim-perf.txt
# tx_hold_us values to run ch39x-cpe with (router ch39x-cpe-MODE-hN);
# none: the PMD's default (router ch39x-cpe-MODE)
MP_HOLDS=$(param vmt_mbim_holds | tr , ' ')

mp_log() {
	echo "$1" >> $MP_SUM
	echo "[mbim-perf] $1"
}

# mp_cpu: "pid comm ticks" of every process and kernel thread (user +
# system time in USER_HZ ticks, 100 a second)
mp_cpu() {
	cat /proc/[0-9]*/stat 2>/dev/null | awk 'NF > 14 { i = index($0, "("); j = index($0, ") ");
		rest = substr($0, j + 2); split(rest, r, " ");
		c = substr($0, i + 1, j - i - 1); gsub(/ /, "_", c);
		print $1, c, r[12] + r[13] }'
}

# mp_top BEFORE AFTER SECS: the busiest processes between two mp_cpu
# samples, "comm pct" (of one CPU), most first
mp_top() {
	awk -v s="$3" 'FNR == NR { t[$1] = $3; next }
		{ d = $3 - t[$1]; if (d > 0) printf "%s %.0f\n", $2, d / s }' \
		"$1" "$2" | sort -k2 -n -r | head -n 8 | tr '\n' ' '
}

# mp_usb KEY...: the server's counters of the modem, one line
mp_usb() {
	uip_stats
	mu_b=$(uip_field mbim 1)
	for k in "$@"; do
		printf '%s ' "$(uip_stat "$mu_b" "$k")"
	done
}

MP_USB_KEYS="bulk_out_submitted bulk_out_bytes model_tx_frames bulk_in_submitted bulk_in_bytes model_rx_delivered model_tx_wire_dropped"

# mp_flood ROUTER REP: the flood through the router for CPE_SECS; a CSV
# line "rep,router,frames/s received,frames/s sent,busy %,OUT URBs/s,
# datagrams per OUT URB, bytes per OUT URB, IN URBs/s"; the busiest
# processes into the summary
mp_flood() {
	mac=$(cat /sys/class/net/mpr0/address)
	nsx mpl /bin/sh -c "P=/proc/net/pktgen
		echo rem_device_all > \$P/kpktgend_0
		echo 'add_device mpl0' > \$P/kpktgend_0
		echo 'count 0' > \$P/mpl0
		echo 'clone_skb 0' > \$P/mpl0
		echo 'pkt_size 60' > \$P/mpl0
		echo 'delay 0' > \$P/mpl0
		echo 'dst 198.51.100.1' > \$P/mpl0
		echo 'src_min 192.168.76.2' > \$P/mpl0
		echo 'src_max 192.168.76.2' > \$P/mpl0
		echo 'udp_dst_min 9' > \$P/mpl0
		echo 'udp_dst_max 9' > \$P/mpl0
		echo 'dst_mac $mac' > \$P/mpl0"
	nsx mpl /bin/sh -c 'echo start > /proc/net/pktgen/pgctrl' &
	pg=$!
	sleep 1
	u0=$(mp_usb $MP_USB_KEYS)
	v0=$(up)
	mp_cpu > /tmp/mp_cpu0
	k0=$(up)
	w0=$(ndev $MP_WPID uipmbim)
	p0=$(awk '$1 == "pkts-sofar:" { print $2 }' /proc/$MP_LPID/net/pktgen/mpl0 2>/dev/null)
	c0=$(awk '$1 == "cpu" { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
	t0=$(up)
	sleep "$CPE_SECS"
	t1=$(up)
	c1=$(awk '$1 == "cpu" { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
	p1=$(awk '$1 == "pkts-sofar:" { print $2 }' /proc/$MP_LPID/net/pktgen/mpl0 2>/dev/null)
	w1=$(ndev $MP_WPID uipmbim)
	mp_cpu > /tmp/mp_cpu1
	k1=$(up)
	v1=$(up)
	u1=$(mp_usb $MP_USB_KEYS)
	nsx mpl /bin/sh -c 'echo stop > /proc/net/pktgen/pgctrl'
	wait $pg
	nsx mpl /bin/sh -c 'echo rem_device_all > /proc/net/pktgen/kpktgend_0'
	# ndev: rx_bytes rx_packets tx_bytes tx_packets ($1-$4, $5-$8); then
	# pktgen's count ($9, $10), idle and total jiffies ($11-$14), uptime.
	row=$(echo "$w0 $w1 ${p0:-0} ${p1:-0} $c0 $c1 $t0 $t1" | awk '{
		dt = $16 - $15; if (dt <= 0) dt = 1;
		busy = 0; if ($14 > $12) busy = 200 * (1 - ($13 - $11) / ($14 - $12));
		printf "%d,%d,%.1f", ($6 - $2) / dt, ($10 - $9) / dt, busy }')
	# the server's counters: OUT URBs, their bytes, the datagrams in
	# them; IN URBs, their bytes, the datagrams; the cable's drops
	usb=$(echo "$u0 $u1 $v0 $v1" | awk '{
		dt = $16 - $15; if (dt <= 0) dt = 1;
		ou = $8 - $1; ob = $9 - $2; od = $10 - $3; iu = $11 - $4;
		if (ou <= 0) ou = 1;
		printf "%d,%.2f,%d,%d", ou / dt, od / ou, ob / ou, iu / dt }')
	echo "$2,$1,$row,$usb" >> $MP_CSV
	mp_log "rep $2 $1: $(echo "$row" | awk -F, '{ printf "%d frames/s received of %d/s sent; guest CPU busy %.1f %% (of 2 vCPUs: 200)", $1, $2, $3 }')"
	mp_log "rep $2 $1: USB/IP $(echo "$usb" | awk -F, '{ printf "%d OUT URBs/s, %.2f datagrams and %d bytes per OUT URB, %d IN URBs/s", $1, $2, $3, $4 }'); busiest (% of a CPU): $(mp_top /tmp/mp_cpu0 /tmp/mp_cpu1 "$(echo "$k0 $k1" | awk '{ print $2 - $1 }')")"
	sleep 2
}

# mp_ping: the LAN host reaches the operator's host (bounded)
mp_ping() {
	i=0
	while [ $i -lt 30 ]; do
		nsx mpl /usr/bin/ping -n -q -c 1 -W 2 198.51.100.1 \
			> /dev/null 2>&1 && return 0
		sleep 0.5
		i=$((i + 1))
	done
	return 1
}

mp_linux() {
	rep=$1
	if ! uip_bound mbim cdc_mbim; then
		result FAIL "mbim-perf-linux-$rep" "no cdc_mbim netdev"
		return
	fi
	UIP_WDM=$(ls "/sys/bus/usb/devices/$UIP_PATH:1.0/usbmisc" 2>/dev/null |
		head -n 1)
	uip_mbimcli --attach-packet-service
	uip_mbimcli "--connect=access-string=internet,ip-type=ipv4"
	$IPB addr add 100.64.39.2/30 dev "$UIP_NET"
	$IPB link set "$UIP_NET" up
	$IPB route add default via 100.64.39.1 dev "$UIP_NET"
	$IPB addr add 192.168.76.1/24 dev mpr0
	$IPB link set mpr0 up
	echo 1 > /proc/sys/net/ipv4/ip_forward
	printf 'table ip mbimnat {\n chain post {\n  type nat hook postrouting priority srcnat; policy accept;\n  oifname "%s" masquerade\n }\n}\n' "$UIP_NET" |
		chroot /host /usr/sbin/nft -f -
	if mp_ping; then
		mp_flood linux "$rep"
		result PASS "mbim-perf-linux-$rep" "cdc_mbim $UIP_NET, ip_forward, nft masquerade: $(tail -n 1 $MP_CSV)"
	else
		result FAIL "mbim-perf-linux-$rep" "no ping through Linux ($UIP_NET)"
	fi
	chroot /host /usr/sbin/nft delete table ip mbimnat
	echo 0 > /proc/sys/net/ipv4/ip_forward
	$IPB route del default via 100.64.39.1 dev "$UIP_NET"
	$IPB addr flush dev "$UIP_NET"
	$IPB addr flush dev mpr0
	uip_mbimcli --disconnect
}

mp_cpe() {
	rep=$1
	mode=$2
	hold=${3:-}
	name=ch39x-cpe-$mode${hold:+-h$hold}
	b=$(uip_field mbim 1)
	path=$(uip_port "$b" | cut -d' ' -f2)
	afp=$(ls /host/run/dpdk-pmds-all/librte_net_af_packet.so.[0-9]* \
		2>/dev/null | head -n 1 | sed 's,^/host,,')
	cpe_bin=${PMD_SO%/drivers/net/ch39x/*}/app/ch39x-cpe/ch39x-cpe
	$IPB link set mpr0 up
	timeout 200 chroot /host "$cpe_bin" -l 1 --no-huge --no-pci -m 256 \
		--file-prefix cpe_uip -d "$PRIV/librte_net_ch39x.so" -d "$afp" \
		--vdev net_af_packet0,iface=mpr0 \
		--vdev "net_ch39x1,dev=1a86:*,path=$path,proto=mbim,apn=internet,ip_type=ipv4${hold:+,tx_hold_us=$hold}" \
		-- --lan 0=192.168.76.1/24 --wan 1=100.64.39.2/30 \
		--route default,100.64.39.1 --idle "$mode" --json \
		> "/out/mbim-perf-$name-$rep.json" 2> "/out/mbim-perf-$name-$rep.err" &
	job=$!
	i=0
	st=""
	while [ $i -lt 240 ]; do
		kill -0 $job 2>/dev/null || break
		st=$(uip_cpe_ctl /ch39x/mbim,1)
		case $st in *'"state": "connected"'*) break ;; esac
		sleep 0.5
		i=$((i + 1))
	done
	if mp_ping; then
		mp_flood "$name" "$rep"
		result PASS "mbim-perf-$name-$rep" "af_packet mpr0 + the PMD's MBIM port: $(tail -n 1 $MP_CSV)"
	else
		result FAIL "mbim-perf-$name-$rep" "no ping through ch39x-cpe: $st $(grep -v '^EAL' "/out/mbim-perf-$name-$rep.err" | tail -n 3 | tr '\n' ' ')"
	fi
	kill -TERM $job 2>/dev/null
	i=0
	while kill -0 $job 2>/dev/null && [ $i -lt 150 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	wait $job
}

mbim_perf() {
	: > $MP_CSV
	: > $MP_SUM
	echo "rep,router,rx_fps,tx_fps,busy,out_urbs,dg_per_out_urb,bytes_per_out_urb,in_urbs" > $MP_CSV
	if ! pmd_prepare || ! uip_bound mbim cdc_mbim; then
		result FAIL mbim-perf-setup "no PMD, or no cdc_mbim on the modem"
		return
	fi
	ns_new mpl
	$IPB link add mpl0 type veth peer name mpr0
	$IPB link set mpl0 netns mpl
	$IPB -n mpl addr add 192.168.76.2/24 dev mpl0
	$IPB -n mpl link set mpl0 up
	$IPB -n mpl route add default via 192.168.76.1
	ns_new uipmbim
	$IPB link set uipmbim netns uipmbim
	$IPB -n uipmbim addr add 198.51.100.1/24 dev uipmbim
	$IPB -n uipmbim link set uipmbim up
	$IPB -n uipmbim route add 100.64.0.0/10 via 198.51.100.2
	printf 'table ip sink {\n chain in {\n  type filter hook input priority 0; policy accept;\n  udp dport 9 counter drop\n }\n}\n' |
		nsx uipmbim /usr/sbin/nft -f -
	MP_LPID=$(anchor mpl)
	MP_WPID=$(anchor uipmbim)
	r=1
	while [ $r -le "$CPE_REPS" ]; do
		mp_linux $r
		for mode in $MP_MODES; do
			if [ -z "$MP_HOLDS" ]; then
				mp_cpe $r "$mode"
				continue
			fi
			for h in $MP_HOLDS; do
				mp_cpe $r "$mode" "$h"
			done
		done
		r=$((r + 1))
	done
	line=""
	for rt in linux $(for mode in $MP_MODES; do
		if [ -z "$MP_HOLDS" ]; then echo "ch39x-cpe-$mode"; continue; fi
		for h in $MP_HOLDS; do echo "ch39x-cpe-$mode-h$h"; done
	done); do
		m=$(awk -F, -v r=$rt '$2 == r { print $3 }' $MP_CSV | sort -n |
			awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)], a[1], a[NR]; else print 0, 0, 0 }')
		mp_log "median $rt: ${m%% *} frames/s (min-max ${m#* })"
		[ $rt = linux ] && lin=${m%% *}
		line="$line$rt ${m%% *}, "
		[ $rt = linux ] ||
			mp_log "ratio $rt / linux: $(echo "${m%% *} $lin" | awk '{ if ($2 > 0) printf "%.2f", $1 / $2; else print "-" }')"
	done
	result PASS mbim-perf "medians: ${line%, } frames/s (60-byte UDP, one flow; /out/mbim-perf.txt)"
}
