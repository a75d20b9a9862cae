# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# Many adapters in one process (issue 25, item 4), the PMD test "many"
# (not in the default list: PMD_TESTS=many tests/vm/run.sh): does one
# libusb context and event round per process pay, against today's one per
# port? Measured before building it. For each N of MANY_N (vmt_many_n,
# default "2 8"; dummy_hcd has 8 buses), N NCM gadgets (1209:0020+i, one
# per UDC) and one dpdk-testpmd (icmpecho, one forwarding lcore) driving
# all N through net_ch39x; then two windows of MANY_SECS (vmt_many_secs,
# default 5) seconds:
#
#   idle   no traffic: testpmd's system calls per second (strace -c -f),
#          what the polling of N ports costs
#   load   every gadget's netdev pings its port (-i 0.01): frames
#          through testpmd, its CPU time and system calls, per frame
#
# One line per N and window in /out/many.txt and a PASS line each (the
# figures are measured, not asserted; FAIL only when a port does not
# answer or testpmd does not start). Sourced by pmd.sh (tp_start,
# tp_finish, tp_stat, result, param, up, gadget, gfunc, config, devpath,
# $G).

MANY_N=$(param vmt_many_n | tr ',' ' ')
MANY_N=${MANY_N:-2 8}
MANY_SECS=$(param vmt_many_secs)
MANY_SECS=${MANY_SECS:-5}

# ticks PID: utime + stime of a process and its threads (USER_HZ)
many_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# many_strace PID SECS FILE: strace -c -f for SECS seconds; prints the
# total number of calls
many_strace() {
	timeout -s INT "$2" chroot /host strace -c -f -q -p "$1" \
		> /dev/null 2> "$3"
	awk '$NF == "total" { print $4 + 0 }' "$3"
}

# many_rx: testpmd's frames received, all ports (show port stats all)
many_rx() {
	echo "show port stats all" >&3
	sleep 1
	# the last N blocks: this "all"
	grep "RX-packets:" "$TP_LOG" | tail -n "$1" |
		awk '{ s += $2 } END { print s + 0 }'
}

pmd_many() {
	for g in ncm ecm multi fake398; do
		echo "" > "$G/$g/UDC" 2>/dev/null
	done
	i=0
	while [ $i -lt 8 ]; do
		pid=$(printf "0x%04x" $((0x20 + i)))
		gadget "many$i" 0x1209 "$pid" > /dev/null 2>&1
		gfunc "many$i" ncm.0 "02:00:00:00:2$i:01" "02:00:00:00:2$i:02" 2>/dev/null
		config "many$i" c.1 ncm.0 2>/dev/null
		i=$((i + 1))
	done
	: > /out/many.txt
	for n in $MANY_N; do
		first=""
		rest=""
		nets=""
		i=0
		while [ $i -lt "$n" ]; do
			echo "dummy_udc.$i" > "$G/many$i/UDC" || true
			i=$((i + 1))
		done
		i=0
		while [ $i -lt "$n" ]; do
			vp=1209:$(printf "%04x" $((0x20 + i)))
			p=""
			k=0
			while [ -z "$p" ] && [ $k -lt 100 ]; do
				p=$(devpath 1209 "${vp#*:}")
				[ -n "$p" ] || sleep 0.1
				k=$((k + 1))
			done
			ifc=$(cat "$G/many$i/functions/ncm.0/ifname")
			ip addr flush dev "$ifc"
			ip addr add "169.254.$((110 + i)).1/24" dev "$ifc"
			ip link set "$ifc" up
			nets="$nets $ifc:169.254.$((110 + i)).2"
			if [ $i -eq 0 ]; then
				first="dev=$vp,path=$p"
			else
				rest="$rest --vdev net_ch39x$i,dev=$vp,path=$p"
			fi
			i=$((i + 1))
		done
		# net_ch39x0's devargs are tp_start's; the rest ride in TP_EAL
		TP_EAL=$rest
		if ! tp_start "many$n" "$first" --nb-cores=1; then
			result FAIL "many$n-start" "$TP_ERR"
			TP_EAL=""
			tp_finish
			continue
		fi
		TP_EAL=""
		tpid=""
		for q in /proc/[0-9]*; do
			[ "$(cat "$q/comm" 2>/dev/null)" = dpdk-testpmd ] && tpid=${q#/proc/}
		done
		# every port answers before the windows
		bad=""
		for x in $nets; do
			chroot /host /usr/bin/ping -n -q -c 2 -W 5 -I "${x%%:*}" "${x#*:}" \
				> /dev/null 2>&1 || bad="$bad ${x%%:*}"
		done
		if [ -n "$bad" ] || [ -z "$tpid" ]; then
			result FAIL "many$n-ping" "no echo reply on:$bad (testpmd ${tpid:-not found})"
			tp_finish
			continue
		fi
		sleep 1
		c0=$(many_ticks "$tpid")
		sys=$(many_strace "$tpid" "$MANY_SECS" "/out/many-$n-idle-strace.txt")
		c1=$(many_ticks "$tpid")
		line="N=$n idle: $sys system calls in $MANY_SECS s ($((sys / MANY_SECS)) /s, $((sys / MANY_SECS / n)) /s per port), testpmd CPU $(((c1 - c0) / MANY_SECS))% of one (USER_HZ 100)"
		echo "$line" >> /out/many.txt
		result PASS "many$n-idle" "$line"
		pids=""
		for x in $nets; do
			chroot /host /usr/bin/ping -n -q -i 0.01 -w $((MANY_SECS + 4)) \
				-I "${x%%:*}" "${x#*:}" > /dev/null 2>&1 &
			pids="$pids $!"
		done
		sleep 1
		r0=$(many_rx "$n")
		c0=$(many_ticks "$tpid")
		sys=$(many_strace "$tpid" "$MANY_SECS" "/out/many-$n-load-strace.txt")
		c1=$(many_ticks "$tpid")
		r1=$(many_rx "$n")
		wait $pids
		fr=$((r1 - r0))
		line="N=$n load: $fr frames in about $((MANY_SECS + 1)) s, $sys system calls in $MANY_SECS s ($(awk -v s="$sys" -v f="$fr" -v w="$MANY_SECS" 'BEGIN { if (f > 0) printf "%.2f", s / (f * w / (w + 1)); else print "-" }') per frame), testpmd CPU $(((c1 - c0) / MANY_SECS))% of one (USER_HZ 100)"
		echo "$line" >> /out/many.txt
		result PASS "many$n-load" "$line"
		tp_finish
		i=0
		while [ $i -lt "$n" ]; do
			echo "" > "$G/many$i/UDC" 2>/dev/null
			i=$((i + 1))
		done
	done
}
