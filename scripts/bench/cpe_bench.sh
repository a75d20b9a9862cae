#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# ch39x-cpe against the Linux kernel as a NAT router, on one core each,
# 64-byte UDP frames (bounded: every run lasts SECONDS, RUNS times each,
# the median reported).
#
# 1. Simulated ports at sim_rate=unlimited: ch39x-cpe with its fast path
#    and with --no-flow-cache, its LAN and WAN ports cabled (wire=pair) to
#    the generator of --bench-gen (256 UDP flows) on a second lcore.
#    Cost per packet: TSC cycles of the forwarding loops that moved
#    packets / those packets, loops over 50 us (preempted) left out
#    (the simulated adapters' threads are the hardware; not counted).
# 2. The same traffic source for the kernel and for ch39x-cpe: ch39x-perf
#    txonly (one UDP flow) on net_af_packet over a veth pair, into a
#    router netns, out through a second veth pair to a sink netns. The
#    kernel: ip_forward and nftables masquerade. ch39x-cpe: net_af_packet
#    on the same two veths. The router side veth that receives runs
#    threaded NAPI, so the kernel's forwarding (or the kernel's delivery to
#    the af_packet ring) runs in a thread whose CPU time is read from
#    /proc/PID/schedstat. Cost per packet: that thread's CPU time over the
#    packets that reached the sink (kernel), plus ch39x-cpe's busy-loop
#    cycles per packet (as in 1) for ch39x-cpe. pps per core = 1 / cost.
#
# ch39x-cpe busy polls (--idle poll), as when these numbers were first taken.
# Writes OUT/cpe_bench.csv and OUT/cpe_bench.png.
# FW=1 measures the firewall's cost alone, PPPOE=1 a PPPoE WAN's against
# a plain one, BASE=DIR this build's router against another build's (see
# below).
# Usage: [FW=1|PPPOE=1|BASE=DIR] scripts/bench/cpe_bench.sh [SECONDS] [RUNS] [OUT]
set -euo pipefail
# shellcheck source=scripts/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"
secs=${1:-5}
runs=${2:-3}
out=${3:-$top/doc/perf}
cpe=$build/app/ch39x-cpe/ch39x-cpe
perf=$app
[ "$(id -u)" -eq 0 ] || { echo "cpe_bench: needs root (netns)"; exit 1; }
bench_build "$cpe" "$perf" "$so"
need=()
command -v gnuplot >/dev/null || need+=(gnuplot-nox)
command -v ethtool >/dev/null || need+=(ethtool)
command -v nft >/dev/null || need+=(nftables)
if [ ${#need[@]} -gt 0 ]; then
	DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq \
		--no-install-recommends "${need[@]}" >/dev/null
fi
mkdir -p "$out"
bench_priv cpe-bench
bench_copy_pmd
id=$$
g=cb_gen_$id r=cb_rtr_$id s=cb_snk_$id
# shellcheck disable=SC2016 # expanded at exit
bench_at_exit 'for n in "$g" "$r" "$s"; do ip netns del "$n" 2>/dev/null || true; done'
bench_cpe_gen "$id"

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
jget() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }

# --- 1. simulated ports -------------------------------------------------
# sim_run_base TAG ARGS: sim_run, the base build's PMD for a base_* TAG.
sim_run_base() {
	local saved=("${cpe_gen[@]}")
	case $1 in base_*) cpe_gen=("${cpe_gen[@]/#$priv\/pmd.so/$priv/base_pmd.so}") ;; esac
	sim_run "$@"
	cpe_gen=("${saved[@]}")
}
sim_run() {
	local tag=$1 i
	shift
	: > "$priv/sim_$tag.pps"; : > "$priv/sim_$tag.ns"; : > "$priv/sim_$tag.cyc"
	for i in $(seq "$runs"); do
		timeout $((secs + 60)) "$cpe" --file-prefix "cb_$id" \
			"${cpe_gen[@]}" --duration "$secs" "$@" \
			> "$priv/sim.json" 2> "$priv/sim.err" ||
			{ tail "$priv/sim.err"; return 1; }
		jget "$priv/sim.json" 'j["ports"][1]["tx"] / j["elapsed_s"]' >> "$priv/sim_$tag.pps"
		jget "$priv/sim.json" 'j["clean_cycles_per_pkt"] * 1e9 / j["tsc_hz"]' >> "$priv/sim_$tag.ns"
		jget "$priv/sim.json" 'j["app_cycles_per_pkt"]' >> "$priv/sim_$tag.cyc"
	done
}
# pcap_frames FILE: 256 UDP flows LAN -> WAN as --bench-gen sends them
# (192.168.1.101:10000+i -> 198.19.0.1:9, 60 bytes, checksums right), a
# pcap file for net_pcap's infinite_rx.
pcap_frames() {
	python3 - "$1" <<-'PY'
		import struct, sys
		def csum(b):
		    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
		    while s >> 16:
		        s = (s & 0xffff) + (s >> 16)
		    return ~s & 0xffff
		src, dst = bytes([192, 168, 1, 101]), bytes([198, 19, 0, 1])
		out = [struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)]
		for i in range(256):
		    udp = struct.pack("!HHHH", 10000 + i, 9, 26, 0) + bytes(18)
		    ph = src + dst + struct.pack("!BBH", 0, 17, len(udp))
		    c = csum(ph + udp) or 0xffff
		    udp = udp[:6] + struct.pack("!H", c) + udp[8:]
		    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0,
		                     64, 17, 0, src, dst)
		    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
		    f = bytes.fromhex("020000000001020000000065") + b"\x08\x00" + ip + udp
		    out.append(struct.pack("<IIII", 0, 0, len(f), len(f)) + f)
		open(sys.argv[1], "wb").write(b"".join(out))
	PY
}
# pcap_run TAG ARGS: one run of the router alone on one lcore, its LAN a
# net_pcap port that replays pcap_frames without end (infinite_rx: every
# RX burst full), its WAN a net_pcap port that drops what it is given
# (no tx_pcap) and receives nothing: no generator, no simulated adapter,
# the router the only bound. Appends the pps (WAN packets / elapsed),
# the pps per second of the router thread's CPU (WAN packets /
# thread_cpu_s: what it sustains on a core of its own, whatever share
# of the machine it got) and the loop's ns per packet.
pcap_run() {
	local tag=$1
	shift
	local mem=(--no-huge)

	# BENCH_HUGE=1: in the hugepages bench_cpe_gen mounted (bench_lib.sh).
	[ "${BENCH_HUGE:-0}" != 1 ] || mem=(--huge-dir "$priv/huge")
	timeout $((secs + 60)) "$cpe" "${mem[@]}" --no-pci -m 1024 -l 0 \
		--file-prefix "cb_$id" \
		--vdev "net_pcap0,rx_pcap=$priv/lan.pcap,infinite_rx=1" \
		--vdev "net_pcap1,rx_pcap=$priv/empty.pcap" \
		-- --lan 0=192.168.1.1/24 --wan 1=203.0.113.2/24 \
		--route default,203.0.113.1 \
		--neigh 203.0.113.1,02:00:00:00:00:99 \
		--json --idle poll --duration "$secs" "$@" \
		> "$priv/sim.json" 2> "$priv/sim.err" ||
		{ tail "$priv/sim.err"; return 1; }
	jget "$priv/sim.json" 'j["ports"][1]["tx"] / j["elapsed_s"]' >> "$priv/all_$tag"
	jget "$priv/sim.json" 'j["ports"][1]["tx"] / j["thread_cpu_s"]' >> "$priv/all_$tag.cpu"
	jget "$priv/sim.json" 'j["clean_cycles_per_pkt"] * 1e9 / j["tsc_hz"]' >> "$priv/all_$tag.ns"
}
# BASE=DIR: this build's router side by side with another build's
# (DIR/ch39x-cpe with its PMD DIR/librte_net_ch39x.so, e.g. the commit
# before a change), the simulated fast path and --no-flow-cache, the four
# alternating run by run in a rotating order (the machine's load falls on
# both alike);
# medians printed (OUT/cpe_bench_base.txt), then exit.
# BASE=DIR SRC=pcap: the same four with pcap_run's ports instead (the
# router-bound figure; OUT/cpe_bench_base_pcap.txt).
if [ -n "${BASE:-}" ]; then
	[ -x "$BASE/ch39x-cpe" ] && [ -f "$BASE/librte_net_ch39x.so" ] ||
		{ echo "cpe_bench: BASE=$BASE needs ch39x-cpe and librte_net_ch39x.so there"; exit 1; }
	cp "$BASE/librte_net_ch39x.so" "$priv/base_pmd.so"
	n=$runs; runs=1
	tags="base_fast new_fast base_slow new_slow"
	for tag in $tags; do
		: > "$priv/all_$tag"; : > "$priv/all_$tag.ns"; : > "$priv/all_$tag.cpu"
	done
	txt=$out/cpe_bench_base.txt
	if [ "${SRC:-sim}" = pcap ]; then
		pcap_frames "$priv/lan.pcap"
		head -c 24 "$priv/lan.pcap" > "$priv/empty.pcap"
		txt=$out/cpe_bench_base_pcap.txt
	fi
	read -r -a order <<<"$tags"
	for i in $(seq "$n"); do
		# Each round starts one tag further on (rotated order): a
		# tag that always ran right after another, or last, would
		# carry what that position costs on a shared machine.
		for j in 0 1 2 3; do
			tag=${order[$(( (i + j) % 4 ))]}
			args=()
			case $tag in *slow) args+=(--no-flow-cache) ;; esac
			c=$cpe
			if [ "${tag%_*}" = base ]; then
				c=$BASE/ch39x-cpe
			fi
			if [ "${SRC:-sim}" = pcap ]; then
				cpe=$c pcap_run "$tag" "${args[@]}"
				continue
			fi
			cpe=$c sim_run_base "$tag" "${args[@]}"
			cat "$priv/sim_$tag.pps" >> "$priv/all_$tag"
			cat "$priv/sim_$tag.ns" >> "$priv/all_$tag.ns"
		done
	done
	# pps, then the router loop's ns per packet (its loops that moved
	# packets, those over 50 us, preempted, left out: steadier than the
	# pps when the machine is shared).
	for tag in $tags; do
		printf '%-10s %.0f pps (median of %s: %s)\n' "$tag" \
			"$(median < "$priv/all_$tag")" "$n" \
			"$(xargs printf '%.0f ' < "$priv/all_$tag")"
	done | tee "$txt"
	for tag in $tags; do
		printf '%-10s %.1f ns/packet, loop (median of %s: %s)\n' "$tag" \
			"$(median < "$priv/all_$tag.ns")" "$n" \
			"$(xargs printf '%.1f ' < "$priv/all_$tag.ns")"
	done | tee -a "$txt"
	[ -s "$priv/all_base_fast.cpu" ] || exit 0
	for tag in $tags; do
		printf '%-10s %s pps per router CPU second (median of %s: %s)\n' \
			"$tag" "$(median < "$priv/all_$tag.cpu" | xargs printf '%.0f')" \
			"$n" "$(xargs printf '%.0f ' < "$priv/all_$tag.cpu")"
	done | tee -a "$txt"
	# new/base round by round (the pair ran in the same round).
	for k in "" .cpu .ns; do
		for p in fast slow; do
			paste "$priv/all_new_$p$k" "$priv/all_base_$p$k" |
				awk '{print $1 / $2}' | median |
				xargs printf 'new/base %s %s: %.3f (median of the rounds)\n' \
					"$p" "${k:-.pps}"
		done
	done | tee -a "$txt"
	exit 0
