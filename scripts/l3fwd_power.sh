#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Rx interrupts with DPDK's own examples/l3fwd-power: builds the example
# from the dpdk-doc package's sources against the installed libdpdk, runs
# it on two simulated net_ch39x ports (frames read from a pcap file on
# port 0, routed by l3fwd-power's LPM table to port 1, written to a pcap
# file), once in --interrupt-only mode and once busy polling
# (--pmd-mgmt baseline, the same program without power management), and
# reports for each: frames forwarded, and the process CPU time over an
# idle interval once the input is done.
#
#   scripts/l3fwd_power.sh [IDLE_SECONDS] [FRAMES]     (defaults 10, 10000)
#
# Prints one line per mode and exits non-zero when interrupt mode did not
# forward every frame or used more than 5 % CPU while idle.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
idle=${1:-10}
frames=${2:-10000}
builddir=${BUILDDIR:-$top/build}
pmd_so=$builddir/drivers/net/ch39x/librte_net_ch39x.so
examples=/usr/share/dpdk/examples
cache=$top/.cache/examples

[ -d "$examples/l3fwd-power" ] || apt-get install -y dpdk-doc >/dev/null
[ -f "$pmd_so" ] || bash "$top/scripts/build.sh" >/dev/null
mkdir -p "$cache"
if [ ! -x "$cache/l3fwd-power/build/l3fwd-power" ]; then
	rm -rf "$cache/l3fwd-power"
	cp -r "$examples/l3fwd-power" "$cache/"
	make -C "$cache/l3fwd-power" >/dev/null
fi
app=$cache/l3fwd-power/build/l3fwd-power

priv=$(mktemp -d "${XDG_RUNTIME_DIR:-$HOME}/ch39x-l3fwdp.XXXXXX")
chmod 700 "$priv"
pid=""
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	rm -rf "$priv"
}
trap cleanup EXIT
cp "$pmd_so" "$priv/pmd.so"

# UDP to 2.1.1.1: l3fwd-power's LPM table routes 2.1.1.0/24 to port 1.
python3 - "$priv/in.pcap" "$frames" <<'PY'
import struct, sys
path, n = sys.argv[1], int(sys.argv[2])
ip = bytes.fromhex('4500002e0000000040110000' '0a000001' '02010101')
s = 0
for i in range(0, 20, 2):
    s += (ip[i] << 8) | ip[i + 1]
while s >> 16:
    s = (s & 0xFFFF) + (s >> 16)
ip = ip[:10] + struct.pack('!H', ~s & 0xFFFF) + ip[12:]
udp = struct.pack('!HHHH', 9, 9, 26, 0) + bytes(18)
frame = bytes.fromhex('021a86980001' '020000000099' '0800') + ip + udp
with open(path, 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i in range(n):
        f.write(struct.pack('<IIII', i // 1000, i % 1000, len(frame),
                            len(frame)) + frame)
PY

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# run MODE_NAME ARGS...: forward the pcap, wait for the input to be done,
# measure idle CPU, stop, count what came out.
run() {
	local name=$1 t0 t1 hz out
	shift
	rm -f "$priv/out.pcap"
	"$app" --no-huge --no-pci -m 512 --file-prefix "l3fwdp_$$" \
		-l 1 -d "$priv/pmd.so" --log-level=pmd.net.ch39x:warning \
		--vdev "net_ch39x0,wire=pcap:$priv/in.pcap:" \
		--vdev "net_ch39x1,wire=pcap::$priv/out.pcap" \
		-- -p 0x3 -P --config="(0,0,1),(1,0,1)" "$@" \
		> "$priv/$name.log" 2>&1 &
	pid=$!
	# The input is done when port 1's frames stop growing in the log
	# file's absence of a counter: wait for the start, then 3 s of
	# input at line rate (10000 frames take about 5 ms).
	for _ in $(seq 1 300); do
		grep -q "entering main\|main loop\|L3FWD_POWER: entering" \
			"$priv/$name.log" 2>/dev/null && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	sleep 3
	hz=$(getconf CLK_TCK)
	t0=$(cpu_ticks "$pid")
	sleep "$idle"
	t1=$(cpu_ticks "$pid")
	kill -INT "$pid"
	for _ in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=""
	out=$(python3 - "$priv/out.pcap" <<'PY'
import struct, sys
try:
    d = open(sys.argv[1], 'rb').read()
except OSError:
    print(0); sys.exit()
n, off = 0, 24
while off + 16 <= len(d):
    cap = struct.unpack_from('<I', d, off + 8)[0]
    off += 16 + cap
    n += 1
print(n)
PY
)
	cpu=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v s="$idle" \
		'BEGIN { printf "%.1f", (b - a) * 100 / hz / s }')
	printf '%-16s forwarded %6d of %d frames, idle CPU %5s %% over %s s\n' \
		"$name" "$out" "$frames" "$cpu" "$idle"
	eval "${name//-/_}_out=$out ${name//-/_}_cpu=$cpu"
}

run interrupt-only --interrupt-only
run busy-poll --pmd-mgmt baseline
awk -v o="$interrupt_only_out" -v n="$frames" -v c="$interrupt_only_cpu" \
	'BEGIN { exit !(o == n && c <= 5) }'
