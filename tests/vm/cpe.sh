# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# The router comparison on a real USB stack (run.sh with CPE=1; not part of
# the default run), in the guest: two NCM gadgets on dummy_hcd are the
# router's ports. Their gadget-side netdevs are two hosts in network
# namespaces, the host-side functions are the router's ports:
#
#   cpe_lan: client 192.168.1.2/24, default route via 192.168.1.1
#       |  gadget netdev (f_ncm) == NCM gadget cpel (1209:0005) ==
#   router: LAN 192.168.1.1/24, WAN 203.0.113.1/24, NAT to the WAN address
#       |  == NCM gadget cpew (1209:0006) == gadget netdev (f_ncm)
#   cpe_wan: server 203.0.113.2/24, no route to the LAN
#
# With CPE_WAN=rndis (run.sh) the WAN gadget is Linux's f_rndis instead:
# Linux routes over rndis_host's netdev, ch39x-cpe takes it with
# proto=rndis (issue 42, item 5: an RNDIS WAN against an NCM one). With
# CPE_WAN="ncm rndis" both WAN gadgets are there (cpew 1209:0006 and cpew2
# 1209:000a, each with its WAN host in a namespace of its own, cpe_wan
# and cpe_wan2, at the same address) and every rep runs each router on
# each WAN in turn: the two WANs side by side in one run; the routers are
# then named linux-WAN and ch39x-cpe-MODE-WAN.
#
# and the router is in turn
#
#   linux      the kernel's cdc_ncm netdevs in a namespace cpe_rt,
#              ip_forward=1, nftables masquerade on the WAN netdev
#   ch39x-cpe  app/ch39x-cpe with two net_ch39x ports on the same two
#              gadgets (the PMD takes them from cdc_ncm and gives them
#              back at exit), once for each of CPE_MODES, a word W of
#              which runs it with --idle W (poll: busy polling), W.N
#              with --idle W --idle-spin N, W+K=V[+K=V] with the
#              devargs K=V on the WAN port too (e.g. adaptive+tx_xfers=48)
#
# The same traffic through each, from the namespaces: nothing (idle), TCP
# LAN -> WAN with iperf3 at each of CPE_RATES (-b), TCP at iperf3's
# maximum, and a UDP flood of 60-byte frames (one flow) from pktgen on the
# LAN host's netdev; with CPE_UDP_RATES, the same UDP at each of those
# frames/s first (pktgen's ratep: it sleeps on an hrtimer between frames
# while the gap is 100 us or more, so rates up to ~8k do not spin).
# iperf3 (client and server) is pinned to vCPU 0, ch39x-cpe's lcore to vCPU 1; pktgen's thread is on vCPU 0. With
# CPE_SAT=2, also TCP at iperf3's maximum WAN -> LAN (iperf3 -R: the
# download a CPE mostly carries). Over a CPE_SECS window each sample
# records: frames/s and Mbit/s received by the WAN host's netdev (after
# the router; the LAN host's for the download), frames/s pktgen sent (the flood), the
# busy share of each vCPU (/proc/stat), the generators' own CPU (iperf3
# processes, kpktgend threads) and ch39x-cpe's (/proc/PID/stat
# utime+stime), all in % of one CPU; and this machine's load (run.sh
# writes /proc/loadavg into the results share). "router CPU" is the
# guest's busy CPU minus the generators': the router plus the emulated USB
# host controller, the gadget functions and the hosts' network stacks,
# which carry the same traffic for both routers.
#
# The routers take turns CPE_REPS times; /out/cpe.csv has every sample,
# /out/cpe-summary.txt the medians (min-max) and the ratios ch39x-cpe /
# linux. Under TCG both run slower than on hardware by a similar factor:
# read ratios, not rates.
#
# PASS/FAIL: the gadgets enumerate with cdc_ncm; each router starts and
# passes a ping LAN -> WAN; every iperf3 run's server saw the router's WAN
# address (NAT) and received data; the UDP flood reached the server;
# cdc_ncm is bound again after each ch39x-cpe run. Rates are measured, not
# asserted.
#
# Sourced by guest.sh after pmd.sh (uses result, param, up, gadget, gfunc,
# config, devpath, pmd_prepare, kernel_log, $G, $PRIV, $PMD_SO, $SPEED).