fi

# FW=1: only the firewall's cost, side by side: the simulated fast path
# with the firewall on (the default) and --firewall off, through NAT and
# routed (--no-nat: every flow a tracked connection the fast path
# touches), the four alternating run by run; medians printed, then exit.
if [ "${FW:-0}" = 1 ]; then
	n=$runs; runs=1
	for tag in fw_on fw_off nonat_fw_on nonat_fw_off; do : > "$priv/all_$tag"; done
	for i in $(seq "$n"); do
		for tag in fw_on fw_off nonat_fw_on nonat_fw_off; do
			args=()
			case $tag in nonat*) args+=(--no-nat) ;; esac
			case $tag in *fw_off) args+=(--firewall off) ;; esac
			sim_run "$tag" "${args[@]}"
			cat "$priv/sim_$tag.pps" >> "$priv/all_$tag"
		done
	done
	for tag in fw_on fw_off nonat_fw_on nonat_fw_off; do
		printf '%-14s %s pps (median of %s: %s)\n' "$tag" \
			"$(median < "$priv/all_$tag")" "$n" \
			"$(paste -sd' ' "$priv/all_$tag")"
	done | tee "$out/cpe_bench_fw.txt"
	exit 0
fi
# PPPOE=1: the PPPoE WAN (--wan 1=pppoe) side by side with the plain
# Ethernet WAN, the simulated fast path, LAN -> WAN (the router puts
# every packet into the session), the two alternating run by run. The
# session comes over telemetry as pppd's hook would hand it over; the
# generator waits for it (gen.c). Cycles per packet of the busy loops
# (medians), their ratio, then exit.
if [ "${PPPOE:-0}" = 1 ]; then
	ctl=$top/usertools/ch39x-cpe-ctl
	bench_cpe_gen_pppoe "cbp$id"
	pppoe_run() {
		local p i
		: > "$priv/ctl.log"
		timeout $((secs + 60)) "$cpe" --file-prefix "cb_$id" \
			"${pargs[@]}" --duration "$secs" \
			> "$priv/sim.json" 2> "$priv/sim.err" &
		p=$!
		for i in $(seq 200); do
			timeout 10 "$ctl" -p "cb_$id" \
				/cpe/wan/pppoe,1,02:00:00:00:00:99,203.0.113.2,203.0.113.1 \
				>> "$priv/ctl.log" 2>&1 && break
			sleep 0.05
		done
		wait "$p" || { tail "$priv/sim.err"; return 1; }
		if [ "$(jget "$priv/sim.json" 'j["pppoe"]["sessions"]')" != 1 ]; then
			echo "cpe_bench: the session never reached the router:"
			tail -3 "$priv/ctl.log"
			return 1
		fi
		jget "$priv/sim.json" 'j["pppoe"]["tx_data"] / j["elapsed_s"]' >> "$priv/sim_pppoe.pps"
		jget "$priv/sim.json" 'j["clean_cycles_per_pkt"]' >> "$priv/sim_pppoe.cyc"
	}
	n=$runs; runs=1
	: > "$priv/sim_pppoe.pps"; : > "$priv/sim_pppoe.cyc"
	: > "$priv/all_plain.cyc"; : > "$priv/all_plain.pps"
	for i in $(seq "$n"); do
		sim_run plain
		jget "$priv/sim.json" 'j["clean_cycles_per_pkt"]' >> "$priv/all_plain.cyc"
		cat "$priv/sim_plain.pps" >> "$priv/all_plain.pps"
		pppoe_run
	done
	pc=$(median < "$priv/all_plain.cyc")
	qc=$(median < "$priv/sim_pppoe.cyc")
	{
		printf 'plain  %.1f cycles/packet, %.0f pps (medians of %s; cycles: %s)\n' \
			"$pc" "$(median < "$priv/all_plain.pps")" "$n" \
			"$(paste -sd' ' "$priv/all_plain.cyc")"
		printf 'pppoe  %.1f cycles/packet, %.0f pps (medians of %s; cycles: %s)\n' \
			"$qc" "$(median < "$priv/sim_pppoe.pps")" "$n" \
			"$(paste -sd' ' "$priv/sim_pppoe.cyc")"
		awk -v p="$pc" -v q="$qc" 'BEGIN {printf "pppoe/plain packets per cycle: %.2f (medians)\n", p / q}'
		# Round by round (the two ran next to each other): steadier
		# than the medians' ratio when the machine's load moves.
		paste "$priv/all_plain.cyc" "$priv/sim_pppoe.cyc" |
			awk '{print $1 / $2}' | median |
			awk '{printf "pppoe/plain packets per cycle, round by round: %.2f (median of the rounds)\n", $1}'
	} | tee "$out/cpe_bench_pppoe.txt"
	exit 0
