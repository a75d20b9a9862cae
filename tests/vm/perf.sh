# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# A bounded throughput comparison in the guest (run.sh with PERF=1; not
# part of the default run): on the same CDC gadget, with the same traffic
# and the same pinning, in one boot, the host side is in turn
#
#   kernel         the kernel's own host driver (cdc_ncm, cdc_ether) and
#                  its netdev's counters
#   ch39x          net_ch39x (testpmd rxonly / txonly; libusb, the PMD
#                  takes the interfaces from the kernel driver and gives
#                  them back at close)
#   af_packet      net_af_packet on the kernel driver's netdev (testpmd)
#   af_xdp         net_af_xdp on that netdev, generic (skb) mode: cdc_ncm
#                  and cdc_ether have no native XDP, and DPDK 22.11 with
#                  Debian's libxdp only falls back to generic mode given
#                  xdp_prog= (libxdp's default program, xsk_def_xdp_prog.o)
#
# and, when PERF_DRIVERS names them (controls, not in the default set):
#
#   kernel_spin    the kernel driver while a busy loop holds CPU 1, as
#                  testpmd's forwarding lcore does: what a busy vCPU
#                  costs the kernel's side under TCG, the PMD aside
#   ch39x_fwd0     net_ch39x with testpmd's forwarding lcore on CPU 0
#                  (--main-lcore 1), beside pktgen, instead of CPU 1
#
# with the kernel's pktgen as the source on the other side:
#
#   gadget -> host: pktgen on the gadget's netdev, to the host side's MAC;
#                   counted by testpmd (RX-packets) or by the kernel
#                   driver's netdev (rx_packets)
#   host -> gadget: testpmd txonly, or pktgen on the kernel driver's
#                   netdev; counted by the gadget's netdev (rx_packets)
#
# testpmd runs with -l 0-1 (forwarding lcore on CPU 1, busy-polling);
# pktgen's thread is kpktgend_0, on CPU 0. Each figure is frames counted at
# the receiver over a PERF_SECS window divided by the window (uptime), for
# each of PERF_SIZES; with it, the busy share of CPU 0 and CPU 1 over the
# window (/proc/stat) and testpmd's own CPU (% of one CPU, 0 for the
# kernel driver). The drivers take turns PERF_REPS times; medians, minimum
# and maximum are reported (every sample is kept in /out/perf.txt, the
# summary in /out/perf.csv). PERF_DEEP=1 adds the PMD with
# rx_xfers=N,tx_xfers=N, N = PERF_DEEP_XFERS (64), or with the devargs
# PERF_DEEP_ARGS. Under TCG these are ratios, not hardware rates.
# PASS/FAIL per gadget and size: FAIL when a direction moved no frame.
#
# Sourced by guest.sh after pmd.sh (uses tp_start, tp_finish, tp_stat,
# nstat, result, up, param, $P1, $P2, $N1, $N2).

