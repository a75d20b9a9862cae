#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# Meson tests of ch39x-perf (suite 'app'):
#   run_test.sh KIND path/to/ch39x-perf path/to/librte_net_ch39x.so
# KIND: options (bad values exit non-zero naming the option, --help exits
# 0), io, tcp_1500, tcp_1500_tso, tcp_9000_tso, io_latency, tcp_latency
# (one-second runs on two simulated CH398s cabled together, --json checked
# by check_json.py), or null_txonly (net_null: the USB figures must be
# null).
set -euo pipefail

kind=${1:?usage: run_test.sh KIND ch39x-perf librte_net_ch39x.so}
perf=${2:?missing ch39x-perf path}
pmd_so=${3:?missing librte_net_ch39x.so path}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
checker=$here/check_json.py
python=${PYTHON:-python3}

# EAL refuses plugins below a world-writable directory (such as /tmp):
# load a private copy.
priv=$(mktemp -d "${XDG_RUNTIME_DIR:-$HOME}/ch39x-perf-test.XXXXXX")
trap 'rm -rf "$priv"' EXIT
chmod 700 "$priv"
cp "$pmd_so" "$priv/"
pmd=$priv/$(basename "$pmd_so")
. "$here/../../tests/exe_wrap.sh"
perf=$(exe_wrap "$perf" "$priv")

# eal [PORTS]: EAL options in the array EAL, with a file prefix unique to
# this call (not run in a subshell, so the counter survives). PORTS: none,
# pair (two CH398s cabled together), loop (one CH398), ch397pair, null.
seq_no=0
eal() {
	seq_no=$((seq_no + 1))
	EAL=(--no-huge --no-pci -m 512 --file-prefix "ch39x_perf_$$_$seq_no")
	case ${1:-none} in
	none) ;;
	pair) EAL+=(-d "$pmd" --vdev "net_ch39x0,wire=pair:perf$$"
		    --vdev "net_ch39x1,wire=pair:perf$$") ;;
	loop) EAL+=(-d "$pmd" --vdev "net_ch39x0,wire=loop") ;;
	ch397pair) EAL+=(-d "$pmd" --vdev "net_ch39x0,sim=ch397,wire=pair:b$$"
			 --vdev "net_ch39x1,sim=ch397,wire=pair:b$$") ;;
	null) EAL+=(--vdev net_null0) ;;
	esac
}

fail=0
check() { if eval "$1"; then echo "ok: $2"; else echo "FAIL: $2"; fail=1; fi; }

# expect_error "OPTION-TEXT" ARGS...: non-zero exit, OPTION-TEXT on stderr.
expect_error() {
	local want=$1 rc=0
	shift
	timeout 60 "$perf" "$@" > "$priv/out" 2> "$priv/err" || rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] &&
	   grep -qF -- "$want" "$priv/err"; then
		echo "ok: exit $rc, stderr names '$want': $*"
	else
		echo "FAIL: expected a non-zero exit naming '$want' (exit $rc): $*"
		sed 's/^/  stderr: /' "$priv/err" | tail -5
		fail=1
	fi
}

# run_json NAME CHECK-ARGS -- PERF-ARGS...: a run whose stdout is checked.
run_json() {
	local name=$1 rc=0 cargs=()
	shift
	while [ "$1" != "--" ]; do cargs+=("$1"); shift; done
	shift
	timeout 90 "$perf" "$@" > "$priv/$name.json" 2> "$priv/$name.err" ||
		rc=$?
	if [ "$rc" -ne 0 ]; then
		# Debian ships net_null as a plugin EAL loads by itself.
		if [ "$name" = null_txonly ] &&
		   grep -q "no ports" "$priv/$name.err"; then
			echo "net_null is not installed: skipped"
			exit 77
		fi
		echo "FAIL: ch39x-perf exited $rc: $*"
		tail -20 "$priv/$name.err"
		fail=1
		return
	fi
	grep -v '^EAL:\|^TELEMETRY:' "$priv/$name.err" || true
	"$python" "$checker" "$priv/$name.json" "${cargs[@]}" || fail=1
	echo "--- $name JSON ---"
	cat "$priv/$name.json"
}