CPE_REPS=$(param vmt_cpe_reps)
CPE_REPS=${CPE_REPS:-3}
CPE_SECS=$(param vmt_cpe_secs)
CPE_SECS=${CPE_SECS:-5}
CPE_RATES=$(param vmt_cpe_rates | tr ',' ' ')
CPE_RATES=${CPE_RATES:-0.5M 1M 2M}
CPE_MODES=$(param vmt_cpe_modes | tr ',' ' ')
CPE_MODES=${CPE_MODES:-poll}
# pktgen's 60-byte UDP at fixed frames/s (N or Nk each), loads udp60-R:
# below both routers' saturation the same frames cross the same gadgets
# and generators, so the whole guest's busy CPU compares the routers
CPE_UDP_RATES=$(param vmt_cpe_udp_rates | tr ',' ' ')
# 1: after ch39x-cpe's idle window, one more with its system calls counted,
# and 2 s after each fixed TCP or UDP rate's window (strace -c -f: slows
# the process, so never inside a measured window)
CPE_STRACE=$(param vmt_cpe_strace)
# 1: in the 2 s each fixed TCP rate's iperf3 has left after its window,
# and after the UDP flood's window with pktgen still sending, a
# system-wide perf profile (cpu-clock samples, kernel and user), for both
# routers: where the router's CPU goes, in cpe-profile-REP-ROUTER-LOAD.data
CPE_PROFILE=$(param vmt_cpe_profile)
# 0: only idle and CPE_RATES (no TCP maximum, no UDP flood): for pooling
# more fixed-rate samples in the same time (tests/vm/cpe_pool.py); 2: the
# TCP maximum both ways (tcp-max-down: WAN -> LAN) and the UDP flood
CPE_SAT=$(param vmt_cpe_sat)
CPE_SAT=${CPE_SAT:-1}
CPE_ARGS=$(param vmt_cpe_args | tr ',' ' ')
# The WAN gadgets' functions, one or two of: ncm (f_ncm, cdc_ncm), rndis
# (f_rndis, rndis_host; the PMD with proto=rndis).
CPE_WANS=$(param vmt_cpe_wan | tr ',' ' ')
CPE_WANS=${CPE_WANS:-ncm}
CPE_WAN=${CPE_WANS%% *}
WAN_KDRV=cdc_ncm
WAN_DEVARGS=""
WAN_ID=1209:0006
WSFX=""
CPE_BIN=${PMD_SO%/drivers/net/ch39x/*}/app/ch39x-cpe/ch39x-cpe
CSV=/out/cpe.csv
LAN_NS=cpe_lan
WAN_NS=cpe_wan
RT_NS=cpe_rt
LAN_IP=192.168.1.2
RT_LAN=192.168.1.1
RT_WAN=203.0.113.1
WAN_IP=203.0.113.2
IPB="chroot /host /usr/sbin/ip"

cpe_log() {
	echo "$1" >> /out/cpe.txt
	echo "[cpe] $1"
}

# nsx NS CMD...: CMD from the host root in namespace NS
nsx() {
	ns=$1
	shift
	chroot /host /usr/sbin/ip netns exec "$ns" "$@"
}

# iperf_listening NS: an iperf3 server in NS listens on its port 5201
# (bounded: its start takes seconds under TCG on a busy machine)
iperf_listening() {
	il_i=0
	while [ $il_i -lt 75 ]; do
		nsx "$1" ss -Hltn 'sport = :5201' | grep -q LISTEN && return 0
		sleep 0.2
		il_i=$((il_i + 1))
	done
	return 1
}

# iperf_rate FILE: "MBITS BYTES" of the receiver in iperf3's text summary
# ("[  5]   0.00-3.00  sec  2.31 MBytes  6.45 Mbits/sec  receiver"), or
# "- 0" (no Python start: seconds each under TCG)
iperf_rate() {
	awk '/receiver$/ { b = $5; u = $6; r = $7; ru = $8 }
		END { if (b == "") { print "- 0"; exit }
		m = u ~ /^K/ ? 1e3 : u ~ /^M/ ? 1e6 : u ~ /^G/ ? 1e9 : 1
		k = ru ~ /^K/ ? 1e-3 : ru ~ /^M/ ? 1 : ru ~ /^G/ ? 1e3 : 1e-6
		printf "%.1f %d\n", r * k, b * m }' "$1"
}

# ndev PID IFNAME: "rx_bytes rx_packets tx_bytes tx_packets" of IFNAME in
# the namespace of process PID
ndev() {
	sed 's/:/ /' "/proc/$1/net/dev" |
		awk -v i="$2" '$1 == i { print $2, $3, $10, $11; f = 1 }
			END { if (!f) print 0, 0, 0, 0 }'
}

# wan_use N: the Nth WAN gadget (1 or 2) and its host are the router's WAN
# from now: CPE_WAN, WAN_KDRV, WAN_DEVARGS, WAN_ID, PW, GW, WAN_NS, WPID,
# WSFX (the routers' name suffix, "-KIND" when there are two WANs)
wan_use() {
	CPE_WAN=$(echo $CPE_WANS | cut -d' ' -f"$1")
	WAN_KDRV=cdc_ncm
	WAN_DEVARGS=""
	[ "$CPE_WAN" = rndis ] &&
		{ WAN_KDRV=rndis_host; WAN_DEVARGS=",proto=rndis"; }
	eval "PW=\${W_PW_$1:-} GW=\${W_GW_$1:-} WPID=\${W_PID_$1:-}"
	WAN_ID=1209:0006
	WAN_NS=cpe_wan
	[ "$1" = 2 ] && { WAN_ID=1209:000a; WAN_NS=cpe_wan2; }
	WSFX=""
	[ "$CPE_WANS" != "$CPE_WAN" ] && WSFX=-$CPE_WAN
	return 0
}

# the kernel driver's netdev on PATH (in this namespace): on interface 0,
# or on a composite gadget the network function's (the first with one)
kdrv_if() {
	for kd_i in /sys/bus/usb/devices/$1:1.*; do
		ls "$kd_i/net" 2>/dev/null | head -n 1 | grep . && return
	done
}

# wait_kdrv: both cdc_ncm netdevs present (bounded); sets KL, KW
wait_kdrv() {
	i=0
	while [ $i -lt 150 ]; do
		KL=$(kdrv_if "$PL")
		KW=$(kdrv_if "$PW")
		[ -n "$KL" ] && [ -n "$KW" ] && return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}

# ns_new NAME: a namespace without IPv6 and a process that holds it (its
# PID, for /proc/PID/net, goes to stdout)
ns_new() {
	$IPB netns add "$1" || return 1
	nsx "$1" /bin/sh -c 'echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6;
		echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6;
		/usr/sbin/ip link set lo up'
}

# anchor NS: a sleeper in NS; prints its PID once it runs there
anchor() {
	# a simple command, so that $! is the process that becomes sleep
	chroot /host /usr/sbin/ip netns exec "$1" /bin/sleep 100000 \
		> /dev/null 2>&1 &
	ap=$!
	i=0
	while [ "$(cat "/proc/$ap/comm" 2>/dev/null)" != sleep ] &&
	      [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	echo "$ap"
}

# wait_carrier NS IFNAME: the netdev in NS has carrier (bounded)
wait_carrier() {
	i=0
	while [ $i -lt 100 ]; do
		[ "$(nsx "$1" cat "/sys/class/net/$2/carrier" 2>/dev/null)" = 1 ] &&
			return 0
		sleep 0.3
		i=$((i + 1))
	done
	return 1
}

# The gadgets and the hosts: the LAN one and one WAN one per word of
# CPE_WANS (at most two). Sets PL (USB path), GL (the gadget netdev, in its
# namespace), LPID (namespace anchor), W_PW_N, W_GW_N, W_PID_N of each WAN,
# and the first WAN's in use (wan_use 1: PW, GW, WPID, ...).
# cpe_gadgets ["LAN_FUNCS" "WAN_FUNCS"]: each gadget's functions, in its
# one configuration (default ncm.0 for the LAN, KIND.0 for each WAN;
# tests/vm/composite.sh gives a serial port beside the network function:
# "acm.cw ncm.0", which then is the first WAN's). An earlier run's gadgets
# of these names are removed first.
cpe_gadgets() {
	CPE_LF=${1:-ncm.0}
	CPE_WF=${2:-}
	# The gadgets of the transport tests stay idle but keep their kernel
	# drivers' transfers queued: gone, for a quieter bus.
	for g in ncm ecm multi fake398; do
		echo "" > "$G/$g/UDC" 2>/dev/null
	done
	gadget_rm cpel
	gadget_rm cpew
	gadget_rm cpew2
	gadget cpel 0x1209 0x0005 || return 1
	# shellcheck disable=SC2086
	gfuncs cpel 0a $CPE_LF && config cpel c.1 $CPE_LF || return 1
	echo dummy_udc.4 > "$G/cpel/UDC" || return 1
	# shellcheck disable=SC2086
	GL=$(gnet cpel $CPE_LF)
	ns_new $LAN_NS || return 1
	$IPB link set "$GL" netns $LAN_NS || return 1
	$IPB -n $LAN_NS addr add $LAN_IP/24 dev "$GL"
	$IPB -n $LAN_NS link set "$GL" up
	$IPB -n $LAN_NS route add default via $RT_LAN
	LPID=$(anchor $LAN_NS)
	n=1
	for w in $CPE_WANS; do
		# shellcheck disable=SC2086
		wan_gadget $n "$w" ${CPE_WF:-$w.0} || return 1
		CPE_WF=""
		n=$((n + 1))
	done
	i=0
	while [ $i -lt 100 ]; do
		PL=$(devpath 1209 0005)
		[ -n "$PL" ] && break
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$PL" ] || return 1
	wan_use 1
	wait_kdrv
}

# wan_gadget N KIND FUNC...: WAN gadget N (cpew: 1209:0006, dummy_udc.5;
# cpew2: 1209:000a, dummy_udc.6) with the functions FUNC... (KIND's
# network function among them), its host in its namespace
wan_gadget() {
	g=cpew
	pid=0006
	udc=dummy_udc.5
	ns=cpe_wan
	[ "$1" = 2 ] && { g=cpew2; pid=000a; udc=dummy_udc.6; ns=cpe_wan2; }
	wg_n=$1
	shift 2
	gadget $g 0x1209 0x$pid || return 1
	wg_x=0b
	[ "$wg_n" = 2 ] && wg_x=0c
	gfuncs $g $wg_x "$@" && config $g c.1 "$@" || return 1
	echo $udc > "$G/$g/UDC" || return 1
	gw=$(gnet $g "$@")
	ns_new $ns || return 1
	$IPB link set "$gw" netns $ns || return 1
	$IPB -n $ns addr add $WAN_IP/24 dev "$gw"
	$IPB -n $ns link set "$gw" up
	# The UDP flood ends at the server: dropped at its input, so that
	# no port-unreachable comes back.
	printf 'table ip sink {\n chain in {\n  type filter hook input priority 0; policy accept;\n  udp dport 9 counter drop\n }\n}\n' |
		nsx $ns /usr/sbin/nft -f - || return 1
	wp=$(anchor $ns)
	i=0
	pw=""
	while [ -z "$pw" ] && [ $i -lt 100 ]; do
		pw=$(devpath 1209 $pid)
		[ -n "$pw" ] || sleep 0.1
		i=$((i + 1))
	done
	[ -n "$pw" ] || return 1
	eval "W_PW_$wg_n=$pw W_GW_$wg_n=$gw W_PID_$wg_n=$wp"
}

# ---- the routers ----

RTR_PID=""
APP_JOB=""
APP_N=0

linux_up() {
	wait_kdrv || { CPE_ERR="no cdc_ncm/$WAN_KDRV netdevs on $PL and $PW"; return 1; }
	ns_new $RT_NS || { CPE_ERR="netns $RT_NS"; return 1; }
	$IPB link set "$KL" netns $RT_NS && $IPB link set "$KW" netns $RT_NS ||
		{ CPE_ERR="cannot move $KL $KW"; return 1; }
	$IPB -n $RT_NS addr add $RT_LAN/24 dev "$KL"
	$IPB -n $RT_NS addr add $RT_WAN/24 dev "$KW"
	$IPB -n $RT_NS link set "$KL" up
	$IPB -n $RT_NS link set "$KW" up
	carrier_or_bounce "$KL" $LAN_NS "$GL"
	carrier_or_bounce "$KW" $WAN_NS "$GW"
	nsx $RT_NS /bin/sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'
	printf 'table ip cpe {\n chain post {\n  type nat hook postrouting priority srcnat; policy accept;\n  oifname "%s" masquerade\n }\n}\n' "$KW" |
		nsx $RT_NS /usr/sbin/nft -f - ||
		{ CPE_ERR="nft masquerade on $KW failed"; return 1; }
	RTR_PID=""
	RTR_DESC="cdc_ncm $KL (LAN) and $WAN_KDRV $KW (WAN), ip_forward=1, nft masquerade"
	return 0
}

# carrier_or_bounce DEV GNS GDEV: the router's cdc_ncm netdev DEV gets
# carrier from the gadget's NETWORK_CONNECTION notification; now and then
# (twice in a session's CPE runs) none came and that round was lost. f_ncm
# sends one whenever its netdev opens (ncm_open), so the gadget's netdev
# GDEV in GNS is taken down and up once if DEV has none within 6 s.
carrier_or_bounce() {
	i=0
	while [ $i -lt 20 ]; do
		[ "$(nsx $RT_NS cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ] &&
			return 0
		sleep 0.3
		i=$((i + 1))
	done
	cpe_log "rep $REP linux: $1 has no carrier after 6 s; $3 (gadget) down and up"
	$IPB -n "$2" link set "$3" down
	$IPB -n "$2" link set "$3" up
	# the down took the LAN host's default route with it
	[ "$2" = $LAN_NS ] && $IPB -n $LAN_NS route replace default via $RT_LAN
	return 0
}

linux_down() {
	nsx $RT_NS /usr/sbin/nft list ruleset > /out/cpe-nft-$REP.txt 2>&1
	$IPB netns del $RT_NS
	# the netdevs come back to the initial namespace
	wait_kdrv
}

# app_up MODE
app_up() {
	APP_N=$((APP_N + 1))
	# the WAN's name too: with two WANs both rounds run the same mode
	tag=$REP-$1$WSFX
	# W.N+K=V+K=V: --idle W --idle-spin N, devargs K=V on the WAN port
	am=${1%%+*}
	ad=""
	[ "$am" != "$1" ] && ad=",$(echo "${1#*+}" | tr '+' ',')"
	ia="--idle ${am%%.*}"
	[ "${am%%.*}" != "$am" ] && ia="$ia --idle-spin ${am#*.}"
	# Long enough for the round; stopped by SIGTERM before.
	wd=$WAN_DEVARGS
	WAN_DEVARGS=$WAN_DEVARGS$ad
	# shellcheck disable=SC2086
	app_launch $((200 + ($(echo $CPE_RATES | wc -w) + 3) * (CPE_SECS + 40))) \
		"ch39x-cpe -l 1 ${ia:-(busy polling)} $CPE_ARGS on net_ch39x0 $PL, net_ch39x1 $PW$WAN_DEVARGS" \
		--lan 0=$RT_LAN/24 --wan 1=$RT_WAN/24 $ia $CPE_ARGS --json
	ar=$?
	WAN_DEVARGS=$wd
	return $ar
}

# app_launch LIM DESC ARG...: ch39x-cpe (its run APP_N, output tag) on the
# two gadgets' host-side functions with the router's options ARG..., for
# LIM s at most; until it forwards (else CPE_ERR and 1). RTR_PID its pid,
# RTR_DESC DESC (app_up, and cpe_pppoe.sh's app_up_pppoe).
app_launch() {
	lim=$1 RTR_DESC=$2
	shift 2
	app_leftovers
	timeout "$lim" chroot /host "$CPE_BIN" -l 1 --no-huge --no-pci \
		-m 256 --file-prefix "cpe_vm$APP_N" \
		-d "$PRIV/librte_net_ch39x.so" \
		--vdev "net_ch39x0,dev=1209:0005,path=$PL" \
		--vdev "net_ch39x1,dev=$WAN_ID,path=$PW$WAN_DEVARGS" -- "$@" \
		> "/out/cpe-app-$tag.json" 2> "/out/cpe-app-$tag.err" &
	APP_JOB=$!
	i=0
	while [ $i -lt 600 ]; do
		grep -q "forwarding on 2 ports" "/out/cpe-app-$tag.err" \
			2>/dev/null && break
		kill -0 $APP_JOB 2>/dev/null || break
		sleep 0.25
		i=$((i + 1))
	done
	RTR_PID=$(app_child $APP_JOB)
	if ! grep -q "forwarding on 2 ports" "/out/cpe-app-$tag.err"; then
		app_failed "/out/cpe-app-$tag"
		CPE_ERR="ch39x-cpe did not start ($APP_WHY): $(grep -v '^EAL: Detected' "/out/cpe-app-$tag.err" | tail -n 4 | tr '\n' ' ')"
		return 1
	fi
	# Taking the devices resets the gadgets' links.
	wait_carrier $LAN_NS "$GL" && wait_carrier $WAN_NS "$GW"
	return 0
}

# app_child JOB: the PID of this run's ch39x-cpe, nothing when it is gone.
# The guest's timeout is busybox's: the job's own process execs chroot and
# then ch39x-cpe, and a grandchild watches it (and sends the signal at the
# limit); coreutils' timeout would be its parent instead. Either way not
# pidof: that names every ch39x-cpe, a leftover of an earlier run too.
app_child() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = ch39x-cpe ] &&
		{ echo "$1"; return 0; }
	for ac_d in /proc/[0-9]*; do
		ac_s=""
		read -r ac_s < "$ac_d/stat" 2>/dev/null || continue
		# "PID (COMM) STATE PPID ...": COMM may hold spaces
		case "$ac_s" in
		*"(ch39x-cpe) "*) ;;
		*) continue ;;
		esac
		ac_s=${ac_s##*) }
		[ "$(echo "$ac_s" | cut -d' ' -f2)" = "$1" ] &&
			{ echo "${ac_d#/proc/}"; return 0; }
	done
	return 0
}

# app_kill: the router's run ends: SIGTERM to the job and to ch39x-cpe
# (the same process under busybox's timeout), SIGKILL to whatever is left
# after 20 s; the job's exit status in arc.
app_kill() {
	ak_c=$(app_child $APP_JOB)
	kill -TERM $APP_JOB $ak_c 2>/dev/null
	i=0
	while { kill -0 $APP_JOB 2>/dev/null || { [ -n "$ak_c" ] && kill -0 "$ak_c" 2>/dev/null; }; } && [ $i -lt 100 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	kill -KILL $APP_JOB $ak_c 2>/dev/null
	wait $APP_JOB 2>/dev/null
	arc=$?
}

# app_failed PREFIX: a start that did not reach "forwarding": why (exit
# status, or still running), and into PREFIX.diag the processes named
# ch39x-cpe and the kernel's last messages (all levels: a segfault is
# KERN_INFO, below the console's loglevel); the run killed. APP_WHY.
app_failed() {
	if kill -0 $APP_JOB 2>/dev/null; then
		APP_WHY="still starting after 150 s, pid ${RTR_PID:-none}; killed"
		app_kill
	else
		wait $APP_JOB 2>/dev/null
		arc=$?
		APP_WHY="exit status $arc"
		[ $arc -gt 128 ] && APP_WHY="$APP_WHY (signal $((arc - 128)))"
	fi
	{
		echo "$APP_WHY"
		echo "ch39x-cpe processes: $(pidof ch39x-cpe)"
		for af_p in $(pidof ch39x-cpe); do
			echo "$af_p: $(tr '\0' ' ' < /proc/$af_p/cmdline 2>/dev/null)"
		done
		echo "kernel log:"
		dmesg 2>/dev/null | tail -n 40
	} > "$1.diag" 2>&1
	RTR_PID=""
	grep -q "segfault\|general protection\|trap" "$1.diag" &&
		APP_WHY="$APP_WHY; the kernel: $(grep "segfault\|general protection\|trap" "$1.diag" | tail -n 1)"
	APP_WHY="$APP_WHY; $1.diag"
}

# app_leftovers: a ch39x-cpe of an earlier run still there holds the USB
# devices; it is logged and killed before another starts
app_leftovers() {
	for al_p in $(pidof ch39x-cpe); do
		cpe_log "rep $REP: a ch39x-cpe left over (pid $al_p: $(tr '\0' ' ' < /proc/$al_p/cmdline 2>/dev/null | cut -c1-200)); killed"
		kill -KILL "$al_p" 2>/dev/null
	done
	return 0
}

# app_stop NAME: SIGTERM to ch39x-cpe, at most 30 s for it to go; its exit
# status in arc, tag=REP-NAME (qos.sh too).
app_stop() {
	as_t=$(up)
	kill -TERM "$RTR_PID" 2>/dev/null
	i=0
	while kill -0 "$RTR_PID" 2>/dev/null && [ $i -lt 150 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	# still there after 30 s: killed, its exit status says so
	app_kill
	cpe_log "rep $REP ch39x-cpe-$1$WSFX: exit $arc $(echo "$(up) $as_t" | awk '{ printf "%.1f", $1 - $2 }') s after SIGTERM"
	RTR_PID=""
	tag=$REP-$1
}

# app_exit_result RESULT-NAME MORE: ch39x-cpe's exit 0 and the kernel's
# driver (cdc_ncm, cdc_ether) back on both gadgets, one PASS or FAIL line
# (MORE: after "SIGTERM").
app_exit_result() {
	if [ $arc = 0 ] && wait_kdrv; then
		result PASS "$1" "ch39x-cpe exited 0 on SIGTERM$2; the kernel's drivers bound again ($KL on $PL, $WAN_KDRV $KW on $PW)"
	else
		result FAIL "$1" "ch39x-cpe exit $arc; kernel netdevs: '$(kdrv_if "$PL")' on $PL, '$(kdrv_if "$PW")' on $PW"
	fi
}

app_down() {
	app_stop "$1"
	app_exit_result "cpe-ch39x-$1$WSFX-exit-$REP" ""
}

# ---- measurement ----

# CPU time so far: "idle0 total0 idle1 total1 0 router uptime"
# (jiffies: USER_HZ, 100 a second)
cpe_snap() {
	awk '$1 == "cpu0" || $1 == "cpu1" { printf "%d %d ", $5 + $6,
		$2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat
	g=0	# the generators: gen_ticks
	r=0
	[ -n "$RTR_PID" ] &&
		r=$(awk '{ print $14 + $15 }' "/proc/$RTR_PID/stat" 2>/dev/null || echo 0)
	echo "$g $r $(up)"
}

# "PID ticks" of each generator that is still there: a process that ends
# (or starts) during the window is left out rather than counted negative
gen_ticks() {
	for p in $GEN_PIDS; do
		t=$(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null)
		[ -n "$t" ] && echo "$p $t"
	done
}

# the pktgen threads of every namespace
kpktgend_pids() {
	for d in /proc/[0-9]*; do
		c=""
		read -r c < "$d/comm" 2>/dev/null
		case "$c" in
		kpktgend_*) echo "${d#/proc/}" ;;
		esac
	done
}

# softirq time so far, per vCPU, and ksoftirqd/0's time: "cpu0 cpu1
# ksoftirqd0" (USER_HZ ticks)
sirq_snap() {
	awk '$1 == "cpu0" || $1 == "cpu1" { printf "%d ", $8 }' /proc/stat
	awk '{ print $14 + $15 }' "/proc/${KSI0:-0}/stat" 2>/dev/null || echo 0
}

# ksoftirqd/0's PID (the softirqs deferred on the generators' vCPU)
ksoftirqd0_pid() {
	for d in /proc/[0-9]*; do
		c=""
		read -r c < "$d/comm" 2>/dev/null
		[ "$c" = ksoftirqd/0 ] && { echo "${d#/proc/}"; return; }
	done
}

# "TID COMM ticks utime stime sleeps" of each of ch39x-cpe's threads
# (nothing for linux); sleeps: its voluntary context switches, one each
# time it waits (epoll, a futex, nanosleep) and is woken again
thr_ticks() {
	[ -n "$RTR_PID" ] || return 0
	for t in /proc/$RTR_PID/task/[0-9]*; do
		awk -v t="${t##*/}" 'FNR == NR { sub(/^[^(]*\(/, ""); c = $1;
			sub(/\).*$/, "", c); sub(/^[^)]*\) /, "");
			v = t " " c " " ($12 + $13) " " $12 " " $13; next }
			/^voluntary_ctxt_switches:/ { w = $2 }
			END { if (v != "") print v, w + 0 }' \
			"$t/stat" "$t/status" 2>/dev/null
	done
}