PERF_SECS=$(param vmt_perf_secs)
PERF_SECS=${PERF_SECS:-5}
PERF_REPS=$(param vmt_perf_reps)
PERF_REPS=${PERF_REPS:-3}
PERF_DEEP=$(param vmt_perf_deep)
PERF_DEEP_XFERS=$(param vmt_perf_deep_xfers)
PERF_DEEP_XFERS=${PERF_DEEP_XFERS:-64}
PERF_SIZES=$(param vmt_perf_sizes | tr ',' ' ')
PERF_SIZES=${PERF_SIZES:-60 512 1514}
PERF_DRIVERS=$(param vmt_perf_drivers | tr ',' ' ')
PERF_DRIVERS=${PERF_DRIVERS:-kernel ch39x af_packet af_xdp}
PERF_APP=$(param vmt_perf_app)
# The gadgets measured (ncm, ecm), and 1: a perf profile of every CPU in 2 s
# more of each window of the first round (not in the measured window),
# perf-profile-SPEED-DEV-DRIVER-SIZE-DIR.data with kallsyms.txt in
# /out, for perf report on the host
PERF_DEVS=$(param vmt_perf_devs | tr ',' ' ')
PERF_DEVS=${PERF_DEVS:-ncm ecm}
PERF_PROFILE=$(param vmt_perf_profile)
# PERF_DIAG=1, from /out/perf.conf (run.sh writes it: the kernel caps the
# command line's variables): in the first round, 2 s more of each gadget
# -> host window with the USB monitor on the gadget's bus and the function
# tracer on the host controller's pass, URB submissions and completions;
# a "[diag]" line each in perf.txt (diag()).
PERF_DIAG=0
# PERF_ORDER (perf.conf too): the drivers' order inside each rep, since a
# loaded host drifts within a rep by more than the effects measured and a
# fixed order biases paired per-rep ratios by position: "alternate" (as
# PERF_DRIVERS lists them in reps 1, 3, ..., reversed in reps 2, 4, ...),
# "rotate" (rep r starts at the (r mod n)-th driver), "fixed" (as listed)
PERF_ORDER=alternate
# shellcheck disable=SC1091
[ -f /out/perf.conf ] && . /out/perf.conf
PROF_TAG=""
PERF_VALS=/tmp/perf.vals
PERF_CPU=/tmp/perf.cpu
PG=/proc/net/pktgen
DEEP=$(param vmt_perf_deep_args)
DEEP=${DEEP:-rx_xfers=$PERF_DEEP_XFERS,tx_xfers=$PERF_DEEP_XFERS}
# DPDK's own PMDs, as pmd_prepare left them visible in the chroot.
DPDK_PMDS=/run/dpdk-pmds-all
XDP_PROG=$(cd /host && ls usr/lib/*/bpf/xsk_def_xdp_prog.o 2>/dev/null | head -n 1)
XDP_PROG=${XDP_PROG:+/$XDP_PROG}

# perf_step TEXT: where the measurement is now, a "[perf-step] UPTIME
# TEXT" console line (not in perf.txt) and /tmp/perf.step for perf_watch.
# Also called inside $(window ...): hence the console, not stdout.
perf_step() {
	echo "$(up) $1" > /tmp/perf.step
	echo "[perf-step] $(up) $1" > /dev/console
}

# perf_watch: while /tmp/perf.watch exists, every 10 s: when one step has
# lasted PERF_STALL seconds, perf_stall's picture of the guest, again
# every PERF_STALL seconds while it lasts. (A guest that cannot run this
# loop prints nothing: that silence is itself the finding.)
PERF_STALL=${PERF_STALL:-90}	# perf.conf's (run.sh's PERF_STALL)
perf_watch() {
	last=""
	since=$(up)
	while [ -f /tmp/perf.watch ]; do
		sleep 10
		cur=$(cat /tmp/perf.step 2>/dev/null)
		now=$(up)
		if [ "$cur" != "$last" ]; then
			last=$cur
			since=$now
		elif awk -v a="$now" -v b="$since" -v l="$PERF_STALL" \
			'BEGIN { exit !(a - b >= l) }'; then
			perf_stall "$cur" "$since" "$now"
			since=$now
		fi
	done
}

stall_line() {
	echo "[perf-stall] $*" > /dev/console
}

# perf_stall STEP SINCE NOW: "[perf-stall]" console lines: the step, each
# CPU's user/system/softirq/idle share over 2 s, the tasks running (R) or
# waiting uninterruptibly (D) and every shell, sleep and cat with where it
# waits (wchan) and its kernel stack, pktgen's thread and devices, the
# netdevs' carrier and counters, the softirq counts, the kernel log's tail.
perf_stall() {
	stall_line "step '$1' unchanged since uptime $2 (now $3); load $(cat /proc/loadavg)"
	a=$(grep '^cpu[0-9]' /proc/stat)
	sleep 2
	b=$(grep '^cpu[0-9]' /proc/stat)
	printf '%s\n%s\n' "$a" "$b" | awk '{ if ($1 in u) {
		t = 0; for (i = 2; i <= 9; i++) t += $i - v[$1, i]
		if (t <= 0) t = 1
		printf "%s user %d%% system %d%% irq %d%% softirq %d%% idle %d%%\n", $1,
			100 * ($2 + $3 - v[$1, 2] - v[$1, 3]) / t,
			100 * ($4 - v[$1, 4]) / t, 100 * ($7 - v[$1, 7]) / t,
			100 * ($8 - v[$1, 8]) / t, 100 * ($5 - v[$1, 5]) / t
		} else { u[$1] = 1; for (i = 2; i <= 9; i++) v[$1, i] = $i } }' |
		while read -r l; do stall_line "$l"; done
	for d in /proc/[0-9]*; do
		st=$(cut -d' ' -f3 "$d/stat" 2>/dev/null)
		c=$(cat "$d/comm" 2>/dev/null)
		case "$st:$c" in
		R:*|D:*|*:sh|*:sleep|*:cat|*:kpktgend_*|*:ksoftirqd*) ;;
		*) continue ;;
		esac
		stall_line "task ${d#/proc/} $c state $st cpu $(cut -d' ' -f39 "$d/stat" 2>/dev/null) wchan $(cat "$d/wchan" 2>/dev/null)"
		[ "$c" = sh ] || [ "$st" = D ] || [ "$c" = kpktgend_0 ] || continue
		head -n 8 "$d/stack" 2>/dev/null | while read -r l; do
			stall_line "  $l"
		done
	done
	for f in "$PG"/*; do
		[ -f "$f" ] || continue
		case $f in */pgctrl) continue ;; esac
		grep -E "Running|Stopped|Result|pkts-sofar|errors" "$f" 2>/dev/null |
			while read -r l; do stall_line "pktgen ${f##*/}: $l"; done
	done
	for n in /sys/class/net/*; do
		[ "${n##*/}" = lo ] && continue
		stall_line "netdev ${n##*/} $(cat "$n/operstate") carrier $(cat "$n/carrier" 2>/dev/null) rx $(cat "$n/statistics/rx_packets") tx $(cat "$n/statistics/tx_packets") tx_dropped $(cat "$n/statistics/tx_dropped")"
	done
	grep -E "NET_RX|NET_TX|TIMER|HRTIMER" /proc/softirqs |
		while read -r l; do stall_line "softirqs $l"; done
	dmesg | tail -n 10 | while read -r l; do stall_line "dmesg $l"; done
}

