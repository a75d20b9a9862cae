# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# Issue 27's Linux comparison (run.sh with CPE_PPPOE=1; not part of the
# default run), in the guest, on cpe.sh's two NCM gadgets and hosts: the
# UDP flood of 60-byte frames from pktgen on the LAN host through
#
#   ch39x-cpe-plain  ch39x-cpe, the WAN 203.0.113.1/24 (cpe.sh's app_up)
#   ch39x-cpe-pppoe  ch39x-cpe --wan 1=pppoe, pppd with rp-pppoe.so on
#                    its WAN TAP and the hook handing the session over
#   linux-pppoe      the kernel's cdc_ncm netdevs in cpe_rt, pppd with
#                    rp-pppoe.so on the WAN one (the kernel's PPPoE:
#                    ppp0), ip_forward=1, nftables masquerade on ppp0
#
# with Debian's pppoe-server on the WAN host's netdev as the concentrator
# (100.64.0.1, a pool from 100.64.0.10). It has no kernel mode: its
# sessions run through a user-mode relay (pppoe under pppd on a pty),
# which could not keep up with the flood. So frames are counted where
# they arrive, the WAN host's netdev (cpe.sh's measure: frames/s at the
# WAN host), and the relay and the server's pppd are stopped (SIGSTOP)
# for the window, LCP echoes off on every pppd so that nobody misses
# them; they go on (SIGCONT) after it.
#
# The routers take turns CPE_REPS times; /out/cpe.csv has every sample
# (cpe.sh's columns), /out/cpe-pppoe-summary.txt the medians (min-max)
# and the ratios. PASS/FAIL: each router starts, dials (the session up),
# passes a ping LAN -> WAN and the flood reaches the WAN host. Rates are
# measured, not asserted.
#
# Sourced by guest.sh after pmd.sh and cpe.sh.

PP_DIR=/run/ch39x-cpe-pppoe	# in the chroot
AC_IP=100.64.0.1
PP_TAP=cpeppp
PP_CLI=""

# pp_etc NS SIDE CMD...: CMD in the chroot, in namespace NS (- for the
# initial one), with /etc/ppp its SIDE's directory (a mount namespace of
# its own: the root is read-only)
pp_etc() {
	ns=$1 side=$2
	shift 2
	if [ "$ns" = - ]; then
		chroot /host /usr/bin/unshare -m /bin/sh -c \
			'mount --bind "$0" /etc/ppp && exec "$@"' "$PP_DIR/$side" "$@"
	else
		chroot /host /usr/sbin/ip netns exec "$ns" /usr/bin/unshare -m \
			/bin/sh -c 'mount --bind "$0" /etc/ppp && exec "$@"' \
			"$PP_DIR/$side" "$@"
	fi
}

pp_prepare() {
	for m in $(cat /modules/pppoe.list); do
		insmod "/modules/$m.ko" 2>/dev/null || grep -q "^$m " /proc/modules ||
			echo "[guest] insmod $m failed"
	done
	[ -c /host/dev/ppp ] || mknod /host/dev/ppp c 108 0
	# pppoe-server's sessions run pppd on a pseudo-terminal.
	mkdir -p /host/dev/pts
	mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts /host/dev/pts
	[ -c /host/dev/ptmx ] || ln -sf pts/ptmx /host/dev/ptmx
	chmod 755 /host/run
	mkdir -p "/host$PP_DIR/srv" "/host$PP_DIR/cli"
	: > "/host$PP_DIR/srv/options"
	: > "/host$PP_DIR/cli/options"
	printf 'noauth\nlcp-echo-interval 0\nnodefaultroute\n' \
		> "/host$PP_DIR/srv/pppoe-server-options"
	[ -x /host/usr/sbin/pppoe-server ] && [ -x /host/usr/sbin/pppd ]
}

pp_server_start() {
	pp_etc $WAN_NS srv /usr/sbin/pppoe-server -F -I "$GW" -L $AC_IP \
		-R 100.64.0.10 -N 4 -O /etc/ppp/pppoe-server-options \
		> /out/cpe-pppoe-server.log 2>&1 &
}

# pp_server_signal SIG: SIG to the session's relay and pppd of the WAN
# namespace (not to pppoe-server: it only listens for discovery)
pp_server_signal() {
	for p in $(chroot /host /usr/sbin/ip netns pids $WAN_NS); do
		case $(cat "/proc/$p/comm" 2>/dev/null) in
		pppd|pppoe) kill -"$1" "$p" 2>/dev/null ;;
		esac
	done
}

pp_server_stop() {
	pp_server_signal CONT
	for p in $(chroot /host /usr/sbin/ip netns pids $WAN_NS); do
		case $(cat "/proc/$p/comm" 2>/dev/null) in
		pppoe-server|pppd|pppoe) kill -9 "$p" 2>/dev/null ;;
		esac
	done
}

# pp_client NS IFNAME TAG [pppd options]: pppd with the kernel's PPPoE
# on IFNAME (in the background: PP_CLI its PID)
pp_client() {
	ns=$1 ifn=$2 tag=$3
	shift 3
	pp_etc "$ns" cli /usr/sbin/pppd nodetach plugin rp-pppoe.so "$ifn" \
		noauth noipdefault lcp-echo-interval 0 \
		logfile "$PP_DIR/pppd-$tag.log" "$@" \
		> "/out/cpe-pppd-$tag.out" 2>&1 &
	PP_CLI=$!
}