fi
sim_run fast
sim_run slow --no-flow-cache

# --- 2. veth: kernel and ch39x-cpe, same generator ------------------------
setup_veth() {
	for n in "$g" "$r" "$s"; do ip netns del "$n" 2>/dev/null || true; ip netns add "$n"; done
	ip -n "$g" link add cg$id type veth peer name ca$id netns "$r"
	ip -n "$r" link add cb$id type veth peer name cs$id netns "$s"
	# ch39x-perf txonly sends 198.18.0.1 -> 198.19.0.1 to 02:00:00:00:00:02.
	ip -n "$r" link set ca$id address 02:00:00:00:00:02
	ip -n "$s" link set cs$id address 02:00:00:00:00:99
	ip -n "$g" link set cg$id up
	ip -n "$r" link set ca$id up
	ip -n "$r" link set cb$id up
	ip -n "$s" link set cs$id up
	# Threaded NAPI (needs GRO on a veth): the receive side's work runs in
	# a kthread of its own, measurable; the sink's too, so it is not
	# charged to the router.
	# veth hands a packet to NAPI only if the sender has no TSO (or the
	# receiver forwards UDP GRO): off on both senders.
	ip netns exec "$g" ethtool -K cg$id tso off >/dev/null
	ip netns exec "$r" ethtool -K cb$id tso off >/dev/null
	ip netns exec "$r" ethtool -K ca$id gro on >/dev/null
	ip netns exec "$r" sh -c "echo 1 > /sys/class/net/ca$id/threaded"
	ip netns exec "$s" ethtool -K cs$id gro on >/dev/null
	ip netns exec "$s" sh -c "echo 1 > /sys/class/net/cs$id/threaded"
}
napi_pid() { ps -eo pid=,comm= | awk -v n="napi/$1-" 'index($2, n) == 1 {print $1; exit}'; }
cpu_ns() { awk '{print $1}' "/proc/$1/schedstat"; }
sink_rx() { ip netns exec "$s" cat /sys/class/net/cs$id/statistics/rx_packets; }

