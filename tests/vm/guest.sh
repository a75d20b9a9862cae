# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# The guest half of tests/vm/run.sh, run by tests/vm/init (busybox sh) from
# the read-only host root. Builds three USB gadgets on dummy_hcd through
# configfs, gives their gadget-side netdevs addresses so that the guest
# kernel answers ARP and ICMP, lets the kernel's own host drivers
# (cdc_ncm, cdc_ether) bind to them, runs transport_test from the host
# root, and checks that those drivers are bound again afterwards. The
# ch39x-usb tool (usertools/) lists the gadgets with the protocol and the
# kernel driver it should report, and hands fake398 back to the kernel
# after transport_test left it as kernel_driver=keep does.
#
#   ncm      1209:0001  one configuration: NCM
#   ecm      1209:0002  one configuration: ECM
#   multi    1209:0003  configuration 1: ECM, configuration 2: NCM
#   fake398  1a86:5398  configuration 1: Loopback; configuration 3: a
#            SourceSink (vendor class: bulk IN with a known pattern, bulk
#            OUT that checks it and halts on a bad byte) then an ECM
#            function, whose interrupt IN is the first in the
#            configuration. It is no CH398: it does not answer vendor
#            requests. It has the CH398's IDs and vendor configuration
#            number, so that the backend's vendor path (configuration
#            switch to 3, endpoint choice, interfaces on two functions)
#            runs on a real USB stack.
#
# Results go to $OUT/results.txt (PASS/FAIL lines), which the host reads.
# Addresses are link-local (169.254.0.0/16): the links exist only inside
# this VM, which has no network device at all.

# param vmt_NAME: the value of vmt.NAME on the kernel command line (run.sh).
param() {
	tr ' ' '\n' < /proc/cmdline |
		sed -n "s/^$1=//p; s/^vmt\.${1#vmt_}=//p" | tail -n 1
}
up() {
	cut -d' ' -f1 /proc/uptime
}

OUT=$(param vmt_out)
BIN=$(param vmt_bin)
S=$(param vmt_script)
ROOT=${S%/tests/vm/guest.sh}	# the checkout, in the chroot
SPEED=$(param vmt_speed)
KDRV=$(param vmt_kdrv)
R=/out/results.txt
G=/sys/kernel/config/usb_gadget

result() {	# PASS|FAIL name detail
	echo "$1 $2: $3" >> "$R"
	echo "$1 $2: $3"
}

# usertools/ch39x-usb in the chroot; usb_status TAG: its --json status in
# /out/usb-$SPEED-TAG.json. usb_expect NAME TAG PATH KEY=VALUE...: one
# PASS/FAIL line from tests/vm/usbtool_check.py.
# kernel_log NAME EXTRA FAIL-TEXT PASS-TEXT: FAIL NAME when the kernel
# warned or oopsed, or logged a line matching the regex EXTRA ('' for none)
kernel_log() {
	BAD="${2:+$2|}BUG:|WARNING:|Oops|Call Trace|general protection"
	if dmesg | grep -qE "$BAD"; then
		dmesg | grep -E "$BAD" | head -n 5 |
			while read -r l; do echo "[guest] dmesg: $l"; done
		result FAIL "$1" "$3"
	else
		result PASS "$1" "$4"
	fi
}

