#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Instructions per forwarded packet, counted by valgrind's callgrind: the
# same run gives the same count whatever else the machine does, unlike
# cycles. dpdk-testpmd io-forwards between two ports (--tx-first starts
# the traffic; one forwarding lcore) for a short and a long run of each
# configuration; the difference of the two counts over the difference of
# the packets forwarded cancels start-up and shut-down. Configurations:
# net_ch39x pairs (wire=pair, sim_rate=unlimited) with vendor framing
# (sim=ch398), CDC-NCM (sim=ncm) and CDC-ECM (sim=ecm), against net_null
# and net_ring, each with FRAMES-byte frames (testpmd --txpkts; net_null
# size=); ch39x_zc, ch39x_ncm_zc and ch39x_ecm_zc are the same pairs with
# zero-copy RX (rx_copybreak=ZC_COPYBREAK, default 1024: frames that long
# or longer are attached to their transfer, not copied); ch39x_ncm_bigtx
# is the NCM pair with 63 KiB TX NTBs (xfer_size=64512 on a model whose
# dwNtbOutMaxSize is 65535: a burst of 32 frames of 1514 bytes in one NTB;
# the model's IN NTBs stay at its 16 KiB) and ch39x_ncm_big the same with
# a model whose dwNtbInMaxSize is 65535 too (sim_ntb_in_max; the PMD then
# asks for 64512-byte IN NTBs: a burst in one NTB each way), which show
# what the NTB's fill, not the frame, costs per packet. Every function's
# self count is put in one layer by its object and source file:
#   pmd    the PMD under test: drivers/net/ch39x and lib/ch39x (the
#          device model's files excepted), or librte_net_null /
#          librte_net_ring
#   model  lib/ch39x_sim: the simulated device, work real hardware does
#   dpdk   the other DPDK libraries (mempool, mbuf, ring, ethdev, EAL)
#   libc   libc (memcpy, memset, ...)
#   app    dpdk-testpmd's own loop
#   other  the rest (the dynamic loader, valgrind's preload)
# and the PMD's own cost, "own", is its code plus the DPDK and libc calls
# it makes (inclusive counts of those call arcs: mempool and mbuf, and
# the loader's __tls_get_addr for per-lcore data, in own_dpdk; memcpy
# and memset in own_libc). lib/ch39x serves the model too: a function
# there that the model calls is the model's in the share of its calls,
# and so, in turn, are the functions it calls (the NTB builder's helpers
# under the model's ch39x_ncm_tx_check(), say).
# Only the forwarding lcore's thread is counted (--separate-threads).
# The copy calibration: copy_calib (scripts/bench/copy_calib.c, built
# beside the PMD: the same compiler, flags and rte_memcpy()) under
# callgrind in the same run, what one copy of a FRAMES-byte frame costs
# (its two loops' difference over the copies, averaged over the 16
# alignments and both directions); "copy" is that times the copies a
# forwarded packet takes (ch39x: 2, the RX copy out of the transfer and
# the TX copy into the next, 1 with zero-copy RX of frames at least
# rx_copybreak long; net_null and net_ring copy no frame byte), and
# "work", own less copy, the PMD's per-packet work beside the copy;
# "copy_inline" (copy_made in the text), the copies as the run itself
# made them, and "work_made", own less copy_inline: the per-packet work
# beside the copies as made (the calibration averages 16 misalignments;
# a framing's real ones cost less or more: ECM's frames start their
# transfers). The copies as made are counted by instruction address
# (callgrind --dump-instr=yes): the instructions that the PMD's debug
# information puts in an inlined rte_memcpy() (its inline scope, at any
# depth, or a line of rte_memcpy.h), and the code that runs only inside
# one: the rest of a basic block entered only from the copy's
# instructions and leaving only into them (callgrind.inlined_addrs()).
# That last part is the point: the compiler hoists a long copy's loop
# set-up (its trip count and end pointer) out of the inlined body and
# files it under the caller's line and scope, which made ECM's
# 1514-byte copies look 6 instructions dearer than its 64-byte ones on
# "work" (both ECM call sites); counting by the copy's lines alone
# ("copy_lines", kept beside it) misses it. The same rule counts
# copy_calib's own copies, and the report prints both its counts, by
# the loops' difference and by address: equal, the rule finds the whole
# copy, and no more (there the set-up lands on rte_memcpy.h's lines).
# pmd_instr.txt opens with the table own = copy + work of all of them.
# Then own = copy_made + pkt_work + xfer_share of the ch39x ones: the
# bulk transfers per packet, TX and RX (tx_xfers, rx_xfers: the calls of
# the transport's submit op from ch39x_tx.c and ch39x_rx.c, counted in
# the run), and xfer_share, the work (beside the copies as made) of the
# instructions, by address, and of the DPDK/libc calls, by call arc,
# whose executions per packet grow from the smallest frame size to the
# largest as the transfers per packet do (callgrind.xfer_split());
# xfer_instr ("per_xfer"), that over the transfers per packet, worked
# out at each size on its own; pkt_work, the rest of work_made: what a
# packet costs beside its copies and its share of the transfers. Where
# the transfers per packet are the same at both sizes (ECM, a frame a
# transfer; ch39x_ncm_big, a burst an NTB) nothing tells the two apart:
# no share, pkt_work = work_made. tests/pmd_instr_guard.sh checks that
# pkt_work at 1514 B is no more than at 64 B (issue 44).
# Writes OUT/pmd_instr.csv (layers per configuration), OUT/pmd_instr_fn.csv
# (the TOP functions by self count per configuration) and
# OUT/pmd_instr.txt (both as tables, with the command and the PMD's git
# revision). About 20 s of valgrind per run, 20 runs by default.
# Usage: scripts/bench/pmd_instr.sh [OUT]
#   SHORT/LONG  seconds of forwarding of the two runs (default 3 and 12)
#   FRAMES      frame sizes (default "64 1514")
#   NULL_FRAMES frame sizes of net_null and net_ring (default FRAMES;
#               their count per packet does not depend on the size:
#               tests/pmd_instr_guard.sh runs them at 64 B only)
#   CONFIGS     configurations (default "ch39x ch39x_ncm ch39x_ecm
#               net_null net_ring")
#   TOP         functions listed per configuration (default 15)
#   PMD_REV     what the PMD was built from, for the report (default the
#               work tree's git revision, +changes when drivers/ or lib/
#               have uncommitted changes)
#   KEEP        a directory to keep the profiles in (callgrind_annotate
#               reads them), with each run's log
#   CALIB       the copy calibration program (default the build's
#               scripts/bench/copy_calib, PMD_SO's build's when
#               PMD_SO is given)
#   DUMP_INSTR  1 (default): testpmd's profiles by instruction, for the
#               copies counted by address; 0: by line only, the copies
#               as made then counted by rte_memcpy's lines (copy_inline
#               = copy_lines; the report says so), for a run that reads
#               only "own" (tests/pmd_instr_guard.sh: shorter, smaller
#               profiles)
#   FROM        a KEEP directory of an earlier run: no testpmd run, its
#               profiles and its PMD's copy are read again (the
#               calibration is run anew), for the report of a changed
#               accounting on the same counts
set -euo pipefail
# shellcheck source=scripts/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"
out=${1:-$top/doc/perf}
short=${SHORT:-3}
long=${LONG:-12}
frames=${FRAMES:-64 1514}
null_frames=${NULL_FRAMES:-$frames}
export NULL_FRAMES=$null_frames
configs=${CONFIGS:-ch39x ch39x_ncm ch39x_ecm net_null net_ring}
zc_copybreak=${ZC_COPYBREAK:-1024}
dump_instr=(--dump-instr=yes)
[ "${DUMP_INSTR:-1}" = 1 ] || dump_instr=(--dump-instr=no)
# The calibration of the PMD's own build: PMD_SO's build tree (an LTS
# build's, say) when PMD_SO is given.
if [ -n "${PMD_SO:-}" ] && [ -z "${CALIB:-}" ]; then
	calib=$(cd "$(dirname "$so")/../../.." && pwd)/scripts/bench/copy_calib
