# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# A modem as ch39x-cpe's WAN, end to end (issue 42 item 4; the PMD test
# "modem", high speed): a composite ACM + NCM gadget is the 4G/5G module.
# Its serial function carries tests/modem/at_modem.py, the project's AT
# responder (on the gadget's /dev/ttyGSn; the host's cdc_acm makes it
# /dev/ttyACMn), its network function is the module's data path, whose
# gadget netdev stands in the operator's namespace:
#
#   mdm_lan: LAN host 192.168.77.2/24, SLAAC from the router's RAs
#      | TAP (the simulated CH398's cable, net_ch39x0)
#   mdm_rt: ch39x-cpe, --lan 0=192.168.77.1/24 --lan 0=pd --wan 1=dhcp;
#      udhcpc and dhclient -6 -P on its WAN TAP (the usertools hooks),
#      dnsmasq's RAs on its LAN TAP
#      | net_ch39x1: the NCM function of the composite gadget (the PMD
#      | takes interfaces 2+3, the ACM ones stay with cdc_acm)
#   mdm_op: the operator: the gadget's netdev, 10.64.0.1/24 and
#      2001:db8:64::1/64; dnsmasq (DHCPv4: one address per call, RAs) and
#      ISC dhcpd -6 (prefix delegation: dnsmasq has none), started and
#      stopped by the responder's data-path hooks (tests/vm/modem_op.sh)
#      | veth
#   mdm_srv: a host on the Internet, 198.51.100.2, 2001:db8:ffff::2
#
# The netdev is down until the call is up, as a module's network function
# carries nothing before. usertools/ch39x-dial watch on the host's ttyACM
# brings the call up (SIM, registration, context, AT+QNETDEVCTL); its
# --on-up makes udhcpc renew. Checked:
#
#   - the PMD took only the NCM function (its log line), cdc_acm kept the
#     serial interfaces throughout;
#   - the dialer brought the call up; the router's WAN got the lease
#     (10.64.0.2/24 via 10.64.0.1) and the delegated 2001:db8:100::/56;
#   - the LAN host reaches the server over IPv4 (NAT) and IPv6 (its SLAAC
#     address in the delegated /64);
#   - the modem drops the call (+CGEV: NW PDN DEACT, +QNETDEVSTATUS: 0,
#     the netdev down: the router's WAN link goes down): the dialer sees
#     the URC, dials again, the network gives the new call another
#     address (10.64.0.3), udhcpc renews (refused, then a new lease), and
#     the same ch39x-cpe process forwards both families again;
#   - ch39x-cpe exits 0 on SIGTERM and cdc_ncm gets the function back.
#
# Sourced by pmd.sh after cpe.sh (nsx, $IPB, $CPE_BIN) and composite.sh
# (composite_gadget, host_tty, if_drivers).

MD_FUNCS="acm.mdm ncm.0"
MD_PID=0x000c
MD_DIR=/run/ch39x-modem		# in the chroot (/host/run: init's tmpfs)
MD_PFX=cpe_mdm			# the router's EAL file prefix
MD_LAN_RT=192.168.77.1
MD_LAN_H=192.168.77.2
MD_SRV4=198.51.100.2
MD_SRV6=2001:db8:ffff::2
MD_PD=2001:db8:100::/56
MD_SECS=420			# the most any of the test's processes lives

# md_wait SECS CMD...: CMD until it succeeds, SECS seconds at most by
# the clock (a try of the control client takes seconds under TCG: a
# count of tries would be a deadline many times longer)
md_wait() {
	mw_end=$(($(up | cut -d. -f1) + $1))
	shift
	while :; do
		"$@" > /dev/null 2>&1 && return 0
		[ "$(up | cut -d. -f1)" -lt $mw_end ] || return 1
		sleep 0.25
	done
}

# md_sysctl NS PATH VALUE: /proc/sys/PATH in namespace NS
md_sysctl() {
	nsx "$1" /bin/sh -c "echo $3 > /proc/sys/$2"
}