perf_line() {	# text
	echo "$1" >> /out/perf.txt
	echo "[perf] $1"
}

# perf_val KEY G2H H2G: one sample of both directions, each a window()'s
# "frames/s cpu0% cpu1% proc%"
perf_val() {
	k=$1
	# shellcheck disable=SC2086
	set -- $2 $3
	echo "$k $1 $5" >> $PERF_VALS
	echo "$k g2h $2 $3 $4" >> $PERF_CPU
	echo "$k h2g $6 $7 $8" >> $PERF_CPU
	perf_line "$k gadget->host=$1 host->gadget=$5 frames/s (CPU0/CPU1/testpmd %: $2/$3/$4, $6/$7/$8)"
}

# stats of the samples of KEY, column 2 (gadget->host) or 3: "median min
# max n"
perf_stats() {
	awk -v k="$1" -v c="$2" '{ key = $1; for (i = 2; i < NF - 1; i++)
		key = key " " $i } key == k { print $(NF - 2 + c) }' $PERF_VALS |
		sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)], v[1], v[NR], NR; else print 0, 0, 0, 0 }'
}
perf_median() {
	perf_stats "$1" "$2" | cut -d' ' -f1
}

# median CPU figures of KEY, DIR (g2h, h2g): "cpu0 cpu1 proc"
perf_cpu() {
	for c in 1 2 3; do
		awk -v k="$1 $2" -v c="$c" '{ key = $1; for (i = 2; i <= NF - 3; i++)
			key = key " " $i } key == k { print $(NF - 3 + c) }' $PERF_CPU |
			sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%s ", v[int((NR + 1) / 2)]; else printf "0 " }'
	done
}

# pg_run IFNAME SIZE DSTMAC: pktgen on IFNAME for PERF_SECS (bounded: no
# count, stopped by time)
pg_setup() {
	PG_DEV=$1
	echo "rem_device_all" > $PG/kpktgend_0
	echo "add_device $1" > $PG/kpktgend_0
	echo "count 0" > "$PG/$1"
	echo "clone_skb 0" > "$PG/$1"
	echo "pkt_size $2" > "$PG/$1"
	echo "delay 0" > "$PG/$1"
	echo "dst 169.254.99.2" > "$PG/$1"
	echo "dst_mac $3" > "$PG/$1"
}