else
	calib=${CALIB:-$build/scripts/bench/copy_calib}
fi
bench_build "$so" "$calib"
command -v valgrind >/dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
mkdir -p "$out"
bench_priv instr
bench_copy_pmd
started=$(date -u '+%Y-%m-%d %H:%M')

# try CONFIG FRAME LABEL SECONDS: run, up to 3 times: a run fails when
# the system's PMD directory, which EAL loads every plugin of, changes
# under it (the install tests of a suite running beside this one).
try() {
	local _
	for _ in 1 2 3; do
		rm -f "$priv/$1-$2-$3".*
		! run "$@" || return 0
	done
	echo "pmd_instr: $1-$2-$3: no result in 3 runs" >&2
	exit 1
}

# run CONFIG FRAME LABEL SECONDS: one testpmd run under callgrind,
# forwarding for SECONDS; its profiles in $priv/CONFIG-FRAME-LABEL.out-NN
# (one per thread), its forwarded packets (testpmd's accumulated
# RX-packets) in .pkts.
run() {
	local c=$1 f=$2 s=$4 tag=$1-$2-$3 vdev pid i
	case $c in
	ch39x | ch39x_ncm | ch39x_ecm | ch39x_zc | ch39x_ncm_zc | ch39x_ecm_zc | \
	ch39x_ncm_bigtx | ch39x_ncm_big)
		local sim=${c#ch39x_} extra=
		sim=${sim%_zc}
		case $c in ch39x | ch39x_zc) sim=ch398 ;; esac
		case $c in *_zc) extra=,rx_copybreak=$zc_copybreak ;; esac
		case $c in ch39x_ncm_bigtx)
			sim=ncm extra=,sim_ntb_out_max=65535,xfer_size=64512 ;;
		ch39x_ncm_big)
			sim=ncm extra=,sim_ntb_out_max=65535,sim_ntb_in_max=65535
			extra=$extra,xfer_size=64512 ;;
		esac
		vdev=(-d "$priv/pmd.so"
			--vdev "net_ch39x0,sim=$sim,wire=pair:instr$$,sim_rate=unlimited$extra"
			--vdev "net_ch39x1,sim=$sim,wire=pair:instr$$,sim_rate=unlimited$extra") ;;
	net_null) vdev=(--vdev "net_null0,size=$f" --vdev "net_null1,size=$f") ;;
	net_ring) vdev=(--vdev net_ring0 --vdev net_ring1) ;;
	*) echo "pmd_instr: unknown configuration $c (ch39x, ch39x_ncm," \
		"ch39x_ecm, their _zc, ch39x_ncm_bigtx, ch39x_ncm_big, net_null," \
		"net_ring)" >&2; exit 1 ;;
	esac
	# testpmd forwards until its standard input gives a line: SECONDS
	# after it says it started (valgrind's start-up varies with the load;
	# stdbuf: its output to a file would wait in a buffer till the end).
	# One profile per thread: the forwarding lcore's is the one counted.
	rm -f "$priv/in"
	mkfifo "$priv/in"
	timeout 900 stdbuf -oL valgrind --tool=callgrind "${dump_instr[@]}" \
		--separate-threads=yes --callgrind-out-file="$priv/$tag.out" \
		"$testpmd" --no-huge --no-pci -m 512 -l 0,1 \
		--file-prefix "ch39x_instr_$$" "${vdev[@]}" -- \
		--forward-mode=io --tx-first --nb-cores=1 --txpkts="$f" \
		--total-num-mbufs=4096 < "$priv/in" > "$priv/$tag.log" 2>&1 &
	pid=$!
	exec 9> "$priv/in"
	for ((i = 0; i < 6000; i++)); do
		! grep -qs 'Press enter to exit' "$priv/$tag.log" || break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	sleep "$s"
	(echo >&9) 2>/dev/null || true
	exec 9>&-
	wait "$pid" || true
	awk '/Accumulated forward statistics/ {a = 1}
	     a && /RX-packets:/ {print $2; exit}' "$priv/$tag.log" \
		> "$priv/$tag.pkts"
	if [ ! -s "$priv/$tag.pkts" ] || [ ! -s "$priv/$tag.out-01" ]; then
		echo "pmd_instr: $tag: no result" >&2
		grep -v '^==' "$priv/$tag.log" | tail -5 >&2
		return 1
	fi
	echo "$tag: $(cat "$priv/$tag.pkts") packets in $s s" >&2
}