gen() {
	timeout $((secs + 60)) ip netns exec "$g" "$perf" --no-huge --no-pci -m 512 \
		--file-prefix "cbg_$id" -l 1 --vdev net_af_packet0,iface=cg$id \
		-- --mode txonly --frame-size 64 --duration "$secs" --json \
		> "$priv/gen.json" 2> "$priv/gen.err" ||
		{ tail "$priv/gen.err"; return 1; }
}

kernel_run() {
	local i p0 p1 c0 c1 np
	: > "$priv/kernel.pps"; : > "$priv/kernel.ns"
	for i in $(seq "$runs"); do
		setup_veth
		ip -n "$r" addr add 198.18.0.254/24 dev ca$id
		ip -n "$r" addr add 198.19.0.254/24 dev cb$id
		ip -n "$r" neigh add 198.19.0.1 lladdr 02:00:00:00:00:99 dev cb$id
		ip netns exec "$r" sysctl -qw net.ipv4.ip_forward=1
		ip netns exec "$r" nft -f - <<-NFT
			table ip cpe_bench {
				chain post {
					type nat hook postrouting priority 100;
					oifname "cb$id" masquerade
				}
			}
		NFT
		np=$(napi_pid ca$id)
		p0=$(sink_rx); c0=$(cpu_ns "$np")
		gen
		p1=$(sink_rx); c1=$(cpu_ns "$np")
		echo "$(( (p1 - p0) / secs ))" >> "$priv/kernel.pps"
		awk -v c=$((c1 - c0)) -v p=$((p1 - p0)) 'BEGIN {printf "%.1f\n", c / p}' >> "$priv/kernel.ns"
	done
}