# "COMM % (N wake-ups/s[, W per 1k frames]), ..." of each thread between
# two thr_ticks files over DT s [at PPS frames/s]
thr_share() {
	awk -v dt="$3" -v pps="${4:-0}" 'NR == FNR { a[$1] = $3; w[$1] = $6; next } ($1 in a) {
		printf "%s%s %.1f (%d wake-ups/s", s, $2, ($3 - a[$1]) / dt,
			($6 - w[$1]) / dt; s = ", "
		if (pps > 0) printf ", %.1f per 1k frames", 1000 * ($6 - w[$1]) / dt / pps
		printf ")" }' "$1" "$2"
}

# "user U, system S": the process' user and system time (% of a vCPU)
# between two thr_ticks files over DT s; system time includes the
# softirqs that interrupted it (tick accounting charges them to the task)
thr_us() {
	awk -v dt="$3" 'NR == FNR { u[$1] = $4; s[$1] = $5; next } ($1 in u) {
		du += $4 - u[$1]; ds += $5 - s[$1] }
		END { printf "user %.1f, system %.1f", du / dt, ds / dt }' "$1" "$2"
}

# measure LOAD: one CPE_SECS window; a CSV line and a log line.
#
# The generators' CPU is read over its own span (the uptime beside each
# read), not the window's: thr_ticks' reads between them take a share of
# a second under TCG with the guest saturated, which counted as the
# generators' (up to 122 % of the one vCPU pktgen runs on).
#
# Not separated: the softirqs the tick charges to the generators. The
# guest's kernel has no IRQ time accounting (CONFIG_IRQ_TIME_ACCOUNTING
# unset): a softirq is the interrupted task's time, and Linux forwards in
# softirq, much of it on pktgen's (or iperf3's) vCPU, so part of Linux's
# forwarding is counted as the generators' and taken off its router CPU;
# ch39x-cpe's is its process'. The log line gives vCPU0's softirq ticks
# beside ksoftirqd/0's runtime, but the two clocks disagree under TCG
# (ksoftirqd/0 above vCPU0's softirq), so no correction is computed:
# "guest busy" (same generator, same guest) is the figure to compare
# beside the router CPU.
measure() {
	l0=$(sent)
	w0=$(ndev "${MPID:-$WPID}" "${MIF:-$GW}")
	gu0=$(up)
	gen_ticks > /tmp/cpe.g0
	thr_ticks > /tmp/cpe.t0
	q0=$(sirq_snap)
	s0=$(cpe_snap)
	sleep "$CPE_SECS"
	s1=$(cpe_snap)
	q1=$(sirq_snap)
	thr_ticks > /tmp/cpe.t1
	gen_ticks > /tmp/cpe.g1
	gu1=$(up)
	# ticks per second of the generators' span, as ticks of the window
	gd=$(awk -v sp="$(echo "$gu0 $gu1" | awk '{ print $2 - $1 }')" \
		-v dt="$(echo "$s0 $s1" | awk '{ print $14 - $7 }')" \
		'NR == FNR { a[$1] = $2; next } ($1 in a) { s += $2 - a[$1] }
		END { if (sp <= 0 || dt <= 0) print s + 0;
		else printf "%.1f\n", s * dt / sp }' /tmp/cpe.g0 /tmp/cpe.g1)
	w1=$(ndev "${MPID:-$WPID}" "${MIF:-$GW}")
	l1=$(sent)
	hl=$(cut -d' ' -f1 /out/hostload 2>/dev/null)
	row=$(echo "$s0 $s1 $w0 $w1 $l0 $l1 $gd" | awk '{
		dt = $14 - $7; if (dt <= 0) dt = 1;
		j0 = $9 - $2; j1 = $11 - $4; b0 = 0; b1 = 0;
		if (j0 > 0) b0 = 100 * (1 - ($8 - $1) / j0);
		if (j1 > 0) b1 = 100 * (1 - ($10 - $3) / j1);
		gen = $25 / dt; rtr = ($13 - $6) / dt;
		pps = ($20 - $16) / dt; mbps = ($19 - $15) * 8 / dt / 1e6;
		off = ($24 - $23) / dt;
		printf "%d,%.2f,%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.2f",
			pps, mbps, off, b0 + b1, b0, b1, gen, rtr,
			b0 + b1 - gen, dt }')
	echo "$REP,$ROUTER,$1,$row,${hl:-?}" >> $CSV
	cpe_log "rep $REP $ROUTER $1: $(echo "$row" | awk -F, '{ printf "%d frames/s %.2f Mbit/s (pktgen sent %d/s); CPU %% busy %.1f (vCPU0 %.1f, vCPU1 %.1f), generators %.1f, ch39x-cpe %.1f, router %.1f; %.2f s", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }'); host load ${hl:-?}"
	cpe_log "rep $REP $ROUTER $1: softirq (% of a vCPU, charged to whatever ran) $(echo "$q0 $q1 $(echo "$row" | cut -d, -f10)" | awk '{ printf "vCPU0 %.1f (ksoftirqd/0 %.1f), vCPU1 %.1f", ($4 - $1) / $7, ($6 - $3) / $7, ($5 - $2) / $7 }')"
	[ -n "$RTR_PID" ] && cpe_log "rep $REP $ROUTER $1: ch39x-cpe threads (% of a vCPU): $(thr_share /tmp/cpe.t0 /tmp/cpe.t1 "$(echo "$row" | cut -d, -f10)" "$(echo "$row" | cut -d, -f1)"); process $(thr_us /tmp/cpe.t0 /tmp/cpe.t1 "$(echo "$row" | cut -d, -f10)")"
	# idle: one more window; a TCP rate: the 2 s its iperf3 has left
	st=""
	case "$1" in
	idle) st=$CPE_SECS ;;
	tcp-max) ;;
	tcp-*) st=2 ;;
	esac
	case "$1" in
	tcp-max) ;;
	tcp-*) [ "$CPE_PROFILE" = 1 ] && cpe_profile "$1" ;;
	esac
	if [ -n "$st" ] && [ "$CPE_STRACE" = 1 ] && [ -n "$RTR_PID" ]; then
		# -c writes its table to stderr at the end
		timeout -s INT "$st" chroot /host strace -c -f -q \
			-p "$RTR_PID" > /dev/null \
			2> "/out/cpe-strace-$REP-$ROUTER-$1.txt"
		cpe_log "rep $REP $ROUTER $1: system calls over $st s in cpe-strace-$REP-$ROUTER-$1.txt"
	fi
}

