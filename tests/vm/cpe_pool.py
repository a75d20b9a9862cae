#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""Pool the samples of several CPE runs (tests/vm/cpe.sh's cpe.csv).

    python3 tests/vm/cpe_pool.py OUT.csv RUN1/cpe.csv RUN2/cpe.csv ...

Writes every sample to OUT.csv (reps renumbered: the second run's rep 1
follows the first run's last) and OUT_summary.csv, and prints one line per
load. Each rep runs both routers, one after the other, so within a rep the
host's load drifts least: the paired ratio (ch39x-cpe's figure over
Linux's in the same rep) is the comparison, with how many reps came out
below 1, and the same ratio per frame/s forwarded (where the two carry
different rates: at saturation). "busy" is the whole guest's busy CPU: the same traffic, gadgets,
bus and hosts with either router, so the difference is the router's;
"router" subtracts the generators' process time, which tick accounting
charges with whatever softirq interrupted them (doc/guides/cpe.rst).
Every load of the samples (fixed-rate UDP udp60-R too), each ch39x-cpe
mode (router name) against Linux on its own.
"""

import csv
import statistics
import sys

def quartiles(v):
    v = sorted(v)
    return statistics.median(v), v[len(v) // 4], v[(3 * len(v)) // 4]


def pool(paths):
    rows, base = [], 0
    for p in paths:
        with open(p, newline="") as f:
            run = list(csv.DictReader(f))
        for r in run:
            r["rep"] = str(int(r["rep"]) + base)
        base = max([int(r["rep"]) for r in run] + [base])
        rows += run
    return rows


def per_frame(r):
    """The guest's busy CPU per 1000 frames/s forwarded (None when idle)."""
    pps = float(r["pps"])
    return float(r["cpu_busy"]) * 1000 / pps if pps > 0 else None


def paired(rows, load, col, who):
    def val(r):
        return per_frame(r) if col == "per_kpps" else float(r[col])
    lin = {r["rep"]: val(r) for r in rows
           if r["load"] == load and r["router"] == "linux"}
    cpe = {r["rep"]: val(r) for r in rows
           if r["load"] == load and r["router"] == who}
    return [cpe[k] / lin[k] for k in cpe
            if k in lin and lin[k] and cpe[k] is not None]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, rows = sys.argv[1], pool(sys.argv[2:])
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    summ = out[:-4] + "_summary.csv" if out.endswith(".csv") else out + ".summary"
    cols = ["cpu_busy", "cpu_router", "cpu_cpe_proc", "pps"]
    with open(summ, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["load", "router", "n"] +
                   [c + s for c in cols for s in ("", "_q1", "_q3")] +
                   ["busy_ratio", "busy_ratio_q1", "busy_ratio_q3",
                    "busy_below", "per_kpps_ratio", "per_kpps_ratio_q1",
                    "per_kpps_ratio_q3"])
        routers = ["linux"] + sorted({r["router"] for r in rows} - {"linux"})
        for load in dict.fromkeys(r["load"] for r in rows):
            for who in routers:
                sel = [r for r in rows if r["load"] == load and
                       r["router"] == who]
                if not sel:
                    continue
                rb = paired(rows, load, "cpu_busy", who)
                rf = paired(rows, load, "per_kpps", who)
                q = [x for c in cols
                     for x in quartiles([float(r[c]) for r in sel])]
                ratio = ["", "", "", "", "", "", ""]
                if who != "linux" and rb:
                    ratio = ["%.2f" % x for x in quartiles(rb)] + \
                        ["%d/%d" % (sum(x < 1 for x in rb), len(rb))] + \
                        (["%.2f" % x for x in quartiles(rf)] if rf else
                         ["", "", ""])
                w.writerow([load, who, len(sel)] +
                           ["%.1f" % x for x in q] + ratio)
                if who != "linux":
                    report(load, who, rb, rf)


def report(load, who, rb, rf):
    if rb:
        m, q1, q3 = quartiles(rb)
        print("%s: guest busy, %s / linux in each rep: median %.2f "
              "(quartiles %.2f-%.2f), below 1 in %d of %d" %
              (load, who, m, q1, q3, sum(x < 1 for x in rb), len(rb)))
    if rf:
        m, q1, q3 = quartiles(rf)
        print("%s: guest busy per frame/s, %s / linux in each rep: median "
              "%.2f (quartiles %.2f-%.2f)" % (load, who, m, q1, q3))


if __name__ == "__main__":
    main()
