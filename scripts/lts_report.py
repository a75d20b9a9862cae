#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""doc/lts/dpdk-lts.txt from the last scripts/test.sh run of this clone.

scripts/test.sh runs the unit and pmd suites against the system's DPDK
22.11 (its main pass, build/) and against 23.11, 24.11 and 25.11
(scripts/dpdk-lts.sh VERSION, build-lts-VERSION/, output kept in
.cache/lts/VERSION.log). This prints, for each release, where its DPDK
came from, how long the leg took, and every test of those suites with its
result, from meson's own testlog.json: the record is the run's, not typed
by hand. Usage, after scripts/test.sh (or .ci/run):

    scripts/lts_report.py > doc/lts/dpdk-lts.txt

It exits 1, printing nothing, when a leg has no results (a leg that was
skipped or never ran), so that a stale record cannot be written.
"""
import datetime
import json
import os
import platform
import re
import subprocess
import sys

SUITES = {"unit", "pmd"}
VERSIONS = ["22.11", "23.11", "24.11", "25.11"]


def git(top, *args):
    return subprocess.run(["git", "-C", top, *args], capture_output=True,
                          text=True, check=True).stdout.strip()


def tests(logdir):
    """(name, result, seconds) of the unit and pmd suites in a testlog."""
    path = os.path.join(logdir, "meson-logs", "testlog.json")
    if not os.path.exists(path):
        return None
    rows = []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            # "ch39x:pmd / pmd_link": the project, the first suite, the test
            m = re.match(r"[^:]*:(\S+) / (\S+)", r["name"])
            if m and m.group(1) in SUITES:
                rows.append((r["name"], r["result"], r["duration"]))
    return rows or None


def leg_lines(top, ver):
    """The dpdk-lts.sh lines that say where the DPDK came from, and the
    leg's time."""
    path = os.path.join(top, ".cache", "lts", ver + ".log")
    if not os.path.exists(path):
        return []
    keep = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("dpdk-lts") or line.startswith("test.sh:"):
                keep.append(line.replace(os.path.expanduser("~"), "~"))
    return keep


def gcc_version():
    out = subprocess.run(["gcc", "-dumpfullversion"], capture_output=True,
                         text=True).stdout.strip()
    return out or "unknown"


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sha = git(top, "rev-parse", "--short", "HEAD")
    dirty = " (with uncommitted changes)" if git(top, "status", "--porcelain",
                                                 "--untracked-files=no") else ""
    out = [
        "# The DPDK releases of scripts/test.sh's last run in this clone, written by",
        "# scripts/lts_report.py from meson's testlog.json (unit and pmd suites).",
        "# 22.11: the system's DPDK (the main pass, build/); 23.11, 24.11, 25.11:",
        "# scripts/dpdk-lts.sh VERSION (build-lts-VERSION/) with DPDK_TARBALLS set",
        "# by .ci/run to the folder of DPDK's release tarballs.",
        "# Commit %s%s; written %s; Debian %s, gcc %s, %d CPUs, %s."
        % (sha, dirty, datetime.date.today().isoformat(),
           open("/etc/debian_version").read().strip(), gcc_version(),
           os.cpu_count(), platform.machine()),
    ]
    for ver in VERSIONS:
        bdir = os.path.join(top, "build" if ver == "22.11"
                            else "build-lts-" + ver)
        rows = tests(bdir)
        if rows is None:
            print("lts_report: no unit/pmd results for %s in %s" % (ver, bdir),
                  file=sys.stderr)
            return 1
        ok = sum(1 for r in rows if r[1] in ("OK", "SKIP", "EXPECTEDFAIL"))
        out.append("")
        out.append("== DPDK %s: %d of %d pass" % (ver, ok, len(rows)))
        if ver == "22.11":
            out.append("dpdk-lts: the system's DPDK (scripts/test.sh's main pass)")
        out.extend(leg_lines(top, ver))
        width = max(len(r[0]) for r in rows)
        for name, result, secs in rows:
            out.append("  %-*s %-6s %7.2fs" % (width, name, result, secs))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
