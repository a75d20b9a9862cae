# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# Latency under load through a shaped WAN uplink (run.sh with QOS=1; not
# part of the default run), in the guest, on the topology of cpe.sh (two
# NCM gadgets on dummy_hcd; the LAN host 192.168.1.2 in cpe_lan, the WAN
# host 203.0.113.2 in cpe_wan; the router's ports are the host-side
# functions). The routers take turns CPE_QOS_REPS times, each shaping its
# WAN egress (and only that) to CPE_QOS_RATE (20M):
#
#   fq    ch39x-cpe --wan-rate RATE CPE_QOS_ARGS CPE_QOS_FQ_ARGS
#         --down-rate CPE_QOS_DOWN_RATE (flow queueing, default
#         "--qos-fq on"; its downlink shaped too, default 60M, a little
#         below what the guest's path carries: "" for none)
#   fifo  ch39x-cpe --wan-rate RATE CPE_QOS_ARGS CPE_QOS_FIFO_ARGS
#         (today's FIFO per class; default "--qos-fq off")
#   cake  Linux (cpe.sh's router: cdc_ncm netdevs in cpe_rt, nftables
#         masquerade) with "tc qdisc replace dev WAN root cake bandwidth
#         RATE"
#   htb   the same Linux router with HTB at RATE (one class) and fq_codel
#         as its leaf qdisc on the WAN netdev
#
# Loads, each a CPE_QOS_SECS window (12 s) after a 3 s warm-up:
#   idle  the sparse flow alone (5 s)
#   l1    4 TCP uploads (iperf3 -P 4, LAN -> WAN host) and the sparse
#         flow: an unmarked ping every 20 ms LAN -> WAN host
#   l2    l1 plus 4 TCP downloads (a second iperf3 server, -R -P 4);
#         downloads are shaped only by router fq's --down-rate (the
#         Linux routers shape their WAN egress only)
# iperf3 and ping are pinned to vCPU 0 (the ping SCHED_FIFO: its own wait
# for the vCPU is not the router's latency), ch39x-cpe's lcore is vCPU 1.
#
# Per sample (/out/qos.csv): the ping's RTT percentiles 50/90/99 (nearest
# rank) and mean, each stream's goodput at its receiver over the 1 s
# intervals inside the window, Jain's fairness index over the uploads (and
# over the downloads), the uploads' total against the rate, and the
# router's CPU as cpe.sh measures it (guest busy minus the generators:
# iperf3 and ping; and ch39x-cpe's own process time). The ping outputs,
# iperf3 JSONs, ch39x-cpe's exit JSON (--json, with its qos section) and
# tc -s qdisc after each Linux round stay in /out; /out/qos-summary.txt
# has the medians (min-max) per router and load (tests/vm/qos_stats.py).
#
# PASS/FAIL only for what must hold: the qdiscs exist in this kernel, each
# router starts (ch39x-cpe: a start that fails on an option it does not
# know is reported once and the router is left out of the later reps) and
# passes a ping LAN -> WAN, its shaper is installed, every iperf3 moved
# data through the router's WAN address (NAT), ch39x-cpe exits 0 and
# cdc_ncm takes the gadgets back. The numbers are measured, not asserted.
#
# Settings: run.sh's CPE_QOS_* in the run directory's qos.conf (QOS_*);
# the defaults below.
#
# Sourced by guest.sh after pmd.sh and cpe.sh (uses their result, param,
# up, nsx, ndev, cpe_gadgets, linux_up, linux_down, wait_carrier,
# wait_kdrv, ping_through, cpe_snap, gen_ticks, $ROOT, $PRIV, $CPE_BIN).

