#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# The operator's side of the test modem's data path (tests/vm/modem.sh):
# tests/modem/at_modem.py runs it as its --on-up and --on-down hooks, in
# the guest's host-root chroot, before it reports the call's new state.
#
#   modem_op.sh up     the gadget's netdev (the modem's network function)
#                      up: the host sees its link; dnsmasq answers DHCPv4
#                      with this call's address (MODEM_ADDR4, a pool of
#                      one: another call, another address; no ping of
#                      it before the offer, seconds under TCG) and sends
#                      RAs;
#                      ISC dhcpd -6 delegates the prefix (started once: a
#                      redial keeps the delegation)
#   modem_op.sh down   dnsmasq gone, the netdev down: the network detached
#
# From modem.sh's environment: MDM_OP (the operator's namespace), MDM_GNET
# (the gadget's netdev in it), MDM_DIR (logs, leases, pid files); from the
# responder's: MODEM_ADDR4, MODEM_CALL.
set -u
op=$MDM_OP gn=$MDM_GNET d=$MDM_DIR
nx() { ip netns exec "$op" "$@"; }
case $1 in
up)
	ip -n "$op" link set "$gn" up
	# the delegated prefix's route (modem.sh: "PREFIX via ROUTER-LL"),
	# gone with the device's last down
	# shellcheck disable=SC2046 # "PREFIX via ADDR": three words
	[ -s "$d/route6" ] &&
		ip -n "$op" -6 route replace $(cat "$d/route6") dev "$gn"
	# Not through nx: $! must be the process that becomes timeout (ip
	# netns exec execs it), which passes a SIGTERM on to dnsmasq; a
	# function's subshell would die alone and leave the last call's
	# server answering on the next call with the old address.
	ip netns exec "$op" timeout 600 dnsmasq --no-daemon --port=0 --interface="$gn" \
		--bind-interfaces --dhcp-authoritative --no-ping \
		--dhcp-range="$MODEM_ADDR4,$MODEM_ADDR4,255.255.255.0,10m" \
		--dhcp-option=option:router,10.64.0.1 \
		--dhcp-option=option:dns-server,10.64.0.1 \
		--dhcp-leasefile="$d/leases.$MODEM_CALL" --log-dhcp \
		--enable-ra --dhcp-range=2001:db8:64::,ra-only,64 \
		--ra-param="$gn",4,1800 \
		> "$d/dnsmasq.$MODEM_CALL.log" 2>&1 &
	echo $! > "$d/dnsmasq.pid"
	if ! { [ -s "$d/dhcpd6.pid" ] && kill -0 "$(cat "$d/dhcpd6.pid")"; } \
	   2>/dev/null; then
		touch "$d/dhcpd6.leases"
		nx timeout 600 dhcpd -6 -f -d -cf "$d/dhcpd6.conf" \
			-lf "$d/dhcpd6.leases" -pf "$d/dhcpd6.pid" "$gn" \
			> "$d/dhcpd6.log" 2>&1 &
	fi
	;;
down)
	if [ -s "$d/dnsmasq.pid" ]; then
		p=$(cat "$d/dnsmasq.pid")
		kill "$p" 2>/dev/null
		# gone before the next call's server binds the DHCP port
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	fi
	rm -f "$d/dnsmasq.pid"
	ip -n "$op" link set "$gn" down
	;;
*)
	echo "usage: modem_op.sh up|down" >&2
	exit 2
	;;
esac
exit 0
