# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# The end-to-end tests' shared harness (sourced, not run): a router netns
# running ch39x-cpe on simulated CH398s whose cables end at TAPs, moved
# into a LAN host netns and a WAN host netns.
#
#   LAN host netns -- TAP $tl -- net_ch39x0 -- ch39x-cpe -- net_ch39x1 --
#   TAP $tw -- WAN host netns
#
# Usage, in a test script:
#   cpe_lib_init NAME "$@"      # NAME: the test's name, args: cpe, pmd
#   cat > "$priv/cpe.conf" ...  # vdev lines use wire=tap:$tl / tap:$tw
#   start_router RUN [options]  # then host_v4 (or the test's own set-up)
#   ...checks...; stop_router RUN
#   cpe_lib_done                # exit status: 0 when every check passed
# Skips (exit 77) when not root: netns and TAP need CAP_NET_ADMIN.

# cpe_lib_init NAME CPE PMD [TOOL...]: variables, namespaces, clean-up.
cpe_lib_init() {
	test_name=$1
	cpe=${2:?usage: $test_name.sh ch39x-cpe librte_net_ch39x.so}
	pmd_so=${3:?missing librte_net_ch39x.so path}
	shift 3
	if [ "$(id -u)" -ne 0 ]; then
		echo "$test_name: needs root (network namespaces, TAP): skipped"
		exit 77
	fi
	# scripts/setup.sh --tests installs the peers' tools.
	local tool
	for tool in ip ping python3 iperf3 "$@"; do
		command -v "$tool" >/dev/null || {
			echo "$test_name: $tool missing (run scripts/setup.sh --tests)"
			exit 1
		}
	done
	id=$$
	rt=cpe_rt_$id lan=cpe_lan_$id wan=cpe_wan_$id
	tl=cl$id tw=cw$id
	priv=$(mktemp -d "${XDG_RUNTIME_DIR:-$HOME}/ch39x-cpe-test.XXXXXX")
	chmod 700 "$priv"
	cp "$pmd_so" "$priv/pmd.so"
	. "$(dirname "${BASH_SOURCE[0]}")/../exe_wrap.sh"
	cpe=$(exe_wrap "$cpe" "$priv")
	pid=
	fail=0
	trap cpe_lib_cleanup EXIT
	local n
	for n in "$rt" "$lan" "$wan"; do ip netns add "$n" || exit 1; done
	for n in "$rt" "$lan" "$wan"; do ip -n "$n" link set lo up; done
}

# Extra clean-up of a test (background helpers): set cpe_lib_extra_cleanup.
cpe_lib_extra_cleanup=:
# Killed and deleted here too: the helpers in bg_pids (serve, ...) and the
# namespaces in lib_netns (ds_linux).
cpe_lib_cleanup() {
	$cpe_lib_extra_cleanup
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	local n p
	for p in ${bg_pids:-}; do kill "$p" 2>/dev/null; done
	for n in "$rt" "$lan" "$wan" ${lib_netns:-}; do ip netns del "$n" 2>/dev/null; done
	rm -rf "$priv"
}

