#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build the libFuzzer harnesses of tests/fuzz with clang (ASan + UBSan) and
# run each for a while on a scratch copy of its seed corpus; the committed
# corpus is never changed.
#
# Usage: scripts/fuzz.sh [seconds-per-harness]   (default 10)
# Environment: FUZZ_BUILDDIR (default ./build-fuzz), FUZZ_HARNESSES (a
# space-separated subset, e.g. "vendor_rx tso"), FUZZ_RUNS (stop each
# harness after that many executions, or at the time limit if sooner). The devargs harness builds
# the PMD's ch39x_devargs.c against the installed libdpdk (pkg-config).
#
# Prints the executions of each harness and exits non-zero when one
# crashed, leaked, timed out or broke an invariant; the input that did it
# is left in $FUZZ_BUILDDIR/artifacts/.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-10}
out=${FUZZ_BUILDDIR:-$top/build-fuzz}
fuzz=$top/tests/fuzz
lib=$top/lib/ch39x
sim=$top/lib/ch39x_sim
drv=$top/drivers/net/ch39x
all="vendor_rx event net tso sim_out sim_cdc sim_rndis ncm_rx ncm_params cdc ecm rndis devargs cpe_ip uevent cpe_prefix6 usbip mbim nd mbim_ctl sim_mbim"
read -r -a harnesses <<< "${FUZZ_HARNESSES:-$all}"

case $secs in
''|*[!0-9]*) echo "usage: $0 [seconds-per-harness]" >&2; exit 2 ;;
esac

# Largest input per harness: room for jumbo records split over transfers,
# TSO super-frames, whole bulk OUT aggregates and NTBs, configuration
# descriptors, pcap paths of 255 characters in devargs, and the router's
# command parameters (up to 95 characters) with room past that bound.
max_len() {
	case $1 in
	vendor_rx) echo 20000 ;;
	sim_out) echo 20000 ;;
	sim_cdc) echo 20000 ;;
	sim_rndis) echo 20000 ;;
	usbip) echo 20000 ;;
	ncm_rx) echo 20000 ;;
	tso) echo 12000 ;;
	net) echo 9300 ;;
	cdc) echo 2048 ;;
	devargs) echo 1024 ;;
	ecm) echo 265 ;;
	rndis) echo 20000 ;;
	event) echo 64 ;;
	cpe_prefix6) echo 128 ;;
	ncm_params) echo 64 ;;
	mbim) echo 9000 ;;
	nd) echo 300 ;;
	mbim_ctl) echo 20000 ;;
	sim_mbim) echo 20000 ;;
	*) echo 4096 ;;
	esac
}

# ---- toolchain ----
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
	'{ (void)d; (void)n; return 0; }' > "$probe/p.c"
can_fuzz() {
	command -v clang >/dev/null 2>&1 &&
		clang -fsanitize=fuzzer,address,undefined "$probe/p.c" \
			-o "$probe/p" >/dev/null 2>&1
}
if ! can_fuzz; then
	echo "fuzz: installing clang and libclang-rt-14-dev"
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq --no-install-recommends \
		clang libclang-rt-14-dev libpcap-dev >/dev/null
	can_fuzz || { echo "fuzz: clang cannot build libFuzzer targets" >&2; exit 1; }
fi
if [ ! -e /usr/include/pcap/pcap.h ]; then
	$SUDO apt-get install -y -qq --no-install-recommends libpcap-dev >/dev/null
fi

# ---- build ----
cflags=(-std=gnu11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer
	-fno-sanitize-recover=all -Wall -Wextra -I"$lib" -I"$sim" -I"$fuzz")
rm -rf "$out/obj" "$out/obj-sim"
mkdir -p "$out/obj" "$out/obj-sim"
read -r -a usb_cflags <<< "$(pkg-config --cflags libusb-1.0)"
read -r -a usb_libs <<< "$(pkg-config --libs libusb-1.0)"
for src in ch39x_vendor ch39x_net ch39x_tso ch39x_cdc ch39x_usbdesc ch39x_ncm \
	   ch39x_rndis ch39x_ecm ch39x_mbim ch39x_mbim_ctl ch39x_mbim_eth ch39x_nd \
	   ch39x_libusb ch39x_libusb_select ch39x_libusb_open \
	   ch39x_libusb_return ch39x_libusb_bus ch39x_uevent; do
	clang "${cflags[@]}" "${usb_cflags[@]}" \
		-fsanitize=fuzzer-no-link,address,undefined \
		-c "$lib/$src.c" -o "$out/obj/$src.o"
done
# The device model (lib/ch39x_sim), linked with libpcap into the sim_*
# harnesses only: the host-side parsers' harnesses go without it.
for src in ch39x_sim ch39x_sim_wire ch39x_sim_vendor ch39x_sim_phy ch39x_sim_cdc \
	   ch39x_sim_desc ch39x_sim_rndis ch39x_sim_mbim ch39x_sim_mbim_wire \
	   ch39x_sim_wake; do
	clang "${cflags[@]}" "${usb_cflags[@]}" \
		-fsanitize=fuzzer-no-link,address,undefined \
		-c "$sim/$src.c" -o "$out/obj-sim/$src.o"