# md_ctl COMMAND: the router's telemetry (usertools/ch39x-cpe-ctl)
md_ctl() {
	chroot /host /usr/bin/timeout 30 python3 "$ROOT/usertools/ch39x-cpe-ctl" \
		-p $MD_PFX "$@" 2>&1
}

# md_field JSON KEY: a string or number value of the reply
md_field() {
	echo "$1" | sed -n "s/.*\"$2\": *\"\{0,1\}\([^\",}]*\)\"\{0,1\}.*/\1/p"
}

md_wan_is() {
	[ "$(md_field "$(md_ctl /cpe/wan)" address)" = "$1" ]
}

md_pd_is() {
	[ "$(md_field "$(md_ctl /cpe/wan)" prefix6)" = "$1" ]
}

# md_modem COMMAND: the responder's control socket
md_modem() {
	chroot /host /usr/bin/timeout 30 python3 "$ROOT/tests/modem/at_modem.py" ctl \
		$MD_DIR/ctl "$@"
}

# md_calls N: the dialer reported the call up N times
md_calls() {
	[ "$(grep -c 'call up' /out/modem-dial.log 2>/dev/null)" -ge "$1" ]
}

md_ping() {	# NS ADDR: one echo answered within 2 s
	nsx "$1" /usr/bin/ping -n -q -c 1 -W 2 "$2"
}

# md_slaac: the LAN host's global address in the delegated /64
md_slaac() {
	nsx mdm_lan ip -6 addr show dev mlan scope global -tentative |
		sed -n 's/.*inet6 \(2001:db8:100:0:[0-9a-f:]*\)\/64.*/\1/p' |
		head -n 1
}