# What the primitives a router uses cost here, for reading the ratios (all
# under TCG in the guest): a system call (getppid), a clock read
# (clock_gettime, a system call when the clocksource has no vDSO), a
# Python call as the unit, and a wake-up: perf bench's pipe round trip
# between two processes on one vCPU (two sleeps, two wake-ups, two
# context switches), the price an interrupt-driven userspace router pays
# per wake-up that a softirq does not
cost_probe() {
	p=$(chroot /host python3 -c '
import os, time
def f():
    return 0
def loop(g, n=100000):
    t = time.perf_counter()
    for _ in range(n): g()
    return (time.perf_counter() - t) / n
a = loop(f)
b = loop(os.getppid)
c = loop(time.monotonic)
print("a getppid() system call %.2f us, a clock read %.2f us, a Python call %.2f us" %
      ((b - a) * 1e6, (c - a) * 1e6, a * 1e6))' 2>&1)
	w=$(chroot /host taskset -c 1 perf bench sched pipe -l 5000 2>&1 |
		sed -n 's/^ *\([0-9.]*\) usecs\/op/\1/p')
	echo "$p, a pipe round trip on one vCPU ${w:-?} us"
}

# sys_profile DATA: 2 s of perf samples over every CPU (perf from the host
# tree) into /out/DATA, with the guest's kernel symbols once in
# /out/kallsyms.txt, for perf report --kallsyms on the host
sys_profile() {
	[ -f /out/kallsyms.txt ] || cat /proc/kallsyms > /out/kallsyms.txt
	chroot /host perf record -q -a -F 2999 -e cpu-clock -o /tmp/sys.perf \
		-- sleep 2 > /dev/null 2>&1
	cp /host/tmp/sys.perf "/out/$1" 2>/dev/null
	rm -f /host/tmp/sys.perf
}

usbtool() {
	chroot /host python3 "$ROOT/usertools/ch39x-usb" "$@"
}
usb_status() {
	usbtool --json status > "/out/usb-$SPEED-$1.json" 2>&1
}
usb_expect() {
	n=$1
	f=$OUT/usb-$SPEED-$2.json
	shift 2
	if o=$(chroot /host python3 "$ROOT/tests/vm/usbtool_check.py" "$f" "$@"); then
		result PASS "$n" "$o"
	else
		result FAIL "$n" "$o"
	fi
}
usb_get() {	# TAG PATH KEY
	chroot /host python3 "$ROOT/tests/vm/usbtool_check.py" \
		"$OUT/usb-$SPEED-$1.json" "$2" --get "$3"
}

T0=$(up)
SS=0
[ "$SPEED" = super ] && SS=1
for m in $(cat /modules/usb.list); do
	case $m in
	# 10 UDCs: 0..3 here, 4..7 for pmd.sh (the FunctionFS CH398 and
	# CH397, two identical ECM gadgets), 8 and 9 for composite.sh; the
	# FunctionFS RNDIS model and frndis reuse a free one (udc_free).
	dummy_hcd) insmod /modules/$m.ko num=10 is_super_speed=$SS ;;
	*) insmod /modules/$m.ko ;;
	esac || echo "[guest] insmod $m failed"
done
mount -t configfs none /sys/kernel/config
# No IPv6: no router solicitations or DAD traffic on the links.
echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6
echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6

# PPPOE=1: only the WAN over PPPoE against pppoe-server and pppd
# (tests/cpe/cpe_pppoe_real.sh, in the chroot), then done. Its private
# directory wants parents nobody else may write (EAL refuses a plugin
# under one): the chroot's /run (a tmpfs of init's) made 755, the test's
# directory a 700 one in it. (Not a tmpfs on /root: a checkout may live
# there.)
if [ "$(param vmt_pppoe)" = 1 ]; then
	for m in $(cat /modules/pppoe.list); do
		insmod /modules/$m.ko || echo "[guest] insmod $m failed"
	done
	chmod 755 /host/run
	mkdir -m 700 /host/run/ch39x-test
	# Debian's pppoe-server runs the session in user mode: pppd on a
	# pseudo-terminal.
	mkdir -p /host/dev/pts
	mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts /host/dev/pts
	[ -c /host/dev/ptmx ] || ln -sf pts/ptmx /host/dev/ptmx
	PMD=$(param vmt_pmd)
	echo "[guest] cpe_pppoe_real starts at uptime $(up) s"
	timeout 600 chroot /host env XDG_RUNTIME_DIR=/run/ch39x-test \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		bash "$ROOT/tests/cpe/cpe_pppoe_real.sh" \
		"${PMD%/drivers/net/ch39x/*}/app/ch39x-cpe/ch39x-cpe" "$PMD" \
		> /out/pppoe.log 2>&1
	rc=$?
	cat /out/pppoe.log
	sed -n 's/^ok: \(.*\)/PASS pppoe: \1/p; s/^FAIL: \(.*\)/FAIL pppoe: \1/p' \
		/out/pppoe.log >> "$R"
	if [ "$rc" -eq 0 ]; then
		result PASS pppoe-run "cpe_pppoe_real.sh exit 0"
	else
		result FAIL pppoe-run "cpe_pppoe_real.sh exit $rc"
	fi
	echo "[guest] done at uptime $(up) s"
	echo DONE >> /out/done
	exit 0
