#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# DPDK's multi-process tools on net_ch39x ports: a primary dpdk-testpmd
# forwards between two simulated CH398s (and between two net_null ports,
# the reference), then, as secondary processes, dpdk-proc-info reads our
# stats and xstats, and dpdk-dumpcap and dpdk-pdump capture frames from
# both pairs: ours must capture whatever the reference captures.
#
# Secondary processes need hugepages: the test mounts a hugetlbfs of its
# own (another run's unmount cannot pull it away) and reserves 2 MiB pages
# when the machine has too few, and undoes both. Every process names the
# run's own --file-prefix: a CI machine runs other DPDK programs, and two
# primaries of the default prefix take each other's multi-process socket
# (the secondaries' "Fail to send request ... mp_socket"). dpdk-dumpcap
# takes no EAL options but --file-prefix and loads plugins only
# from DPDK's plugin directory: the PMD is put there for the test and the
# directory is restored afterwards (a DPDK process started elsewhere in
# those seconds sees the copy). Exit 77 (skipped) when the machine
# cannot give hugepages or the tools are missing.
set -uo pipefail
. "$(dirname "$0")/testpmd_lib.sh"

pmd_so=${1:?usage: secondary.sh librte_net_ch39x.so}
for t in dpdk-testpmd dpdk-proc-info dpdk-dumpcap dpdk-pdump tshark; do
	command -v "$t" >/dev/null || { echo "SKIP: $t missing"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIP: hugepage set-up needs root"; exit 77; }

priv=$(mktemp -d "${XDG_RUNTIME_DIR:-$HOME}/ch39x-mp.XXXXXX")
chmod 700 "$priv"
# A primary that dies leaves the command fifo without a reader: a write
# must fail, not kill the test.
trap '' PIPE
mounted=0
prefix=ch39x_mp_$$
old_pages=$(cat /proc/sys/vm/nr_hugepages)
plugin_dir=$(strings "$(ldconfig -p | awk '/librte_eal.so /{print $NF; exit}')" |
	sed -n 's/^DPDK_PLUGIN_PATH=//p' | head -1)
placed=""
saved=""
prim_pid=""

cleanup() {
	if [ -n "$prim_pid" ] && kill -0 "$prim_pid" 2>/dev/null; then
		echo quit >&3 2>/dev/null
		for _ in $(seq 1 100); do
			kill -0 "$prim_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$prim_pid" 2>/dev/null
	fi
	exec 3>&- 2>/dev/null
	if [ -n "$placed" ]; then
		rm -f "$placed"
		[ -n "$saved" ] && mv "$saved" "$placed"
	fi
	[ "$mounted" -eq 1 ] && umount "$priv/huge"
	echo "$old_pages" > /proc/sys/vm/nr_hugepages
	rm -rf "$priv"
}
trap cleanup EXIT
[ -n "${KEEP_LOGS:-}" ] && trap 'cp -r "$priv" /tmp/mp-logs; cleanup' EXIT

# Hugepages: 512 x 2 MiB unless there are enough already.
mkdir -p "$priv/huge"
mount -t hugetlbfs nodev "$priv/huge" 2>/dev/null ||
	{ echo "SKIP: cannot mount hugetlbfs"; exit 77; }
mounted=1
[ "$old_pages" -ge 512 ] || echo 512 > /proc/sys/vm/nr_hugepages
[ "$(cat /proc/sys/vm/nr_hugepages)" -ge 256 ] ||
	{ echo "SKIP: the machine gives $(cat /proc/sys/vm/nr_hugepages) hugepages"; exit 77; }
[ -d "$plugin_dir" ] || { echo "SKIP: no DPDK plugin directory"; exit 77; }
placed=$plugin_dir/librte_net_ch39x.so
if [ -e "$placed" ]; then
	saved=$priv/installed.so
	cp -a "$placed" "$saved"
fi
cp "$pmd_so" "$placed"
# Every process loads that one copy (EAL's plugin directory): no -d, so
# that no process has two drivers of the same name.

# Debian's dpdk-testpmd links librte_mempool_dpaa itself, so its mempool
# ops are registered in another order than in a tool that loads every
# plugin from the directory: the capture pool's ops index then names
# another driver in the primary, every copy fails and is counted as
# dropped (the same with net_pcap or net_null). Loading the libraries
# testpmd links, first, gives the tools the primary's order.
preload=$(ldd "$(command -v dpdk-testpmd)" |
	awk '/librte_mempool_[a-z0-9]+\.so/ {print $3}' | tr '\n' ':')

fail=0
check() {
	if eval "$1"; then echo "ok: $2 ($SECONDS s)"; else echo "FAIL: $2"; fail=1; fi
}

mkfifo "$priv/cmd"
$TP_LINEBUF dpdk-testpmd --no-pci -m 256 --huge-dir "$priv/huge" \
	--file-prefix "$prefix" \
	--vdev net_ch39x0,wire=pair:mp --vdev net_ch39x1,wire=pair:mp \
	--vdev net_null0 --vdev net_null1 \
	-- -i --total-num-mbufs=16384 < "$priv/cmd" > "$priv/primary.log" 2>&1 &
prim_pid=$!
exec 3>"$priv/cmd"
echo "start tx_first" >&3
# Ready when forwarding has started (bounded: 60 s on a loaded machine).
for _ in $(seq 1 600); do
	grep -q "io packet forwarding" "$priv/primary.log" && break
	kill -0 "$prim_pid" 2>/dev/null || break
	sleep 0.1
done
check 'grep -q "io packet forwarding" "$priv/primary.log"' "primary forwards"

# dpdk-proc-info: our counters seen from a secondary.
timeout 60 dpdk-proc-info --no-pci --file-prefix "$prefix" -- --stats \
	> "$priv/procinfo.log" 2>&1
timeout 60 dpdk-proc-info --no-pci --file-prefix "$prefix" -- --xstats \
	>> "$priv/procinfo.log" 2>&1
xs=$(sed -n '/extended statistics for port 0 /,/extended statistics for port 1 /p' \
	"$priv/procinfo.log")
rx_xfers=$(echo "$xs" | awk -F': ' '/^rx_usb_xfers:/ {print $2}')
cycles=$(echo "$xs" | awk -F': ' '/^sim_device_cycles:/ {print $2}')
rx_pk=$(sed -n '/NIC statistics for port 0 /,/####/p' "$priv/procinfo.log" |
	awk '/RX-packets:/ {print $2; exit}')
check '[ "${rx_pk:-0}" -gt 0 ]' "proc-info: port 0 RX-packets ${rx_pk:-none}"
check '[ "${rx_xfers:-0}" -gt 0 ]' "proc-info: rx_usb_xfers ${rx_xfers:-none}"
check '[ "${cycles:-0}" -gt 0 ]' "proc-info: sim_device_cycles ${cycles:-none}"

# A capture ends with forwarding stopped: its end removes the primary's
# copy callbacks and frees the capture pool, and DPDK 22.11's pdump does
# not wait for a callback still running on the forwarding lcore (the
# primary died in rte_pktmbuf_free_bulk on a mbuf without a pool, under a
# load of 12). Each wait is for an event, bounded at 60 s.
# fwd CMD PATTERN: testpmd's "stop" or "start", awaited in its log.
fwd() {
	tp_ask "$priv/primary.log" "$1" "/$2/ { print 1; exit }" 60 >&3
}
# until_ok SECS COMMAND...: COMMAND every 0.1 s until it succeeds or SECS.
until_ok() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.1
	done
}
# end_capture PID: forwarding stopped, the tool interrupted, its end
# awaited, forwarding started again (with a first burst: what the
# ch39x pair's wire held may have been dropped meanwhile).
end_capture() {
	fwd stop "^Done"
	kill -INT "$1" 2>/dev/null
	until_ok 60 eval "! kill -0 $1 2>/dev/null"
	fwd "start tx_first" "io packet forwarding"
}

