#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""The check of the instruction guards (tests/pmd_instr_guard.sh,
tests/cpe/cpe_instr_guard.sh): in a CSV that an instruction benchmark
wrote (scripts/bench/pmd_instr.sh, scripts/bench/cpe_instr.sh), the
COLUMN of row NUM over that of row DEN at most LIMIT. A row that is
missing, or has no packets or no count, is a failure, not a pass. On a
failure the benchmark's report (TXT) follows, to read what grew.

Usage: instr_ratio.py CSV TXT COLUMN NUM DEN LIMIT WHAT
  NUM, DEN  a configuration (its first row) or CONFIG@FRAME (its row
            of that frame size, in a CSV with a frame column)
  WHAT      what the ratio is, for the ok/FAIL line"""
import csv
import sys


def main(argv):
    if len(argv) != 8:
        sys.exit(__doc__)
    path, txt, col, num, den, limit, what = argv[1:]
    limit = float(limit)
    rows = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            rows.setdefault(r["config"], r)
            if r.get("frame"):
                rows["%s@%s" % (r["config"], r["frame"])] = r
    ok = True
    for c in (num, den):
        r = rows.get(c)
        if r is None or int(r["packets"]) <= 0 or not r[col] or \
                float(r[col]) <= 0:
            print("FAIL: no instruction count for %s" % c)
            ok = False
    if not ok:
        return 1
    q, p = float(rows[num][col]), float(rows[den][col])
    line = ("%s: %s %.1f, %s %.1f: %.3fx (at most %.2fx)" %
            (what, num, q, den, p, q / p, limit))
    if q / p <= limit:
        print("ok: " + line)
        return 0
    print("FAIL: " + line)
    with open(txt) as f:
        print(f.read())
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
