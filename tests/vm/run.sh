#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# The libusb transport (lib/ch39x/ch39x_libusb.c) and the PMD on a real
# Linux USB stack, with no USB hardware: Debian's 6.1 kernel in a QEMU
# guest (TCG, no network device) runs USB gadgets on dummy_hcd, from this
# machine's root shared read-only over 9p:
# - tests/vm/transport_test.c, built here, drives NCM and ECM gadgets
#   through the transport ops (tests/vm/guest.sh);
# - dpdk-testpmd with the PMD under test (PMD_SO) answers the guest's own
#   pings in icmpecho mode over the NCM and ECM gadgets and over
#   tests/vm/ch39x_gadget.c, a FunctionFS gadget serving the simulated
#   CH397/CH398 (tests/vm/pmd.sh);
# - usertools/ch39x-usb lists every gadget (protocol, driver, netdev,
#   holder, --vdev string), hands devices to the kernel and back, and the
#   kernel's cdc_ncm/cdc_ether netdev must pass traffic after each PMD
#   run; two identical gadgets are told apart by path and serial in a
#   testpmd run by an unprivileged user, with the device access of
#   usertools/70-ch39x-usb.rules applied by the host's systemd-udevd;
# - with PERF=1, frames/s of the PMD against cdc_ncm/cdc_ether with pktgen
#   as the source (tests/vm/perf.sh; not part of the default run).
# Prints PASS/FAIL lines and a closing "N passed, N failed"; exits non-zero
# on any failure.
#
#   bash tests/vm/run.sh                 both bus speeds (high, then super),
#                                        then the boot "usbip"
#   SPEEDS=high bash tests/vm/run.sh     one
#   SPEEDS=usbip bash tests/vm/run.sh    only the simulated adapter's
#                                        personalities over USB/IP to the
#                                        kernel's own drivers
#                                        (tests/vm/usbip.sh)
#   KDRV=0 ...                           without the kernel's cdc_ncm/cdc_ether
#   SANITIZE=1 ...                       test programs built with ASan+UBSan
#   PMD_SO=path/librte_net_ch39x.so ...  the PMD (default build/drivers/...)
#   PMD_TESTS="ch398 ch397 ncm ecm handover twins composite replug
#   cpereplug frndis rndisreplay"
#                                        (composite and the RNDIS tests:
#                                        high speed only, as the replugs)
#   PMD_TESTS=rndismodel ...             the simulated RNDIS function over
#                                        FunctionFS to rndis_host (not in
#                                        the default list: the boot usbip
#                                        checks the same model with the
#                                        same driver)
#   SPEEDS=high PMD_TESTS=modem ...      a modem as ch39x-cpe's WAN:
#                                        the AT responder, ch39x-dial,
#                                        DHCP, IPv4/IPv6, a dropped call
#                                        redialed (tests/vm/modem.sh;
#                                        high speed only; not in the
#                                        default list: 150-220 s)
#   REPLUG_CYCLES=20                    unplug/replug cycles of "replug"
#                                        (ch397: high speed only)
#   BURSTS=1                             transport_test's threaded burst
#                                        this many times per function (a
#                                        flake's hunt; its losses described)
#   PERF=1 [PERF_REPS=3 PERF_SECS=5 PERF_DEEP=0 PERF_DEEP_XFERS=64
#   PERF_DEEP_ARGS=devargs PERF_SIZES="60 512 1514"
#   PERF_DRIVERS="kernel ch39x af_packet af_xdp" PERF_APP=1
#   PERF_DEVS="ncm ecm" PERF_PROFILE=0 PERF_DIAG=0 PERF_STALL=90
#   PERF_ORDER=alternate] ...
#                                        throughput comparison (perf.sh;
#                                        PERF_DRIVERS may also name the
#                                        controls kernel_spin, ch39x_fwd0)
#   CPE=1 [CPE_REPS=3 CPE_SECS=5 CPE_RATES="0.5M 1M 2M" CPE_MODES=poll
#   CPE_ARGS=... CPE_STRACE=0 CPE_PROFILE=0 CPE_SAT=0|1|2
#   CPE_WAN="ncm|rndis [ncm|rndis]" CPE_UDP_RATES="2k 4k 6k"]
#   ...                                  ch39x-cpe against the Linux router on
#                                        two NCM gadgets, or an RNDIS WAN,
#                                        or both WANs in turn in each rep
#                                        (tests/vm/cpe.sh; CPE_SAT=2 adds
#                                        the TCP maximum WAN -> LAN; a
#                                        mode W+K=V adds devargs K=V to
#                                        the WAN port, e.g.
#                                        adaptive+tx_xfers=48;
#                                        CPE_UDP_RATES: 60-byte UDP at
#                                        fixed frames/s, loads udp60-R):
#                                        only that, at super speed unless
#                                        SPEEDS says otherwise
#   QOS=1 [CPE_QOS_REPS=3 CPE_QOS_SECS=12 CPE_QOS_RATE=20M
#   CPE_QOS_ROUTERS="fq fifo cake htb" CPE_QOS_LOADS="idle l1 l2"
#   CPE_QOS_FQ_ARGS="--qos-fq on" CPE_QOS_FIFO_ARGS="--qos-fq off"
#   CPE_QOS_DOWN_RATE=60M CPE_QOS_ARGS=] ...                   latency under load through a
#                                        shaped WAN: ch39x-cpe (flow
#                                        queueing, FIFO classes) against
#                                        Linux with cake and with HTB +
#                                        fq_codel on the same two NCM
#                                        gadgets (tests/vm/qos.sh): only
#                                        that, at super speed unless
#                                        SPEEDS says otherwise
#   PPPOE=1 ...                          the WAN over PPPoE against real
#                                        pppoe-server and pppd (the host's
#                                        kernel has no PPP):
#                                        tests/cpe/cpe_pppoe_real.sh in the
#                                        guest with its PPP modules, one
#                                        boot, no gadgets
#   CPE_PPPOE=1 [CPE_REPS=3 CPE_SECS=5] ...  a UDP flood through ch39x-cpe
#                                        with a plain and with a PPPoE WAN
#                                        and through Linux over pppd's
#                                        kernel PPPoE, pppoe-server as the
#                                        concentrator (tests/vm/
#                                        cpe_pppoe.sh): only that
#   MBIM_PERF=1 [CPE_REPS=3 CPE_SECS=5 CPE_MODES=poll MBIM_HOLDS="0 500"] ...
#                                        60-byte UDP frames/s through
#                                        ch39x-cpe (af_packet LAN, the
#                                        PMD's MBIM WAN) and through Linux
#                                        (cdc_mbim + nftables) over the
#                                        simulated modem on USB/IP
#                                        (tests/vm/mbim_perf.sh): only that
#   ACCEL=kvm|tcg|auto (default auto: KVM only with vmx/svm in the CPU flags;
#   a paravirtual /dev/kvm without them cannot run a stock kernel)
#   ARCH=arm64 [SPEEDS=high PMD_TESTS="ncm ecm"] ...
#                                        an aarch64 guest (qemu-system-aarch64
#                                        -M virt -cpu max, TCG) with Debian's
#                                        arm64 kernel and an arm64 Debian
#                                        root; test programs and the PMD
#                                        cross-built (tests/vm/arm64.sh);
#                                        PMD_SO: an arm64 build of the PMD
#                                        (default: build-arm64's, from
#                                        scripts/build.sh --arch arm64,
#                                        else one built by arm64.sh)
#
# Everything it makes lives in .cache/vm/ (.cache/vm-arm64/ for ARCH=arm64;
# git-ignored): the kernel .deb
# and its extracted tree, the uncompressed vmlinux, the initramfs, the test
# binaries, and one run.* directory per boot (console.log, results.txt,
# testpmd and gadget logs, perf.txt; the last few are kept). Modules are
# only ever loaded inside the guest.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VMDIR=$ROOT/tests/vm
ARCH=${ARCH:-amd64}
case $ARCH in
amd64) CACHE=$ROOT/.cache/vm ;;
arm64) CACHE=$ROOT/.cache/vm-arm64 ;;
*) echo "ARCH=$ARCH: amd64 or arm64"; exit 2 ;;
esac
CPE=${CPE:-0}		# 1: the router comparison (tests/vm/cpe.sh) only
SPEEDS_DEF="high super usbip"
QOS=${QOS:-0}		# 1: the shaper comparison (tests/vm/qos.sh) only
PPPOE=${PPPOE:-0}	# 1: tests/cpe/cpe_pppoe_real.sh only
# 1: ch39x-cpe with a plain and a PPPoE WAN against Linux over pppd's
# kernel PPPoE, a UDP flood (tests/vm/cpe_pppoe.sh) only
CPE_PPPOE=${CPE_PPPOE:-0}
[ "$CPE" = 1 ] || [ "$QOS" = 1 ] || [ "$CPE_PPPOE" = 1 ] && SPEEDS_DEF=super
# 1: Linux and ch39x-cpe forwarding through the simulated MBIM modem
# over USB/IP (tests/vm/mbim_perf.sh), the boot "usbip" only
MBIM_PERF=${MBIM_PERF:-0}
[ "$MBIM_PERF" = 1 ] && SPEEDS_DEF=usbip
# PPPoE uses no gadget: the bus speed does not matter, one boot.
[ "$PPPOE" = 1 ] && SPEEDS_DEF=high
SPEEDS=${SPEEDS:-$SPEEDS_DEF}
KDRV=${KDRV:-1}
ACCEL=${ACCEL:-auto}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-700}
KEEP_RUNS=${KEEP_RUNS:-6}
SANITIZE=${SANITIZE:-0}
PMD_SO_DEF=$ROOT/build/drivers/net/ch39x/librte_net_ch39x.so
# arm64: the cross build's (scripts/build.sh --arch arm64), else one that
# tests/vm/arm64.sh builds
PMD_ARM64_MIN=$CACHE/bin/librte_net_ch39x.so
if [ "$ARCH" = arm64 ]; then
	PMD_SO_DEF=$ROOT/build-arm64/drivers/net/ch39x/librte_net_ch39x.so
	[ -f "$PMD_SO_DEF" ] || PMD_SO_DEF=$PMD_ARM64_MIN
