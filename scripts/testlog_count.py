#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""Pass and fail counts of meson test runs, from their JSON logs.

usage: testlog_count.py BUILD_DIR...

Prints "OK BAD": OK and EXPECTEDFAIL pass, SKIP counts neither, anything
else fails; a build directory without meson-logs/testlog.json (meson test
did not run, e.g. the build failed) counts as one failure.
"""

import json
import os
import sys


def main():
    ok = bad = 0
    for d in sys.argv[1:]:
        log = os.path.join(d, "meson-logs", "testlog.json")
        if not os.path.exists(log):
            bad += 1
            continue
        with open(log, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line).get("result")
                if r in ("OK", "EXPECTEDFAIL"):
                    ok += 1
                elif r != "SKIP":
                    bad += 1
    print(ok, bad)


if __name__ == "__main__":
    main()