fi

# SPEED usbip: only the simulated adapter over USB/IP to the kernel's own
# host drivers (tests/vm/usbip.sh), then done.
if [ "$SPEED" = usbip ]; then
	. "/host${S%/*}/usbip.sh"
	usbip_run
	kernel_log kernel-log-usbip 'usbip.*(error|fail)' \
		"warnings, oopses or USB/IP errors in dmesg (above)" \
		"no warnings, oopses or USB/IP errors"
	echo "[guest] done at uptime $(up) s"
	echo DONE >> /out/done
	exit 0
fi

gadget() {	# name vid pid
	mkdir "$G/$1" || return 1
	echo "$2" > "$G/$1/idVendor"
	echo "$3" > "$G/$1/idProduct"
	echo 0x0100 > "$G/$1/bcdDevice"
	echo 0x0200 > "$G/$1/bcdUSB"
	mkdir "$G/$1/strings/0x409"
	echo ch39x-vm > "$G/$1/strings/0x409/manufacturer"
	echo "$1 test gadget" > "$G/$1/strings/0x409/product"
	echo "$1-0001" > "$G/$1/strings/0x409/serialnumber"
}
gfunc() {	# gadget func.inst dev_addr host_addr
	mkdir "$G/$1/functions/$2" || return 1
	echo "$3" > "$G/$1/functions/$2/dev_addr"
	echo "$4" > "$G/$1/functions/$2/host_addr"
}
# gfuncs GADGET XX FUNC...: the functions of a (composite) gadget; the
# network ones (ncm, ecm, rndis) get the addresses 02:00:00:00:XX:01
# (gadget) and :02 (host), the others (acm) none
gfuncs() {
	gf_g=$1
	gf_x=$2
	shift 2
	for gf_f in "$@"; do
		case $gf_f in
		ncm.*|ecm.*|rndis.*)
			gfunc "$gf_g" "$gf_f" "02:00:00:00:$gf_x:01" \
				"02:00:00:00:$gf_x:02" || return 1 ;;
		*)	mkdir "$G/$gf_g/functions/$gf_f" || return 1 ;;
		esac
	done
}
# gnet GADGET FUNC...: the gadget-side netdev of its network function
gnet() {
	gn_g=$1
	shift
	for gn_f in "$@"; do
		[ -f "$G/$gn_g/functions/$gn_f/ifname" ] &&
			cat "$G/$gn_g/functions/$gn_f/ifname" && return 0
	done
	return 1
}
# gtty GADGET FUNC...: the gadget side's tty of its serial (acm) function
gtty() {
	gt_g=$1
	shift
	for gt_f in "$@"; do
		case $gt_f in
		acm.*) echo "/dev/ttyGS$(cat "$G/$gt_g/functions/$gt_f/port_num")"
			return 0 ;;
		esac
	done
	return 1
}
# gadget_rm NAME: an earlier test's gadget taken off its UDC and removed
gadget_rm() {
	[ -d "$G/$1" ] || return 0
	echo "" > "$G/$1/UDC" 2>/dev/null
	for gr_c in "$G/$1"/configs/*; do
		[ -d "$gr_c" ] || continue
		find "$gr_c" -maxdepth 1 -type l -exec rm {} \;
		rmdir "$gr_c/strings/0x409" "$gr_c"
	done
	rmdir "$G/$1"/functions/* "$G/$1/strings/0x409" "$G/$1"
}
config() {	# gadget c.N func.inst... (the N is bConfigurationValue)
	c=$G/$1/configs/$2
	mkdir -p "$c/strings/0x409" || return 1
	echo "$3" > "$c/strings/0x409/configuration"
	echo 250 > "$c/MaxPower"
	shift 2
	for f in "$@"; do
		ln -s "${c%/configs/*}/functions/$f" "$c/"
	done
}
netdev() {	# gadget func.inst address/prefix
	n=$(cat "$G/$1/functions/$2/ifname")
	ip link set "$n" up
	ip addr add "$3" dev "$n"
	echo "$n"
}

gadget ncm 0x1209 0x0001
gfunc ncm ncm.0 02:00:00:00:00:01 02:00:00:00:00:02
config ncm c.1 ncm.0
gadget ecm 0x1209 0x0002
gfunc ecm ecm.0 02:00:00:00:01:01 02:00:00:00:01:02
config ecm c.1 ecm.0
gadget multi 0x1209 0x0003
gfunc multi ecm.0 02:00:00:00:02:01 02:00:00:00:02:02
gfunc multi ncm.0 02:00:00:00:03:01 02:00:00:00:03:02
config multi c.1 ecm.0
config multi c.2 ncm.0
gadget fake398 0x1a86 0x5398
mkdir "$G/fake398/functions/Loopback.0" "$G/fake398/functions/SourceSink.0"
echo 1 > "$G/fake398/functions/SourceSink.0/pattern"	# (i % maxp) % 63
echo 4096 > "$G/fake398/functions/SourceSink.0/bulk_buflen"
gfunc fake398 ecm.0 02:00:00:00:04:01 02:00:00:00:04:02
config fake398 c.1 Loopback.0
config fake398 c.3 SourceSink.0 ecm.0
i=0
for g in ncm ecm multi fake398; do
	echo dummy_udc.$i > "$G/$g/UDC" || echo "[guest] bind $g failed"
	i=$((i + 1))
done
# Gadget side up before the host selects alt 1: the functions report the
# connection state of their netdev then.
N1=$(netdev ncm ncm.0 169.254.77.1/24)
N2=$(netdev ecm ecm.0 169.254.78.1/24)
N3=$(netdev multi ecm.0 169.254.79.1/24)
N4=$(netdev multi ncm.0 169.254.80.1/24)

# Each gadget's path on the guest's buses, as sysfs names it.
devpath() {	# idVendor idProduct
	for d in /sys/bus/usb/devices/*; do
		[ -f "$d/idVendor" ] || continue
		[ "$(cat "$d/idVendor")" = "$1" ] &&
			[ "$(cat "$d/idProduct")" = "$2" ] &&
			basename "$d"
	done
}
# devpath_wait idVendor idProduct: its path once it enumerates (10 s at
# most)
devpath_wait() {
	dw_i=0
	while [ $dw_i -lt 100 ]; do
		devpath "$1" "$2" | grep . && return 0
		sleep 0.1
		dw_i=$((dw_i + 1))
	done
	return 1
}
i=0
while [ $i -lt 100 ]; do
	P1=$(devpath 1209 0001)
	P2=$(devpath 1209 0002)
	P3=$(devpath 1209 0003)
	P4=$(devpath 1a86 5398)
	[ -n "$P1" ] && [ -n "$P2" ] && [ -n "$P3" ] && [ -n "$P4" ] && break
	sleep 0.1
	i=$((i + 1))
done
T1=$(up)
if [ -z "$P1" ] || [ -z "$P2" ] || [ -z "$P3" ] || [ -z "$P4" ]; then
	result FAIL gadgets "not enumerated: ncm=$P1 ecm=$P2 multi=$P3 fake398=$P4"
	exit 1
fi
result PASS gadgets "ncm at $P1 ($N1), ecm at $P2 ($N2), multi at $P3 ($N3 cfg 1, $N4 cfg 2), fake398 at $P4 (cfg $(cat /sys/bus/usb/devices/$P4/bConfigurationValue)), $(cat /sys/bus/usb/devices/$P1/speed) Mb/s, enumerated $(echo "$T1 $T0" | awk '{printf "%.2f", $1 - $2}') s after the modules"

# Kernel host drivers on the gadgets, to be detached and given back.
drivers() {
	for d in /sys/bus/usb/devices/$P1:* /sys/bus/usb/devices/$P2:* \
		 /sys/bus/usb/devices/$P3:*; do
		[ -e "$d/bInterfaceNumber" ] || continue
		drv=none
		[ -e "$d/driver" ] && drv=$(basename "$(readlink "$d/driver")")
		printf '%s=%s ' "$(basename "$d")" "$drv"
	done
}
if [ "$KDRV" = 1 ]; then
	for m in $(cat /modules/hostdrv.list); do
		insmod /modules/$m.ko || echo "[guest] insmod $m failed"
	done
fi
BEFORE=$(drivers)
echo "[guest] interface drivers before: $BEFORE"
if [ "$KDRV" = 1 ]; then
	case "$BEFORE" in
	*"$P1:1.0=cdc_ncm"*"$P2:1.0=cdc_ether"*"$P3:1.0=cdc_ether"*)
		result PASS kdrv-bound "$BEFORE" ;;
	*)	result FAIL kdrv-bound "$BEFORE" ;;
	esac
fi
P4CFG0=$(cat /sys/bus/usb/devices/$P4/bConfigurationValue)

# CPE=1: only the router comparison (tests/vm/cpe.sh), then done.
if [ "$(param vmt_cpe)" = 1 ]; then
	. "/host${S%/*}/pmd.sh"
	. "/host${S%/*}/cpe.sh"
	cpe_run
	echo "[guest] done at uptime $(up) s"
	echo DONE >> /out/done
	exit 0
fi

# CPE_PPPOE=1: only the PPPoE WAN comparison (tests/vm/cpe_pppoe.sh, on
# cpe.sh's gadgets), then done.
if [ "$(param vmt_cpe_pppoe)" = 1 ]; then
	. "/host${S%/*}/pmd.sh"
	. "/host${S%/*}/cpe.sh"
	. "/host${S%/*}/cpe_pppoe.sh"
	cpe_pppoe_run
	echo "[guest] done at uptime $(up) s"
	echo DONE >> /out/done
	exit 0
fi

# QOS=1: only the shaper comparison (tests/vm/qos.sh, on cpe.sh's
# topology), then done.
if [ "$(param vmt_qos)" = 1 ]; then
	. "/host${S%/*}/pmd.sh"
	. "/host${S%/*}/cpe.sh"
	. "/host${S%/*}/qos.sh"
	qos_run
	echo "[guest] done at uptime $(up) s"
	echo DONE >> /out/done
	exit 0
fi

# What ch39x-usb says of each gadget: the protocol proto=auto picks and
# why, the configuration it needs, the kernel driver and its netdev.
KN=- KE=- NET=-
[ "$KDRV" = 1 ] && { KN=cdc_ncm; KE=cdc_ether; NET=+; }
usb_status initial
usb_expect usbtool-ncm initial "$P1" proto=ncm proto_config=1 \
	switch_needed=false kernel_drivers=$KN netdevs=$NET serial=ncm-0001 \
	vdev="net_ch39x0,dev=1209:0001,path=$P1" \
	vdev_serial="net_ch39x0,dev=1209:0001,serial=ncm-0001"
usb_expect usbtool-ecm initial "$P2" proto=ecm proto_config=1 \
	kernel_drivers=$KE netdevs=$NET vdev="net_ch39x0,dev=1209:0002,path=$P2"
usb_expect usbtool-multi initial "$P3" proto=ncm proto_config=2 \
	active_config=1 switch_needed=true kernel_drivers=$KE netdevs=$NET
usb_expect usbtool-fake398 initial "$P4" proto=vendor chip=CH398 \
	proto_config=3 active_config="$P4CFG0" held_by=-

echo "[guest] transport_test starts at uptime $(up) s"
# BURSTS (run.sh): the threaded burst N times per function (15 s at most each)
BURSTS=$(param vmt_bursts)
BURSTS=${BURSTS:-1}
timeout $((150 + 20 * (BURSTS - 1))) chroot /host "$BIN" --bursts "$BURSTS" --speed "$SPEED" --results "$OUT/results.txt" \
	--gadget "ncm,1209:0001,ncm-0001,$P1,ncm,169.254.77.1,169.254.77.2,02:00:00:00:00:02" \
	--gadget "ecm,1209:0002,ecm-0001,$P2,ecm,169.254.78.1,169.254.78.2,02:00:00:00:01:02" \
	--gadget "multi-ncm,1209:0003,multi-0001,$P3,ncm,169.254.80.1,169.254.80.2,02:00:00:00:03:02" \
	--gadget "multi-ecm,1209:0003,multi-0001,$P3,ecm,169.254.79.1,169.254.79.2,02:00:00:00:02:02" \
	--vendor "fake398,1a86:5398,fake398-0001,$P4"
rc=$?
echo "[guest] transport_test exit=$rc at uptime $(up) s"
[ $rc -eq 0 ] || [ $rc -eq 1 ] ||
	result FAIL transport_test "exit code $rc (crash or timeout)"

AFTER=$(drivers)
echo "[guest] interface drivers after: $AFTER"
if [ "$AFTER" = "$BEFORE" ]; then
	result PASS kdrv-reattach "every interface as before (kernel drivers loaded: $KDRV): $AFTER"
else
	result FAIL kdrv-reattach "before: $BEFORE after: $AFTER"
fi
# transport_test's last opening of fake398 was kernel_driver=keep: it
# stays in configuration 3, and the ECM communication interface the backend
# took from cdc_ether for the interrupt endpoint stays without a driver.
# ch39x-usb unbind then hands it back (the kernel's own choice of
# configuration, as at plug-in: the one it had, with its drivers).
vdrv() {
	V=""
	for d in /sys/bus/usb/devices/$P4:*; do
		[ -e "$d/bInterfaceNumber" ] || continue
		drv=none
		[ -e "$d/driver" ] && drv=$(basename "$(readlink "$d/driver")")
		V="$V$(basename "$d")=$drv "
	done
	echo "configuration $(cat /sys/bus/usb/devices/$P4/bConfigurationValue): $V"
}
V=$(vdrv)
case "$V" in
"configuration 3: "*"$P4:3.1=none"*) result PASS kdrv-keep-vendor "kernel_driver=keep left $V" ;;
*) result FAIL kdrv-keep-vendor "expected configuration 3 without a driver on $P4:3.1: $V" ;;
esac
o=$(usbtool unbind "$P4" 2>&1)
V=$(vdrv)
case "$V" in
"configuration $P4CFG0: "*) result PASS usbtool-unbind-keep "ch39x-usb unbind $P4: $V (as at plug-in) [$(echo "$o" | tr '\n' ' ')]" ;;
*) result FAIL usbtool-unbind-keep "ch39x-usb unbind $P4: $V, expected configuration $P4CFG0 [$(echo "$o" | tr '\n' ' ')]" ;;
esac
for n in $N1 $N2 $N3 $N4; do
	s=/sys/class/net/$n/statistics
	echo "[guest] $n rx_packets=$(cat $s/rx_packets) rx_errors=$(cat $s/rx_errors) tx_packets=$(cat $s/tx_packets) tx_errors=$(cat $s/tx_errors)"
done
kernel_log kernel-log 'Bad dgram|Wrong NDP|Wrong NTH' \
	"complaints in dmesg (above)" \
	"no f_ncm/f_ecm complaints, warnings or oopses"

# The PMD itself on these buses (tests/vm/pmd.sh): testpmd pinged by the
# guest's Linux over the FunctionFS CH39x gadgets and the CDC gadgets.
. "/host${S%/*}/pmd.sh"
pmd_run
# PERF=1: the throughput comparison (tests/vm/perf.sh).
if [ "$(param vmt_perf)" = 1 ]; then
	. "/host${S%/*}/perf.sh"
	perf_run
fi
kernel_log kernel-log-pmd '' \
	"warnings or oopses during the PMD tests (above)" \
	"no warnings or oopses during the PMD tests"
echo "[guest] done at uptime $(up) s"
echo DONE >> /out/done