fi
PMD_SO=${PMD_SO:-$PMD_SO_DEF}
PMD_TESTS=${PMD_TESTS:-ch398 ch397 ncm ecm handover twins composite replug cpereplug frndis rndisreplay}
REPLUG_CYCLES=${REPLUG_CYCLES:-20}
MANY_N=${MANY_N:-2 8}	# PMD test "many": adapters per testpmd (tests/vm/many.sh)
MANY_SECS=${MANY_SECS:-5}
PERF=${PERF:-0}		# 1: the throughput comparison (tests/vm/perf.sh)
PERF_REPS=${PERF_REPS:-3}
PERF_SECS=${PERF_SECS:-5}
PERF_DEEP=${PERF_DEEP:-0}
PERF_DEEP_XFERS=${PERF_DEEP_XFERS:-64}
PERF_DEEP_ARGS=${PERF_DEEP_ARGS:-}	# devargs of the deep run instead
PERF_SIZES=${PERF_SIZES:-60 512 1514}
PERF_DRIVERS=${PERF_DRIVERS:-kernel ch39x af_packet af_xdp}
PERF_APP=${PERF_APP:-1}
PERF_DEVS=${PERF_DEVS:-ncm ecm}	# the gadgets PERF measures
PERF_PROFILE=${PERF_PROFILE:-0}	# 1: perf profiles of round 1 (perf.sh)
PERF_DIAG=${PERF_DIAG:-0}	# 1: usbmon and ftrace in round 1 (perf.sh)
PERF_STALL=${PERF_STALL:-90}	# s one perf step may last before the guest prints what it waits on
PERF_ORDER=${PERF_ORDER:-alternate}	# drivers' order per rep: alternate, rotate, fixed (perf.sh)
CPE_REPS=${CPE_REPS:-3}
CPE_SECS=${CPE_SECS:-5}
CPE_RATES=${CPE_RATES:-0.5M 1M 2M}
# each word W: ch39x-cpe with --idle W (poll: busy polling); W.N: and
# --idle-spin N
CPE_MODES=${CPE_MODES:-poll}
CPE_ARGS=${CPE_ARGS:-}		# more ch39x-cpe options, comma-separated
CPE_STRACE=${CPE_STRACE:-0}	# 1: ch39x-cpe's system calls while idle
CPE_PROFILE=${CPE_PROFILE:-0}	# 1: where each router's CPU goes (perf)
BURSTS=${BURSTS:-1}		# transport_test: threaded bursts per function
CPE_SAT=${CPE_SAT:-1}		# 0: fixed rates only (no TCP max, no UDP flood)
# pktgen's 60-byte UDP at each of these frames/s (N or Nk), loads udp60-R;
# none by default
CPE_UDP_RATES=${CPE_UDP_RATES:-}
case $CPE_UDP_RATES in *[!0-9k\ ]*) echo "CPE_UDP_RATES=$CPE_UDP_RATES: frames/s, N or Nk"; exit 2 ;; esac
# rndis: the WAN gadget is f_rndis (rndis_host for Linux, proto=rndis for
# ch39x-cpe) instead of f_ncm; two words: two WAN gadgets, each router
# on each in turn (one after the other in every rep)
CPE_WAN=${CPE_WAN:-ncm}
case $CPE_WAN in
ncm|rndis|"ncm rndis"|"rndis ncm") ;;
*) echo "CPE_WAN=$CPE_WAN: ncm, rndis, or both (\"ncm rndis\")"; exit 2 ;;
esac
# QOS=1: the ch39x-cpe options of router fq and fifo (unset: the
# defaults; set to "" for none) and of both (CPE_QOS_ARGS)
CPE_QOS_REPS=${CPE_QOS_REPS:-3}
CPE_QOS_SECS=${CPE_QOS_SECS:-12}
CPE_QOS_RATE=${CPE_QOS_RATE:-20M}
CPE_QOS_ROUTERS=${CPE_QOS_ROUTERS:-fq fifo cake htb}
CPE_QOS_LOADS=${CPE_QOS_LOADS:-idle l1 l2}
CPE_QOS_FQ_ARGS=${CPE_QOS_FQ_ARGS---qos-fq on}
CPE_QOS_FIFO_ARGS=${CPE_QOS_FIFO_ARGS---qos-fq off}
CPE_QOS_ARGS=${CPE_QOS_ARGS:-}
# router fq's downlink shaper (--down-rate; "" for none): a little below
# the 95-138 Mbit/s the guest's path carries to the LAN unshaped
CPE_QOS_DOWN_RATE=${CPE_QOS_DOWN_RATE-60M}
VM_MEM=1024
# A comparison round takes about 25 s per driver and frame size under TCG
# (two gadgets, two directions), plus a testpmd start per PMD.
perf_n() { echo $#; }
# shellcheck disable=SC2086
[ "$PERF" = 1 ] && BOOT_TIMEOUT=$((BOOT_TIMEOUT + PERF_REPS *
	($(perf_n $PERF_DRIVERS) + PERF_DEEP) * (40 + $(perf_n $PERF_SIZES) *
	4 * (PERF_SECS + 3)) + PERF_APP * 300 + (PERF_PROFILE + PERF_DIAG) *
	($(perf_n $PERF_DRIVERS) + PERF_DEEP) * $(perf_n $PERF_SIZES) * 4 * 40))
# The replug test: a cycle takes 1-5 s under TCG (10 s allowed), plus the
# router's replug (about a minute).
case " $PMD_TESTS " in
*" replug "*) BOOT_TIMEOUT=$((BOOT_TIMEOUT + REPLUG_CYCLES * 10 + 120)) ;;
esac
case " $PMD_TESTS " in
*" cpereplug "*) BOOT_TIMEOUT=$((BOOT_TIMEOUT + 120)) ;;
esac
# RNDIS (tests/vm/rndis.sh): about 45 s, 130 s and 45 s under TCG on a
# busy machine; twice that allowed. The modem (tests/vm/modem.sh): the
# router's start, the call, DHCP and prefix delegation, a dropped call
# redialed (150 to 220 s under TCG on a loaded machine; its deadlines add
# up to more).
for t in rndismodel:90 frndis:260 rndisreplay:90 modem:360; do
	case " $PMD_TESTS " in
	*" ${t%:*} "*) BOOT_TIMEOUT=$((BOOT_TIMEOUT + ${t#*:})) ;;
	esac
done
# A router round: its start and stop, then the idle window, the rates, the
# TCP maximum (CPE_SAT=2: both ways) and the UDP flood, each about
# CPE_SECS + 25 s under TCG; once per WAN.
# shellcheck disable=SC2086
[ "$CPE" = 1 ] && { BOOT_TIMEOUT=$((BOOT_TIMEOUT + CPE_REPS *
	$(perf_n $CPE_WAN) * (1 + $(perf_n $CPE_MODES)) * (90 +
	($(perf_n $CPE_RATES) + $(perf_n $CPE_UDP_RATES) + 3 +
	(CPE_SAT == 2)) * (CPE_SECS + 25))))
	VM_MEM=1536; }
# A shaper round: the router's start and stop (ch39x-cpe: up to 60 s under
# TCG), then each load's window, its 3 s warm-up and the iperf3 servers'
# start and end.
# shellcheck disable=SC2086
[ "$QOS" = 1 ] && { BOOT_TIMEOUT=$((BOOT_TIMEOUT + CPE_QOS_REPS *
	$(perf_n $CPE_QOS_ROUTERS) * (120 + $(perf_n $CPE_QOS_LOADS) *
	(CPE_QOS_SECS + 30)))); VM_MEM=1536; }
# QOS=1's settings go to the guest in the run's directory (qos.conf), not
# on the kernel command line, whose variables the kernel caps at 32. The
# guest's parameters are named vmt.NAME: a name with a dot is a module's
# parameter to the kernel, which it neither passes to init nor counts
# against that cap (an unknown NAME=value becomes one of init's 32
# environment variables: past that the kernel panics, "Too many boot env
# vars"); param vmt_NAME reads vmt.NAME.
QOS_APPEND=
[ "$QOS" = 1 ] && QOS_APPEND=" vmt.qos=1"
# PPPOE=1: dialling, the transfers, the concentrator's restart (~3 min
# under TCG on a busy machine).
[ "$PPPOE" = 1 ] && { QOS_APPEND="$QOS_APPEND vmt.pppoe=1"
	BOOT_TIMEOUT=$((BOOT_TIMEOUT + 300)); }
# MBIM_PERF=1: the boot "usbip" with the MBIM modem only, Linux and
# ch39x-cpe forwarding through it CPE_REPS times (tests/vm/mbim_perf.sh).
# MBIM_HOLDS="0 500": ch39x-cpe once per tx_hold_us value (router
# ch39x-cpe-MODE-hN), beside the PMD's default.
MBIM_HOLDS=${MBIM_HOLDS:-}
[ "$MBIM_PERF" = 1 ] && { QOS_APPEND="$QOS_APPEND vmt.mbim_perf=1${MBIM_HOLDS:+ vmt.mbim_holds=${MBIM_HOLDS// /,}}"
	BOOT_TIMEOUT=$((BOOT_TIMEOUT + CPE_REPS * (1 + $(perf_n $CPE_MODES) *
		$(perf_n "${MBIM_HOLDS:-x}")) * (90 + CPE_SECS)))
	VM_MEM=1536; }
# CPE_PPPOE=1: three routers dialling and flooded CPE_REPS times.
[ "$CPE_PPPOE" = 1 ] && { QOS_APPEND="$QOS_APPEND vmt.cpe_pppoe=1"
	BOOT_TIMEOUT=$((BOOT_TIMEOUT + CPE_REPS * 3 * (120 + CPE_SECS)))
	VM_MEM=1536; }
for v in "$CPE_QOS_REPS" "$CPE_QOS_SECS" "$CPE_QOS_RATE" "$CPE_QOS_ROUTERS" \
	 "$CPE_QOS_LOADS" "$CPE_QOS_FQ_ARGS" "$CPE_QOS_FIFO_ARGS" \
	 "$CPE_QOS_ARGS" "$CPE_QOS_DOWN_RATE"; do
	case $v in *"'"*|*\\*) echo "CPE_QOS_*: no quotes or backslashes ($v)"; exit 2 ;; esac
done

# The pseudo-speed "usbip" (a boot of its own): the simulated adapter's
# personalities served over USB/IP by app/ch39x-usbip to vhci-hcd, taken
# by the kernel's cdc_ncm/cdc_ether (tests/vm/usbip.sh); amd64 only.
[ "$ARCH" = arm64 ] && SPEEDS_DEF="high super"
BOOT_MODULES="virtio_pci 9pnet_virtio 9p"
USB_MODULES="dummy_hcd libcomposite usb_f_ncm usb_f_ecm usb_f_ss_lb usb_f_fs usb_f_acm tun usb_f_rndis veth"
# cdc-acm: the serial ports of the composite gadgets (tests/vm/composite.sh)
HOSTDRV_MODULES="cdc_ether cdc_ncm rndis_host cdc-acm"
USBIP_MODULES="vhci-hcd"
# The boot "usbip": Linux's MBIM host driver and cdc-wdm (its control
# channel), against the simulated modem (after hostdrv: cdc_ncm, usbnet);
# veth, MBIM_PERF=1's LAN.
MBIM_MODULES="cdc_mbim veth"
# The modem's operator side: a host behind it on a veth (tests/vm/modem.sh)
MODEM_MODULES="veth"
PERF_MODULES="pktgen usbmon"
# The Linux router of CPE=1: forwarding with nftables masquerade.
CPE_MODULES="nf_tables nft_chain_nat nft_masq"
# The Linux routers of QOS=1: cake, and HTB with fq_codel as its leaf
# (each only when this kernel has it: the guest says which are missing).
QOS_MODULES="sch_cake sch_fq_codel sch_htb"
# PPPOE=1: pppd's and pppoe-server's kernel side (the server runs its
# sessions in user mode: pppd on a pseudo-terminal, the async discipline).
PPPOE_MODULES="ppp_generic pppoe ppp_async"

usec() { echo "${EPOCHREALTIME/./}"; }
T_START=$(usec)
TIMINGS=()
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1e6 }'; }
log() { echo "[vm $(secs "$T_START" "$(usec)")s] $*"; }
phase_start() { PHASE_T=$(usec); }
phase_end() { TIMINGS+=("$1=$(secs "$PHASE_T" "$(usec)")s"); }
die() {
	echo "FAIL vm-setup: $*"
	echo "vm: 0 passed, 1 failed"
	exit 1
}

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

# ---- packages ----
phase_start
need=()
command -v depmod >/dev/null && command -v modprobe >/dev/null ||
	need+=(kmod)
command -v xz >/dev/null || need+=(xz-utils)
command -v cpio >/dev/null || need+=(cpio)
command -v pkg-config >/dev/null || need+=(pkg-config)
if [ "$ARCH" = arm64 ]; then
	# shellcheck source=tests/vm/arm64.sh
	. "$VMDIR/arm64.sh"
	command -v qemu-system-aarch64 >/dev/null || need+=(qemu-system-arm)
	command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
	command -v aarch64-linux-gnu-gcc >/dev/null ||
		need+=(gcc-aarch64-linux-gnu)
	command -v debootstrap >/dev/null || need+=(debootstrap)
else
	command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
	dpkg-query -W -f='${Status}' busybox-static 2>/dev/null |
		grep -q 'ok installed' || need+=(busybox-static)
	command -v gcc >/dev/null || need+=(gcc)
	# rndis.sh: offloads off on a veth that af_packet reads
	command -v ethtool >/dev/null || need+=(ethtool)
	pkg-config --exists libusb-1.0 2>/dev/null || need+=(libusb-1.0-0-dev)
	pkg-config --exists libpcap 2>/dev/null || need+=(libpcap-dev)
	# The PMD tests ping with iputils (busybox ping has no -M do).
	[ -x /usr/bin/ping ] || [ -x /bin/ping ] || need+=(iputils-ping)
	# The boot "usbip": Debian's usbip tool attaches the model, iperf3
	# runs through the kernel's netdev.
	[ -x /usr/sbin/usbip ] || need+=(usbip)
	command -v iperf3 >/dev/null || need+=(iperf3)
	# Its MBIM modem answers Linux's own client first (usbip.sh: the
	# guest runs this host's mbimcli through cdc-wdm).
	[ -x /usr/bin/mbimcli ] || need+=(libmbim-utils)
fi
if [ ${#need[@]} -gt 0 ]; then
	log "installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" \
		>/dev/null 2>&1 ||
		{ $SUDO apt-get update -qq &&
		  $SUDO apt-get install -y -qq --no-install-recommends \
			"${need[@]}" >/dev/null; } ||
		die "apt-get install ${need[*]} failed"
fi
phase_end packages

# ---- the kernel: Debian's 6.1 image, as a .deb from the archive ----
phase_start
mkdir -p "$CACHE/deb" "$CACHE/bin"
# arm64: apt on Debian's arm64 indices in a private state (arm64.sh)
# shellcheck disable=SC2206
APT_UPDATE=($SUDO apt-get update)
APT_GET=(apt-get)
APT_CACHE=(apt-cache)
[ "$ARCH" = arm64 ] && { APT_UPDATE=(arm64_apt apt-get update)
	APT_GET=(arm64_apt apt-get); APT_CACHE=(arm64_apt apt-cache); }
kpkg() {
	"${APT_CACHE[@]}" depends "linux-image-$ARCH" 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-6\.1\./ { print $2; exit }'
}
KPKG=$(kpkg)
if [ -z "$KPKG" ]; then
	"${APT_UPDATE[@]}" -qq >/dev/null 2>&1 || true
	KPKG=$(kpkg)
fi
if [ -z "$KPKG" ]; then
	# Offline or another release: whatever 6.1 image was fetched before.
	KDEB=$(ls -t "$CACHE"/deb/linux-image-6.1.*-"$ARCH"_*.deb 2>/dev/null |
		head -n 1 || true)
	[ -n "$KDEB" ] || die "no linux-image-6.1 package known to apt"
	KPKG=$(basename "$KDEB" | cut -d_ -f1)
else
	KDEB=$(ls "$CACHE/deb/${KPKG}"_*.deb 2>/dev/null | head -n 1 || true)
	if [ -z "$KDEB" ]; then
		log "fetching $KPKG"
		(cd "$CACHE/deb" &&
		 "${APT_GET[@]}" download -o APT::Sandbox::User=root "$KPKG" \
			>/dev/null 2>&1) || die "apt-get download $KPKG failed"
		KDEB=$(ls "$CACHE/deb/${KPKG}"_*.deb | head -n 1)
	fi
fi
KVER=${KPKG#linux-image-}
KTREE=$CACHE/kernel/$KVER
if [ ! -f "$KTREE/.extracted" ]; then
	log "extracting $(basename "$KDEB")"
	rm -rf "$KTREE"
	mkdir -p "$KTREE"
	dpkg-deb -x "$KDEB" "$KTREE"
	touch "$KTREE/.extracted"
fi
VMLINUX=$KTREE/vmlinux
# arm64: Debian's vmlinuz is an uncompressed Image, which QEMU boots.
[ "$ARCH" = arm64 ] && VMLINUX=$KTREE/boot/vmlinuz-$KVER
if [ ! -s "$VMLINUX" ]; then
	# Under TCG the xz decompressor of the bzImage costs seconds; the
	# ELF inside has a PVH entry that QEMU boots directly.
	VMLINUZ=$KTREE/boot/vmlinuz-$KVER
	off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$VMLINUZ" | head -n 1 |
		cut -d: -f1)
	[ -n "$off" ] || die "no xz payload in $VMLINUZ"
	tail -c +$((off + 1)) "$VMLINUZ" | xz -dc --single-stream \
		> "$VMLINUX.tmp" 2>/dev/null || true
	[ "$(head -c 4 "$VMLINUX.tmp" | od -An -c | tr -d ' ')" = '177ELF' ] ||
		die "could not extract vmlinux from $VMLINUZ"
	mv "$VMLINUX.tmp" "$VMLINUX"
fi
MODDIR=$KTREE/lib/modules/$KVER
# The .deb ships no modules.dep; made in the extracted tree only.
[ -s "$MODDIR/modules.dep" ] || depmod -b "$KTREE" "$KVER" ||
	die "depmod on the extracted tree failed"
phase_end kernel

# ---- arm64: the guest's root (tests/vm/arm64.sh) ----
BUSYBOX=/bin/busybox
BUSYBOX_VER=$(dpkg-query -W -f='${Version}' busybox-static 2>/dev/null || true)
if [ "$ARCH" = arm64 ]; then
	phase_start
	arm64_root
	BUSYBOX=$AROOT/bin/busybox
	BUSYBOX_VER=$(cat "$AROOT/.stamp")
	# The checkout's mount point in the guest's chroot (tests/vm/init).
	mkdir -p "$AROOT$ROOT"
	phase_end root
fi

# ---- the initramfs: static busybox, /init, the modules ----
phase_start
INITRD=$CACHE/initramfs-$KVER.cpio.gz
STAMP=$( (echo "$KVER $BOOT_MODULES|$USB_MODULES|$HOSTDRV_MODULES|$PERF_MODULES|$CPE_MODULES|$QOS_MODULES|$PPPOE_MODULES|$USBIP_MODULES|$MBIM_MODULES|$MODEM_MODULES"
	  cat "$VMDIR/init"
	  echo "$BUSYBOX_VER") | sha256sum |
	cut -c1-16)
if [ "$(cat "$INITRD.stamp" 2>/dev/null)" != "$STAMP" ]; then
	log "building the initramfs"
	IR=$(mktemp -d "$CACHE/initramfs.XXXXXX")
	mkdir -p "$IR"/{bin,dev,proc,sys,host,out,tmp,modules}
	cp "$BUSYBOX" "$IR/bin/busybox"
	ln -s busybox "$IR/bin/sh"
	cp "$VMDIR/init" "$IR/init"
	chmod 755 "$IR/init"
	if [ "$(id -u)" = 0 ]; then
		mknod -m 600 "$IR/dev/console" c 5 1
		mknod -m 666 "$IR/dev/null" c 1 3
	fi
	# Load order from the dependency graph, without loading anything.
	add_modules() {	# list top-level...
		local list=$1 top p n
		shift
		for top in "$@"; do
			modprobe -d "$KTREE" -S "$KVER" --show-depends "$top" \
				> "$IR/deps" || die "module $top not found"
			while read -r kind p _; do
				[ "$kind" = insmod ] || continue
				n=$(basename "$p")
				n=${n%%.ko*}
				[ -f "$IR/modules/$n.ko" ] && continue
				case $p in
				*.xz) xz -dc "$p" > "$IR/modules/$n.ko" ;;
				*.zst) zstd -qdc "$p" > "$IR/modules/$n.ko" ;;
				*) cp "$p" "$IR/modules/$n.ko" ;;
				esac
				echo "$n" >> "$IR/modules/$list"
			done < "$IR/deps"
		done
		touch "$IR/modules/$list"
		rm -f "$IR/deps"
	}
	# shellcheck disable=SC2086
	add_modules boot.list $BOOT_MODULES
	# shellcheck disable=SC2086
	add_modules usb.list $USB_MODULES
	# shellcheck disable=SC2086
	add_modules hostdrv.list $HOSTDRV_MODULES
	# shellcheck disable=SC2086
	add_modules perf.list $PERF_MODULES
	# shellcheck disable=SC2086
	add_modules cpe.list $CPE_MODULES
	# shellcheck disable=SC2086
	add_modules pppoe.list $PPPOE_MODULES
	# shellcheck disable=SC2086
	add_modules usbip.list $USBIP_MODULES
	# shellcheck disable=SC2086
	add_modules mbim.list $MBIM_MODULES
	add_modules modem.list $MODEM_MODULES
	for m in $QOS_MODULES; do
		modprobe -d "$KTREE" -S "$KVER" --show-depends "$m" \
			>/dev/null 2>&1 && add_modules qos.list "$m"
	done
	touch "$IR/modules/qos.list"
	(cd "$IR" && find . -print0 | cpio --null -o -H newc --quiet |
		gzip -1) > "$INITRD.tmp"
	mv "$INITRD.tmp" "$INITRD"
	echo "$STAMP" > "$INITRD.stamp"
	log "modules: $(tr '\n' ' ' < "$IR/modules/boot.list")|" \
	    "$(tr '\n' ' ' < "$IR/modules/usb.list")|" \
	    "$(tr '\n' ' ' < "$IR/modules/hostdrv.list")"
	rm -rf "$IR"
