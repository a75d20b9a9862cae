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
cpe_lib_cleanup() {
	$cpe_lib_extra_cleanup
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	local n
	for n in "$rt" "$lan" "$wan"; do ip netns del "$n" 2>/dev/null; done
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
# and unaddressed: host_v4 or the test configures them). It lives 250 s
# at most, or cpe_router_secs (a longer test's).
start_router() {
	local name=$1 i
	shift
	ip netns exec "$rt" timeout "${cpe_router_secs:-250}" "$cpe" \
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