# md_free_udc: a dummy UDC no gadget is bound to
md_free_udc() {
	for fu_u in /sys/class/udc/dummy_udc.*; do
		fu_u=${fu_u##*/}
		cat "$G"/*/UDC 2>/dev/null | grep -qx "$fu_u" || {
			echo "$fu_u"; return 0; }
	done
	return 1
}

md_namespaces() {
	for n in mdm_lan mdm_rt mdm_op mdm_srv; do
		$IPB netns add $n || return 1
		nsx $n ip link set lo up
		# IPv6 on (new namespaces have it whatever the guest's own
		# setting), no DAD delays on the test's links
		md_sysctl $n net/ipv6/conf/all/accept_dad 0
		md_sysctl $n net/ipv6/conf/default/accept_dad 0
	done
	# The operator: the modem's network function, down until a call.
	$IPB link set "$MGN" netns mdm_op || return 1
	md_sysctl mdm_op "net/ipv6/conf/$MGN/disable_ipv6" 0
	md_sysctl mdm_op "net/ipv6/conf/$MGN/keep_addr_on_down" 1
	md_sysctl mdm_op "net/ipv6/conf/$MGN/accept_dad" 0
	$IPB -n mdm_op addr add 10.64.0.1/24 dev "$MGN"
	$IPB -n mdm_op addr add 2001:db8:64::1/64 dev "$MGN" nodad
	$IPB -n mdm_op link set "$MGN" down
	md_sysctl mdm_op net/ipv4/ip_forward 1
	md_sysctl mdm_op net/ipv6/conf/all/forwarding 1
	# The Internet host behind it.
	$IPB link add mdo type veth peer name mds || return 1
	$IPB link set mdo netns mdm_op
	$IPB link set mds netns mdm_srv
	$IPB -n mdm_op addr add 198.51.100.1/24 dev mdo
	$IPB -n mdm_op addr add 2001:db8:ffff::1/64 dev mdo nodad
	$IPB -n mdm_op link set mdo up
	$IPB -n mdm_srv addr add $MD_SRV4/24 dev mds
	$IPB -n mdm_srv addr add $MD_SRV6/64 dev mds nodad
	$IPB -n mdm_srv link set mds up
	$IPB -n mdm_srv route add default via 198.51.100.1
	$IPB -n mdm_srv -6 route add default via 2001:db8:ffff::1
	# DHCPv6-PD: one /56, lifetimes that outlast a redial.
	cat > /host$MD_DIR/dhcpd6.conf <<-EOF
	default-lease-time 600;
	preferred-lifetime 300;
	max-lease-time 600;
	option dhcp-renewal-time 60;
	option dhcp-rebinding-time 90;
	subnet6 2001:db8:64::/64 {
		prefix6 2001:db8:100:: 2001:db8:100:: /56;
	}
	EOF
}

md_cleanup() {
	for p in $MD_DIAL $MD_UDHCPC $MD_DHC6 $MD_LANRA $MD_RESP; do
		kill "$p" 2>/dev/null
	done
	# the pids the programs wrote: $! of "nsx ... &" is a subshell's
	for f in dnsmasq.pid dhcpd6.pid udhcpc.pid dhclient6.pid; do
		[ -s "/host$MD_DIR/$f" ] &&
			kill "$(cat "/host$MD_DIR/$f")" 2>/dev/null
	done
	[ -n "$MD_RTR" ] && kill -TERM "$MD_RTR" 2>/dev/null
	sleep 1
	for n in mdm_lan mdm_rt mdm_op mdm_srv; do
		$IPB netns del $n 2>/dev/null
	done
	gadget_rm mdm
}

pmd_modem() {
	# The chroot's programs (dnsmasq, dhcpd, ... in /usr/sbin) found by
	# name by what runs there (the responder's hooks, ip netns exec); the
	# guest's own PATH has /bin only.
	md_path=$PATH
	PATH=/usr/sbin:/usr/bin:/sbin:/bin
	export PATH
	md_run
	PATH=$md_path
}

md_run() {
	MD_DIAL="" MD_UDHCPC="" MD_DHC6="" MD_LANRA="" MD_RESP="" MD_RTR=""
	MD_RTRJOB=""
	t0=$(up)
	for b in "$CPE_BIN" /usr/sbin/dnsmasq /usr/sbin/dhcpd /usr/sbin/dhclient \
		 /usr/bin/busybox /usr/bin/python3; do
		if [ ! -x "/host$b" ]; then
			result FAIL modem-setup "need $b on the host (ninja -C build; scripts/setup.sh --tests)"
			return
		fi
	done
	# shellcheck disable=SC2013 # one module name a line, no spaces
	for m in $(cat /modules/modem.list 2>/dev/null); do
		insmod "/modules/$m.ko" 2>/dev/null
	done
	[ -d /sys/module/cdc_acm ] || insmod /modules/cdc-acm.ko
	rm -rf /host$MD_DIR
	mkdir -p /host$MD_DIR
	chmod 700 /host$MD_DIR
	udc=$(md_free_udc)
	# shellcheck disable=SC2086
	if [ -z "$udc" ] || ! composite_gadget mdm $MD_PID 0e "$udc" $MD_FUNCS; then
		result FAIL modem-gadget "ACM + NCM gadget on '$udc': '$CG_PATH'"
		md_cleanup
		return
	fi
	MP=$CG_PATH MGN=$CG_NET MGS=$CG_GS
	MT=$(host_tty "$MP" 0)
	md_wait 20 [ -e "/sys/bus/usb/devices/$MP:1.2/net" ]
	result PASS modem-gadget "ACM + NCM at $MP on $udc: AT port $MGS (gadget) = $MT (host), network function $MGN (gadget); host drivers $(if_drivers "$MP")"
	if ! md_namespaces; then
		result FAIL modem-setup "namespaces and links"
		md_cleanup
		return
	fi

	# The modem: Quectel's and Qualcomm's call commands, the APN
	# "internet" only, another address for the second call.
	chroot /host /usr/bin/env MDM_OP=mdm_op MDM_GNET="$MGN" MDM_DIR=$MD_DIR \
		timeout $MD_SECS python3 "$ROOT/tests/modem/at_modem.py" \
		--tty "$MGS" --ctl $MD_DIR/ctl --log "$OUT/modem-at.log" \
		--ready $MD_DIR/ready --families qnetdevctl,qcrmcall \
		--manufacturer Quectel --model CH39X-TEST --apn internet \
		--addr4 10.64.0.2,10.64.0.3 --lifetime $MD_SECS \
		--on-up "sh $ROOT/tests/vm/modem_op.sh up" \
		--on-down "sh $ROOT/tests/vm/modem_op.sh down" \
		> /out/modem-at.err 2>&1 &
	MD_RESP=$!

	# The router: a simulated CH398 on the LAN (its cable a TAP), the
	# composite gadget's network function on the WAN; ICMP sessions kept
	# for the test's length, so that the first pings' session is still
	# there to be flushed when the redialed call's new lease replaces the
	# address (30 s, the default, ran out before it on a busy machine).
	# What runs in the background starts through $IPB, not nsx: $! is
	# then its timeout, which passes a kill on (a function's subshell
	# would die alone).
	$IPB netns exec mdm_rt timeout $MD_SECS "$CPE_BIN" -l 1 \
		--no-huge --no-pci -m 256 --file-prefix $MD_PFX \
		-d "$PRIV/librte_net_ch39x.so" \
		--vdev net_ch39x0,wire=tap:mlan \
		--vdev "net_ch39x1,dev=1209:${MD_PID#0x},path=$MP" -- \
		--lan 0=$MD_LAN_RT/24 --lan 0=pd --tap 0=mlanc \
		--wan 1=dhcp --tap 1=mwan --json --icmp-timeout 600 \
		> /out/modem-cpe.json 2> /out/modem-cpe.err &
	MD_RTRJOB=$!
	md_wait 150 grep -q "forwarding on 2 ports" /out/modem-cpe.err
	MD_RTR=$(pidof ch39x-cpe | cut -d' ' -f1)
	if [ -z "$MD_RTR" ] || ! md_wait 20 [ -e /host$MD_DIR/ready ] ||
	   ! md_wait 20 nsx mdm_rt ip link show mlan; then
		result FAIL modem-start "router pid '${MD_RTR}', responder $(cat /host$MD_DIR/ready 2>/dev/null || echo 'not ready'): $(grep -v '^EAL: Detected' /out/modem-cpe.err | tail -n 4 | tr '\n' ' ') $(tail -n 3 /out/modem-at.err | tr '\n' ' ')"
		md_cleanup
		return
	fi
	took=$(grep -m 1 "net_ch39x1.*$MP: ncm function at interfaces 2 (communication) and 3 (data)" /out/modem-cpe.err)
	$IPB -n mdm_rt link set mlan netns mdm_lan
	$IPB -n mdm_lan addr add $MD_LAN_H/24 dev mlan
	$IPB -n mdm_lan link set mlan up
	$IPB -n mdm_lan route add default via $MD_LAN_RT
	md_wait 20 eval "nsx mdm_rt ip link show mwan | grep -q ',UP'"
	md_wait 20 eval "nsx mdm_rt ip link show mlanc | grep -q ',UP'"
	# The router's control plane: DHCPv4 on the WAN TAP (udhcpc retries
	# every few seconds until the call is up), RAs on the LAN TAP.
	$IPB netns exec mdm_rt env CPE_PREFIX=$MD_PFX \
		CPE_CTL="$ROOT/usertools/ch39x-cpe-ctl" \
		CPE_RESOLV=$MD_DIR/resolv.conf timeout $MD_SECS busybox udhcpc \
		-f -B -i mwan -s "$ROOT/usertools/ch39x-cpe-udhcpc" -t 3 -T 1 \
		-A 2 -p $MD_DIR/udhcpc.pid > /out/modem-udhcpc.log 2>&1 &
	MD_UDHCPC=$!
	$IPB netns exec mdm_rt timeout $MD_SECS dnsmasq --no-daemon --port=0 \
		--interface=mlanc --bind-interfaces --enable-ra \
		--dhcp-range=::,constructor:mlanc,ra-only,64 \
		--ra-param=mlanc,4,1800 > /out/modem-lan-ra.log 2>&1 &
	MD_LANRA=$!
	# The operator routes the delegated prefix to the router's WAN
	# link-local address (modem_op.sh puts it back at every call: a
	# route over a device that went down is gone).
	md_wait 20 eval "nsx mdm_rt ip -6 addr show dev mwan scope link | grep -q fe80"
	rll=$(nsx mdm_rt ip -6 addr show dev mwan scope link |
		sed -n 's/.*inet6 \(fe80::[0-9a-f:]*\)\/64.*/\1/p')
	echo "$MD_PD via $rll" > /host$MD_DIR/route6

	# The dialer, as a service would run it.
	td=$(up)
	chroot /host /usr/bin/timeout $MD_SECS python3 "$ROOT/usertools/ch39x-dial" \
		-d "$MT" watch --apn internet --poll 3 --backoff 1,8 \
		--on-up "kill -USR1 \$(cat $MD_DIR/udhcpc.pid)" \
		> /out/modem-dial.log 2> /out/modem-dial.err &
	MD_DIAL=$!
	if md_wait 90 md_calls 1; then
		tu=$(up)
		result PASS modem-dial "ch39x-dial watch on $MT: $(grep -m 1 'call up' /out/modem-dial.log | cut -d' ' -f2-) $(awk -v a="$td" -v b="$tu" 'BEGIN { printf "%.1f", b - a }') s after its start; the modem got $(grep -c ' < AT' /out/modem-at.log) command lines"
	else
		result FAIL modem-dial "no call: $(tail -n 3 /out/modem-dial.log /out/modem-dial.err | tr '\n' ' ')"
		md_cleanup
		return
	fi
	if md_wait 60 md_wan_is 10.64.0.2/24; then
		w=$(md_ctl /cpe/wan)
		result PASS modem-dhcp "the router's WAN took the lease over the NCM function: $(md_field "$w" address) via $(md_field "$w" gateway)"
	else
		result FAIL modem-dhcp "no lease: /cpe/wan $(md_ctl /cpe/wan); udhcpc: $(tail -n 3 /out/modem-udhcpc.log | tr '\n' ' ')"
	fi
	# IPv6: dhclient -6 -P once the call is up (it would back its
	# solicitations off to minutes on a link that carries nothing).
	$IPB netns exec mdm_rt timeout $MD_SECS dhclient -6 -P -d \
		-e CPE_PREFIX=$MD_PFX -e CPE_CTL="$ROOT/usertools/ch39x-cpe-ctl" \
		-e CPE_STATE=$MD_DIR/prefix6.lan \
		-sf "$ROOT/usertools/ch39x-cpe-dhclient6" \
		-lf $MD_DIR/dhclient6.leases -pf $MD_DIR/dhclient6.pid mwan \
		> /out/modem-dhclient6.log 2>&1 &
	MD_DHC6=$!

	o4=$(nsx mdm_lan /usr/bin/ping -n -c 3 -i 0.3 -W 5 $MD_SRV4 2>&1)
	case "$o4" in
	*" 3 received"*|*" 2 received"*)
		result PASS modem-v4 "LAN host $MD_LAN_H -> $MD_SRV4 through NAT over the modem: $(echo "$o4" | grep -o '[0-9]* received')" ;;
	*)	result FAIL modem-v4 "LAN -> $MD_SRV4: $(echo "$o4" | tail -n 2 | tr '\n' ' ')" ;;
	esac
	h6=""
	# shellcheck disable=SC2016 # expanded by eval at each try
	if md_wait 60 md_pd_is $MD_PD && md_wait 40 eval '[ -n "$(md_slaac)" ]'; then
		h6=$(md_slaac)
		o6=$(nsx mdm_lan /usr/bin/ping -6 -n -c 3 -i 0.3 -W 5 $MD_SRV6 2>&1)
		case "$o6" in
		*" 3 received"*|*" 2 received"*)
			result PASS modem-v6 "the delegated $MD_PD in the router, the LAN host's $h6 -> $MD_SRV6: $(echo "$o6" | grep -o '[0-9]* received')" ;;
		*)	result FAIL modem-v6 "$h6 -> $MD_SRV6: $(echo "$o6" | tail -n 2 | tr '\n' ' ')" ;;
		esac
	else
		result FAIL modem-v6 "prefix $(md_field "$(md_ctl /cpe/wan)" prefix6), LAN host's address '$(md_slaac)'; dhclient: $(tail -n 2 /out/modem-dhclient6.log | tr '\n' ' ')"
	fi

	# The network drops the call.
	tdrop=$(up)
	md_modem drop > /out/modem-drop.json 2>&1
	back4="" back6=""
	# udhcpc's renew, refused, then a new DISCOVER: 50 s of a busy run
	if md_wait 90 md_calls 2 && md_wait 150 md_wan_is 10.64.0.3/24; then
		tcall=$(up)
		md_wait 60 md_ping mdm_lan $MD_SRV4 && back4=$(up)
		[ -n "$h6" ] && md_wait 60 md_ping mdm_lan $MD_SRV6 && back6=$(up)
	fi
	pid1=$(pidof ch39x-cpe | cut -d' ' -f1)
	down=$(grep -m 1 'call down' /out/modem-dial.log | cut -d' ' -f2-)
	w=$(md_ctl /cpe/wan)
	link=$(grep -m 1 "port 1: link up after" /out/modem-cpe.err)
	since() { awk -v a="$tdrop" -v b="$1" 'BEGIN { printf "%.1f", b - a }'; }
	if [ -n "$back4" ] && [ -n "$back6" ] && [ "$pid1" = "$MD_RTR" ] &&
	   [ -n "$down" ] && [ "$(md_field "$w" nat_flushed)" -ge 1 ] 2>/dev/null; then
		result PASS modem-redial "the modem dropped the call: ch39x-dial: $down; the call up again $(since "$tcall") s after the drop with the new lease $(md_field "$w" address) (NAT flushed: $(md_field "$w" nat_flushed)); the same ch39x-cpe (pid $MD_RTR) forwards again: IPv4 after $(since "$back4") s, IPv6 after $(since "$back6") s; router: ${link#ch39x-cpe: }"
	else
		result FAIL modem-redial "after the drop: dialer '$down' ($(grep -c 'call up' /out/modem-dial.log) call(s) up); /cpe/wan $w; router pid $MD_RTR -> ${pid1:-none}; IPv4 back '${back4}', IPv6 back '${back6}'; $(tail -n 4 /out/modem-dial.log | tr '\n' ' ')"
	fi
	during=$(if_drivers "$MP")
	if [ -n "$took" ] && [ "$during" = "1.0=cdc_acm 1.1=cdc_acm 1.2=usbfs 1.3=usbfs " ]; then
		result PASS modem-functions "the PMD took the NCM function only (${took#*: }); the AT port stayed with cdc_acm: $during"
	else
		result FAIL modem-functions "PMD log '$took'; interfaces while the router ran: $during"
	fi

	# The end: the dialer (SIGTERM: exit 0, the call left up), the
	# router (exit 0, cdc_ncm back on the network function).
	kill "$MD_DIAL" 2>/dev/null
	wait "$MD_DIAL"
	drc=$?
	MD_DIAL=""
	kill -TERM "$MD_RTR" 2>/dev/null
	i=0
	while kill -0 "$MD_RTR" 2>/dev/null && [ $i -lt 150 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	rrc=running
	if ! kill -0 "$MD_RTR" 2>/dev/null; then
		wait "$MD_RTRJOB"
		rrc=$?
	fi
	kd=none
	md_wait 20 [ -e "/sys/bus/usb/devices/$MP:1.2/net" ] &&
		kd=$(basename "$(readlink "/sys/bus/usb/devices/$MP:1.2/driver")")
	ex=$(grep -c '"wan"' /out/modem-cpe.json)
	if [ "$drc" = 0 ] && [ "$rrc" = 0 ] && [ "$ex" -ge 1 ] &&
	   { [ "$KDRV" != 1 ] || [ "$kd" = cdc_ncm ]; }; then
		result PASS modem-exit "ch39x-dial and ch39x-cpe exited 0 on SIGTERM (the router's exit statistics written); the NCM function back with $kd; $(awk -v a="$t0" -v b="$(up)" 'BEGIN { printf "%.0f", b - a }') s in all"
	else
		result FAIL modem-exit "dialer exit $drc, router exit $rrc, exit JSON lines $ex, the NCM function's driver $kd"
	fi
	MD_RTR=""
	md_cleanup
}