# The long run should forward at least twice the short one's packets: on
# a loaded machine valgrind may get little CPU, so it is run again, with
# twice and four times the time, until it does; the last is kept if it
# forwarded more than the short one at all (said).
# A long run that forwarded no more than the short one (the short one had
# the machine to itself, say) cannot be used: both are run again, up to
# three times.
if [ -n "${FROM:-}" ]; then
	# The runs of an earlier KEEP: its profiles and its PMD's copy.
	cp "$FROM"/*.out* "$FROM"/*.log "$FROM"/*.pkts "$FROM"/pmd.so "$priv"/
	rm -f "$priv"/calib-*
	started="$(cat "$FROM/started" 2>/dev/null || echo "$started"), profiles kept in $FROM, this report $started"
	configs_run=
else
	configs_run=$configs
fi
for c in $configs_run; do
	for f in $frames; do
		case $c in net_*)
			[[ " $null_frames " == *" $f "* ]] || continue ;;
		esac
		for attempt in 1 2 3; do
			try "$c" "$f" short "$short"
			for k in 1 2 4; do
				try "$c" "$f" long $((long * k))
				[ "$(cat "$priv/$c-$f-long.pkts")" -lt \
					$((2 * $(cat "$priv/$c-$f-short.pkts"))) ] ||
					break
				[ "$k" != 4 ] || echo "pmd_instr: $c-$f: the long" \
					"run forwarded less than twice the short" \
					"one's packets" >&2
			done
			[ "$(cat "$priv/$c-$f-long.pkts")" -le \
				"$(cat "$priv/$c-$f-short.pkts")" ] || break
			echo "pmd_instr: $c-$f: the long run forwarded no more" \
				"than the short one; both again ($attempt of 3)" >&2
		done
	done
done

# The copy calibration, one run per frame size.
for f in $frames; do
	timeout 300 valgrind --tool=callgrind --dump-instr=yes \
		--callgrind-out-file="$priv/calib-$f.out" "$calib" "$f" 3200 \
		> "$priv/calib-$f.log" 2> "$priv/calib-$f.err" || {
		echo "pmd_instr: copy_calib $f failed" >&2
		tail -5 "$priv/calib-$f.err" >&2
		exit 1
	}
done

if [ -n "${KEEP:-}" ]; then
	mkdir -p "$KEEP"
	cp "$priv"/*.out* "$priv"/*.log "$priv"/*.err "$priv"/*.pkts \
		"$priv"/pmd.so "$KEEP"/
	echo "$started" > "$KEEP/started"
fi

rev=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=
if git -C "$top" status --porcelain -- drivers lib 2>/dev/null | grep -q .; then
	dirty=+changes
fi
PYTHONPATH=$top/scripts/bench \
python3 - "$priv" "$out" "$short" "$long" "${TOP:-15}" "${PMD_REV:-$rev$dirty}" \
	"$frames" "$configs" "$zc_copybreak" "$started" \
	"$(date -u +%H:%M) UTC, 1-minute load at the end $(cut -d' ' -f1 /proc/loadavg)" \
	"$calib" <<'PY'
import collections, os, sys

from callgrind import inlined_addrs, parse, parse_fwd, xfer_split
from callgrind import xfers_per_packet
from callgrind import model_share as share_of_model

priv, out, short, long_, top, rev = sys.argv[1:7]
frames, configs = sys.argv[7].split(), sys.argv[8].split()
zc_copybreak = int(sys.argv[9])
started, ended = sys.argv[10:12]
top = int(top)


# The copy's code: what the debug information puts in an inlined
# rte_memcpy() (its inline scope, the lines of rte_memcpy.h), and the
# code that runs only inside one (callgrind.inlined_addrs()).
COPY_FN, COPY_FILES = r"^(rte_memcpy|rte_mov)", ("rte_memcpy.h",)
calib_prog = sys.argv[12]
calib_copy = inlined_addrs(calib_prog, COPY_FN, COPY_FILES)
calib_check = []


def copy_cost(fr):
    """Instructions of one copy of fr bytes: copy_calib's two loops; the
    aligned loops' too, and the copy's code counted by address in each,
    for the check that counting by address finds the whole copy."""
    # Inclusive counts of main's calls of the loops: the compiler may
    # have split a loop into parts (copy_loop.cold).
    ins = collections.Counter()
    arcs = parse(f"{priv}/calib-{fr}.out", None, ins)[1]
    by = collections.Counter()
    for (caller, callee), v in arcs.items():
        if caller[1] == "main":
            by[callee[1]] += v
    found = collections.Counter()
    for (ob, fn, addr), v in ins.items():
        if addr in calib_copy and ob.endswith("copy_calib"):
            found[fn.split(".")[0].split("'")[0]] += v
    # copy_calib's standard output: "LEN N" (valgrind's goes to .err).
    n = int(open(f"{priv}/calib-{fr}.log").read().split()[1])
    if by["copy_loop"] <= by["empty_loop"] or n <= 0:
        sys.exit(f"pmd_instr: copy_calib {fr}: no copy loop in its profile")
    mixed = (by["copy_loop"] - by["empty_loop"]) / n
    aligned = (by["copy_loop_aligned"] - by["empty_loop_aligned"]) / n
    calib_check.append(
        f"copy_calib {fr} B: a copy {mixed:.2f} (16 alignments), "
        f"{aligned:.2f} (aligned) by its loops' difference; "
        f"{found['copy_loop'] / n:.2f} and "
        f"{found['copy_loop_aligned'] / n:.2f} counted by address")
    return mixed


def copies(cfg, fr):
    """Frame copies per forwarded packet (see the script's comment)."""
    if not cfg.startswith("ch39x"):
        return 0
    if cfg.endswith("_zc") and int(fr) >= zc_copybreak:
        return 1
    return 2


calib = {fr: copy_cost(fr) for fr in frames}


def fwd(tag, inlined=None, instrs=None, calls=None):
    """The forwarding lcore's profile of run TAG (callgrind.parse_fwd())."""
    return parse_fwd(f"{priv}/{tag}", inlined, instrs, calls)


def is_copy_file(fi):
    """A line of the copy: rte_memcpy.h or the compiler's vector
    intrinsics it is made of."""
    base = (fi or "").rsplit("/", 1)[-1]
    return base == "rte_memcpy.h" or base.endswith("intrin.h") or \
        base == "arm_neon.h"


def layer(cfg, key, fnfile):
    ob, fn = key
    base = ob.rsplit("/", 1)[-1]
    fl = fnfile.get(key) or ""
    if cfg.startswith("ch39x"):
        if base == "pmd.so":
            return "model" if "ch39x_sim" in fl else "pmd"
    elif base.startswith("librte_" + cfg + ".so"):
        return "pmd"
    if base.startswith("librte_"):
        return "dpdk"
    if base.startswith("libc.so") or base.startswith("libc-"):
        return "libc"
    if "testpmd" in base:
        return "app"
    return "other"


def packets(tag):
    return int(open(f"{priv}/{tag}.pkts").read())


LAYERS = ["pmd", "model", "dpdk", "libc", "app", "other"]
rows, fnrows = [], []
xin = {}
by_lines = set()
pmd_copy = inlined_addrs(f"{priv}/pmd.so", COPY_FN, COPY_FILES) \
    if any(c.startswith("ch39x") for c in configs) and \
    os.environ.get("DUMP_INSTR", "1") == "1" else set()
for cfg in configs:
    for fr in frames:
        if cfg.startswith("net_") and \
                fr not in os.environ["NULL_FRAMES"].split():
            continue
        ia, ib = collections.Counter(), collections.Counter()
        sa, sb = collections.Counter(), collections.Counter()
        ca, cb = collections.Counter(), collections.Counter()
        a = fwd(f"{cfg}-{fr}-short", ia, sa, ca)
        b = fwd(f"{cfg}-{fr}-long", ib, sb, cb)
        files = {**a[2], **b[2]}
        dp = packets(f"{cfg}-{fr}-long") - packets(f"{cfg}-{fr}-short")
        if dp <= 0:
            sys.exit(f"pmd_instr: {cfg} {fr}: the long run forwarded no more "
                     "packets than the short one")
        # lib/ch39x serves the device model too (its checksum emulation
        # parses headers with ch39x_parse_hdrs, its NCM personality
        # builds and parses NTBs with ch39x_ncm.c): such a function's
        # self count and calls go to the model in the share of its
        # inclusive count that the model's calls into it make, the calls
        # of a function partly the model's counting in that part, down
        # the call graph (to a fixed point: the graph may have cycles).
        lay = {}
        for k in set(a[0]) | set(b[0]) | {c for arc in
                                          set(a[1]) | set(b[1]) for c in arc}:
            lay[k] = layer(cfg, k, files)
        arcw = {arc: b[1][arc] - a[1][arc] for arc in set(a[1]) | set(b[1])}
        model_share = share_of_model(arcw, lay)
        per = collections.Counter()
        fns = collections.Counter()
        for k in set(a[0]) | set(b[0]):
            d = (b[0][k] - a[0][k]) / dp
            m = model_share.get(k, 0.0)
            per["model"] += d * m
            per[lay[k]] += d * (1 - m)
            if m > 0:
                fns[k[0], k[1] + " (model's calls)", "model"] += d * m
            fns[k[0], k[1], lay[k]] += d * (1 - m)
        own = collections.Counter()
        for (caller, callee) in set(a[1]) | set(b[1]):
            if lay[caller] != "pmd":
                continue
            lc = lay[callee]
            if lc in ("dpdk", "libc", "other"):
                own["libc" if lc == "libc" else "dpdk"] += (1 - model_share.get(caller, 0.0)) * (
                    b[1][caller, callee] - a[1][caller, callee]) / dp
        total = sum(per.values())
        # The copies as the run made them: the PMD's instructions of its
        # inlined rte_memcpy() calls, counted by address (pmd_copy); and
        # as the line table has them (rte_memcpy.h's and the intrinsics'
        # lines), which misses what the compiler hoisted out of the
        # inlined body under the caller's line.
        made = sum(sb[k] - sa[k] for k in set(sa) | set(sb)
                   if k[2] in pmd_copy and lay.get(k[:2]) == "pmd" and
                   k[0].rsplit("/", 1)[-1] == "pmd.so") / dp
        inl = sum(ib[k] - ia[k] for k in set(ia) | set(ib)
                  if is_copy_file(k[2]) and lay.get(k[:2]) == "pmd") / dp
        if (not sa and not sb) or not pmd_copy:
            made = inl	# DUMP_INSTR=0: no address in the profiles
            if cfg.startswith("ch39x"):
                by_lines.add(cfg)
        # The PMD's work beside the copies as made, by instruction
        # address and by call arc into DPDK and libc, with how often each
        # ran (an address's count is its executions): for the per-transfer
        # share (callgrind.xfer_split()); and the transfers per packet.
        cost, rate = {}, {}
        for k in set(sa) | set(sb):
            if lay.get(k[:2]) != "pmd" or k[2] in pmd_copy:
                continue
            n = (sb[k] - sa[k]) / dp
            cost[k] = n * (1 - model_share.get(k[:2], 0.0))
            rate[k] = n
        for arc in set(a[1]) | set(b[1]):
            if lay[arc[0]] == "pmd" and \
                    lay[arc[1]] in ("dpdk", "libc", "other"):
                cost[arc] = (1 - model_share.get(arc[0], 0.0)) * (
                    b[1][arc] - a[1][arc]) / dp
                rate[arc] = (cb[arc] - ca[arc]) / dp
        xin[cfg, fr] = (cost, rate,
                        xfers_per_packet(ca, cb, lay, files, dp))
        rows.append([cfg, fr, per["pmd"] + own["dpdk"] + own["libc"],
                     per["pmd"], own["dpdk"], own["libc"]] +
                    [per[x] for x in LAYERS[1:]] + [total, dp, made, inl])
        for k, v in fns.most_common(top):
            name = k[1]
            if name.startswith("0x"):
                # A static function of a stripped library.
                name = k[0].rsplit("/", 1)[-1] + "+" + name
            fnrows.append([cfg, fr, name, k[2], v])

null = {r[1]: r[2] for r in rows if r[0] == "net_null"}

# own = copy as made + per-packet work + per-transfer share: the share is
# the work of the instructions (and DPDK/libc calls) whose executions
# per packet follow the transfers per packet from the smallest frame
# size to the largest (callgrind.xfer_split()), both counted in the run;
# per transfer, that over the transfers per packet. None where it cannot
# be told apart (the transfers per packet the same at both sizes, or
# profiles with no addresses: DUMP_INSTR=0).
xshare = {}
sizes = sorted(frames, key=int)
for cfg in configs:
    if len(sizes) < 2 or (cfg, sizes[0]) not in xin or \
            (cfg, sizes[-1]) not in xin:
        continue	# net_null at one size only (NULL_FRAMES)
    lo, hi = xin[cfg, sizes[0]], xin[cfg, sizes[-1]]
    if not lo[0] or not hi[0]:
        continue
    sp = xfer_split(lo, hi)
    if sp is not None:
        xshare[cfg, sizes[0]], xshare[cfg, sizes[-1]] = sp


def xcols(r):
    """tx_xfers, rx_xfers, xfer_share, xfer_instr, pkt_work of row r."""
    tx, rx = xin[r[0], r[1]][2] if (r[0], r[1]) in xin else (0.0, 0.0)
    sh = xshare.get((r[0], r[1]))
    work = r[2] - r[13]
    if sh is None:
        return tx, rx, None, None, work
    return tx, rx, sh, sh / (tx + rx) if tx + rx else None, work - sh


def fmt(v, spec):
    return "" if v is None else format(v, spec)


head = ["config", "frame", "own", "pmd_code", "own_dpdk", "own_libc",
        "model", "dpdk", "libc", "app", "other", "total",
        "own_per_net_null", "packets", "copy_calib", "copies", "copy",
        "work", "copy_inline", "work_made", "copy_lines", "tx_xfers",
        "rx_xfers", "xfer_share", "xfer_instr", "pkt_work"]
with open(f"{out}/pmd_instr.csv", "w") as f:
    f.write(",".join(head) + "\n")
    for r in rows:
        ratio = r[2] / null[r[1]] if null.get(r[1]) else float("nan")
        k = copies(r[0], r[1])
        cp = k * calib[r[1]]
        tx, rx, sh, per, pw = xcols(r)
        f.write(",".join([r[0], r[1]] + [f"{x:.1f}" for x in r[2:12]] +
                         [f"{ratio:.2f}", str(r[12]),
                          f"{calib[r[1]]:.1f}", str(k), f"{cp:.1f}",
                          f"{r[2] - cp:.1f}", f"{r[13]:.1f}",
                          f"{r[2] - r[13]:.1f}", f"{r[14]:.1f}",
                          f"{tx:.4f}", f"{rx:.4f}", fmt(sh, ".1f"),
                          fmt(per, ".1f"), f"{pw:.1f}"]) + "\n")
with open(f"{out}/pmd_instr_fn.csv", "w") as f:
    f.write("config,frame,function,layer,instr_per_packet\n")
    for r in fnrows:
        f.write(f"{r[0]},{r[1]},{r[2]},{r[3]},{r[4]:.1f}\n")


with open(f"{out}/pmd_instr.txt", "w") as f:
    f.write(f"command: CONFIGS=\"{' '.join(configs)}\" "
            f"FRAMES=\"{' '.join(frames)}\" "
            + ("" if os.environ["NULL_FRAMES"].split() == frames else
               f"NULL_FRAMES=\"{os.environ['NULL_FRAMES']}\" ") +
            f"SHORT={short} LONG={long_} "
            f"ZC_COPYBREAK={zc_copybreak} scripts/bench/pmd_instr.sh OUT\n"
            f"run {started}-{ended}\n")
    f.write(f"PMD git {rev}; runs of {short} s and {long_} s (or 2x, 4x)"
            "\n\n")
    # own = copy + work per configuration and frame, instructions per
    # forwarded packet: the copy by the calibration and as made.
    f.write("own = copy + work (instructions per forwarded packet; copy: "
            "copy_calib x copies | as made, by address | as made, by "
            "rte_memcpy's lines)\n")
    f.write(f"{'config':14} {'frame':>5} {'own':>7} {'copy':>7} {'work':>7}"
            f" {'copy_made':>9} {'work_made':>9}"
            f" {'copy_lines':>10} {'work_lines':>10}\n")
    for r in rows:
        cp = copies(r[0], r[1]) * calib[r[1]]
        f.write(f"{r[0]:14} {r[1]:>5} {r[2]:7.1f} {cp:7.1f} "
                f"{r[2] - cp:7.1f} {r[13]:9.1f} {r[2] - r[13]:9.1f}"
                f" {r[14]:10.1f} {r[2] - r[14]:10.1f}\n")
    f.write("\n" + "\n".join(calib_check) + "\n")
    f.write("\nown = copy_made + pkt_work + xfer_share (instructions per "
            "forwarded packet): xfer_share = xfers x per_xfer, the work\n"
            "of the instructions and calls whose executions per packet "
            "follow the bulk transfers per packet (xfers, TX + RX,\n"
            "the submissions counted in the run) from "
            f"{sizes[0] if sizes else '-'} B to "
            f"{sizes[-1] if sizes else '-'} B; pkt_work the rest of "
            "work_made ('-': the transfers per packet the same at\n"
            "both sizes, nothing tells a transfer's work from a "
            "packet's: pkt_work = work_made)\n")
    f.write(f"{'config':14} {'frame':>5} {'own':>7} {'copy_made':>9}"
            f" {'pkt_work':>8} {'xfer_share':>10} {'tx_xfers':>8}"
            f" {'rx_xfers':>8} {'per_xfer':>8}\n")
    for r in rows:
        if not r[0].startswith("ch39x"):
            continue
        tx, rx, sh, per, pw = xcols(r)
        f.write(f"{r[0]:14} {r[1]:>5} {r[2]:7.1f} {r[13]:9.1f} {pw:8.1f}"
                f" {fmt(sh, '.1f') or '-':>10} {tx:8.4f} {rx:8.4f}"
                f" {fmt(per, '.1f') or '-':>8}\n")
    if by_lines:
        f.write("copy_made of " + " ".join(sorted(by_lines)) + " by lines "
                "(DUMP_INSTR=0: no addresses in the profiles)\n")
    f.write("\n")
    f.write(open(f"{out}/pmd_instr.csv").read().replace(",", " ") + "\n")
    cur = None
    for r in fnrows:
        if (r[0], r[1]) != cur:
            cur = (r[0], r[1])
            f.write(f"\n{r[0]} {r[1]} B:\n")
        f.write(f"  {r[4]:8.1f}  {r[3]:5}  {r[2]}\n")
print(open(f"{out}/pmd_instr.txt").read())
PY

# OUT/pmd_instr.png (PLOT=0: none): the PMD's own count per packet of each
# configuration and frame size, split into the frame copies as the run
# made them (copy_inline: rte_memcpy's cost depends on the alignments,
# which differ between framings: ECM's frames start their transfers) and
# the rest, net_null's own beside them; the calibration's copies as a
# point for comparison.
[ "${PLOT:-1}" = 1 ] || exit 0
bench_gnuplot
awk -F, 'NR > 1 { printf "%s_%s %s %s %s\n", $1, $2, $3 - $19, $19, $17 }' \
	"$out/pmd_instr.csv" > "$priv/plot.dat"
gnuplot <<GP
set terminal pngcairo size 1000,450 noenhanced
set output "$out/pmd_instr.png"
set title "Instructions per forwarded packet, the PMD's own (callgrind; $(grep -m1 "^PMD git" "$out/pmd_instr.txt" | cut -d";" -f1), $(grep -m1 "^run " "$out/pmd_instr.txt"))" font ",9"
set style data histograms
set style histogram rowstacked
set style fill solid 0.7 border -1
set boxwidth 0.7
set ylabel "instructions per packet"
set key top right font ",9"
set xtics rotate by -30 font ",8"
set bmargin 6
set grid ytics
plot "$priv/plot.dat" using 2:xtic(1) title "the rest (own - copy_inline)", \
	'' using 3 title "frame copies as made (copy_inline)", \
	'' using 0:4 with points pt 7 ps 1 lc rgb "black" \
		title "copy_calib x copies"
GP
echo "wrote $out/pmd_instr.png"