fi
phase_end initramfs

# ---- the test program, against this tree's library sources ----
phase_start
BIN=$CACHE/bin/transport_test
SRCS=("$VMDIR/transport_test.c" "$ROOT"/lib/ch39x/ch39x_libusb.c
      "$ROOT"/lib/ch39x/ch39x_libusb_select.c
      "$ROOT"/lib/ch39x/ch39x_libusb_open.c
      "$ROOT"/lib/ch39x/ch39x_libusb_return.c
      "$ROOT"/lib/ch39x/ch39x_libusb_bus.c "$ROOT"/lib/ch39x/ch39x_uevent.c
      "$ROOT"/lib/ch39x/ch39x_cdc.c "$ROOT"/lib/ch39x/ch39x_usbdesc.c
      "$ROOT"/lib/ch39x/ch39x_ncm.c "$ROOT"/lib/ch39x/ch39x_rndis.c
      "$ROOT"/lib/ch39x/ch39x_ecm.c "$ROOT"/lib/ch39x/ch39x_vendor.c
      "$ROOT"/lib/ch39x/ch39x_net.c)
CFLAGS=(-O2)
[ "$SANITIZE" = 1 ] &&
	CFLAGS=(-O1 -fsanitize=address,undefined -fno-omit-frame-pointer
		-fno-sanitize-recover=undefined)