# cpe_profile RATE: 2 s of perf samples over every CPU in
# cpe-profile-REP-ROUTER-RATE.data (sys_profile, guest.sh)
cpe_profile() {
	f=cpe-profile-$REP-$ROUTER-$1.data
	sys_profile "$f"
	cpe_log "rep $REP $ROUTER $1: perf samples over 2 s in $f"
}

# frames pktgen has sent from the LAN host's netdev (0 when it is not
# set up): the f_ncm netdev's own tx_packets counts NTBs, not frames
sent() {
	awk '$1 == "pkts-sofar:" { v = $2 } END { print v + 0 }' \
		"/proc/$LPID/net/pktgen/$GL" 2>/dev/null || echo 0
}

NAT_BAD=0
# tcp LOAD RATE [-R]: iperf3 LAN -> WAN (-R: WAN -> LAN, counted at the
# LAN host), the server's view checked
tcp() {
	srv=/tmp/cpe-srv.json
	cli=/tmp/cpe-cli.json
	nsx $WAN_NS timeout $((CPE_SECS + 63)) taskset -c 0 iperf3 -s -1 -J \
		> $srv 2>&1 &
	sp=$!
	# listening on 5201 (0x1451), IPv4 or dual-stack
	i=0
	while ! cat "/proc/$WPID/net/tcp" "/proc/$WPID/net/tcp6" 2>/dev/null |
		awk '$4 == "0A" && $2 ~ /:1451$/ { f = 1 } END { exit !f }' &&
	      [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	# strace or perf after the window: 3 s more, so that they see traffic.
	# 8 s beyond the window: the reads around it take seconds in a
	# saturated TCG guest, and a client gone before the last read counts
	# no generator CPU (router CPU overstated: 2 of 3 ch39x-cpe tcp-max
	# windows with 4 s)
	more=0
	[ "$CPE_STRACE" = 1 ] || [ "$CPE_PROFILE" = 1 ] && more=3
	nsx $LAN_NS timeout $((CPE_SECS + 50 + more)) taskset -c 0 iperf3 \
		-c $WAN_IP -t $((CPE_SECS + 8 + more)) -b "$2" ${3:-} -J \
		> $cli 2>&1 &
	cp=$!
	sleep 2
	GEN_PIDS=$(pidof iperf3)
	# the sender's view: RTT, congestion window (before the window: the
	# client may be done after it)
	ti=$(nsx $LAN_NS /usr/bin/ss -tin dst $WAN_IP 2>/dev/null |
		tr ' \t' '\n\n' | grep -E '^(rtt|cwnd):' | tail -n 2 | tr '\n' ' ')
	[ "${3:-}" = -R ] && { MPID=$LPID MIF=$GL; }
	measure "$1"
	MPID="" MIF=""
	GEN_PIDS=""
	wait $cp
	wait $sp
	cat $srv $cli >> "/out/cpe-iperf-$REP-$ROUTER.json"
	rt=$(sed -n 's/.*"retransmits":[[:space:]]*\([0-9]*\).*/\1/p' $cli | tail -n 1)
	cpe_log "rep $REP $ROUTER $1: iperf3 sender retransmits ${rt:-?}; ss: ${ti:-?}"
	rh=$(sed -n 's/.*"remote_host":[[:space:]]*"\([0-9.]*\)".*/\1/p' $srv | head -n 1)
	rb=$(sed -n 's/.*"bytes":[[:space:]]*\([0-9]*\).*/\1/p' $srv | tail -n 1)
	# NAT works when the server's peer is the router's WAN address; a
	# window without frames (TCP backing off on a starved machine) is a
	# measurement, not a failure.
	if [ "$rh" != $RT_WAN ] || [ "${rb:-0}" -eq 0 ]; then
		NAT_BAD=$((NAT_BAD + 1))
		NAT_WHY="$NAT_WHY $1: server saw '${rh:-nobody}', ${rb:-0} bytes;"
	fi
}

# udp LOAD [PPS]: pktgen floods 60-byte UDP frames from the LAN host to
# the server's discard port, through the router (its LAN MAC from the LAN
# host's ARP table); with PPS at that many frames/s (pktgen's ratep), and
# the window's frames at the server against pktgen's offer and PPS logged
# (a fixed-rate comparison holds only where both routers forward it all)
udp() {
	mac=$(awk -v a=$RT_LAN '$1 == a { print $4 }' "/proc/$LPID/net/arp")
	ur="delay 0"
	[ -n "${2:-}" ] && ur="ratep $2"
	nsx $LAN_NS /bin/sh -c "P=/proc/net/pktgen
		echo rem_device_all > \$P/kpktgend_0
		echo 'add_device $GL' > \$P/kpktgend_0
		echo 'count 0' > \$P/$GL
		echo 'clone_skb 0' > \$P/$GL
		echo 'pkt_size 60' > \$P/$GL
		echo '$ur' > \$P/$GL
		echo 'dst $WAN_IP' > \$P/$GL
		echo 'src_min $LAN_IP' > \$P/$GL
		echo 'src_max $LAN_IP' > \$P/$GL
		echo 'udp_dst_min 9' > \$P/$GL
		echo 'udp_dst_max 9' > \$P/$GL
		echo 'dst_mac $mac' > \$P/$GL"
	u0=$(ndev $WPID "$GW")
	nsx $LAN_NS /bin/sh -c 'echo start > /proc/net/pktgen/pgctrl' &
	pg=$!
	sleep 1
	GEN_PIDS=$(kpktgend_pids)
	measure "$1"
	GEN_PIDS=""
	[ -n "${2:-}" ] && udp_full "$1" "$2"
	[ -n "${2:-}" ] && [ "$CPE_STRACE" = 1 ] && [ -n "$RTR_PID" ] &&
		udp_strace "$1"
	# where the CPU goes in the flood itself (pktgen still sending)
	[ "$CPE_PROFILE" = 1 ] && cpe_profile "$1"
	nsx $LAN_NS /bin/sh -c 'echo stop > /proc/net/pktgen/pgctrl'
	wait $pg
	nsx $LAN_NS /bin/sh -c 'echo rem_device_all > /proc/net/pktgen/kpktgend_0'
	# the queues drain before the next load
	sleep 2
	u1=$(ndev $WPID "$GW")
	u=$(echo "$u0 $u1" | awk '{ print $6 - $2 }')
	[ "$u" -gt 0 ] ||
		{ NAT_BAD=$((NAT_BAD + 1)); NAT_WHY="$NAT_WHY $1: no frame through;"; }
}

# udp_full LOAD PPS: the last window's frames at the server against
# pktgen's offer and PPS (the CSV's last line); FULL when at least 95 %
# of each, else SHORT
udp_full() {
	uf=$(tail -n 1 $CSV | awk -F, -v p="$2" '{ v = "FULL";
		if ($4 < 0.95 * $6 || $6 < 0.95 * p) v = "SHORT";
		printf "%s: %d frames/s at the server of %d/s offered (%.1f %%), rate %d/s", v, $4, $6, ($6 > 0 ? 100 * $4 / $6 : 0), p }')
	cpe_log "rep $REP $ROUTER $1: $uf"
}

# udp_strace LOAD: ch39x-cpe's system calls over 2 s, pktgen still sending
# at its rate (after the window: strace slows the process), with the
# frames the server received meanwhile: calls per frame
udp_strace() {
	us0=$(ndev "$WPID" "$GW")
	timeout -s INT 2 chroot /host strace -c -f -q -p "$RTR_PID" \
		> /dev/null 2> "/out/cpe-strace-$REP-$ROUTER-$1.txt"
	us1=$(ndev "$WPID" "$GW")
	echo "$us0 $us1" | awk '{ print "frames at the server meanwhile:", $6 - $2 }' \
		>> "/out/cpe-strace-$REP-$ROUTER-$1.txt"
	cpe_log "rep $REP $ROUTER $1: system calls over 2 s in cpe-strace-$REP-$ROUTER-$1.txt ($(awk '/total$/ { c = $4 } /meanwhile/ { f = $NF } END { if (f > 0) printf "%.2f a frame", c / f; else print "no frames" }' "/out/cpe-strace-$REP-$ROUTER-$1.txt"))"
}

# ping_through: the LAN host reaches the server through the router
# (bounded: the router's ARP, the links coming up)
ping_through() {
	i=0
	while [ $i -lt 30 ]; do
		nsx $LAN_NS /usr/bin/ping -n -q -c 1 -W 2 $WAN_IP > /dev/null 2>&1 &&
			return 0
		sleep 0.5
		i=$((i + 1))
	done
	return 1
}

# round ROUTER MODE: one router through every load
round() {
	ROUTER=$1$WSFX
	[ "$1" = ch39x-cpe ] && ROUTER=ch39x-cpe-$2$WSFX
	name=cpe-$ROUTER-$REP
	# Either router has its own MAC: the hosts learn it afresh.
	$IPB -n $LAN_NS neigh flush all
	$IPB -n $WAN_NS neigh flush all
	CPE_ERR=""
	if [ "$1" = linux ]; then
		linux_up
	else
		app_up "$2"
	fi
	rc=$?
	if [ $rc != 0 ]; then
		result FAIL "$name-start" "$CPE_ERR"
		[ "$1" = linux ] && linux_down
		return
	fi
	if ! ping_through; then
		# what each end knew, for the log
		d="LAN host neighbours: $($IPB -n $LAN_NS neigh show | tr '\n' ';')"
		[ "$1" = linux ] && d="$d router: $($IPB -n $RT_NS -br link | tr '\n' ';') neighbours: $($IPB -n $RT_NS neigh show | tr '\n' ';')"
		result FAIL "$name-start" "$RTR_DESC: no echo reply LAN -> WAN; $d"
		if [ "$1" = linux ]; then linux_down; else app_down "$2"; fi
		return
	fi
	# round-trip time through the router, idle
	rtt=$(nsx $LAN_NS /usr/bin/ping -n -q -c 10 -i 0.2 -W 5 $WAN_IP 2>&1 |
		sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p')
	cpe_log "rep $REP $ROUTER: ping LAN -> WAN average RTT ${rtt:-?} ms"
	result PASS "$name-start" "$RTR_DESC: LAN host pings the WAN server (RTT ${rtt:-?} ms)"
	NAT_BAD=0
	NAT_WHY=""
	sleep 1
	measure idle
	for r in $CPE_RATES; do
		tcp "tcp-$r" "$r"
	done
	for r in $CPE_UDP_RATES; do
		udp "udp60-$r" "$(echo "$r" | sed 's/k$/000/')"
	done
	flood="; the UDP flood reached the server"
	if [ "$CPE_SAT" = 1 ] || [ "$CPE_SAT" = 2 ]; then
		tcp tcp-max 0
		[ "$CPE_SAT" = 2 ] && tcp tcp-max-down 0 -R
		udp udp60-flood
	else
		flood=" (CPE_SAT=0: no TCP maximum, no UDP flood)"
	fi
	if [ $NAT_BAD = 0 ]; then
		result PASS "$name-nat" "every iperf3 server saw $RT_WAN (the router's WAN address) and received data$flood"
	else
		result FAIL "$name-nat" "$NAT_WHY"
	fi
	if [ "$1" = linux ]; then linux_down; else app_down "$2"; fi
}

# ---- summary ----

# stats KEY LOAD COLUMN: "median min max n" of that column (1-based in
# the CSV) over the reps
stats() {
	awk -F, -v k="$1" -v l="$2" -v c="$3" '$2 == k && $3 == l { print $c }' $CSV |
		med
}

# med: "median min max n" of the numbers on stdin, one a line (0 0 0 0
# for none)
med() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)], v[1], v[NR], NR; else print 0, 0, 0, 0 }'
}

