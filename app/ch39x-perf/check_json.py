#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""Check the --json output of one ch39x-perf run.

usage: check_json.py FILE --mode MODE (--usb | --no-usb)
                     [--efficiency PCT [--tolerance POINTS]] [--tso]
                     [--latency]

FILE holds the run's stdout, which must be exactly one JSON object. Prints
one "ok:"/"FAIL:" line per check and exits 1 when any failed.
"""

import argparse
import json
import math
import sys

REQUIRED = [
    "pps", "l1_mbps", "l2_mbps", "goodput_mbps", "efficiency_pct",
    "header_bytes_per_payload_byte", "usb_xfers_per_s", "frames_per_xfer",
    "usb_bytes_per_frame", "cycles_per_pkt_rx", "cycles_per_pkt_tx", "drops",
]
USB = ["usb_xfers_per_s", "frames_per_xfer", "usb_bytes_per_frame"]
# In increasing order: each at least the one before.
LATENCY = ["latency_us_min", "latency_us_p50", "latency_us_p90",
           "latency_us_p99", "latency_us_max"]


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) \
        and math.isfinite(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--mode", required=True,
                    choices=["txonly", "rxonly", "io", "tcp"])
    usb = ap.add_mutually_exclusive_group(required=True)
    usb.add_argument("--usb", dest="usb", action="store_true")
    usb.add_argument("--no-usb", dest="usb", action="store_false")
    ap.add_argument("--efficiency", type=float)
    ap.add_argument("--tolerance", type=float, default=0.2)
    ap.add_argument("--tso", action="store_true")
    ap.add_argument("--latency", action="store_true",
                    help="the run had --latency: figures must be present")
    a = ap.parse_args()

    fails = 0

    def check(cond, what):
        nonlocal fails
        print(("ok: " if cond else "FAIL: ") + what)
        if not cond:
            fails += 1

    text = open(a.file, encoding="utf-8").read()
    try:
        d = json.loads(text)
    except ValueError as e:
        print("FAIL: stdout is not one JSON object: %s\n--- stdout ---\n%s"
              % (e, text[:2000]))
        return 1
    check(isinstance(d, dict), "stdout is one JSON object")
    missing = [k for k in REQUIRED if k not in d]
    check(not missing, "required fields present (missing: %s)"
          % (", ".join(missing) or "none"))
    if missing:
        return 1
    check(d.get("mode") == a.mode, "mode is %s (%s)" % (a.mode, d.get("mode")))
    check(number(d["pps"]) and d["pps"] > 0, "pps > 0 (%s)" % d["pps"])
    eff = d["efficiency_pct"]
    check(number(eff) and 0 < eff < 100,
          "0 < efficiency_pct < 100 (%s)" % eff)
    check(all(number(d[k]) and d[k] > 0 for k in
              ("l1_mbps", "l2_mbps", "goodput_mbps")) and
          d["l1_mbps"] > d["l2_mbps"] > d["goodput_mbps"],
          "l1_mbps > l2_mbps > goodput_mbps > 0 (%s, %s, %s)"
          % (d["l1_mbps"], d["l2_mbps"], d["goodput_mbps"]))
    if number(eff):
        # efficiency_pct = 100 * payload / wire; header bytes per payload
        # byte = (wire - payload) / payload = 100 / efficiency_pct - 1.
        h = d["header_bytes_per_payload_byte"]
        check(number(h) and abs(h - (100.0 / eff - 1)) < 1e-3,
              "header_bytes_per_payload_byte = 100/efficiency - 1 (%s)" % h)
        # The rates have 3 decimals: at low rates (a loaded machine)
        # their rounding alone moves the ratio by more than 0.01.
        g, l1 = d["goodput_mbps"], d["l1_mbps"]
        tol = 0.01 + eff * 0.0005 * (1 / g + 1 / l1)
        check(abs(g / l1 * 100 - eff) < tol,
              "goodput / L1 rate = efficiency (%.3f, within %.3f)"
              % (g / l1 * 100, tol))
    if a.efficiency is not None:
        check(number(eff) and abs(eff - a.efficiency) <= a.tolerance,
              "efficiency_pct %s within %s of %s"
              % (eff, a.tolerance, a.efficiency))
    check(isinstance(d["drops"], int) and d["drops"] >= 0,
          "drops is a count (%s)" % d["drops"])
    if a.mode != "txonly":
        check(number(d["cycles_per_pkt_rx"]) and d["cycles_per_pkt_rx"] > 0,
              "cycles_per_pkt_rx > 0 (%s)" % d["cycles_per_pkt_rx"])
    if a.mode != "rxonly":
        check(number(d["cycles_per_pkt_tx"]) and d["cycles_per_pkt_tx"] > 0,
              "cycles_per_pkt_tx > 0 (%s)" % d["cycles_per_pkt_tx"])
    own = ["cycles_per_pkt_rxtx", "sim_device_cycles",
           "sim_device_cycles_per_pkt", "pmd_own_cycles_per_pkt"]
    missing = [k for k in own if k not in d]
    check(not missing, "own-cost fields present (missing: %s)"
          % (", ".join(missing) or "none"))
    if not missing and d["sim_device_cycles"] is not None:
        # A simulated port: the device's share and the PMD's own cost
        # add up to both bursts' cycles (each rounded to 0.1).
        dev, pmd = d["sim_device_cycles_per_pkt"], d["pmd_own_cycles_per_pkt"]
        check(number(dev) and dev > 0 and number(pmd) and
              abs(dev + pmd - d["cycles_per_pkt_rxtx"]) < 0.25,
              "device + PMD-own cycles per packet = rx+tx (%s + %s = %s)"
              % (dev, pmd, d["cycles_per_pkt_rxtx"]))
    elif not missing:
        check(d["sim_device_cycles_per_pkt"] is None and
              d["pmd_own_cycles_per_pkt"] is None,
              "own-cost figures are null without sim_device_cycles")
    if a.usb:
        check(all(number(d[k]) and d[k] > 0 for k in USB),
              "USB figures present (%s)" % ", ".join(str(d[k]) for k in USB))
        check(number(d["frames_per_xfer"]) and d["frames_per_xfer"] >= 1,
              "frames_per_xfer >= 1 (%s)" % d["frames_per_xfer"])
    else:
        check(all(d[k] is None for k in USB),
              "USB figures are null for a PMD without USB xstats")
    lat = LATENCY + ["latency_us_mean", "latency_samples"]
    missing = [k for k in lat if k not in d]
    check(not missing, "latency fields present (missing: %s)"
          % (", ".join(missing) or "none"))
    if a.latency and not missing:
        n = d["latency_samples"]
        check(isinstance(n, int) and n > 0, "latency samples > 0 (%s)" % n)
        v = [d[k] for k in LATENCY]
        check(all(number(x) and x > 0 for x in v) and
              all(x <= y for x, y in zip(v, v[1:])),
              "0 < latency min <= p50 <= p90 <= p99 <= max (%s)"
              % ", ".join(str(x) for x in v))
        m = d["latency_us_mean"]
        check(number(m) and v[0] <= m <= v[-1],
              "latency min <= mean <= max (%s)" % m)
    elif not missing:
        check(all(d[k] is None for k in lat),
              "latency figures are null without --latency")
    if a.mode == "tcp":
        t = d.get("tcp") or {}
        check(t.get("segments_received", 0) > 0,
              "TCP segments received (%s)" % t.get("segments_received"))
        check(t.get("seq_gaps") == 0, "no TCP sequence gaps (%s)"
              % t.get("seq_gaps"))
        if a.tso:
            check(t.get("tso") is True and t.get("segments_per_mbuf", 0) > 0,
                  "TSO super-frames sent (%s segments each)"
                  % t.get("segments_per_mbuf"))
    print("%d checks failed" % fails if fails else "all checks passed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