afp_run() {
	local tag=$1 i p0 p1 c0 c1 np cpid
	shift
	: > "$priv/afp_$tag.pps"; : > "$priv/afp_$tag.ns"
	for i in $(seq "$runs"); do
		setup_veth
		np=$(napi_pid ca$id)
		ip netns exec "$r" timeout $((secs + 60)) "$cpe" --no-huge \
			--no-pci -m 1024 --file-prefix "cbr_$id" -l 0 \
			--vdev net_af_packet0,iface=ca$id \
			--vdev net_af_packet1,iface=cb$id \
			-- --lan 0=198.18.0.254/24 --wan 1=198.19.0.254/24 \
			--neigh 198.19.0.1,02:00:00:00:00:99 \
			--duration $((secs + 4)) --json --idle poll "$@" \
			> "$priv/afp.json" 2> "$priv/afp.err" &
		cpid=$!
		sleep 2
		p0=$(sink_rx); c0=$(cpu_ns "$np")
		gen
		p1=$(sink_rx); c1=$(cpu_ns "$np")
		wait "$cpid" || { tail "$priv/afp.err"; return 1; }
		echo "$(( (p1 - p0) / secs ))" >> "$priv/afp_$tag.pps"
		# The router thread's busy-loop cost plus the kernel's delivery
		# to its af_packet ring (the NAPI thread), per packet.
		python3 - "$priv/afp.json" $((c1 - c0)) $((p1 - p0)) >> "$priv/afp_$tag.ns" <<-'PY'
			import json, sys
			j = json.load(open(sys.argv[1]))
			napi, pkts = int(sys.argv[2]), int(sys.argv[3])
			print("%.1f" % (j["clean_cycles_per_pkt"] * 1e9 / j["tsc_hz"] + napi / pkts))
		PY
	done
}