. "$(dirname "${BASH_SOURCE[0]}")/../check.sh"
L() { timeout 30 ip netns exec "$lan" "$@"; }
W() { timeout 30 ip netns exec "$wan" "$@"; }
# answered OUT N: ping's output OUT shows at least N-1 of its N echo
# requests answered (at least 1). On a loaded machine one reply may come
# after ping's deadline; a broken path answers none.
answered() {
	local r
	r=$(echo "$1" | sed -n 's/.* \([0-9]\+\) received.*/\1/p')
	[ "${r:-0}" -ge $(($2 > 1 ? $2 - 1 : 1)) ]
}
# until_ok SECS CMD...: CMD until it succeeds, SECS seconds at most (by
# the clock: under TCG one try may take a second).
until_ok() {
	local end=$((SECONDS + $1)) i
	local -
	set +o pipefail
	shift
	for i in $(seq 1000); do
		"$@" >/dev/null 2>&1 && return 0
		[ $SECONDS -ge $end ] && return 1
		sleep 0.3
	done
	return 1
}
# listening NETNS PORT [SECS]: until a TCP socket listens on PORT in NETNS
# (an iperf3 server just started in the background: on a busy machine it
# may take seconds, and a client started before gets "connection refused").
listening() {
	until_ok "${3:-20}" eval "ip netns exec '$1' ss -Hltn 'sport = :$2' | grep -q ."
}
# wait_file FILE SECS: until FILE exists (a helper's "ready"), bounded.
wait_file() {
	local i
	for i in $(seq $(($2 * 10))); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
# ok_drop CMD...: "pass" when CMD succeeds, else "drop" (a case's verdict).
ok_drop() { if "$@" >/dev/null 2>&1; then echo pass; else echo drop; fi; }
# ctl CMD...: the router "main"'s telemetry through usertools/ch39x-cpe-ctl
# (30 s deadline), its JSON reply; field JSON KEY: one key of a reply.
ctl() { timeout 30 "$here/../../usertools/ch39x-cpe-ctl" -p "cpe_${id}_main" "$@" 2>&1; }
field() { echo "$1" | python3 -c "import json,sys; print(json.load(sys.stdin).get('$2', ''))" 2>/dev/null; }
# lan_ra TAP: dnsmasq's --ra-param for the LAN TAP: an RA every 4 s with
# a router lifetime of 1800 s (OpenWrt odhcpd's default). Without the
# lifetime dnsmasq advertises three intervals, 12 s, but in the first
# 60 s of a new prefix it sends every 5 to 20 s (radv.c, new_timeout()):
# the LAN host's default route lapses between two RAs ("Network is
# unreachable" for up to 8 s) right when a test starts using it.
lan_ra() { echo "--ra-param=$1,4,1800"; }
# jq-free JSON reads: json FILE EXPR (python expression on j).
json() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }

# tel CMD...: over the telemetry client the test started as the coproc
# TEL (tests/cpe/cpe_tel.py), each reply on its own line (60 s deadline
# each; {"client_error": "no reply"} when none came).
tel() {
	local c r
	for c in "$@"; do
		echo "$c" >&"${TEL[1]}"
		r=
		read -r -t 60 r <&"${TEL[0]}"
		[ -n "$r" ] || r='{"client_error": "no reply"}'
		echo "$r"
	done
}

# start_router NAME [extra options]: ch39x-cpe in the router netns with
# $priv/cpe.conf, its TAPs moved to the hosts once they exist (left down
# and unaddressed: host_v4 or the test configures them). It lives 900 s
# at most, or cpe_router_secs (a longer test's): a bound for a test killed
# before its clean-up, far above any test's time (cpe_ctl, 84 s idle, took
# 222 s under a load of 20 and lost its router to the old 250).
start_router() {
	local name=$1 i
	shift
	ip netns exec "$rt" timeout "${cpe_router_secs:-900}" "$cpe" \
		--no-huge --no-pci -m 512 \
		--file-prefix "cpe_${id}_$name" -l 0 -d "$priv/pmd.so" \
		-- --config "$priv/cpe.conf" "$@" \
		> "$priv/$name.json" 2> "$priv/$name.err" &
	pid=$!
	for i in $(seq 100); do
		ip -n "$rt" link show "$tl" >/dev/null 2>&1 &&
			ip -n "$rt" link show "$tw" >/dev/null 2>&1 && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if ! ip -n "$rt" link show "$tw" >/dev/null 2>&1; then
		echo "FAIL: the router did not create its TAPs"
		cat "$priv/$name.err"; exit 1
	fi
	ip -n "$rt" link set "$tl" netns "$lan"
	ip -n "$rt" link set "$tw" netns "$wan"
}

# host_v4 LAN_RT LAN_H WAN_H: the hosts' IPv4 addresses (/24), the LAN
# host's default route via the router; the WAN host has no route to the
# LAN, so NAT is the only way back.
host_v4() {
	ip -n "$lan" addr add "$2/24" dev "$tl"
	ip -n "$lan" link set "$tl" up
	ip -n "$lan" route add default via "$1"
	ip -n "$wan" addr add "$3/24" dev "$tw"
	ip -n "$wan" link set "$tw" up
	sleep 0.5
}