# CPU time so far: idle and total jiffies of CPU 0 and CPU 1, and the
# user+system jiffies of every dpdk-testpmd process
cpu_snap() {
	awk '$1 == "cpu0" || $1 == "cpu1" { printf "%d %d ", $5 + $6,
		$2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat
	p=0
	for pid in $(pidof dpdk-testpmd); do
		p=$((p + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0)))
	done
	echo "$p"
}

# window START-CMD STOP-CMD COUNTER-CMD: runs the source, samples the
# receiver and the CPUs before and after a PERF_SECS window; prints
# "frames/s cpu0-busy% cpu1-busy% testpmd%"
window() {
	perf_step "$PERF_CELL: source starts ($1)"
	eval "$1"
	perf_step "$PERF_CELL: source started"
	sleep 1
	s0=$(cpu_snap)
	c0=$(eval "$3")
	t0=$(up)
	perf_step "$PERF_CELL: window of $PERF_SECS s"
	sleep "$PERF_SECS"
	c1=$(eval "$3")
	t1=$(up)
	s1=$(cpu_snap)
	# A source that stopped by itself (pktgen stops a device that loses
	# its carrier) makes the sample a wrong one: say so in perf.txt.
	[ "$1" = pg_start ] && ! grep -qE "Running:.* $PG_DEV( |\$)" $PG/kpktgend_0 &&
		echo "[warn] $PERF_CELL: pktgen no longer ran $PG_DEV at the window's end ($(grep Result: "$PG/$PG_DEV"))" |
		tee -a /out/perf.txt > /dev/console
	[ "$PERF_PROFILE" = 1 ] && [ -n "$PROF_TAG" ] &&
		sys_profile "perf-profile-$PROF_TAG.data"
	perf_step "$PERF_CELL: source stops ($2)"
	eval "$2"
	perf_step "$PERF_CELL: source stopped"
	echo "$c0 $c1 $t0 $t1 $s0 $s1" | awk '{ dt = $4 - $3;
		j0 = $11 - $6; j1 = $13 - $8; b0 = 0; b1 = 0;
		if (j0 > 0) b0 = 100 * (1 - ($10 - $5) / j0);
		if (j1 > 0) b1 = 100 * (1 - ($12 - $7) / j1);
		printf "%d %d %d %d", ($2 - $1) / dt, b0, b1, ($14 - $9) / dt }'
}

# diag KEY PATH: PERF_DIAG's look at 2 s of the traffic now flowing from
# the gadget at PATH (first round only), one "[diag] KEY ..." line:
# - usbmon (text API) on its bus, the bulk IN endpoint of its device:
#   transfers completed per second and their bytes (the NTB or frame
#   sizes the gadget sent), and how many transfers the host had queued
#   when each completed (its own submissions in flight: those whose
#   first event in the capture is a completion were queued before it
#   began), their mean and minimum, and the share of completions that
#   left none queued;
# - ftrace's function tracer: calls per second and per CPU of
#   dummy_timer (dummy_hcd's pass over the queues, which moves the data
#   and completes transfers), usb_hcd_giveback_urb (completions) and
#   usb_submit_urb (submissions, the gadget side's included).
diag() {
	[ "$PERF_DIAG" = 1 ] && [ "${PERF_ROUND:-0}" = 0 ] || return 0
	bus=$(cat "/sys/bus/usb/devices/$2/busnum" 2>/dev/null)
	dev=$(cat "/sys/bus/usb/devices/$2/devnum" 2>/dev/null)
	um=/sys/kernel/debug/usb/usbmon/${bus}u
	tr=/sys/kernel/debug/tracing
	if [ ! -r "$um" ] || [ ! -d "$tr" ]; then
		perf_line "[diag] $1: no usbmon ($um) or tracefs"
		return 0
	fi
	echo > $tr/trace
	echo 1 > $tr/tracing_on
	timeout 2 cat "$um" > /tmp/usbmon.txt
	echo 0 > $tr/tracing_on
	u=$(awk -v a="$(printf 'Bi:%d:%03d:' "$bus" "$dev")" '
		index($4, a) != 1 { next }
		$3 == "S" { if (!($1 in seen)) seen[$1] = "S"; s++; next }
		$3 == "C" { if (!($1 in seen)) { seen[$1] = "C"; pre++ }
			c++; b += $6; if (t0 == "") t0 = $2; t1 = $2
			q[c] = s - c; next }
		END { if (c < 2 || t1 <= t0) { print "no bulk IN completions"; exit }
			mn = 1e9; for (i = 1; i <= c; i++) { v = pre + q[i]
				m += v; if (v < mn) mn = v; if (v <= 0) z++ }
			printf "usbmon: %d transfers/s of %d bytes, queued at completion mean %.1f min %d, none left after %.0f%%",
				(c - 1) * 1e6 / (t1 - t0), b / c, m / c, mn, 100 * z / c }' /tmp/usbmon.txt)
	f=$(awk '$1 !~ /^#/ { cpu = ""; fn = ""
		for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { cpu = substr($i, 2, length($i) - 2)
			for (j = i + 1; j <= NF; j++) if ($j ~ /^[0-9.]+:$/) { fn = $(j + 1); break }
			break }
		if (fn != "") n[fn "@cpu" cpu]++ }
		END { for (k in n) printf "%s=%.0f/s ", k, n[k] / 2 }' $tr/trace |
		tr ' ' '\n' | sort | tr '\n' ' ')
	perf_line "[diag] $1 $u; ftrace: $f"
	rm -f /tmp/usbmon.txt
}

