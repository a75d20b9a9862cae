#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# wire=pcap writes each frame through to its file (issue 16, item 9): a
# dpdk-testpmd forwarding N frames from a pcap wire back onto it is killed
# with SIGKILL, never closing its port, and the output file must still
# hold all N frames, whole. Buffered output left a truncated file.
set -euo pipefail

pmd_so=${1:?usage: pcap_flush.sh librte_net_ch39x.so tcp_pcap.py}
gen=${2:?usage: pcap_flush.sh librte_net_ch39x.so tcp_pcap.py}
n=8
testpmd=$(command -v dpdk-testpmd)

# EAL refuses plugins below a world-writable directory: a private copy.
priv=$(mktemp -d "${XDG_RUNTIME_DIR:-$HOME}/ch39x-flush.XXXXXX")
chmod 700 "$priv"
pid=
cleanup() {
	[ -z "$pid" ] || kill -9 "$pid" 2>/dev/null || true
	[ -n "${KEEP:-}" ] || rm -rf "$priv"
}
trap cleanup EXIT
cp "$pmd_so" "$priv/"
python3 "$gen" gen "$priv/in.pcap" --ip 4 --frames $n --frame-len 200

# Whole records in a pcap file: a frame cut short by a kill does not count.
count() {
	python3 - "$1" <<'PY'
import struct, sys
try:
    b = open(sys.argv[1], "rb").read()
except OSError:
    b = b""
n, off = 0, 24
while len(b) >= 24 and off + 16 <= len(b):
    caplen = struct.unpack_from("<I", b, off + 8)[0]
    if off + 16 + caplen > len(b):
        break
    n, off = n + 1, off + 16 + caplen
print(n)
PY
}

# io forwarding, port 0 to itself: every frame read from in.pcap is sent
# back out into out.pcap (--no-flush-rx: "start" would drain them unsent).
# Its commands come through a fifo this script holds open (fd 3), so that
# testpmd keeps running and no helper process outlives the test.
mkfifo "$priv/cmd"
"$testpmd" --no-huge --no-pci -m 256 --file-prefix "ch39x_fl_$$" \
	-d "$priv/$(basename "$pmd_so")" \
	--vdev "net_ch39x0,sim=ch398,wire=pcap:$priv/in.pcap:$priv/out.pcap" \
	-- -i --port-topology=loop --forward-mode=io --no-flush-rx \
	--total-num-mbufs=2048 < "$priv/cmd" > "$priv/testpmd.log" 2>&1 &
pid=$!
exec 3> "$priv/cmd"
echo start >&3

got=0
deadline=$((SECONDS + 20))
while [ $SECONDS -lt $deadline ]; do
	got=$(count "$priv/out.pcap")
	[ "$got" -ge $n ] && break
	sleep 0.2
done
# No stop, no close: the process dies as OVS or a crashed app would.
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
pid=
got=$(count "$priv/out.pcap")
if [ "$got" -eq $n ]; then
	echo "ok: all $n frames in out.pcap after SIGKILL"
	exit 0
fi
echo "FAIL: out.pcap holds $got of $n frames after SIGKILL"
tail -20 "$priv/testpmd.log"
exit 1