# busy_pair KEY LOAD [LINUX [COLUMN]]: the whole guest's busy CPU (or the
# CSV's COLUMN) with each router, as medians, and the median (min-max) of
# the ratio within each rep (the two routers take turns in a rep: the
# host's load drifts less within one)
busy_pair() {
	awk -F, -v k="$1" -v l="$2" -v lk="${3:-linux}" -v c="${4:-7}" '$3 == l && $2 == lk { a[$1] = $c }
		$3 == l && $2 == k { b[$1] = $c }
		END { for (r in b) if ((r in a) && a[r] > 0)
			printf "%s %s %.3f\n", a[r], b[r], b[r] / a[r] }' $CSV > /tmp/cpe.pair
	if [ ! -s /tmp/cpe.pair ]; then
		echo "-"
		return
	fi
	set -- $(cut -d' ' -f1 /tmp/cpe.pair | med) $(cut -d' ' -f2 /tmp/cpe.pair | med) $(cut -d' ' -f3 /tmp/cpe.pair | med)
	echo "linux $1, ch39x-cpe $5; ratio in each rep ${9} (${10}-${11}, ${12} reps)"
}

# shellcheck disable=SC2046
cpe_summary() {
	S=/out/cpe-summary.txt
	loads="idle"
	for r in $CPE_RATES; do loads="$loads tcp-$r"; done
	for r in $CPE_UDP_RATES; do loads="$loads udp60-$r"; done
	[ "$CPE_SAT" = 1 ] && loads="$loads tcp-max udp60-flood"
	[ "$CPE_SAT" = 2 ] && loads="$loads tcp-max tcp-max-down udp60-flood"
	echo "# medians (min-max) of $CPE_REPS reps x $CPE_SECS s; frames/s at the WAN host (tcp-max-down: the LAN host); CPU in % of one vCPU (router = busy - generators)" > $S
	echo "load,router,n,pps,pps_min,pps_max,mbps,cpu_router,cpu_router_min,cpu_router_max,cpu_busy,cpe_proc" > $S.csv
	keys=""
	n=1
	for w in $CPE_WANS; do
		wan_use $n
		n=$((n + 1))
		keys="$keys linux$WSFX"
		[ -n "$WSFX" ] && echo "WAN $CPE_WAN:" >> $S
		for m in $CPE_MODES; do
			keys="$keys ch39x-cpe-$m$WSFX"
			for l in $loads; do
				set -- $(stats "linux$WSFX" "$l" 4) $(stats "linux$WSFX" "$l" 12)
				lp=$1 lc=$5
				set -- $(stats "ch39x-cpe-$m$WSFX" "$l" 4)
				cp=$1 cpmin=$2 cpmax=$3 n2=$4
				set -- $(stats "ch39x-cpe-$m$WSFX" "$l" 12)
				cc=$1 ccmin=$2 ccmax=$3
				ra=$(echo "$cp $lp $cc $lc" | awk '{ p = "-"; c = "-";
					if ($2 > 0) p = sprintf("%.2f", $1 / $2);
					if ($4 > 0) c = sprintf("%.2f", $3 / $4);
					print p, c }')
				bp=$(busy_pair "ch39x-cpe-$m$WSFX" "$l" "linux$WSFX")
				rp=""
				case $l in
				udp60-[0-9]*) rp="; router CPU $(busy_pair "ch39x-cpe-$m$WSFX" "$l" "linux$WSFX" 12); frames/s $(busy_pair "ch39x-cpe-$m$WSFX" "$l" "linux$WSFX" 4)" ;;
				esac
				cpe_log "$l${WSFX:+ (WAN $CPE_WAN)}: linux $lp frames/s, router CPU $lc %; ch39x-cpe ($m) $cp ($cpmin-$cpmax) frames/s, router CPU $cc ($ccmin-$ccmax) %; ratios pps ${ra% *}, CPU ${ra#* }; guest busy $bp$rp"
				echo "$l: linux $lp frames/s, router CPU $lc %; ch39x-cpe ($m) $cp ($cpmin-$cpmax), CPU $cc ($ccmin-$ccmax); ratio pps ${ra% *} CPU ${ra#* }; guest busy $bp$rp" >> $S
			done
		done
	done
	for k in $keys; do
		for l in $loads; do
			set -- $(stats "$k" "$l" 4)
			p="$1,$2,$3"
			n=$4
			set -- $(stats "$k" "$l" 5)
			mb=$1
			set -- $(stats "$k" "$l" 12)
			c="$1,$2,$3"
			set -- $(stats "$k" "$l" 7)
			b=$1
			set -- $(stats "$k" "$l" 11)
			echo "$l,$k,$n,$p,$mb,$c,$b,$1" >> $S.csv
		done
	done
}