# diag_traffic KEY PATH: diag with pktgen (as set up) sending meanwhile;
# nothing (no start, no stop) when diag would not look. The function
# tracer is chosen before pktgen starts and dropped after it stops, its
# filter set first: switching tracers rewrites the kernel's text under
# stop_machine, and choosing "function" before the filter traces every
# kernel function for a moment. Done while kpktgend_0 spun on CPU 0 (and
# unfiltered), the guest of 2026-12-07 02:33 hung for good ("rcu_preempt
# self-detected stall on CPU", no timer on CPU 0 for 20 s) at its first
# diag.
diag_traffic() {
	[ "$PERF_DIAG" = 1 ] && [ "${PERF_ROUND:-0}" = 0 ] || return 0
	tr=/sys/kernel/debug/tracing
	if [ -d $tr ]; then
		echo 0 > $tr/tracing_on
		echo "dummy_timer usb_hcd_giveback_urb usb_submit_urb" \
			> $tr/set_ftrace_filter
		echo 4096 > $tr/buffer_size_kb
		echo function > $tr/current_tracer
	fi
	perf_step "$1: diag (tracer armed)"
	pg_start
	diag "$1" "$2"
	pg_stop
	[ -d $tr ] && echo nop > $tr/current_tracer
	perf_step "$1: diag done"
}

# spin_start CPU / spin_stop: a busy loop on CPU (kernel_spin)
spin_start() {
	chroot /host taskset -c "$1" sh -c 'while :; do :; done' &
	SPIN_PID=$!
}
spin_stop() {
	kill "$SPIN_PID" 2>/dev/null
	wait "$SPIN_PID" 2>/dev/null
}

# prof_tag DEV DRIVER SIZE DIR: the next window's profile name (round 1)
prof_tag() {
	PROF_TAG=""
	[ "$PERF_PROFILE" = 1 ] && [ "${PERF_ROUND:-0}" = 0 ] &&
		PROF_TAG="$SPEED-$1-$(echo "$2" | tr ',=' '+.')-$3-$4"
}

# pg_start: pktgen's "start", in the background (the write returns when
# every device has stopped). pg_stop: "stop", again every 0.2 s until that
# write has returned (bounded: 10 s, then the writer is killed and a
# "[perf-step]" line says so). One "stop" is not enough: kpktgend polls
# its control word every 100 ms and takes a stop before a start posted in
# the same pass, so a stop written within ~100 ms of the start (diag's
# start/stop pair without PERF_DIAG, 2026-12-07) left pktgen sending with
# no end and the start's writer, and with it the run, waiting for ever
# (dmesg "pktgen: interface: usb0 is already stopped", the device
# "Running" with "Result: Starting").
pg_start() {
	echo start > $PG/pgctrl &
	PG_PID=$!
}
pg_stop() {
	i=0
	while [ $i -lt 50 ]; do
		echo stop > $PG/pgctrl
		sleep 0.2
		kill -0 "$PG_PID" 2>/dev/null || break
		i=$((i + 1))
	done
	if kill -0 "$PG_PID" 2>/dev/null; then
		perf_step "pktgen did not stop in 10 s; its start's writer killed"
		kill "$PG_PID" 2>/dev/null
	fi
	wait "$PG_PID" 2>/dev/null
}

