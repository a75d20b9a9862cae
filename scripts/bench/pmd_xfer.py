#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""Per-transfer cost of the PMD, function by function, from the profiles
that scripts/bench/pmd_instr.sh keeps (KEEP=DIR): where the per-packet
work beside the copy (work_made) of a framing differs between two frame
sizes, how much of it is each function's, and how many bulk transfers
per forwarded packet each size takes.

For each ch39x configuration and frame size it reads the forwarding
lcore's short and long profiles as pmd_instr.sh does (the difference
over the difference of the packets forwarded), and counts per forwarded
packet:
  tx_xfers, rx_xfers  the PMD's submissions of bulk OUT and bulk IN
                      transfers (calls of the transport's submit op,
                      sim_submit or lu_submit, from ch39x_tx.c and
                      ch39x_rx.c)
  per function        the PMD's work in it: its self count less the
                      copies as made (the instructions of its inlined
                      rte_memcpy() calls, by address, as pmd_instr.sh
                      counts them), plus the DPDK and libc calls it makes
                      (inclusive), in the PMD's share (a lib/ch39x
                      function that the device model calls too is the
                      model's in the share of its calls,
                      callgrind.model_share())
Then, for each function, the difference between the two frame sizes
and that difference per transfer more (the difference over the
difference of tx_xfers + rx_xfers): what a transfer costs in it. The
sum over the functions is work_made's difference (pmd_instr.txt), as
the functions' own counts add up to "own".

Usage: scripts/bench/pmd_xfer.py KEEPDIR [CONFIG ...]
  (default the ch39x configurations found in KEEPDIR; frames 64 and
  1514, FRAMES="A B" to change; MIN=0.05: functions whose counts at
  both sizes are smaller are summed in one row "(rest)")
"""
import collections
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callgrind import inlined_addrs, model_share, parse_fwd  # noqa: E402
from callgrind import xfers_per_packet  # noqa: E402


def layer(key, files):
    """pmd_instr.sh's layers, for the ch39x configurations."""
    ob = key[0].rsplit("/", 1)[-1]
    if ob == "pmd.so":
        return "model" if "ch39x_sim" in (files.get(key) or "") else "pmd"
    if ob.startswith("librte_"):
        return "dpdk"
    if ob.startswith(("libc.so", "libc-")):
        return "libc"
    return "app" if "testpmd" in ob else "other"


def per_packet(d, cfg, fr, copy_addrs):
    """{function: PMD work per packet}, tx_xfers, rx_xfers."""
    runs = []
    for lab in ("short", "long"):
        ins, calls = collections.Counter(), collections.Counter()
        selfc, arcs, files = parse_fwd(f"{d}/{cfg}-{fr}-{lab}", None, ins,
                                       calls)
        pk = int(open(f"{d}/{cfg}-{fr}-{lab}.pkts").read())
        runs.append((selfc, arcs, files, ins, calls, pk))
    (sa, aa, fa, ia, ca, pa), (sb, ab, fb, ib, cb, pb) = runs
    dp = pb - pa
    files = {**fa, **fb}
    keys = set(sa) | set(sb) | {k for arc in set(aa) | set(ab) for k in arc}
    lay = {k: layer(k, files) for k in keys}
    share = model_share({arc: ab[arc] - aa[arc]
                         for arc in set(aa) | set(ab)}, lay)
    work = collections.Counter()
    for k in set(sa) | set(sb):
        if lay[k] != "pmd":
            continue
        copy = sum(ib[i] - ia[i] for i in set(ia) | set(ib)
                   if i[:2] == k and i[2] in copy_addrs)
        work[k[1]] += (sb[k] - sa[k] - copy) * (1 - share.get(k, 0.0)) / dp
    for (caller, callee) in set(aa) | set(ab):
        if lay[caller] == "pmd" and lay[callee] in ("dpdk", "libc", "other"):
            w = (ab[caller, callee] - aa[caller, callee]) / dp
            work[caller[1]] += w * (1 - share.get(caller, 0.0))
    tx, rx = xfers_per_packet(ca, cb, lay, files, dp)
    return work, tx, rx


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    frames = os.environ.get("FRAMES", "64 1514").split()
    if len(frames) != 2:
        sys.exit("pmd_xfer: FRAMES: two frame sizes")
    minimum = float(os.environ.get("MIN", "0.05"))
    configs = sys.argv[2:] or sorted(
        {os.path.basename(p).split("-")[0]
         for p in glob.glob(f"{d}/ch39x*-{frames[0]}-long.pkts")})
    copy_addrs = inlined_addrs(f"{d}/pmd.so", r"^(rte_memcpy|rte_mov)",
                               ("rte_memcpy.h",))
    a, b = frames
    for cfg in configs:
        wa, txa, rxa = per_packet(d, cfg, a, copy_addrs)
        wb, txb, rxb = per_packet(d, cfg, b, copy_addrs)
        dx = (txb + rxb) - (txa + rxa)
        print(f"{cfg}: bulk transfers per forwarded packet: "
              f"{a} B tx {txa:.4f} rx {rxa:.4f} (1 per "
              f"{1 / (txa + rxa) if txa + rxa else 0:.1f}); "
              f"{b} B tx {txb:.4f} rx {rxb:.4f} (1 per "
              f"{1 / (txb + rxb) if txb + rxb else 0:.1f})")
        print(f"  {'function':34} {a + ' B':>8} {b + ' B':>8} "
              f"{'diff':>8} {'per xfer':>9}")
        rows, rest = [], [0.0, 0.0]
        for fn in set(wa) | set(wb):
            x, y = wa.get(fn, 0.0), wb.get(fn, 0.0)
            if abs(x) < minimum and abs(y) < minimum:
                rest[0] += x
                rest[1] += y
                continue
            rows.append((y - x, fn, x, y))
        rows.sort(key=lambda r: (-abs(r[0]), r[1]))
        rows.append((rest[1] - rest[0], "(rest)", rest[0], rest[1]))
        for diff, fn, x, y in rows:
            px = f"{diff / dx:9.1f}" if abs(dx) > 1e-9 else f"{'-':>9}"
            print(f"  {fn[:34]:34} {x:8.2f} {y:8.2f} {diff:+8.2f} {px}")
        ta, tb = sum(wa.values()), sum(wb.values())
        px = f"{(tb - ta) / dx:9.1f}" if abs(dx) > 1e-9 else f"{'-':>9}"
        print(f"  {'total (work_made)':34} {ta:8.2f} {tb:8.2f} "
              f"{tb - ta:+8.2f} {px}")
        print()


if __name__ == "__main__":
    main()
