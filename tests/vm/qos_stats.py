#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""The numbers of tests/vm/qos.sh (run in the guest, from the host root).

  qos_stats.py ping FILE        "sent received p50 p90 p99 mean" (ms) of
                                an iputils ping output ("- - - -" for no
                                reply); nearest-rank percentiles
  qos_stats.py iperf FILE FROM TO
                                the receiving side's goodput of each
                                stream of an iperf3 -J output over its
                                1 s intervals that lie within [FROM, TO]
                                seconds of the test: "total jain s1;s2;.."
                                in Mbit/s ("- - -" when there is none);
                                Jain's index (sum x)^2 / (n sum x^2)
  qos_stats.py app FILE         one line of ch39x-cpe's exit JSON: its qos
                                section's scalars and each class's (and
                                its qos_down section's, when on)
  qos_stats.py summary CSV RATE_BPS ROUTERS LOADS [DOWN]
                                medians (min-max) per router and load
"""

import json
import math
import re
import statistics
import sys


def pct(v, p):
    """Nearest-rank percentile of the sorted list v."""
    return v[max(0, math.ceil(p / 100.0 * len(v)) - 1)]


def ping(path):
    text = open(path, errors="replace").read()
    rtt = sorted(float(x) for x in re.findall(r"time=([0-9.]+) ms", text))
    m = re.search(r"(\d+) packets transmitted, (\d+) received", text)
    sent, recv = (m.group(1), m.group(2)) if m else ("0", str(len(rtt)))
    if not rtt:
        return "%s %s - - - -" % (sent, recv)
    return "%s %s %.2f %.2f %.2f %.2f" % (sent, recv, pct(rtt, 50),
                                         pct(rtt, 90), pct(rtt, 99),
                                         statistics.mean(rtt))


def load_json(path):
    """The first JSON object in the file (iperf3 may print more after)."""
    text = open(path, errors="replace").read()
    start = text.find("{")
    if start < 0:
        return None
    try:
        obj, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError:
        return None
    return obj


def jain(x):
    s2 = sum(v * v for v in x)
    return sum(x) ** 2 / (len(x) * s2) if s2 > 0 else 0.0


def iperf(path, t0, t1):
    j = load_json(path)
    if not j or "intervals" not in j:
        return "- - -"
    got = {}
    secs = {}
    for iv in j["intervals"]:
        for s in iv.get("streams", []):
            if s.get("sender", False):
                continue
            if s["start"] < t0 - 0.05 or s["end"] > t1 + 0.05:
                continue
            got[s["socket"]] = got.get(s["socket"], 0) + s["bytes"]
            secs[s["socket"]] = secs.get(s["socket"], 0) + s["seconds"]
    if not got:
        return "- - -"
    mbps = [got[k] * 8 / secs[k] / 1e6 if secs[k] > 0 else 0.0
            for k in sorted(got)]
    return "%.2f %.3f %s" % (sum(mbps), jain(mbps),
                             ";".join("%.2f" % v for v in mbps))


def app(path):
    j = load_json(path)
    if not j:
        return "no JSON"
    q = j.get("qos")
    if not isinstance(q, dict):
        return "no qos section"
    s = app_sched(q)
    d = j.get("qos_down")
    if isinstance(d, dict) and d.get("mode") != "off":
        s += " || downlink (qos_down): " + app_sched(d)
    return s


def app_sched(q):
    out = []
    for k, v in q.items():
        if isinstance(v, (int, float, str, bool)):
            out.append("%s %s" % (k, v))
    for c in q.get("classes", []):
        out.append("class " + ",".join(
            "%s=%s" % (k, v) for k, v in c.items()
            if isinstance(v, (int, float, str, bool))))
    return "; ".join(out)


def summary(path, rate_bps, routers, loads, down="off"):
    import csv
    rows = list(csv.DictReader(open(path)))
    cols = [("rtt_p50", "RTT p50 ms"), ("rtt_p90", "p90 ms"),
            ("rtt_p99", "p99 ms"), ("up_mbps", "up Mbit/s"),
            ("up_pct_rate", "up % of rate"), ("jain_up", "Jain up"),
            ("down_mbps", "down Mbit/s"), ("jain_down", "Jain down"),
            ("cpu_router", "router CPU %"), ("cpu_cpe_proc", "ch39x-cpe %")]
    print("# medians (min-max) over the reps; WAN egress shaped to %.1f "
          "Mbit/s; downlink shaped only by router fq's --down-rate (%s); "
          "RTT of the unmarked 20 ms ping "
          "LAN -> WAN host; up/down: the receivers' goodput over the ping's "
          "window; CPU in %% of one vCPU (router = guest busy - generators)"
          % (rate_bps / 1e6, down))
    for load in loads:
        for r in routers:
            sel = [x for x in rows if x["router"] == r and x["load"] == load]
            if not sel:
                print("%-5s %-5s n=0 (no sample)" % (load, r))
                continue
            parts = []
            for c, name in cols:
                v = sorted(float(x[c]) for x in sel
                           if x.get(c) not in (None, "", "-"))
                if not v:
                    continue
                if c == "cpu_cpe_proc" and not r.startswith(("fq", "fifo")):
                    continue
                if c.startswith(("down", "jain_down")) and load != "l2":
                    continue
                if c.startswith(("up", "jain_up")) and load == "idle":
                    continue
                med = v[(len(v) - 1) // 2]
                f = "%.3f" if c.startswith("jain") else "%.1f"
                parts.append(("%s " + f + " (" + f + "-" + f + ")")
                             % (name, med, v[0], v[-1]))
            print("%-5s %-5s n=%d: %s" % (load, r, len(sel), "; ".join(parts)))


def main(a):
    if len(a) >= 2 and a[0] == "ping":
        print(ping(a[1]))
    elif len(a) >= 4 and a[0] == "iperf":
        print(iperf(a[1], float(a[2]), float(a[3])))
    elif len(a) >= 2 and a[0] == "app":
        print(app(a[1]))
    elif len(a) >= 5 and a[0] == "summary":
        summary(a[1], float(a[2]), a[3].split(), a[4].split(),
                a[5] if len(a) >= 6 else "off")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