# host-side netdev of the kernel driver bound to PATH's interface 0
kdrv_netdev() {
	ls "/sys/bus/usb/devices/$1:1.0/net" 2>/dev/null | head -n 1
}

# kdrv_up PATH: that netdev, up and with carrier (bounded wait: after the
# PMD the kernel driver binds again and the function reports its link);
# sets KIF, returns 1 when there is none with carrier
kdrv_up() {
	i=0
	while [ $i -lt 150 ]; do
		KIF=$(kdrv_netdev "$1")
		if [ -n "$KIF" ]; then
			ip link set "$KIF" up 2>/dev/null
			[ "$(cat "/sys/class/net/$KIF/carrier" 2>/dev/null)" = 1 ] &&
				return 0
		fi
		sleep 0.2
		i=$((i + 1))
	done
	return 1
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

# perf_kernel NAME PATH GADGET-IF GADGET-MAC HOST-MAC DRIVER [spin]:
# spin: with a busy loop on CPU 1 throughout (label DRIVER+spin)
perf_kernel() {
	kl=$6
	[ "${7:-}" = spin ] && kl=$6+spin
	perf_step "$SPEED $1 $kl: kdrv_up $2"
	if ! kdrv_up "$2"; then
		result FAIL "perf-$1-$kl" "no $6 netdev with carrier on $2"
		return
	fi
	kif=$KIF
	[ "$PERF_DIAG" = 1 ] && [ "${PERF_ROUND:-0}" = 0 ] &&
		perf_line "[diag] $SPEED $1 $kl: rx_max $(cat "/sys/class/net/$kif/cdc_ncm/rx_max" 2>/dev/null || echo -) (SET_NTB_INPUT_SIZE), tx_max $(cat "/sys/class/net/$kif/cdc_ncm/tx_max" 2>/dev/null || echo -)"
	[ "${7:-}" = spin ] && spin_start 1
	sleep 1
	for s in $PERF_SIZES; do
		pg_setup "$3" "$s" "$5"
		prof_tag "$1" "$kl" "$s" g2h
		PERF_CELL="$SPEED $1 $kl size=$s g2h"
		g2h=$(window pg_start pg_stop "nstat $kif rx_packets")
		diag_traffic "$SPEED $1 $kl size=$s g2h" "$2"
		pg_setup "$kif" "$s" "$4"
		prof_tag "$1" "$kl" "$s" h2g
		PERF_CELL="$SPEED $1 $kl size=$s h2g"
		h2g=$(window pg_start pg_stop "nstat $3 rx_packets")
		PROF_TAG=""
		perf_val "$SPEED $1 $kl size=$s" "$g2h" "$h2g"
	done
	[ "${7:-}" = spin ] && spin_stop
	echo "rem_device_all" > $PG/kpktgend_0
	ip link set "$kif" down
}

# perf_order ROUND: PERF_DRIVERS in PERF_ORDER's order for rep ROUND
# (from 0), one a line
perf_order() {
	echo "$PERF_DRIVERS" | tr -s ' ' '\n' | sed '/^$/d' |
		awk -v o="$PERF_ORDER" -v r="$1" '{ d[NR - 1] = $0 }
		END { for (i = 0; i < NR; i++) {
			j = i
			if (o == "alternate" && r % 2 == 1) j = NR - 1 - i
			else if (o == "rotate") j = (i + r) % NR
			print d[j] } }'
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
	for d in $(perf_order "${PERF_ROUND:-0}"); do
		case $d in
		kernel)
			perf_kernel "$pn" "$path" "$gif" "$gmac" "$hmac" "$drv" ;;
		kernel_spin)
			perf_kernel "$pn" "$path" "$gif" "$gmac" "$hmac" \
				"$drv" spin ;;
		ch39x_fwd0)
			# shellcheck disable=SC2034 # tp_start's
			TP_EAL="--main-lcore 1"
			perf_pmd "$pn" "$gif" "$gmac" "$hmac" net_ch39x+fwd0 \
				"$PRIV/librte_net_ch39x.so" net_ch39x0 \
				"dev=$vp,path=$path"
			# shellcheck disable=SC2034
			TP_EAL="" ;;
		ch39x)
			perf_pmd "$pn" "$gif" "$gmac" "$hmac" net_ch39x \
				"$PRIV/librte_net_ch39x.so" net_ch39x0 \
				"dev=$vp,path=$path"
			# Deeper transfer queues: whether the depth limits it.
			[ "$PERF_DEEP" = 1 ] &&
				perf_pmd "$pn" "$gif" "$gmac" "$hmac" \
					"net_ch39x,$DEEP" \
					"$PRIV/librte_net_ch39x.so" net_ch39x0 \
					"dev=$vp,path=$path,$DEEP"
			;;
		af_packet|af_xdp)
			if ! kdrv_up "$path"; then
				result FAIL "perf-$pn-$d" "no $drv netdev with carrier on $path"
				continue
			fi
			a="iface=$KIF"
			[ $d = af_xdp ] && a="$a,start_queue=0,queue_count=1,xdp_prog=$XDP_PROG"
			perf_pmd "$pn" "$gif" "$gmac" "$hmac" "net_$d" \
				"$(ls /host$DPDK_PMDS/librte_net_$d.so.[0-9]* |
				   head -n 1 | sed 's,^/host,,')" "net_${d}0" "$a"
			ip link set "$KIF" down
			;;
		esac
	done
}