pp_client_stop() {
	[ -n "$PP_CLI" ] || return 0
	# pppd's PID is the unshare's child's: every pppd of the namespace
	kill "$PP_CLI" 2>/dev/null
	for p in $(pidof pppd); do
		grep -q "plugin" "/proc/$p/cmdline" 2>/dev/null &&
			grep -q "rp-pppoe" "/proc/$p/cmdline" && kill "$p"
	done
	wait "$PP_CLI" 2>/dev/null
	PP_CLI=""
	cp "/host$PP_DIR/"pppd-*.log /out/ 2>/dev/null
}

# linux_pppoe_up: the kernel's router with ppp0 as its WAN
linux_pppoe_up() {
	wait_kdrv || { CPE_ERR="no cdc_ncm netdevs on $PL and $PW"; return 1; }
	ns_new $RT_NS || { CPE_ERR="netns $RT_NS"; return 1; }
	$IPB link set "$KL" netns $RT_NS && $IPB link set "$KW" netns $RT_NS ||
		{ CPE_ERR="cannot move $KL $KW"; return 1; }
	$IPB -n $RT_NS addr add $RT_LAN/24 dev "$KL"
	$IPB -n $RT_NS link set "$KL" up
	$IPB -n $RT_NS link set "$KW" up
	carrier_or_bounce "$KL" $LAN_NS "$GL"
	carrier_or_bounce "$KW" $WAN_NS "$GW"
	nsx $RT_NS /bin/sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'
	pp_client $RT_NS "$KW" "linux-$REP" defaultroute
	i=0
	while [ $i -lt 120 ]; do
		$IPB -n $RT_NS -4 addr show dev ppp0 2>/dev/null | grep -q inet &&
			break
		sleep 0.5
		i=$((i + 1))
	done
	$IPB -n $RT_NS -4 addr show dev ppp0 2>/dev/null | grep -q inet ||
		{ CPE_ERR="pppd did not bring ppp0 up in 60 s: $(tail -n 3 "/host$PP_DIR/pppd-linux-$REP.log" 2>/dev/null | tr '\n' ' ')"; return 1; }
	printf 'table ip cpe {\n chain post {\n  type nat hook postrouting priority srcnat; policy accept;\n  oifname "ppp0" masquerade\n }\n}\n' |
		nsx $RT_NS /usr/sbin/nft -f - ||
		{ CPE_ERR="nft masquerade on ppp0 failed"; return 1; }
	RTR_PID=""
	RTR_DESC="cdc_ncm $KL (LAN) and $KW (WAN) with pppd's kernel PPPoE ppp0 ($($IPB -n $RT_NS -4 -br addr show dev ppp0 | awk '{ print $3 }')), ip_forward=1, nft masquerade"
	return 0
}

linux_pppoe_down() {
	pp_client_stop
	linux_down
}

# app_pppoe_up: ch39x-cpe with its WAN over PPPoE, pppd on its TAP
app_pppoe_up() {
	app_up_pppoe || return 1
	pp_client - $PP_TAP "cpe-$REP" set CPE_PREFIX="cpe_vm$APP_N" \
		set CPE_CTL="$ROOT/usertools/ch39x-cpe-ctl" \
		set CPE_RESOLV="$PP_DIR/resolv.conf" \
		ip-up-script "$ROOT/usertools/ch39x-cpe-pppoe"
	i=0
	while [ $i -lt 120 ]; do
		chroot /host "$ROOT/usertools/ch39x-cpe-ctl" -p "cpe_vm$APP_N" \
			/cpe/wan 2>/dev/null | grep -q '"pppoe_session_id": [1-9]' &&
			break
		sleep 0.5
		i=$((i + 1))
	done
	chroot /host "$ROOT/usertools/ch39x-cpe-ctl" -p "cpe_vm$APP_N" \
		/cpe/wan > "/out/cpe-pppoe-wan-$REP.json" 2>&1
	grep -q '"pppoe_session_id": [1-9]' "/out/cpe-pppoe-wan-$REP.json" ||
		{ CPE_ERR="no session reached ch39x-cpe in 60 s: $(tail -n 3 "/host$PP_DIR/pppd-cpe-$REP.log" 2>/dev/null | tr '\n' ' ')"; return 1; }
	RTR_DESC="$RTR_DESC, the WAN over PPPoE (pppd on TAP $PP_TAP)"
	return 0
}

# app_up with --wan 1=pppoe rather than an address
app_up_pppoe() {
	APP_N=$((APP_N + 1))
	tag=$REP-pppoe
	# shellcheck disable=SC2086
	app_launch $((200 + 4 * (CPE_SECS + 40))) \
		"ch39x-cpe -l 1 --idle poll on net_ch39x0 $PL, net_ch39x1 $PW" \
		--lan 0=$RT_LAN/24 --wan 1=pppoe --tap 1=$PP_TAP --idle poll \
		$CPE_ARGS --json
}