# run.sh's settings (CPE_QOS_*), as QOS_* shell assignments
[ -f /out/qos.conf ] && . /out/qos.conf
QOS_REPS=${QOS_REPS:-3}
QOS_SECS=${QOS_SECS:-12}
QOS_RATE=${QOS_RATE:-20M}
QOS_ROUTERS=${QOS_ROUTERS:-fq fifo cake htb}
QOS_LOADS=${QOS_LOADS:-idle l1 l2}
QOS_FQ_ARGS=${QOS_FQ_ARGS---qos-fq on}
QOS_FIFO_ARGS=${QOS_FIFO_ARGS---qos-fq off}
QOS_ARGS=${QOS_ARGS:-}
QOS_DOWN_RATE=${QOS_DOWN_RATE-60M}
QOS_WARM=3
QOS_IDLE_SECS=5
QOS_CSV=/out/qos.csv
# iperf3's JSON, where both this shell (/host/tmp) and the chroot (/tmp)
# see it
QOS_TMP=/tmp/qos
QOS_PY="chroot /host python3 $ROOT/tests/vm/qos_stats.py"
# 20M -> 20mbit, 500k -> 500kbit, 1G -> 1gbit (tc's units); and in bit/s
QOS_TC_RATE=$(echo "$QOS_RATE" | sed 's/[mM]$/mbit/; s/[kK]$/kbit/; s/[gG]$/gbit/')
QOS_BPS=$(echo "$QOS_RATE" | awk '{ v = $1 + 0; u = substr($1, length($1));
	if (u == "k" || u == "K") v *= 1e3; if (u == "m" || u == "M") v *= 1e6;
	if (u == "g" || u == "G") v *= 1e9; printf "%d", v }')
QOS_SKIP=""		# routers left out after a start that cannot succeed

qos_log() {
	echo "$1" >> /out/qos.txt
	echo "[qos] $1"
}

# tcq ARGS...: tc in the router's namespace
tcq() {
	nsx $RT_NS /usr/sbin/tc "$@"
}

# qos_qdiscs: which of cake, htb and fq_codel this kernel has: each one
# put on the loopback of a scratch namespace (modules from the initramfs,
# in the guest only). Sets QOS_NO (the routers that cannot run).
qos_qdiscs() {
	for m in $(cat /modules/qos.list 2>/dev/null); do
		insmod "/modules/$m.ko" 2>/dev/null ||
			grep -q "^$m " /proc/modules ||
			echo "[guest] insmod $m failed"
	done
	QOS_NO=""
	have=""
	miss=""
	ns_new qos_chk || { QOS_NO="cake htb"; return 1; }
	for q in "cake bandwidth $QOS_TC_RATE" "htb default 1" fq_codel; do
		if nsx qos_chk /usr/sbin/tc qdisc replace dev lo root $q \
			> /dev/null 2>&1; then
			have="$have ${q%% *}"
		else
			miss="$miss ${q%% *}"
		fi
	done
	$IPB netns del qos_chk
	case "$miss" in *cake*) QOS_NO="$QOS_NO cake" ;; esac
	case "$miss" in *htb*|*fq_codel*) QOS_NO="$QOS_NO htb" ;; esac
	if [ -z "$miss" ]; then
		result PASS qos-qdiscs "this kernel ($(uname -r)) has$have (modules loaded: $(tr '\n' ' ' < /modules/qos.list 2>/dev/null))"
	else
		result FAIL qos-qdiscs "this kernel ($(uname -r)) lacks$miss (has:${have:- none}); routers left out:$QOS_NO"
	fi
}

# ---- the routers ----

