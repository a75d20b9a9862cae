#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The test command: installs what is missing, builds, runs the whole meson
# test suite and ends with one line "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${BUILDDIR:-$top/build}

bash "$top/scripts/build.sh" || { echo "0 passed, 1 failed"; exit 1; }
meson test -C "$builddir" --print-errorlogs --num-processes 1
rc=$?
log=$builddir/meson-logs/testlog.json
read -r ok bad < <(python3 - "$log" <<'PY'
import json, sys
ok = bad = 0
for line in open(sys.argv[1]):
    r = json.loads(line).get("result")
    if r in ("OK", "EXPECTEDFAIL"):
        ok += 1
    elif r != "SKIP":
        bad += 1
print(ok, bad)
PY
)
[ "$rc" -ne 0 ] && [ "$bad" -eq 0 ] && bad=1
echo "$ok passed, $bad failed"
[ "$bad" -eq 0 ]
