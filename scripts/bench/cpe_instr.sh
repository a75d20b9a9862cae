#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# ch39x-cpe's instructions per forwarded packet, counted by valgrind's
# callgrind: a PPPoE WAN against a plain Ethernet WAN. Instructions, not
# TSC cycles (PPPOE=1 scripts/bench/cpe_bench.sh): the count of a run
# does not move with the machine's load, the cycles' ratio did (0.81 to
# 1.09, doc/perf/cpe_bench_pppoe.txt).
#
# The configurations are cpe_bench.sh's PPPOE=1 pair: --bench-gen's 256
# UDP flows of 64-byte frames, LAN -> WAN, four simulated CH398s at
# sim_rate=unlimited (bench_cpe_gen), the WAN
#   plain  --wan 1=203.0.113.2/24, a route and neighbour to the next hop
#   pppoe  --wan 1=pppoe with --tap, the session handed over by telemetry
#          as pppd's hook would (/cpe/wan/pppoe, the generator waits for
#          it); the TAP in a network namespace of this script's own,
#          without IPv6 (nothing of Linux's on the WAN during the count)
# Each runs under callgrind for SHORT and for LONG seconds (--fair-sched=
# yes: the router's thread yields valgrind's lock at every system call,
# its TAP's reads too, and would otherwise wait behind the generator's
# busy loop for most of the run). Only the router's thread (the main
# lcore: the forwarding loop) is counted, and in it only the work on the
# packets received, so that neither the clock nor the scheduling moves
# the count (under valgrind a loop is slow: the aging passes every ms and
# the empty polls would count time, not packets):
#   flow    cpe_flow_input(), its slow path left out: the flow cache,
#           NAT, cpe_tx() with PPPoE's encapsulation
#   pmd_tx  the PMD's TX bursts (cpe_tx_flush()), less the simulated
#           device model's part (lib/ch39x_sim: the adapter's work)
# per packet of the difference of the two runs: fast-path hits only, the
# flows' first packets (256 misses) being in both. RX bursts are left
# out: the same LAN frames in both configurations, and their empty polls
# count loops, not packets. So the ratio is of the router's own work,
# stricter than one of the whole thread's (which the RX's share would
# bring nearer 1).
#
# SLOW=1 counts the slow path instead: the same two configurations with
# --no-flow-cache, every packet routed, NATed and resolved; "flow" is then
# cpe_slow_input() as the loop calls it, and the files are
# OUT/cpe_instr_slow.csv and .txt.
#
# Writes OUT/cpe_instr.csv (per configuration), OUT/cpe_instr.txt (the
# table, the ratio pppoe/plain, cpe_flow_input()'s callees per packet in
# both, with the git revision). About 1 minute on 2 cores.
# Usage: scripts/bench/cpe_instr.sh [OUT]
#   SHORT/LONG  seconds of forwarding of the two runs (default 2 and 6;
#               the short one again at 2x, 4x if it did not see all 256
#               flows, the long one if it got no 2000 packets more than
#               the short one; a run that fails, up to 3 times)
#   TOP         callees listed (default 12)
#   KEEP        1: the runs' callgrind profiles and JSON kept in
#               OUT/cpe_instr_runs
#   CPE, PMD_SO ch39x-cpe and the PMD (default the build's)
set -euo pipefail
# shellcheck source=scripts/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"
out=${1:-$top/doc/perf}
short=${SHORT:-2}
long=${LONG:-6}
slow=${SLOW:-0}
cpe=${CPE:-$build/app/ch39x-cpe/ch39x-cpe}
ctl=$top/usertools/ch39x-cpe-ctl
[ "$(id -u)" -eq 0 ] || { echo "cpe_instr: needs root (netns)"; exit 1; }
bench_build "$cpe" "$so"
command -v valgrind >/dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
mkdir -p "$out"
bench_priv cpe-instr
bench_copy_pmd
id=$$
ns=ci_$id
# shellcheck disable=SC2016 # expanded at exit
bench_at_exit 'ip netns del "$ns" 2>/dev/null || true'
# EAL's run-time directories of the runs (their telemetry sockets).
# shellcheck disable=SC2016 # expanded at exit
bench_at_exit 'rm -rf "${XDG_RUNTIME_DIR:-/var/run}/dpdk/ci_${id}_"*'
ip netns add "$ns"
ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
	net.ipv6.conf.default.disable_ipv6=1
bench_cpe_gen "$id"

# cpe_bench.sh's PPPoE arguments (bench_lib.sh).
bench_cpe_gen_pppoe "cip$id"

jget() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }

# run CONFIG LABEL SECONDS: one router under callgrind, SECONDS of
# forwarding; its router thread's profile in $priv/CONFIG-LABEL.out-01,
# the exit JSON in .json.
run() {
	local c=$1 tag=$1-$2 s=$3 pid i
	local -a args=("${cpe_gen[@]}")
	[ "$c" = plain ] || args=("${pargs[@]}")
	[ "$slow" = 0 ] || args+=(--no-flow-cache)
	rm -f "$priv/$tag".*
	: > "$priv/$tag.ctl"
	# The main lcore is the process's first thread: out-01.
	timeout $((s * 20 + 300)) ip netns exec "$ns" valgrind \
		--tool=callgrind --separate-threads=yes --fair-sched=yes \
		--callgrind-out-file="$priv/$tag.out" "$cpe" \
		--file-prefix "ci_${id}_$tag" "${args[@]}" --duration "$s" \
		> "$priv/$tag.json" 2> "$priv/$tag.err" &
	pid=$!
	if [ "$c" = pppoe ]; then
		# Valgrind's start-up takes seconds: retried, bounded.
		for ((i = 0; i < 600; i++)); do
			timeout 10 "$ctl" -p "ci_${id}_$tag" \
				/cpe/wan/pppoe,1,02:00:00:00:00:99,203.0.113.2,203.0.113.1 \
				>> "$priv/$tag.ctl" 2>&1 && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
	fi
	if ! wait "$pid"; then
		echo "cpe_instr: $tag: the router failed" >&2
		grep -v '^==' "$priv/$tag.err" | tail -5 >&2
		return 1
	fi
	if [ "$c" = pppoe ] &&
	   [ "$(jget "$priv/$tag.json" 'j["pppoe"]["sessions"]')" != 1 ]; then
		echo "cpe_instr: $tag: the session never reached the router" >&2
		tail -3 "$priv/$tag.ctl" >&2
		return 1
	fi
	echo "$tag: $(jget "$priv/$tag.json" 'j["ports"][0]["rx"]') packets" \
		"received, $(jget "$priv/$tag.json" 'j["fast"]["hits"]') fast" \
		"path hits, $(jget "$priv/$tag.json" 'j["ports"][1]["tx"]') sent" \
		"in $s s" >&2
}

rx() { jget "$priv/$1.json" 'j["ports"][0]["rx"]'; }

# The long run must receive more (by 2000 packets at least) than the
# short one: the scheduling of a loaded machine gives the router a
# varying share of valgrind's time, so it is run again, twice and four
# times as long, until it does.
# try CONFIG LABEL SECONDS: run, up to 3 times: a run fails when the
# system's PMD directory, which EAL loads every plugin of, changes under
# it (the install tests of a suite running beside this one).
try() {
	local _
	for _ in 1 2 3; do
		! run "$@" || return 0
	done
	echo "cpe_instr: $1-$2: no result in 3 runs" >&2
	exit 1
}

for c in plain pppoe; do
	# The short run must have had every flow's first packet (a miss)
	# for the difference to be hits only: all 256 flows learnt.
	for k in 1 2 4; do
		try "$c" short $((short * k))
		# (The slow path: every flow's NAT session made.)
		[ "$(jget "$priv/$c-short.json" \
			"j['nat']['created'] if $slow else j['fast']['flows']")" \
			!= 256 ] || break
		[ "$k" != 4 ] || { echo "cpe_instr: $c: the short run did not" \
			"see every flow" >&2; exit 1; }
	done
	for k in 1 2 4; do
		try "$c" long $((long * k))
		[ "$(rx "$c-long")" -lt $(($(rx "$c-short") + 2000)) ] || break
		[ "$k" != 4 ] || { echo "cpe_instr: $c: the long run received" \
			"no more than the short one's packets and 2000" >&2; exit 1; }
	done
done