# qos_app_up NAME ARGS...: ch39x-cpe with a shaped WAN
qos_app_up() {
	n=$1
	shift
	APP_N=$((APP_N + 1))
	tag=$REP-$n
	# Long enough for the round; stopped by SIGTERM before.
	lim=$((240 + $(echo $QOS_LOADS | wc -w) * (QOS_SECS + 60)))
	# shellcheck disable=SC2086
	timeout "$lim" chroot /host "$CPE_BIN" -l 1 --no-huge --no-pci \
		-m 256 --file-prefix "qos_vm$APP_N" \
		-d "$PRIV/librte_net_ch39x.so" \
		--vdev "net_ch39x0,dev=1209:0005,path=$PL" \
		--vdev "net_ch39x1,dev=1209:0006,path=$PW" -- \
		--lan 0=$RT_LAN/24 --wan 1=$RT_WAN/24 --wan-rate "$QOS_RATE" \
		"$@" --json \
		> "/out/qos-app-$tag.json" 2> "/out/qos-app-$tag.err" &
	APP_JOB=$!
	i=0
	while [ $i -lt 600 ]; do
		grep -q "forwarding on 2 ports" "/out/qos-app-$tag.err" \
			2>/dev/null && break
		kill -0 $APP_JOB 2>/dev/null || break
		sleep 0.25
		i=$((i + 1))
	done
	if ! grep -q "forwarding on 2 ports" "/out/qos-app-$tag.err"; then
		CPE_ERR="ch39x-cpe --wan-rate $QOS_RATE $* did not start: $(grep -v '^EAL: Detected' "/out/qos-app-$tag.err" | tail -n 3 | cut -c1-300 | tr '\n' ' ')"
		# an option this build does not know: no later rep can start it
		grep -q "unknown option\|unknown key\|allowed values" \
			"/out/qos-app-$tag.err" && QOS_SKIP="$QOS_SKIP $n"
		app_kill
		wait_kdrv
		return 1
	fi
	RTR_PID=$(app_child $APP_JOB)
	RTR_DESC="ch39x-cpe -l 1 --wan-rate $QOS_RATE $* on net_ch39x0 $PL, net_ch39x1 $PW"
	# Taking the devices resets the gadgets' links.
	wait_carrier $LAN_NS "$GL" && wait_carrier $WAN_NS "$GW"
	return 0
}

qos_app_down() {
	app_stop "$1"
	qos_log "rep $REP $1: ch39x-cpe's qos statistics: $($QOS_PY app "$OUT/qos-app-$tag.json" 2>&1 | cut -c1-3000)"
	app_exit_result "qos-$1-exit-$REP" " (statistics in qos-app-$tag.json)"
}

# qos_linux_up ROUTER: cpe.sh's Linux router, its WAN egress shaped
qos_linux_up() {
	linux_up || return 1
	if [ "$1" = cake ]; then
		tcq qdisc replace dev "$KW" root cake bandwidth "$QOS_TC_RATE" ||
			{ CPE_ERR="tc cake on $KW failed"; return 1; }
	else
		tcq qdisc replace dev "$KW" root handle 1: htb default 1 &&
		tcq class add dev "$KW" parent 1: classid 1:1 htb \
			rate "$QOS_TC_RATE" ceil "$QOS_TC_RATE" &&
		tcq qdisc add dev "$KW" parent 1:1 handle 10: fq_codel ||
			{ CPE_ERR="tc htb + fq_codel on $KW failed"; return 1; }
	fi
	q=$(tcq qdisc show dev "$KW" | tr '\n' ';')
	case "$1:$q" in
	cake:*"qdisc cake"*|htb:*"qdisc htb"*"qdisc fq_codel"*)
		result PASS "qos-$1-qdisc-$REP" "$KW egress: $q" ;;
	*)	result FAIL "qos-$1-qdisc-$REP" "$KW egress: $q"
		CPE_ERR="$1 not on $KW"
		return 1 ;;
	esac
	RTR_DESC="$RTR_DESC; $KW egress: $1 at $QOS_TC_RATE"
	return 0
}

qos_linux_down() {
	tcq -s qdisc show dev "$KW" > "/out/qos-tc-$REP-$1.txt" 2>&1
	tcq -s class show dev "$KW" >> "/out/qos-tc-$REP-$1.txt" 2>&1
	# the qdiscs' part: totals, and cake's per-tin or fq_codel's lines
	qos_log "rep $REP $1: tc -s qdisc on $KW: $(sed '/^class /,$d' "/out/qos-tc-$REP-$1.txt" | grep -E 'Sent|thresh|delay|drops|marks|flows|maxpacket|ecn_mark' | tr -s ' \n' '  ' | cut -c1-900)"
	linux_down
}