kernel_run
afp_run fast
afp_run slow --no-flow-cache

row() {
	local name=$1 f=$2 pps ns
	pps=$(median < "$priv/$f.pps")
	ns=$(printf '%.1f' "$(median < "$priv/$f.ns")")
	echo "$name,$(printf '%.0f' "$pps"),$ns,$(awk -v n="$ns" 'BEGIN {printf "%.0f", 1e9 / n}')"
}
{
	echo "config,forwarded_pps,ns_per_packet,pps_per_core"
	row sim_cpe_fast sim_fast
	row sim_cpe_slow sim_slow
	row veth_kernel_nat kernel
	row veth_cpe_fast afp_fast
	row veth_cpe_slow afp_slow
} > "$out/cpe_bench.csv"
echo "router cycles per packet (sim, median): fast $(median < "$priv/sim_fast.cyc")," \
	"slow $(median < "$priv/sim_slow.cyc")" | tee "$out/cpe_bench.txt"
column -s, -t < "$out/cpe_bench.csv" | tee -a "$out/cpe_bench.txt"
kpc=$(awk -F, '$1 == "veth_kernel_nat" {print $4}' "$out/cpe_bench.csv")
for c in sim_cpe_fast veth_cpe_fast; do
	v=$(awk -F, -v c=$c '$1 == c {print $4}' "$out/cpe_bench.csv")
	echo "$c / kernel, pps per core: $(awk -v a="$v" -v b="$kpc" 'BEGIN {printf "%.2f", a / b}')x" |
		tee -a "$out/cpe_bench.txt"
done
gnuplot <<GP
set terminal pngcairo size 900,450 noenhanced
set output "$out/cpe_bench.png"
set title "ch39x-cpe vs Linux kernel NAT, 64-byte UDP, one core (median of $runs x ${secs} s)"
set datafile separator ","
set style data histograms
set style fill solid 0.7
set ylabel "Mpps per core (1 / CPU time per packet)"
set yrange [0:*]
set xtics rotate by -20
set key off
plot "$out/cpe_bench.csv" using (\$4/1e6):xtic(1) every ::1
GP
echo "wrote $out/cpe_bench.csv $out/cpe_bench.png"