case $kind in
options)
	rc=0
	"$perf" -- --help > "$priv/out" 2> "$priv/err" || rc=$?
	check '[ "$rc" -eq 0 ] && grep -q -- "--mode MODE" "$priv/out"' \
		"--help exits 0 and prints the options (exit $rc)"
	rc=0
	"$perf" --help > "$priv/out" 2> "$priv/err" || rc=$?
	check '[ "$rc" -eq 0 ] && grep -q -- "--tso-mss" "$priv/out"' \
		"--help without EAL options exits 0 (exit $rc)"
	expect_error "--mode" -- --mode bogus
	expect_error "txonly, rxonly, io, tcp" -- --mode=bogus
	expect_error "--burst" -- --burst 0
	expect_error "--burst" -- --burst 513
	expect_error "--burst" -- --burst
	expect_error "--frame-size" -- --frame-size 59
	expect_error "--frame-size" -- --frame-size 1500x
	expect_error "--mtu" -- --mtu 67
	expect_error "--duration" -- --duration 0
	expect_error "--duration" -- --duration 3601
	expect_error "--duration" -- --duration soon
	expect_error "--packets" -- --packets 0
	expect_error "--packets" -- --packets -5
	expect_error "--ports" -- --ports 1,1
	expect_error "--ports" -- --ports 0,x
	expect_error "--tso-mss" -- --mode tcp --tso-mss 1461
	expect_error "--tso-mss" -- --mode tcp --mtu 9000 --tso-mss 8961
	expect_error "--mode tcp only" -- --mode io --tso-mss 1000
	expect_error "--tso-size" -- --mode tcp --tso --tso-size 1000
	expect_error "--frame-size" -- --mtu 1500 --frame-size 1600
	expect_error "--tx-first" -- --mode io --tx-first 65
	expect_error "unknown option '--speed'" -- --speed 9
	expect_error "--latency is for --mode io and --mode tcp" \
		-- --mode txonly --latency
	expect_error "--latency is for --mode io and --mode tcp" \
		-- --latency --mode rxonly
	expect_error "--latency needs an MSS of at least 12" \
		-- --mode tcp --frame-size 60 --latency
	expect_error "unknown option '--latency=1'" -- --mode io --latency=1
	rc=0
	"$perf" -- --help > "$priv/out" 2> "$priv/err" || rc=$?
	check 'grep -q -- "--latency" "$priv/out"' "--help names --latency"
	# These need EAL and ports.
	eal none
	expect_error "no ports" "${EAL[@]}" -- --mode txonly --duration 1
	eal loop
	expect_error "--mode io needs exactly 2 ports" "${EAL[@]}" \
		-- --mode io --duration 1
	eal pair
	expect_error "--mode tcp needs exactly 2 ports" "${EAL[@]}" \
		-- --mode tcp --ports 1 --duration 1
	eal pair
	expect_error "--mtu 9500" "${EAL[@]}" -- --mode tcp --mtu 9500
	eal ch397pair
	expect_error "--mtu 1600" "${EAL[@]}" -- --mode io --mtu 1600
	eal pair
	expect_error "--ports: port 5 does not exist" "${EAL[@]}" \
		-- --mode io --ports 0,5
	;;
io)
	eal pair
	run_json io --mode io --usb -- "${EAL[@]}" \
		-- --mode io --duration 1 --json
	;;
tcp_1500)
	# 1460 bytes of payload per 1538 on the wire: 94.93 %.
	eal pair
	run_json tcp_1500 --mode tcp --usb --efficiency 94.93 --tolerance 0.2 \
		-- "${EAL[@]}" -- --mode tcp --mtu 1500 --duration 1 --json
	;;
tcp_1500_tso)
	eal pair
	run_json tcp_1500_tso --mode tcp --usb --tso --efficiency 94.93 \
		--tolerance 0.2 -- "${EAL[@]}" \
		-- --mode tcp --mtu 1500 --tso-mss 1460 --duration 1 --json
	;;
tcp_9000_tso)
	# 8960 bytes of payload per 9038 on the wire: 99.14 %.
	eal pair
	run_json tcp_9000_tso --mode tcp --usb --tso --efficiency 99.14 \
		--tolerance 0.2 -- "${EAL[@]}" \
		-- --mode tcp --mtu 9000 --tso-mss 8960 --duration 1 --json
	;;
io_latency)
	# Every forwarded frame is stamped: samples and ordered quantiles.
	eal pair
	run_json io_latency --mode io --usb --latency -- "${EAL[@]}" \
		-- --mode io --frame-size 64 --duration 1 --latency --json
	;;
tcp_latency)
	# TSO super-frames: the stamp rides in each one's first segment.
	eal pair
	run_json tcp_latency --mode tcp --usb --tso --latency \
		--efficiency 94.93 --tolerance 0.2 -- "${EAL[@]}" \
		-- --mode tcp --mtu 1500 --tso-mss 1460 --duration 1 --latency \
		--json
	;;
null_txonly)
	# USB figures must be null on a PMD without the ch39x xstats.
	eal null
	run_json null_txonly --mode txonly --no-usb -- "${EAL[@]}" \
		-- --mode txonly --frame-size 1514 --duration 1 --json
	;;
*)
	echo "run_test.sh: unknown test kind '$kind'" >&2
	exit 2
	;;
esac
exit $fail