# ---- measurement ----

# listening PORT: a listener on PORT in the WAN host's namespace (bounded)
listening() {
	hx=$(printf '%04X' "$1")
	i=0
	while [ $i -lt 100 ]; do
		cat "/proc/$WPID/net/tcp" "/proc/$WPID/net/tcp6" 2>/dev/null |
			awk -v p=":$hx" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }' &&
			return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# iperf_srv PORT: a one-off iperf3 server on PORT (JSON in /tmp)
iperf_srv() {
	nsx $WAN_NS timeout $((QOS_WARM + QOS_SECS + 70)) taskset -c 0 \
		iperf3 -s -1 -J -p "$1" > "/host$QOS_TMP/srv-$1.json" 2>&1 &
	SRV_PIDS="$SRV_PIDS $!"
	listening "$1"
}

# qos_load LOAD: the sparse flow alone or beside bulk TCP; one CSV line
qos_load() {
	load=$1
	base=$REP-$ROUTER-$load
	win=$QOS_SECS
	pids=""
	SRV_PIDS=""
	rm -rf "/host$QOS_TMP"
	mkdir -p "/host$QOS_TMP"
	if [ "$load" = idle ]; then
		win=$QOS_IDLE_SECS
	else
		# past the window's end, however late the ping starts: a
		# generator that ends inside it drops out of the CPU count
		t=$((QOS_WARM + QOS_SECS + 6))
		iperf_srv 5201
		nsx $LAN_NS timeout $((t + 40)) taskset -c 0 iperf3 -c $WAN_IP \
			-p 5201 -P 4 -t $t -J > "/host$QOS_TMP/cli-5201.json" 2>&1 &
		pids="$pids $!"
		if [ "$load" = l2 ]; then
			iperf_srv 5202
			nsx $LAN_NS timeout $((t + 40)) taskset -c 0 iperf3 \
				-c $WAN_IP -p 5202 -P 4 -R -t $t -J \
				> "/host$QOS_TMP/cli-5202.json" 2>&1 &
			pids="$pids $!"
		fi
		sleep $QOS_WARM
	fi
	# SCHED_FIFO: the pinger's own wait for vCPU 0 behind the iperf3
	# processes is not the router's latency
	nsx $LAN_NS timeout $((win + 20)) taskset -c 0 chrt -f 50 \
		/usr/bin/ping -n -i 0.02 -w "$win" $WAN_IP \
		> "/out/qos-ping-$base.txt" 2>&1 &
	pp=$!
	sleep 0.3
	GEN_PIDS=$(pidof iperf3 ping)
	gen_ticks > /tmp/qos.g0
	s0=$(cpe_snap)
	wait $pp
	s1=$(cpe_snap)
	gen_ticks > /tmp/qos.g1
	GEN_PIDS=""
	gd=$(awk 'NR == FNR { a[$1] = $2; next } ($1 in a) { s += $2 - a[$1] }
		END { print s + 0 }' /tmp/qos.g0 /tmp/qos.g1)
	# the servers end with their client (each bounded by its timeout)
	for p in $pids $SRV_PIDS; do wait "$p"; done
	ok=1
	why=""
	for f in "/host$QOS_TMP"/*.json; do
		[ -f "$f" ] || continue
		cat "$f" >> "/out/qos-iperf-$base.json"
	done
	# the receivers' view over the ping's window (iperf3's time axis
	# starts with its test, QOS_WARM s before the ping)
	t0=$QOS_WARM
	t1=$((QOS_WARM + QOS_SECS))
	up="- - -"
	dn="- - -"
	if [ "$load" != idle ]; then
		up=$($QOS_PY iperf $QOS_TMP/srv-5201.json $t0 $t1)
		rh=$(sed -n 's/.*"remote_host":[[:space:]]*"\([0-9.]*\)".*/\1/p' "/host$QOS_TMP/srv-5201.json" | head -n 1)
		[ "$rh" = $RT_WAN ] && [ "${up%% *}" != - ] ||
			{ ok=0; why="$why uploads: server saw '${rh:-nobody}', goodput ${up%% *};"; }
	fi
	if [ "$load" = l2 ]; then
		dn=$($QOS_PY iperf $QOS_TMP/cli-5202.json $t0 $t1)
		rh=$(sed -n 's/.*"remote_host":[[:space:]]*"\([0-9.]*\)".*/\1/p' "/host$QOS_TMP/srv-5202.json" | head -n 1)
		[ "$rh" = $RT_WAN ] && [ "${dn%% *}" != - ] ||
			{ ok=0; why="$why downloads: server saw '${rh:-nobody}', goodput ${dn%% *};"; }
	fi
	pg=$($QOS_PY ping "$OUT/qos-ping-$base.txt")
	hl=$(cut -d' ' -f1 /out/hostload 2>/dev/null)
	cpu=$(echo "$s0 $s1 $gd" | awk '{
		dt = $14 - $7; if (dt <= 0) dt = 1;
		j0 = $9 - $2; j1 = $11 - $4; b0 = 0; b1 = 0;
		if (j0 > 0) b0 = 100 * (1 - ($8 - $1) / j0);
		if (j1 > 0) b1 = 100 * (1 - ($10 - $3) / j1);
		gen = $15 / dt; rtr = ($13 - $6) / dt;
		printf "%.1f,%.1f,%.1f,%.1f,%.2f", b0 + b1, gen, b0 + b1 - gen,
			rtr, dt }')
	set -- $pg
	ps=$1 pr=$2 p50=$3 p90=$4 p99=$5 pm=$6
	set -- $up
	um=$1 uj=$2 us=$3
	set -- $dn
	dm=$1 dj=$2 ds=$3
	upct=$(echo "$um $QOS_BPS" | awk '$1 != "-" && $2 > 0 { printf "%.1f", 100 * $1 * 1e6 / $2; f = 1 } END { if (!f) print "-" }')
	echo "$REP,$ROUTER,$load,$ps,$pr,$p50,$p90,$p99,$pm,$um,$upct,$uj,$us,$dm,$dj,$ds,$cpu,${hl:-?}" >> $QOS_CSV
	qos_log "rep $REP $ROUTER $load: ping $pr/$ps RTT p50 $p50 p90 $p90 p99 $p99 mean $pm ms; uploads $um Mbit/s ($upct % of $QOS_RATE, Jain $uj: $us); downloads $dm Mbit/s (Jain $dj: $ds); CPU busy,generators,router,ch39x-cpe,secs $cpu; host load ${hl:-?}"
	if [ $ok = 0 ]; then
		QOS_BAD=$((QOS_BAD + 1))
		QOS_WHY="$QOS_WHY $load:$why"
	fi
	# the queues drain before the next load
	sleep 1
}

# qos_round ROUTER: one router through every load
qos_round() {
	ROUTER=$1
	name=qos-$ROUTER-$REP
	case " $QOS_SKIP $QOS_NO " in
	*" $1 "*)
		qos_log "rep $REP $1: left out (see its first FAIL line)"
		return ;;
	esac
	$IPB -n $LAN_NS neigh flush all
	$IPB -n $WAN_NS neigh flush all
	CPE_ERR=""
	case $1 in
	fq)	# shellcheck disable=SC2086
		qos_app_up fq $QOS_ARGS $QOS_FQ_ARGS \
			${QOS_DOWN_RATE:+--down-rate $QOS_DOWN_RATE} ;;
	fifo)	# shellcheck disable=SC2086
		qos_app_up fifo $QOS_ARGS $QOS_FIFO_ARGS ;;
	cake|htb) qos_linux_up "$1" ;;
	*)	CPE_ERR="unknown router '$1' (fq, fifo, cake, htb)"; false ;;
	esac
	rc=$?
	if [ $rc != 0 ]; then
		skip=""
		case " $QOS_SKIP " in *" $1 "*) skip="; left out of the later reps" ;; esac
		result FAIL "$name-start" "$CPE_ERR$skip"
		case $1 in cake|htb) qos_linux_down "$1" ;; esac
		return
	fi
	if ! ping_through; then
		result FAIL "$name-start" "$RTR_DESC: no echo reply LAN -> WAN"
		case $1 in cake|htb) qos_linux_down "$1" ;; *) qos_app_down "$1" ;; esac
		return
	fi
	result PASS "$name-start" "$RTR_DESC: the LAN host pings the WAN server"
	QOS_BAD=0
	QOS_WHY=""
	for l in $QOS_LOADS; do
		qos_load "$l"
	done
	case " $QOS_LOADS " in
	*" l1 "*|*" l2 "*)
		if [ $QOS_BAD = 0 ]; then
			result PASS "$name-iperf" "every iperf3 server saw $RT_WAN (the router's WAN address) and its receiver got data in the window"
		else
			result FAIL "$name-iperf" "$QOS_WHY"
		fi ;;
	esac
	case $1 in cake|htb) qos_linux_down "$1" ;; *) qos_app_down "$1" ;; esac
}