cpe_run() {
	echo "[guest] cpe starts at uptime $(up) s: reps $CPE_REPS, ${CPE_SECS} s windows, rates $CPE_RATES, ch39x-cpe modes $CPE_MODES"
	# page-table isolation makes each system call switch page tables:
	# under TCG that flushes QEMU's TLB, a cost only a userspace driver pays
	echo "[guest] cpe: kernel $(uname -r), $(cat /proc/cmdline | tr ' ' '\n' | grep -E '^(nopti|pti=|mitigations=)' | tr '\n' ' ')meltdown: $(cat /sys/devices/system/cpu/vulnerabilities/meltdown 2>/dev/null), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
	echo "[guest] cpe: $(cost_probe)"
	pmd_prepare || return
	for m in $(cat /modules/perf.list /modules/cpe.list 2>/dev/null); do
		insmod "/modules/$m.ko" 2>/dev/null ||
			grep -q "^$m " /proc/modules ||
			echo "[guest] insmod $m failed"
	done
	if [ ! -x "/host$CPE_BIN" ] || [ ! -x /host/usr/sbin/nft ] ||
	   [ ! -x /host/usr/bin/iperf3 ]; then
		result FAIL cpe-setup "need $CPE_BIN (ninja -C build), /usr/sbin/nft (nftables) and /usr/bin/iperf3 on the host (scripts/setup.sh --tests)"
		return
	fi
	if ! cpe_gadgets; then
		result FAIL cpe-gadgets "the LAN (NCM) and WAN ($CPE_WANS) gadgets with their kernel drivers: cpel at '$PL' ($GL, cdc_ncm '$KL'), cpew at '$PW' ($GW, $WAN_KDRV '$KW')"
		return
	fi
	wd=""
	n=1
	for w in $CPE_WANS; do
		wan_use $n
		n=$((n + 1))
		if ! wait_kdrv; then
			result FAIL cpe-gadgets "WAN $CPE_WAN at $PW: no $WAN_KDRV netdev"
			return
		fi
		wd="$wd; WAN $CPE_WAN at $PW (WAN host $GW in $WAN_NS, $WAN_KDRV $KW)"
	done
	wan_use 1
	wait_kdrv
	result PASS cpe-gadgets "gadgets cpel (NCM) at $PL (LAN host $GL in $LAN_NS, cdc_ncm $KL)$wd, $(cat /sys/bus/usb/devices/$PL/speed) Mb/s"
	echo "rep,router,load,pps,mbps,offered_pps,cpu_busy,cpu0,cpu1,cpu_gen,cpu_cpe_proc,cpu_router,secs,hostload" > $CSV
	KSI0=$(ksoftirqd0_pid)
	REP=1
	while [ $REP -le "$CPE_REPS" ]; do
		n=1
		for w in $CPE_WANS; do
			wan_use $n
			n=$((n + 1))
			round linux
			for m in $CPE_MODES; do
				round ch39x-cpe "$m"
			done
		done
		REP=$((REP + 1))
	done
	cpe_summary
	kill $LPID $W_PID_1 ${W_PID_2:-} 2>/dev/null
	kernel_log cpe-kernel-log '' "warnings or oopses (above)" \
		"no warnings or oopses"
	echo "[guest] cpe done at uptime $(up) s"
}
