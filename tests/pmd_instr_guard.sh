#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 29's goal kept as a check: the PMD's own instructions per
# forwarded 64-byte packet on the vendor framing (sim=ch398) at most MAX
# (default 2.0) times net_null's, both counted in one run by callgrind
# (scripts/bench/pmd_instr.sh, perf guide "Instructions per packet").
# Instructions, not cycles: a busy machine makes the run longer, not its
# result different. Also checked: the counts are there at all (a PMD or
# net_null row with no packets is a failure, not a pass).
# Usage: tests/pmd_instr_guard.sh PMD_SO
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
max=${MAX:-2.0}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if ! PMD_SO=$1 CONFIGS="ch39x net_null" FRAMES=64 SHORT=1 LONG=3 TOP=10 \
	bash "$top/scripts/bench/pmd_instr.sh" "$out" > "$out/log" 2>&1; then
	grep -v '^==' "$out/log" | tail -20
	echo "FAIL: scripts/bench/pmd_instr.sh did not finish"
	exit 1
fi
python3 "$top/tests/instr_ratio.py" "$out/pmd_instr.csv" "$out/pmd_instr.txt" \
	own ch39x net_null "$max" \
	"the PMD's own instructions per 64-byte packet (ch39x) against net_null's"