# wan_mode_refusals MODE: --wan 1=MODE (dhcp, pppoe) refused without its
# TAP (the message naming --tap) and beside an address.
wan_mode_refusals() {
	local out
	out=$(timeout 60 "$cpe" --no-huge --no-pci -m 256 --no-shconf -l 0 \
		-d "$priv/pmd.so" --vdev net_ch39x0 --vdev net_ch39x1 -- \
		--lan 0=192.168.9.1/24 --wan "1=$1" 2>&1)
	check 'echo "$out" | grep -q "add --tap 1=IFNAME"' "--wan 1=$1 without --tap refused, naming the fix ($(echo "$out" | grep -o -- "--wan 1=$1: .*" | head -1))"
	out=$(timeout 60 "$cpe" --no-huge --no-pci -m 256 --no-shconf -l 0 \
		-d "$priv/pmd.so" -- --lan 0=192.168.9.1/24 --wan "1=$1" \
		--wan 1=203.0.113.5/24 2>&1)
	check 'echo "$out" | grep -q "one IPv4 address a port"' "--wan 1=$1 and an address refused"
}

# start_tap_wan MODE [CONFIG LINES...]: the router "main" with the LAN
# $LAN_RT/24 on $tl, --wan 1=MODE on $tw with its TAP $pw, and the extra
# config lines; the LAN host $LAN_H/24 routed through it, the WAN end up
# (unaddressed), the TAP up.
start_tap_wan() {
	local mode=$1 l i
	shift
	{
		echo "vdev net_ch39x0,wire=tap:$tl"
		echo "vdev net_ch39x1,wire=tap:$tw"
		echo "lan 0=$LAN_RT/24"
		echo "wan 1=$mode"
		echo "tap 1=$pw"
		echo json
		for l in "$@"; do echo "$l"; done
	} > "$priv/cpe.conf"
	start_router main
	ip -n "$lan" addr add "$LAN_H/24" dev "$tl"
	ip -n "$lan" link set "$tl" up
	ip -n "$lan" route add default via "$LAN_RT"
	ip -n "$wan" link set "$tw" up
	for i in $(seq 100); do
		ip -n "$rt" link show "$pw" 2>/dev/null | grep -q ',UP' && break
		sleep 0.1
	done
}

# serve NS TAG SPECS...: tests/cpe/cpe_fw_tool.py's listeners in NS (its
# path in $tool), each arrival logged to $priv/TAG.log, for serve_secs
# seconds (default 280); their pids in bg_pids (the test's clean-up).
serve() {
	local ns=$1 tag=$2 secs=${serve_secs:-280}
	shift 2
	rm -f "$priv/$tag.log" "$priv/$tag.log.ready"
	ip netns exec "$ns" timeout $((secs + 20)) /usr/bin/python3 "$tool" \
		serve "$priv/$tag.log" "$secs" "$@" >/dev/null 2>&1 &
	bg_pids="${bg_pids:-} $!"
	wait_file "$priv/$tag.log.ready" 30 ||
		{ echo "FAIL: listeners $tag in $ns did not start"; fail=1; }
}