qos_run() {
	echo "[guest] qos starts at uptime $(up) s: reps $QOS_REPS, ${QOS_SECS} s windows, WAN shaped to $QOS_RATE, routers $QOS_ROUTERS, loads $QOS_LOADS; fq: $QOS_ARGS $QOS_FQ_ARGS ${QOS_DOWN_RATE:+--down-rate $QOS_DOWN_RATE}; fifo: $QOS_ARGS $QOS_FIFO_ARGS"
	pmd_prepare || return
	for m in $(cat /modules/cpe.list 2>/dev/null); do
		insmod "/modules/$m.ko" 2>/dev/null ||
			grep -q "^$m " /proc/modules ||
			echo "[guest] insmod $m failed"
	done
	if [ ! -x "/host$CPE_BIN" ] || [ ! -x /host/usr/sbin/nft ] ||
	   [ ! -x /host/usr/bin/iperf3 ] || [ ! -x /host/usr/sbin/tc ]; then
		result FAIL qos-setup "need $CPE_BIN (ninja -C build), /usr/sbin/nft (nftables), /usr/sbin/tc (iproute2) and /usr/bin/iperf3 on the host (scripts/setup.sh --tests)"
		return
	fi
	qos_qdiscs
	if ! cpe_gadgets; then
		result FAIL qos-gadgets "two NCM gadgets with cdc_ncm: cpel at '$PL' ($GL, cdc_ncm '$KL'), cpew at '$PW' ($GW, cdc_ncm '$KW')"
		return
	fi
	result PASS qos-gadgets "NCM gadgets cpel at $PL (LAN host $GL in $LAN_NS, cdc_ncm $KL) and cpew at $PW (WAN host $GW in $WAN_NS, cdc_ncm $KW), $(cat /sys/bus/usb/devices/$PL/speed) Mb/s"
	echo "rep,router,load,ping_sent,ping_recv,rtt_p50,rtt_p90,rtt_p99,rtt_mean,up_mbps,up_pct_rate,jain_up,up_streams,down_mbps,jain_down,down_streams,cpu_busy,cpu_gen,cpu_router,cpu_cpe_proc,secs,hostload" > $QOS_CSV
	REP=1
	while [ $REP -le "$QOS_REPS" ]; do
		for r in $QOS_ROUTERS; do
			qos_round "$r"
		done
		REP=$((REP + 1))
	done
	$QOS_PY summary "$OUT/qos.csv" "$QOS_BPS" "$QOS_ROUTERS" "$QOS_LOADS" \
		"${QOS_DOWN_RATE:-off}" \
		> /out/qos-summary.txt 2>&1
	while read -r l; do qos_log "$l"; done < /out/qos-summary.txt
	kill $LPID $WPID 2>/dev/null
	kernel_log qos-kernel-log '' "warnings or oopses (above)" \
		"no warnings or oopses"
	echo "[guest] qos done at uptime $(up) s"
}