# KEEP=1: the runs' profiles and JSON kept in OUT/cpe_instr_runs.
if [ "${KEEP:-0}" = 1 ]; then
	mkdir -p "$out/cpe_instr_runs"
	cp "$priv"/*.out-01 "$priv"/*.json "$out/cpe_instr_runs/"
fi
rev=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$top" diff --quiet HEAD -- app 2>/dev/null || rev=$rev+changes
when="$(date -u '+%F %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
PYTHONPATH=$top/scripts/bench \
python3 - "$priv" "$out" "$short" "$long" "${TOP:-12}" "$rev" "$when" \
	"$slow" <<'PY'
import collections, json, sys

from callgrind import parse

priv, out, short, long_, top, rev, when, slow = sys.argv[1:9]
top = int(top)
slow = slow == "1"
entry = "cpe_slow_input" if slow else "cpe_flow_input"
name = "cpe_instr_slow" if slow else "cpe_instr"


def app(ob):
    return ob is not None and ob.endswith("/ch39x-cpe")


# The graph's source nodes: called every walk, with packets or not.
SOURCES = ("port_rx_process", "inject_process", "tap_in_process",
           "qos_tx_process")


def graph_work(arcs, fnfile):
    """The router as a graph of nodes (app/ch39x-cpe/datapath): the nodes
    walk() calls, but for the sources' polls (port_rx_got(): what
    port_rx does with a burst it received), less the PMD's TX bursts;
    the PMD's TX bursts less the device model's part. The kids: the
    counted functions, and the nodes' callees that cost most."""
    flow = txb = model = 0
    kids = collections.Counter()
    for ((caller, callee), c) in arcs.items():
        if not app(callee[0]) and callee[1] != "ch39x_tx_burst_vendor":
            pass
        elif (caller[1] == "walk" and callee[1].endswith("_process") and
              callee[1] not in SOURCES) or callee[1] == "port_rx_got":
            flow += c
            kids[callee[1]] += c
        if callee[1] == "ch39x_tx_burst_vendor" and app(caller[0]):
            txb += c
        if caller[1] == "ch39x_tx_burst_vendor" and \
           "ch39x_sim" in (fnfile.get(callee) or ""):
            model += c
    counted = set(kids)
    for ((caller, callee), c) in arcs.items():
        if caller[1] in counted and app(caller[0]):
            kids[f"{caller[1]} > {callee[1]}"] += c
    return (flow - txb, txb - model), kids


def work(arcs, fnfile):
    """cpe_flow_input() less its slow path; the PMD's TX bursts less the
    device model's part and less a burst cpe_tx() itself flushed (in
    the first already)."""
    flow = sub = txb = model = inner = 0
    for ((caller, callee), c) in arcs.items():
        if callee[1] == entry and app(caller[0]) and \
           caller[1] != "cpe_flow_input":
            flow += c
        if not slow and caller[1] == "cpe_flow_input" and callee[1] in (
                "cpe_slow_input", "cpe_flow6_fast"):
            sub += c
        if callee[1] == "ch39x_tx_burst_vendor" and app(caller[0]):
            txb += c
            if caller[1] == "cpe_tx":
                inner += c
        if caller[1] == "ch39x_tx_burst_vendor" and \
           "ch39x_sim" in (fnfile.get(callee) or ""):
            model += c
    return flow - sub, txb - inner - model


def children(arcs, fn):
    out = collections.Counter()
    for ((caller, callee), c) in arcs.items():
        if caller[1] == fn:
            out[callee[1]] += c
    return out


def run(tag):
    """Packets received and sent, fast-path hits, the work's counts and
    cpe_flow_input()'s callees of one run."""
    j = json.load(open(f"{priv}/{tag}.json"))
    rx, sent = j["ports"][0]["rx"], j["ports"][1]["tx"]
    if sent < rx - 64:
        sys.exit(f"cpe_instr: {tag}: {rx} packets received, {sent} sent")
    _, arcs, files = parse(f"{priv}/{tag}.out-01")
    if any(callee[1] == "port_rx_got" for (_, callee) in arcs):
        global entry
        entry = "the graph's nodes"
        w, k = graph_work(arcs, files)
    else:
        w, k = work(arcs, files), children(arcs, entry)
    return (rx, sent, j["slow_pkts"] if slow else j["fast"]["hits"], w, k)


rows, kids = {}, {}
for cfg in ("plain", "pppoe"):
    a, b = run(f"{cfg}-short"), run(f"{cfg}-long")
    drx, dsent, dhits = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    # Both runs had all the misses (the flows' first packets): the
    # difference is fast-path hits only (SLOW=1: slow-path packets only).
    if drx != dhits or drx < 1000:
        sys.exit(f"cpe_instr: {cfg}: {drx} more packets, {dhits} more "
                 f"{'slow-path packets' if slow else 'hits'}")
    rows[cfg] = {"flow": (b[3][0] - a[3][0]) / drx,
                 "pmd_tx": (b[3][1] - a[3][1]) / dsent, "packets": drx}
    rows[cfg]["total"] = rows[cfg]["flow"] + rows[cfg]["pmd_tx"]
    kids[cfg] = {n: (b[4][n] - a[4][n]) / drx for n in set(a[4]) | set(b[4])}

ratio = rows["pppoe"]["total"] / rows["plain"]["total"]
cols = ["flow", "pmd_tx", "total"]
with open(f"{out}/{name}.csv", "w") as f:
    f.write("config," + ",".join(cols) + ",packets\n")
    for cfg in ("plain", "pppoe"):
        r = rows[cfg]
        f.write(cfg + "," + ",".join(f"{r[c]:.1f}" for c in cols) +
                f",{r['packets']}\n")
with open(f"{out}/{name}.txt", "w") as f:
    f.write(f"ch39x-cpe git {rev}; the router's instructions per packet "
            f"(flow: {entry}; pmd_tx: the PMD's TX bursts less the "
            f"device model's part), per packet of the difference of "
            f"runs of {short} s and {long_} s (or 2x, 4x): "
            f"{'slow-path packets (--no-flow-cache)' if slow else 'fast-path hits'}; "
            f"{when}\n\n")
    f.write(open(f"{out}/{name}.csv").read().replace(",", " "))
    f.write(f"\npppoe/plain instructions per packet: {ratio:.3f} "
            f"(packets per instruction, pppoe/plain: {1 / ratio:.3f})\n")
    f.write(f"\n{entry}'s callees, inclusive per packet "
            "(plain, pppoe, difference):\n")
    names = set(kids["plain"]) | set(kids["pppoe"])
    for n in sorted(names, key=lambda n: -abs(kids["pppoe"].get(n, 0) -
                                               kids["plain"].get(n, 0)))[:top]:
        p, q = kids["plain"].get(n, 0), kids["pppoe"].get(n, 0)
        f.write(f"  {p:8.1f} {q:8.1f} {q - p:+8.1f}  {n}\n")
print(open(f"{out}/{name}.txt").read())
PY