# The dual-stack set-up of cpe_fw.sh and cpe_flood.sh, from their
# addresses ($LAN_RT, $LAN_H, $WAN_RT, $WAN_H, $LAN6_RT, $LAN6_H,
# $WAN6_RT, $WAN6_H; the LAN is $LAN6_H's /64):
# ds_up NAME [OPTIONS]: ch39x-cpe started ($priv/cpe.conf), the hosts and
# the router's Linux side ($pw: its WAN TAP) addressed, again after a
# restart (the TAPs are new).
ds_up() {
	local name=$1 i n wmac
	shift
	start_router "$name" "$@"
	for n in "$lan" "$wan" "$rt"; do
		ip netns exec "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0
		ip netns exec "$n" sysctl -qw net.ipv6.conf.default.accept_dad=0
	done
	host_v4 "$LAN_RT" "$LAN_H" "$WAN_H"
	ip -n "$lan" -6 addr add "$LAN6_H/64" dev "$tl" nodad
	ip -n "$lan" -6 route add default via "$LAN6_RT"
	ip -n "$wan" -6 addr add "$WAN6_H/64" dev "$tw" nodad
	ip -n "$wan" -6 route add "${LAN6_H%::*}::/64" via "$WAN6_RT"
	# The router's Linux side: its WAN IPv6 address on the TAP (the app
	# sets IPv4 only), the WAN host's MAC known (ND answers are the app's).
	for i in $(seq 100); do
		ip -n "$rt" link show "$pw" 2>/dev/null | grep -q ',UP' && break
		sleep 0.1
	done
	ip -n "$rt" -6 addr add "$WAN6_RT/64" dev "$pw" nodad
	wmac=$(ip -n "$wan" -br link show "$tw" | awk '{print $3}')
	ip -n "$rt" neigh replace "$WAN_H" lladdr "$wmac" dev "$pw"
	ip -n "$rt" -6 neigh replace "$WAN6_H" lladdr "$wmac" dev "$pw"
}

# ds_linux XR XL XW: the same topology with a Linux router (namespaces
# XR, its LAN host XL on veth xl0 - lan, its WAN host XW on veth xw0 -
# wan), forwarding, addresses and routes; the caller loads its nftables.
ds_linux() {
	local xr=$1 xl=$2 xw=$3 n l
	lib_netns="${lib_netns:-} $xr $xl $xw"
	for n in "$xr" "$xl" "$xw"; do ip netns add "$n"; ip -n "$n" link set lo up; done
	ip -n "$xl" link add xl0 type veth peer name lan netns "$xr"
	ip -n "$xr" link add wan type veth peer name xw0 netns "$xw"
	for n in "$xr" "$xl" "$xw"; do
		ip netns exec "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0
		ip netns exec "$n" sysctl -qw net.ipv6.conf.default.accept_dad=0
	done
	ip netns exec "$xr" sysctl -qw net.ipv4.ip_forward=1
	ip netns exec "$xr" sysctl -qw net.ipv6.conf.all.forwarding=1
	ip netns exec "$xr" sysctl -qw net.ipv4.conf.all.rp_filter=0
	ip netns exec "$xr" sysctl -qw net.ipv4.conf.default.rp_filter=0
	ip -n "$xr" addr add "$LAN_RT/24" dev lan
	ip -n "$xr" -6 addr add "$LAN6_RT/64" dev lan nodad
	ip -n "$xr" addr add "$WAN_RT/24" dev wan
	ip -n "$xr" -6 addr add "$WAN6_RT/64" dev wan nodad
	ip -n "$xl" addr add "$LAN_H/24" dev xl0
	ip -n "$xl" -6 addr add "$LAN6_H/64" dev xl0 nodad
	ip -n "$xw" addr add "$WAN_H/24" dev xw0
	ip -n "$xw" -6 addr add "$WAN6_H/64" dev xw0 nodad
	for l in "$xr lan" "$xr wan" "$xl xl0" "$xw xw0"; do
		set -- $l; ip -n "$1" link set "$2" up
	done
	ip -n "$xr" route add default via "$WAN_H"
	ip -n "$xl" route add default via "$LAN_RT"
	ip -n "$xl" -6 route add default via "$LAN6_RT"
	ip -n "$xw" -6 route add "${LAN6_H%::*}::/64" via "$WAN6_RT"
}

stop_router() {
	local name=$1
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"; local rc=$?
	pid=
	check '[ $rc -eq 0 ]' "$name: router exited 0 on SIGTERM (exit $rc)"
	grep -v '^EAL:\|^TELEMETRY:' "$priv/$name.err" | sed 's/^/  router: /' | tail -5
}

# cpe_lib_done: on failure the router's output; exits with the status.
cpe_lib_done() {
	if [ "$fail" -ne 0 ]; then
		echo "--- router output ---"
		cat "$priv"/*.err 2>/dev/null | grep -v '^EAL:' | tail -30
	fi
	exit "$fail"
}