CC=(gcc)
if [ "$ARCH" = arm64 ]; then
	[ "$SANITIZE" = 1 ] && die "SANITIZE=1: amd64 only (the arm64 root has no sanitizer runtimes)"
	arm64_cc
fi
# shellcheck disable=SC2046
"${CC[@]}" -std=gnu11 -Wall -Wextra -Werror "${CFLAGS[@]}" -g -D_GNU_SOURCE \
	-I"$ROOT/lib/ch39x" $(pkg-config --cflags libusb-1.0) \
	-o "$BIN.tmp" "${SRCS[@]}" $(pkg-config --libs libusb-1.0) -lpthread ||
	die "building transport_test failed"
mv "$BIN.tmp" "$BIN"
# The FunctionFS gadget program: the library's simulated CH397/CH398
# served over real USB (the model's library lib/ch39x_sim and the whole
# product library: the model uses the CDC codecs for its NCM/ECM
# personalities).
GBIN=$CACHE/bin/ch39x_gadget
# shellcheck disable=SC2046
"${CC[@]}" -std=gnu11 -Wall -Wextra -Werror "${CFLAGS[@]}" -g -D_GNU_SOURCE \
	-I"$ROOT/lib/ch39x" -I"$ROOT/lib/ch39x_sim" \
	$(pkg-config --cflags libusb-1.0 libpcap) \
	-o "$GBIN.tmp" "$VMDIR/ch39x_gadget.c" "$ROOT"/lib/ch39x/*.c \
	"$ROOT"/lib/ch39x_sim/*.c \
	$(pkg-config --libs libusb-1.0 libpcap) -lpthread ||
	die "building ch39x_gadget failed"
mv "$GBIN.tmp" "$GBIN"
if [ "$ARCH" = arm64 ]; then
	if [ "$PMD_SO" = "$PMD_ARM64_MIN" ]; then
		log "building the arm64 PMD (tests/vm/arm64.sh)"
		arm64_pmd "$PMD_SO"
	elif [ -f "$PMD_SO" ]; then
		# The guest sees the arm64 root and the checkout only.
		cp "$PMD_SO" "$CACHE/bin/librte_net_ch39x.given.so"
		PMD_SO=$CACHE/bin/librte_net_ch39x.given.so
	fi
	# ELF e_machine 183: AArch64
	[ ! -f "$PMD_SO" ] || [ "$(od -An -tu2 -j18 -N2 "$PMD_SO" | tr -d ' ')" = 183 ] ||
		die "$PMD_SO is not an arm64 (AArch64) shared object"
fi
if [ -f "$PMD_SO" ]; then
	log "PMD under test: $PMD_SO"
else
	log "no PMD at $PMD_SO: the PMD tests will fail (build it, or set PMD_SO)"
fi
phase_end build

# ---- boots ----
if [ "$ACCEL" = auto ]; then
	ACCEL=tcg
	[ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo && ACCEL=kvm
fi
if [ "$ACCEL" = kvm ]; then
	ACCEL_ARGS=(-enable-kvm -cpu host)
else
	ACCEL_ARGS=(-accel tcg,thread=multi -cpu max)
fi
QEMU=(qemu-system-x86_64 "${ACCEL_ARGS[@]}" -machine pc)
CONSOLE=ttyS0
GUEST_ROOT=/
TREE_ARGS=()
if [ "$ARCH" = arm64 ]; then
	# TCG only (this machine is no arm64 host). pauth-impdef: -cpu max's
	# pointer authentication with QEMU's cheap implementation-defined
	# algorithm instead of QARMA, which costs every function return.
	ACCEL=tcg
	QEMU=(qemu-system-aarch64 -accel tcg,thread=multi
	      -cpu max,pauth-impdef=on -machine virt)
	CONSOLE=ttyAMA0
	GUEST_ROOT=$AROOT
	TREE_ARGS=(-virtfs "local,path=$ROOT,mount_tag=tree,security_model=none,readonly=on,multidevs=remap")
fi

n_pass=0
n_fail=0
for speed in $SPEEDS; do
	phase_start
	RUN=$(mktemp -d "$CACHE/run.XXXXXX")
	chmod 755 "$RUN"
	[ "$QOS" = 1 ] && printf "%s='%s'\n" QOS_REPS "$CPE_QOS_REPS" \
		QOS_SECS "$CPE_QOS_SECS" QOS_RATE "$CPE_QOS_RATE" \
		QOS_ROUTERS "$CPE_QOS_ROUTERS" QOS_LOADS "$CPE_QOS_LOADS" \
		QOS_FQ_ARGS "$CPE_QOS_FQ_ARGS" \
		QOS_FIFO_ARGS "$CPE_QOS_FIFO_ARGS" \
		QOS_ARGS "$CPE_QOS_ARGS" \
		QOS_DOWN_RATE "$CPE_QOS_DOWN_RATE" > "$RUN/qos.conf"
	# PERF=1's settings beyond the command line's (qos.conf's reason).
	[ "$PERF" = 1 ] && printf "%s='%s'\n" PERF_DIAG "$PERF_DIAG" \
		PERF_STALL "$PERF_STALL" PERF_ORDER "$PERF_ORDER" > "$RUN/perf.conf"
	# The CH397 is a USB 2.0 part: it runs at high speed on either bus.
	# The replugs (the PMD's, the router's) and the composite devices do
	# not depend on the bus's speed: once, at high speed, for CI's time;
	# so do the RNDIS tests (a USB 2.0 function in every phone and
	# dongle: f_rndis, the model under rndis_host, the replay of
	# malformed RNDIS transfers).
	pmd_tests=$PMD_TESTS
	[ "$speed" = super ] && pmd_tests=$(echo " $PMD_TESTS " |
		sed 's/ ch397 / /g; s/ replug / /g; s/ cpereplug / /g;
		     s/ composite / /g; s/ rndismodel / /g; s/ frndis / /g;
		     s/ rndisreplay / /g; s/ modem / /g')
	pmd_tests=$(echo $pmd_tests | tr ' ' ,)
	log "boot ($speed speed, $ACCEL): $RUN"
	t0=$(usec)
	# CPE=1: this machine's load, which the guest records with each
	# measurement (TCG shares the host's cores with whatever else runs).
	LOADER=
	if [ "$CPE" = 1 ] || [ "$QOS" = 1 ]; then
		( while :; do cat /proc/loadavg > "$RUN/hostload.tmp" &&
			mv "$RUN/hostload.tmp" "$RUN/hostload"; sleep 2; done ) &
		LOADER=$!
	fi
	# The boot "usbip" also checks the MBIM modem against cdc_mbim and
	# mbimcli, then through the PMD (about 3 minutes under TCG): room for
	# a loaded machine.
	boot_timeout=$BOOT_TIMEOUT
	[ "$speed" = usbip ] && boot_timeout=$((BOOT_TIMEOUT + 180))
	set +e
	timeout --foreground -k 5 "$boot_timeout" "${QEMU[@]}" \
		-smp 2 -m $VM_MEM \
		-nodefaults -no-user-config -display none -no-reboot \
		-serial stdio -monitor none -nic none \
		-kernel "$VMLINUX" -initrd "$INITRD" \
		-append "console=$CONSOLE panic=-1 quiet loglevel=4 vmt.script=$VMDIR/guest.sh ${TREE_ARGS:+vmt.tree=$ROOT }vmt.out=$RUN vmt.bin=$BIN vmt.speed=$speed vmt.kdrv=$KDRV vmt.gadget=$GBIN vmt.pmd=$PMD_SO vmt.pmd_tests=$pmd_tests vmt.replug_cycles=$REPLUG_CYCLES vmt.bursts=$BURSTS vmt.many_n=${MANY_N// /,} vmt.many_secs=$MANY_SECS vmt.perf=$PERF vmt.perf_reps=$PERF_REPS vmt.perf_secs=$PERF_SECS vmt.perf_deep=$PERF_DEEP vmt.perf_deep_xfers=$PERF_DEEP_XFERS ${PERF_DEEP_ARGS:+vmt.perf_deep_args=$PERF_DEEP_ARGS }vmt.perf_sizes=${PERF_SIZES// /,} vmt.perf_drivers=${PERF_DRIVERS// /,} vmt.perf_app=$PERF_APP vmt.perf_devs=${PERF_DEVS// /,} vmt.perf_profile=$PERF_PROFILE vmt.cpe=$CPE vmt.cpe_reps=$CPE_REPS vmt.cpe_secs=$CPE_SECS vmt.cpe_rates=${CPE_RATES// /,} vmt.cpe_modes=${CPE_MODES// /,} vmt.cpe_strace=$CPE_STRACE vmt.cpe_profile=$CPE_PROFILE vmt.cpe_sat=$CPE_SAT vmt.cpe_wan=${CPE_WAN// /,}${CPE_ARGS:+ vmt.cpe_args=$CPE_ARGS}${CPE_UDP_RATES:+ vmt.cpe_udp_rates=${CPE_UDP_RATES// /,}}$QOS_APPEND" \
		-virtfs "local,path=$GUEST_ROOT,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
		"${TREE_ARGS[@]}" \
		-virtfs "local,path=$RUN,mount_tag=out,security_model=none,multidevs=remap" \
		</dev/null 2>&1 |
	while IFS= read -r line; do
		line=${line%$'\r'}
		printf '%7s %s\n' "$(secs "$t0" "$(usec)")" "$line" \
			>> "$RUN/console.log"
		case $line in
		PASS*|FAIL*) echo "${line%% \[t=*}" | sed "s/^\(PASS\|FAIL\) /\1 [$speed] /" ;;
		"[init] ready"*|"[guest] transport_test"*|"[guest] pmd"*|"[usbip]"*|"[guest] perf"*|"[perf]"*|"[cpe]"*|"[qos]"*|"[guest] done"*|*"Kernel panic"*)
			log "$line" ;;
		esac
	done
	qrc=${PIPESTATUS[0]}
	set -e
	[ -n "$LOADER" ] && { kill "$LOADER"; wait "$LOADER" 2>/dev/null || true; }
	phase_end "boot-$speed"
	p=$(grep -c '^PASS' "$RUN/results.txt" 2>/dev/null || true)
	f=$(grep -c '^FAIL' "$RUN/results.txt" 2>/dev/null || true)
	n_pass=$((n_pass + ${p:-0}))
	n_fail=$((n_fail + ${f:-0}))
	if [ ! -f "$RUN/done" ]; then
		echo "FAIL [$speed] vm: the guest did not finish (qemu exit $qrc); see $RUN/console.log"
		tail -n 15 "$RUN/console.log"
		n_fail=$((n_fail + 1))
	elif [ "${p:-0}" -eq 0 ]; then
		echo "FAIL [$speed] vm: no results"
		n_fail=$((n_fail + 1))
	fi
	log "$speed: ${p:-0} passed, ${f:-0} failed; console: $RUN/console.log"
done

# Keep the last few runs for inspection.
ls -dt "$CACHE"/run.* 2>/dev/null | tail -n +$((KEEP_RUNS + 1)) |
	xargs -r rm -rf

TIMINGS+=("total=$(secs "$T_START" "$(usec)")s")
log "timings: ${TIMINGS[*]}"
echo "vm: $n_pass passed, $n_fail failed"
[ "$n_fail" -eq 0 ]