done
# The PMD's devargs parser: rte_kvargs, rte_log and rte_net, no EAL. DPDK
# itself is not instrumented (ASan still checks the heap it uses).
dpdk_cflags=() dpdk_libs=()
if [[ " ${harnesses[*]} " == *" devargs "* ]]; then
	read -r -a dpdk_cflags <<< "$(pkg-config --cflags libdpdk)"
	read -r -a dpdk_libs <<< "$(pkg-config --libs libdpdk)"
	dpdk_cflags+=(-DALLOW_EXPERIMENTAL_API -I"$drv")
	mkdir -p "$out/obj-dpdk"
	clang "${cflags[@]}" "${dpdk_cflags[@]}" \
		-fsanitize=fuzzer-no-link,address,undefined \
		-c "$drv/ch39x_devargs.c" -o "$out/obj-dpdk/ch39x_devargs.o"
fi
for h in "${harnesses[@]}"; do
	extra_cflags=() extra_objs=()
	if [ "$h" = devargs ]; then
		extra_cflags=("${dpdk_cflags[@]}")
		extra_objs=("$out/obj-dpdk/ch39x_devargs.o" "${dpdk_libs[@]}")
	elif [[ $h == sim_* ]]; then
		extra_objs=("$out"/obj-sim/*.o -lpcap)
	elif [ "$h" = usbip ]; then
		# The server's codec and device side, over the model.
		extra_cflags=(-I"$top/app/ch39x-usbip")
		extra_objs=("$top/app/ch39x-usbip/usbip.c"
			    "$top/app/ch39x-usbip/dev.c" "$out"/obj-sim/*.o
			    -lpcap)
	elif [ "$h" = cpe_ip ]; then
		# The router's pure parsers, instrumented with the harness.
		extra_cflags=(-I"$top/app/ch39x-cpe/lib")
		extra_objs=("$top/app/ch39x-cpe/lib/frag.c" "$top/app/ch39x-cpe/lib/fw.c"
			    "$top/app/ch39x-cpe/lib/fw_parse.c"
			    "$top/app/ch39x-cpe/lib/fw_text.c"
			    "$top/app/ch39x-cpe/lib/guard.c"
			    "$top/app/ch39x-cpe/lib/pppoe.c")
	elif [ "$h" = cpe_prefix6 ]; then
		extra_cflags=(-I"$top/app/ch39x-cpe/lib")
		extra_objs=("$top/app/ch39x-cpe/lib/pd6.c"
			    "$top/app/ch39x-cpe/lib/fields.c")
	fi
	clang "${cflags[@]}" "${extra_cflags[@]}" -Werror \
		-fsanitize=fuzzer,address,undefined \
		"$fuzz/fuzz_$h.c" "$out"/obj/*.o "${extra_objs[@]}" \
		"${usb_libs[@]}" -lpthread -o "$out/fuzz_$h"
done
echo "fuzz: built ${harnesses[*]} in $out"

# ---- run ----
mkdir -p "$out/artifacts" "$out/logs"
# $out/failures.txt: each failed harness with the lines that say why
# (scripts/fuzz_report.sh), for the end of scripts/test.sh's log; emptied
# before the runs, so that no earlier run's report outlives it.
: > "$out/failures.txt"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
printf '%-12s %12s %10s  %s\n' harness executions corpus result
for h in "${harnesses[@]}"; do
	work=$out/work/fuzz_$h
	log=$out/logs/fuzz_$h.log
	rm -rf "$work" "$out/artifacts/fuzz_$h-"*
	mkdir -p "$work"
	cp "$fuzz/corpus/fuzz_$h"/* "$work/"
	rc=0
	# A hard stop well past -max_total_time in case a run hangs.
	timeout --signal=KILL $((secs + 120)) "$out/fuzz_$h" "$work" \
		-max_total_time="$secs" ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} \
		-print_final_stats=1 \
		-max_len="$(max_len "$h")" -timeout=20 -rss_limit_mb=2048 \
		-artifact_prefix="$out/artifacts/fuzz_$h-" \
		> "$log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	ncorp=$(find "$work" -type f | wc -l)
	if [ $rc -eq 0 ]; then
		result=ok
	else
		result="FAILED (exit $rc, log $log)"
		failed+=("$h")
	fi
	printf '%-12s %12s %10s  %s\n' "$h" "${execs:-?}" "$ncorp" "$result"
done

if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz: failures in ${failed[*]}; inputs in $out/artifacts/:" >&2
	ls -1 "$out/artifacts/" >&2 || true
	for h in "${failed[@]}"; do
		bash "$top/scripts/fuzz_report.sh" "$h" "$out" "$top" |
			tee -a "$out/failures.txt" >&2
	done
	exit 1
fi
echo "fuzz: all ${#harnesses[@]} harnesses ran ${secs}s without failures"
