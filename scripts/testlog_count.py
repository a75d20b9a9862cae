#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""Pass and fail counts of meson test runs, from their JSON logs.

usage: testlog_count.py BUILD_DIR...

Prints "OK BAD": OK and EXPECTEDFAIL pass, SKIP counts neither, anything
else fails; a build directory without meson-logs/testlog.json (meson test
did not run, e.g. the build failed) counts as one failure.

On stderr, each failure by name with the last lines of its output: CI
shows only the end of a run's log, where these land just before the
summary line.
"""

import json
import os
import sys

TAIL_LINES = 25


def report(build, rec):
    """One failed test on stderr: its build, name, result, time, last lines."""
    name = rec.get("name", "?")
    print("FAILED: %s: %s (%s after %.0f s)" % (
        os.path.basename(build), name, rec.get("result"),
        rec.get("duration") or 0), file=sys.stderr)
    out = (rec.get("stdout") or "").splitlines()
    for line in out[-TAIL_LINES:]:
        print("    | " + line, file=sys.stderr)


def main():
    ok = bad = 0
    for d in sys.argv[1:]:
        log = os.path.join(d, "meson-logs", "testlog.json")
        if not os.path.exists(log):
            bad += 1
            print("FAILED: %s: no meson test log (the build or its setup "
                  "failed: see above)" % d, file=sys.stderr)
            continue
        with open(log, encoding="utf-8") as f:
            for line in f:
                rec = json.loads(line)
                r = rec.get("result")
                if r in ("OK", "EXPECTEDFAIL"):
                    ok += 1
                elif r != "SKIP":
                    bad += 1
                    report(d, rec)
    print(ok, bad)


if __name__ == "__main__":
    main()
