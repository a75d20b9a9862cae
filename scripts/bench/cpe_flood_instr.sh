#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# ch39x-cpe's instructions per flood packet, counted by valgrind's
# callgrind: what one packet of a random-source flood from the WAN costs
# the forwarding loop (doc/guides/cpe.rst, "Under a flood"), by flood and
# by configuration. Instructions, not cycles: a busy machine changes the
# cycles, not the count.
#
# The router runs under callgrind in a network namespace, its two
# simulated CH398s cabled to TAPs in a LAN host's and a WAN host's
# namespaces (as tests/cpe/cpe_flood.sh); the LAN host listens on the
# forwarded port (its kernel answers every SYN, as a real server's does,
# and those answers cross the router too). From the WAN host, hping3
# sends RATE packets a second for SECS seconds from random sources:
#   syn_fwd     TCP SYNs to the forwarded tcp/8080
#   udp_fwd     UDP to the forwarded udp/5000
#   syn_closed  TCP SYNs to the router's closed tcp/23
# against each configuration:
#   off         --synflood-protect off: every SYN of syn_fwd makes a
#               session and reaches the LAN host (the branch point's
#               behaviour: CPE=path/to/its/ch39x-cpe measures that one)
#   limit       --synflood-budget 0: the admission's limit only
#   default     the defaults: the limit, and the budget of 10000 SYNs a
#               second (under valgrind the router takes fewer: the
#               budget does not bite)
#   budget      --synflood-budget 100: most SYNs dropped on arrival
#   plain       no option (CPE=an older ch39x-cpe, without them)
# The count: instructions of the router's thread in cpe_flow_input()
# (all the work on received packets: the flow cache's lookup, the slow
# path, what it sends) over the packets the WAN port received; the
# replies that the LAN host's kernel sends back are in it (their cost is
# the flood's).
#
# Writes OUT/cpe_flood_instr.txt (the table, with the git revision).
# Usage: scripts/bench/cpe_flood_instr.sh [OUT]   (root; ~4 minutes)
#   SECS (default 6), RATE (default 2000), FLOODS, CONFIGS, CPE, PMD_SO,
#   KEEP (a directory to keep the profiles in)
set -euo pipefail
# shellcheck source=scripts/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"
out=${1:-$top/doc/perf}
secs=${SECS:-6}
rate=${RATE:-2000}
floods=${FLOODS:-syn_fwd udp_fwd syn_closed}
configs=${CONFIGS:-off limit default budget}
cpe=${CPE:-$build/app/ch39x-cpe/ch39x-cpe}
[ "$(id -u)" -eq 0 ] || { echo "cpe_flood_instr: needs root (netns)"; exit 1; }
bench_build "$cpe" "$so"
command -v valgrind >/dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
mkdir -p "$out"
bench_priv cpe-flood-instr
bench_copy_pmd
id=$$
rt=fi_rt_$id lan=fi_lan_$id wan=fi_wan_$id tl=fil$id tw=fiw$id
# shellcheck disable=SC2016 # expanded at exit
bench_at_exit 'for n in "$rt" "$lan" "$wan"; do ip netns del "$n" 2>/dev/null; done; true'
# shellcheck disable=SC2016 # expanded at exit
bench_at_exit 'rm -rf "${XDG_RUNTIME_DIR:-/var/run}/dpdk/fi_${id}_"*'
for n in "$rt" "$lan" "$wan"; do ip netns add "$n"; ip -n "$n" link set lo up; done
tool=$top/tests/cpe/cpe_fw_tool.py
jget() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }

