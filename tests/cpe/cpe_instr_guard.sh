#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# Issue 27's goal kept as a check: ch39x-cpe's instructions per forwarded
# packet with a PPPoE WAN at most MAX (default 1.11, 1/0.9) times those
# with a plain Ethernet WAN, both counted in one run by callgrind
# (scripts/bench/cpe_instr.sh; guide "WAN by PPPoE"). Instructions, not
# cycles: a busy machine makes the run longer, not its result different.
# Also checked: the counts are there (a configuration without packets is
# a failure, not a pass). Root (the TAP's network namespace); skipped
# otherwise.
# Usage: tests/cpe/cpe_instr_guard.sh path/to/ch39x-cpe path/to/librte_net_ch39x.so
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
max=${MAX:-1.11}
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if ! CPE=$1 PMD_SO=$2 bash "$top/scripts/bench/cpe_instr.sh" "$out" \
	> "$out/log" 2>&1; then
	grep -v '^==' "$out/log" | tail -20
	echo "FAIL: scripts/bench/cpe_instr.sh did not finish"
	exit 1
fi
python3 "$top/tests/instr_ratio.py" "$out/cpe_instr.csv" "$out/cpe_instr.txt" \
	total pppoe plain "$max" \
	"instructions per packet, a PPPoE WAN (pppoe) against a plain one (plain)"