# dpdk-dumpcap: N frames from our port and from the reference; its count
# as it rewrites it in place (backspaces) on stderr.
captured() {
	[ "$(tr '\b' ' ' < "$1" | awk '/^Packets captured:/ { n = $NF }
		END { print n + 0 }')" -ge 500 ]
}
capture() {
	local dev=$1 out=$2 pid
	env LD_PRELOAD="$preload" dpdk-dumpcap -i "$dev" \
		--file-prefix="$prefix" -w "$out" > "$out.log" 2>&1 &
	pid=$!
	until_ok 60 captured "$out.log"
	end_capture "$pid"
	# The first 500 frames (UDP, what testpmd forwards); the file holds
	# as many more as came before forwarding stopped.
	tshark -r "$out" -c 500 2>/dev/null | grep -c "UDP"
}
ref=$(capture net_null0 "$priv/ref.pcapng")
ours=$(capture net_ch39x0 "$priv/ours.pcapng")
check '[ "$ref" -ge 500 ]' "dumpcap: net_null0 (reference) $ref frames (500 wanted)"
check '[ "$ours" -ge 500 ]' "dumpcap: net_ch39x0 $ours frames (500 wanted)"
# Its accounting: what the primary handed over; drops (a full capture
# ring while dumpcap writes) depend on the machine's speed, not asserted.
seen=$(sed -n "s/.*received\/dropped on interface 'net_ch39x0': \([0-9]*\)\/.*/\1/p" \
	"$priv/ours.pcapng.log")
check '[ "${seen:-0}" -ge 500 ]' "dumpcap: net_ch39x0 accounted ${seen:-?} frames"

# dpdk-pdump: RX of port 0 and of the reference into pcap files, until
# the file holds at least 8 KiB (over 100 frames of 60 bytes).
pdump() {
	local port=$1 out=$2 pid
	env LD_PRELOAD="$preload" dpdk-pdump --no-pci --file-prefix "$prefix" \
		-- --pdump "port=$port,queue=*,rx-dev=$out" > "$out.log" 2>&1 &
	pid=$!
	until_ok 60 eval "[ \$(stat -c %s '$out' 2>/dev/null || echo 0) -ge 8192 ]"
	end_capture "$pid"
	# The first frames are what testpmd forwards (UDP); count them all fast.
	[ "$(tshark -r "$out" -c 100 2>/dev/null | grep -c UDP)" -eq 100 ] ||
		{ echo 0; return; }
	capinfos -M -c "$out" 2>/dev/null | awk '/Number of packets/ {print $NF}'
}
ref=$(pdump 2 "$priv/ref.pcap")
ours=$(pdump 0 "$priv/ours.pcap")
check '[ "$ref" -gt 0 ]' "pdump: net_null0 (reference) $ref frames"
check '[ "$ours" -gt 0 ]' "pdump: net_ch39x0 $ours frames"

echo "stop" >&3
echo "quit" >&3
for _ in $(seq 1 300); do
	kill -0 "$prim_pid" 2>/dev/null || break
	sleep 0.1
done
check '! kill -0 "$prim_pid" 2>/dev/null' "primary exits"
if [ "$fail" -ne 0 ]; then
	echo "--- primary"; tail -20 "$priv/primary.log"
	echo "--- proc-info"; tail -20 "$priv/procinfo.log"
	for f in "$priv"/*.log; do echo "--- $f"; tail -5 "$f"; done
fi
exit "$fail"