# perf_pmd NAME GADGET-IF GADGET-MAC HOST-MAC LABEL PLUGIN VDEV DEVARGS:
# testpmd with one PMD, rxonly while pktgen sends from the gadget, then
# txonly while the gadget's netdev counts
perf_pmd() {
	pn=$1
	gif=$2
	gmac=$3
	hmac=$4
	label=$5
	TP_PLUGIN=$6
	TP_DRV=$7
	perf_step "$SPEED $pn $label: testpmd starts"
	# Enough mbufs for every PMD: net_af_xdp fills its fill ring (2048
	# descriptors) from the pool.
	if ! tp_start "perf-$pn-$label" "$8" --total-num-mbufs=16384 \
		--forward-mode=rxonly --eth-peer=0,$gmac; then
		result FAIL "perf-$pn-$label" "$TP_ERR"
		tp_finish
		TP_PLUGIN=$PRIV/librte_net_ch39x.so
		TP_DRV=net_ch39x0
		return
	fi
	# net_ch39x taking the device resets the gadget's link: pktgen on a
	# netdev without carrier sends nothing, and stops (bounded waits).
	# The gadget's carrier can still read 1 from before that reset
	# (2026-12-07: a window began 1.5 s after testpmd, the link went and
	# came back, pktgen had stopped: 0 frames/s): with net_ch39x, first
	# the port's link-up event (the function's connection notification
	# comes once it is connected again), then the carrier.
	i=0
	while [ "$TP_DRV" = net_ch39x0 ] &&
	      ! grep -q "link state change event" "$TP_LOG" && [ $i -lt 100 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	i=0
	while [ "$(cat "/sys/class/net/$gif/carrier" 2>/dev/null)" != 1 ] &&
	      [ $i -lt 100 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	sleep 1
	for s in $PERF_SIZES; do
		pg_setup "$gif" "$s" "$hmac"
		prof_tag "$pn" "$label" "$s" g2h
		PERF_CELL="$SPEED $pn $label size=$s g2h"
		g2h=$(window pg_start pg_stop tp_rx)
		diag_traffic "$SPEED $pn $label size=$s g2h" \
			"$(echo "$8" | sed -n 's/.*path=\([^,]*\).*/\1/p')"
		echo "stop" >&3
		echo "set fwd txonly" >&3
		echo "set txpkts $s" >&3
		sleep 0.5
		prof_tag "$pn" "$label" "$s" h2g
		PERF_CELL="$SPEED $pn $label size=$s h2g"
		h2g=$(window 'echo start >&3' 'echo stop >&3' "nstat $gif rx_packets")
		PROF_TAG=""
		echo "set fwd rxonly" >&3
		echo "start" >&3
		sleep 0.5
		perf_val "$SPEED $pn $label size=$s" "$g2h" "$h2g"
	done
	echo "rem_device_all" > $PG/kpktgend_0
	tp_finish
	TP_PLUGIN=$PRIV/librte_net_ch39x.so
	TP_DRV=net_ch39x0
}

# perf_summary NAME DRIVER: medians with their spread, one result line per
# size; /out/perf.csv: speed,dev,driver,size,dir,median,min,max,n,cpu0,
# cpu1,testpmd
perf_summary() {
	pn_sum=$1
	kdrv_sum=$2
	for s in $PERF_SIZES; do
		line=""
		ok=1
		for d in "$kdrv_sum" "$kdrv_sum+spin" net_ch39x \
			 net_ch39x+fwd0 "net_ch39x,$DEEP" net_af_packet \
			 net_af_xdp; do
			k="$SPEED $pn_sum $d size=$s"
			grep -q "^$k " $PERF_VALS || continue
			# The CSV's driver column: devargs joined with '+'.
			dc=$(echo "$d" | tr ',' '+')
			gs=$(perf_stats "$k" 1)
			hs=$(perf_stats "$k" 2)
			gc=$(perf_cpu "$k" g2h)
			hc=$(perf_cpu "$k" h2g)
			# shellcheck disable=SC2086
			{ set -- $gs $gc
			  echo "$SPEED,$pn_sum,$dc,$s,g2h,$1,$2,$3,$4,$5,$6,$7"
			  g=$1
			  gs="$1 ($2-$3)"
			  set -- $hs $hc
			  echo "$SPEED,$pn_sum,$dc,$s,h2g,$1,$2,$3,$4,$5,$6,$7"
			  h=$1
			  hs="$1 ($2-$3)"
			  n=$4; } >> /out/perf.csv
			[ "$g" -gt 0 ] && [ "$h" -gt 0 ] || ok=0
			line="$line; $d $gs, $hs"
			perf_line "median (min-max) of $n: $k gadget->host=$gs host->gadget=$hs frames/s; CPU0/CPU1/testpmd % g->h $(echo $gc | tr ' ' /) h->g $(echo $hc | tr ' ' /)"
		done
		if [ $ok = 1 ] && [ -n "$line" ]; then
			result PASS "perf-$pn_sum-$s" "frames/s gadget->host, host->gadget (median (min-max) of $PERF_REPS x ${PERF_SECS} s)${line}"
		else
			result FAIL "perf-$pn_sum-$s" "a direction moved nothing${line:-, no samples}"
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
	rm -f $PERF_VALS $PERF_CPU
	: > /tmp/perf.watch
	perf_step "perf starts"
	perf_watch &
	PERF_WATCH_PID=$!
	[ -f /out/perf.csv ] ||
		echo "speed,dev,driver,size,dir,median,min,max,n,cpu0,cpu1,testpmd" > /out/perf.csv
	echo "[guest] perf starts at uptime $(up) s: drivers $PERF_DRIVERS (order $PERF_ORDER), sizes $PERF_SIZES, xdp_prog=$XDP_PROG"
	perf_line "guest: $(cost_probe)"
	r=0
	while [ $r -lt "$PERF_REPS" ]; do
		PERF_ROUND=$r
		perf_line "rep $((r + 1)) order: $(perf_order $r | tr '\n' ' ')"
		case " $PERF_DEVS " in *" ncm "*)
			perf_gadget ncm 1209:0001 "$P1" "$N1" 02:00:00:00:00:01 \
				02:00:00:00:00:02 cdc_ncm ;;
		esac
		case " $PERF_DEVS " in *" ecm "*)
			perf_gadget ecm 1209:0002 "$P2" "$N2" 02:00:00:00:01:01 \
				02:00:00:00:01:02 cdc_ether ;;
		esac
		r=$((r + 1))
	done
	case " $PERF_DEVS " in *" ncm "*) perf_summary ncm cdc_ncm ;; esac
	case " $PERF_DEVS " in *" ecm "*) perf_summary ecm cdc_ether ;; esac
	if [ "$PERF_APP" != 0 ]; then
		perf_app ncm 1209:0001 "$P1" "$N1" 02:00:00:00:00:02
		perf_app ecm 1209:0002 "$P2" "$N2" 02:00:00:00:01:02
	fi
	rm -f /tmp/perf.watch
	kill "$PERF_WATCH_PID" 2>/dev/null
	wait "$PERF_WATCH_PID" 2>/dev/null
	echo "[guest] perf done at uptime $(up) s"
}
