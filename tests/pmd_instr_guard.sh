#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issues 29 and 44's goal kept as a check: the PMD's own instructions per
# forwarded 64-byte packet on each framing at most its limit times
# net_null's, all counted in one run by callgrind
# (scripts/bench/pmd_instr.sh, perf guide "Instructions per packet"):
#   vendor framing (sim=ch398)  MAX      (default 2.0; 1.89x measured)
#   CDC-NCM (sim=ncm)           MAX_NCM  (default 2.0; 1.89x measured
#                               since a1a9572, 1.95x to 1.99x before,
#                               4.15x before issue 44)
#   CDC-ECM (sim=ecm)           MAX_ECM  (default 2.0; 1.87x measured,
#                               3.14x before issue 44)
# (doc/perf/pmd_instr.txt has the measured counts and their command.)
# The count per packet moves by about 2 % from run to run (how the
# bursts fill depends on timing: NCM 238 to 242 in 1 s / 3 s runs before
# a1a9572). NCM met the 2x goal by less than that and was guarded at
# 2.05x; at 1.89x (a1a9572: the NTB builder's datagram start from
# constants) it is guarded at 2.0x as the others, 5 % above: any
# regression of note still fails it, an unlucky run does not.
# Instructions, not cycles: a busy machine makes the run longer, not its
# result different. Also checked: the counts are there at all (a PMD or
# net_null row with no packets is a failure, not a pass). Every ratio is
# checked and printed before the verdict.
# Usage: tests/pmd_instr_guard.sh PMD_SO [COPY_CALIB]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
calib=()
[ -n "${2:-}" ] && calib=(CALIB="$2")
# DUMP_INSTR=0: "own" is all it reads; profiles by line are smaller and
# the run shorter than the bench's by instruction.
if ! env PMD_SO="$1" "${calib[@]}" PLOT=0 DUMP_INSTR=0 \
	CONFIGS="ch39x ch39x_ncm ch39x_ecm net_null" FRAMES=64 SHORT=1 \
	LONG=3 TOP=10 bash "$top/scripts/bench/pmd_instr.sh" "$out" \
	> "$out/log" 2>&1; then
	grep -v '^==' "$out/log" | tail -20
	echo "FAIL: scripts/bench/pmd_instr.sh did not finish"
	exit 1
fi
rc=0
for c in "ch39x ${MAX:-2.0} vendor" "ch39x_ncm ${MAX_NCM:-2.0} CDC-NCM" \
	"ch39x_ecm ${MAX_ECM:-2.0} CDC-ECM"; do
	read -r cfg lim name <<< "$c"
	python3 "$top/tests/instr_ratio.py" "$out/pmd_instr.csv" \
		"$out/pmd_instr.txt" own "$cfg" net_null "$lim" \
		"the PMD's own instructions per 64-byte packet ($name framing, $cfg) against net_null's" ||
		rc=1
done
exit $rc
