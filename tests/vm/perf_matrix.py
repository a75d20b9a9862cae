#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""The guest RX matrix from tests/vm/perf.sh's per-sample lines.

Reads one or more perf.txt files (run.sh PERF=1 keeps one in each run
directory) and prints, per speed, size and driver, the gadget -> host
(the host side's RX) and host -> gadget frames/s as median (min-max) of
the reps, and for every driver but the kernel's own (net_ch39x,
net_af_packet, net_af_xdp) its ratios against the kernel driver
(cdc_ncm, cdc_ether) and against the kernel driver with a busy CPU 1
(kernel_spin): the ratio of the medians, and the median of the per-rep
ratios (the drivers take turns inside each rep, so a rep's samples are
the closest in time on a drifting host; perf.sh's "rep N order:" lines
name the rep, and the order alternates per rep unless PERF_ORDER=fixed).

    tests/vm/perf_matrix.py [--before PERF.csv] --csv OUT.csv \
        RUN/perf.txt [RUN2/perf.txt]

--before takes an earlier run's summary (perf.sh's perf.csv, e.g.
doc/perf/vm_compare_tuned.csv) and adds its gadget -> host median of the
same cell and driver, and that run's ratio of medians to the kernel
driver, as before_g2h_median and before_g2h_vs_kernel (empty where the
earlier run has no such cell).

The median of an even count is the lower middle one, as perf.sh's.
Not part of any default run.
"""

import argparse
import csv
import re
import sys

SAMPLE = re.compile(r"^(\S+) (\S+) (\S+) size=(\d+) gadget->host=(\d+) "
                    r"host->gadget=(\d+) frames/s \(CPU0/CPU1/testpmd %: "
                    r"(\d+)/(\d+)/(\d+), (\d+)/(\d+)/(\d+)\)")
REP = re.compile(r"^rep (\d+) order:")
KERNEL = {"ncm": "cdc_ncm", "ecm": "cdc_ether"}


def median(v):
    s = sorted(v)
    return s[(len(s) + 1) // 2 - 1] if s else 0


def load(paths):
    """{(speed, dev, size): {driver: {(file, rep): (g2h, h2g, cpu0, cpu1,
    tp)}}}; rep from the "rep N order:" lines, else the sample's rank
    (files written before perf.sh printed them)"""
    cells = {}
    for i, p in enumerate(paths):
        rep = None
        with open(p, encoding="utf-8") as f:
            for line in f:
                m = REP.match(line)
                if m:
                    rep = int(m.group(1))
                    continue
                m = SAMPLE.match(line)
                if not m:
                    continue
                speed, dev, drv, size = m.group(1, 2, 3, 4)
                vals = tuple(int(x) for x in m.groups()[4:])
                d = cells.setdefault((speed, dev, int(size)), {}) \
                         .setdefault(drv, {})
                r = rep if rep is not None else \
                    sum(1 for k in d if k[0] == i) + 1
                d[(i, r)] = vals
    return cells


def paired(a, b):
    """median of a[rep] / b[rep] over the reps both have"""
    return median([ratio(a[k][0], b[k][0]) for k in a if k in b])


def ratio(a, b):
    return a / b if b else 0.0


def load_before(path):
    """{(speed, dev, size, driver): gadget -> host median} of a perf.csv"""
    out = {}
    with open(path, encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r["dir"] == "g2h":
                out[(r["speed"], r["dev"], int(r["size"]),
                     r["driver"])] = int(r["median"])
    return out


def add_before(rows, before):
    for row in rows:
        key = (row["speed"], row["dev"], row["size"])
        b = before.get(key + (row["driver"],))
        k = before.get(key + (KERNEL.get(row["dev"], ""),))
        row["before_g2h_median"] = b if b is not None else ""
        row["before_g2h_vs_kernel"] = "%.2f" % ratio(b, k) \
            if b is not None and k and not row["driver"].startswith(
                KERNEL.get(row["dev"], "?")) else ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", help="write the table as CSV here too")
    ap.add_argument("--before", help="an earlier run's perf.csv")
    ap.add_argument("perf_txt", nargs="+")
    args = ap.parse_args()
    cells = load(args.perf_txt)
    if not cells:
        sys.exit("no samples in " + " ".join(args.perf_txt))
    rows = []
    for (speed, dev, size) in sorted(cells, key=lambda k: (k[0], k[1], k[2])):
        drv = cells[(speed, dev, size)]
        kd = KERNEL.get(dev, "")
        for name, sd in drv.items():
            s = list(sd.values())
            g = [x[0] for x in s]
            h = [x[1] for x in s]
            row = {
                "speed": speed, "dev": dev, "size": size, "driver": name,
                "n": len(s),
                "g2h_median": median(g), "g2h_min": min(g), "g2h_max": max(g),
                "h2g_median": median(h), "h2g_min": min(h), "h2g_max": max(h),
                "g2h_cpu0": median([x[2] for x in s]),
                "g2h_cpu1": median([x[3] for x in s]),
                "g2h_testpmd": median([x[4] for x in s]),
            }
            for ref, tag in ((kd, "kernel"), (kd + "+spin", "spin")):
                r = drv.get(ref)
                if name in (kd, kd + "+spin") or not r:
                    row["g2h_vs_" + tag] = row["g2h_vs_" + tag + "_paired"] = ""
                    continue
                row["g2h_vs_" + tag] = "%.2f" % ratio(
                    median(g), median([x[0] for x in r.values()]))
                row["g2h_vs_" + tag + "_paired"] = "%.2f" % paired(sd, r)
            rows.append(row)
    # The kernel's own cost of a busy CPU 1: kernel_spin / kernel, of the
    # medians and paired per rep.
    for row in rows:
        row["spin_vs_kernel"] = row["spin_vs_kernel_paired"] = ""
        if not row["driver"].endswith("+spin"):
            continue
        cell = cells[(row["speed"], row["dev"], row["size"])]
        k = cell.get(KERNEL.get(row["dev"], ""))
        if not k:
            continue
        row["spin_vs_kernel"] = "%.2f" % ratio(
            row["g2h_median"], median([x[0] for x in k.values()]))
        row["spin_vs_kernel_paired"] = "%.2f" % paired(cell[row["driver"]], k)
    cols = [c for c in rows[0] if not c.startswith("spin_vs")]
    cols += ["spin_vs_kernel", "spin_vs_kernel_paired"]
    if args.before:
        add_before(rows, load_before(args.before))
        cols += ["before_g2h_median", "before_g2h_vs_kernel"]
    w = csv.DictWriter(sys.stdout, fieldnames=cols, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    if args.csv:
        with open(args.csv, "w", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