# run CONFIG FLOOD: the router under callgrind with its options, the
# flood for SECS; the profile in $priv/CONFIG-FLOOD.out-01.
run() {
	local c=$1 f=$2 tag=$1-$2 pid i srv hp
	local -a opts=()
	case $c in
	off) opts=(--synflood-protect off) ;;
	limit) opts=(--synflood-budget 0) ;;
	budget) opts=(--synflood-budget 100) ;;
	esac
	rm -f "$priv/$tag".*
	timeout $((secs * 30 + 300)) ip netns exec "$rt" valgrind \
		--tool=callgrind --separate-threads=yes --fair-sched=yes \
		--callgrind-out-file="$priv/$tag.out" "$cpe" --no-huge --no-pci \
		-m 512 -l 0 --file-prefix "fi_${id}_$tag" -d "$priv/pmd.so" \
		--vdev "net_ch39x0,wire=tap:$tl" --vdev "net_ch39x1,wire=tap:$tw" \
		-- --lan 0=192.168.73.1/24 --wan 1=203.0.113.2/24 \
		--route default,203.0.113.1 --fw-forward tcp/8080=192.168.73.2 \
		--fw-forward udp/5000=192.168.73.2 --json "${opts[@]}" \
		> "$priv/$tag.json" 2> "$priv/$tag.err" &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		ip -n "$rt" link show "$tw" >/dev/null 2>&1 && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	ip -n "$rt" link set "$tl" netns "$lan"
	ip -n "$rt" link set "$tw" netns "$wan"
	ip -n "$lan" addr add 192.168.73.2/24 dev "$tl"
	ip -n "$lan" link set "$tl" up
	ip -n "$lan" route add default via 192.168.73.1
	ip -n "$wan" addr add 203.0.113.1/24 dev "$tw"
	ip -n "$wan" link set "$tw" up
	ip netns exec "$lan" timeout $((secs * 30 + 200)) python3 "$tool" \
		serve "$priv/srv.log" $((secs * 30 + 190)) tcp:8080 udp:5000 \
		>/dev/null 2>&1 &
	srv=$!
	# ARP both ways before the flood (valgrind's start-up takes seconds).
	for ((i = 0; i < 60; i++)); do
		ip netns exec "$wan" ping -c 1 -W 1 203.0.113.2 >/dev/null 2>&1 &&
			ip netns exec "$lan" ping -c 1 -W 1 192.168.73.1 \
				>/dev/null 2>&1 && break
	done
	case $f in
	syn_fwd) hp=(-S -p 8080) ;;
	udp_fwd) hp=(-2 -p 5000) ;;
	syn_closed) hp=(-S -p 23) ;;
	esac
	ip netns exec "$wan" timeout -s INT "$secs" hping3 -q \
		-i "u$((1000000 / rate))" --rand-source "${hp[@]}" 203.0.113.2 \
		>/dev/null 2>&1 || true
	kill -TERM "$pid"
	wait "$pid" || { echo "cpe_flood_instr: $tag: the router failed" >&2;
		grep -v '^==' "$priv/$tag.err" | tail -5 >&2; exit 1; }
	kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null || true
	echo "$tag: $(jget "$priv/$tag.json" 'j["ports"][1]["rx"]') WAN packets received, $(jget "$priv/$tag.json" 'j["nat"]["sessions"]') sessions" >&2
}

for f in $floods; do
	for c in $configs; do
		run "$c" "$f"
	done
done

# KEEP=DIR: the profiles kept there (callgrind_annotate them).
[ -z "${KEEP:-}" ] || cp "$priv"/*.out-01 "$KEEP"/
rev=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$top" diff --quiet HEAD -- app 2>/dev/null || rev=$rev+changes
when="$(date -u '+%F %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
PYTHONPATH=$top/scripts/bench \
python3 - "$priv" "$out" "$floods" "$configs" "$rev" "$when" "$rate" "$secs" \
	"$cpe" <<'PY'
import json, os, sys

from callgrind import parse

priv, out, floods, configs, rev, when, rate, secs, cpe = sys.argv[1:10]
name = "/" + os.path.basename(cpe)
rows = []
for f in floods.split():
    for c in configs.split():
        tag = "%s-%s" % (c, f)
        _, arcs, _ = parse("%s/%s.out-01" % (priv, tag))
        ir = sum(n for ((caller, callee), n) in arcs.items()
                 if callee[1] == "cpe_flow_input" and
                 (caller[0] or "").endswith(name))
        j = json.load(open("%s/%s.json" % (priv, tag)))
        rx = j["ports"][1]["rx"]
        rows.append((f, c, rx, j["nat"]["created"], ir / max(rx, 1)))
lines = ["ch39x-cpe: instructions per flood packet (callgrind), "
         "scripts/bench/cpe_flood_instr.sh",
         "revision %s, %s; hping3 %s packets/s for %s s, random sources"
         % (rev, when, rate, secs), "ch39x-cpe: %s" % cpe, "",
         "%-11s %-8s %10s %9s %14s" % ("flood", "config", "WAN rx",
                                       "sessions", "instr/packet")]
for r in rows:
    lines.append("%-11s %-8s %10d %9d %14.0f" % r)
open("%s/cpe_flood_instr.txt" % out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