# pp_round NAME: one router through the flood
pp_round() {
	ROUTER=$1
	name=cpe-pppoe-$ROUTER-$REP
	$IPB -n $LAN_NS neigh flush all
	$IPB -n $WAN_NS neigh flush all
	CPE_ERR=""
	case $1 in
	ch39x-cpe-plain) app_up poll ;;
	ch39x-cpe-pppoe) pp_server_start; app_pppoe_up ;;
	linux-pppoe) pp_server_start; linux_pppoe_up ;;
	esac
	rc=$?
	dst=$WAN_IP
	[ "$1" = ch39x-cpe-plain ] || dst=$AC_IP
	if [ $rc = 0 ]; then
		i=0
		while [ $i -lt 30 ]; do
			nsx $LAN_NS /usr/bin/ping -n -q -c 1 -W 2 $dst \
				> /dev/null 2>&1 && break
			sleep 0.5
			i=$((i + 1))
		done
		[ $i -lt 30 ] || { rc=1; CPE_ERR="$RTR_DESC: no echo reply LAN -> $dst"; }
	fi
	if [ $rc = 0 ]; then
		result PASS "$name-start" "$RTR_DESC: the LAN host pings $dst"
		NAT_BAD=0
		NAT_WHY=""
		# The flood to the concentrator's address through the
		# session; counted at the WAN host's netdev.
		WAN_IP_SAVED=$WAN_IP
		WAN_IP=$dst
		[ "$1" = ch39x-cpe-plain ] || pp_server_signal STOP
		udp udp60-flood
		[ "$1" = ch39x-cpe-plain ] || pp_server_signal CONT
		WAN_IP=$WAN_IP_SAVED
		if [ $NAT_BAD = 0 ]; then
			result PASS "$name-flood" "the flood reached the WAN host"
		else
			result FAIL "$name-flood" "$NAT_WHY"
		fi
	else
		result FAIL "$name-start" "$CPE_ERR"
	fi
	case $1 in
	ch39x-cpe-plain) [ -n "$RTR_PID" ] && app_down plain ;;
	ch39x-cpe-pppoe) pp_client_stop; [ -n "$RTR_PID" ] && app_down pppoe
		pp_server_stop ;;
	linux-pppoe) linux_pppoe_down; pp_server_stop ;;
	esac
}

cpe_pppoe_summary() {
	S=/out/cpe-pppoe-summary.txt
	echo "# udp60-flood, frames/s at the WAN host: median (min-max, n) of $CPE_REPS reps x $CPE_SECS s; router CPU % of a vCPU" > $S
	for k in ch39x-cpe-plain ch39x-cpe-pppoe linux-pppoe; do
		set -- $(stats "$k" udp60-flood 4)
		p=$1
		echo "$k: $1 ($2-$3, $4) frames/s, router CPU $(stats "$k" udp60-flood 12 | cut -d' ' -f1) %" >> $S
		eval "PPS_$(echo $k | tr '-' '_')=$p"
	done
	# shellcheck disable=SC2154
	echo "$PPS_ch39x_cpe_plain $PPS_ch39x_cpe_pppoe $PPS_linux_pppoe" |
		awk '{ if ($1 > 0) printf "ch39x-cpe pppoe / plain: %.2f\n", $2 / $1;
		       if ($3 > 0) printf "ch39x-cpe pppoe / linux pppoe: %.2f\n", $2 / $3 }' >> $S
	cat $S | while read -r l; do cpe_log "$l"; done
}

cpe_pppoe_run() {
	echo "[guest] cpe_pppoe starts at uptime $(up) s: reps $CPE_REPS, ${CPE_SECS} s windows"
	pmd_prepare || return
	for m in $(cat /modules/perf.list /modules/cpe.list 2>/dev/null); do
		insmod "/modules/$m.ko" 2>/dev/null ||
			grep -q "^$m " /proc/modules ||
			echo "[guest] insmod $m failed"
	done
	if ! pp_prepare; then
		result FAIL cpe-pppoe-setup "PPP in the guest, pppd and pppoe-server on the host (scripts/setup.sh --tests)"
		return
	fi
	if ! cpe_gadgets; then
		result FAIL cpe-gadgets "two NCM gadgets with cdc_ncm: cpel at '$PL', cpew at '$PW'"
		return
	fi
	result PASS cpe-gadgets "NCM gadgets cpel at $PL ($GL in $LAN_NS, cdc_ncm $KL) and cpew at $PW ($GW in $WAN_NS, cdc_ncm $KW)"
	echo "rep,router,load,pps,mbps,offered_pps,cpu_busy,cpu0,cpu1,cpu_gen,cpu_cpe_proc,cpu_router,secs,hostload" > $CSV
	REP=1
	while [ $REP -le "$CPE_REPS" ]; do
		pp_round ch39x-cpe-plain
		pp_round ch39x-cpe-pppoe
		pp_round linux-pppoe
		REP=$((REP + 1))
	done
	cpe_pppoe_summary
	kill $LPID $WPID 2>/dev/null
	echo "[guest] cpe_pppoe done at uptime $(up) s"
}
