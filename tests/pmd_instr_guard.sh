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
# Issue 44 item 2, in the same run: each framing's per-packet work
# beside the copy at 1514 B at most its 64-byte one times MAX_1514
# (default 1.03): own = copy as made + pkt_work + the per-transfer share,
# the share the work of what runs as often as the bulk transfers, whose
# count per packet (counted) is 4x at 1514 B for NCM (16 KiB NTBs) and
# 2x-4x for vendor (scripts/bench/pmd_instr.sh, callgrind.xfer_split();
# ECM carries a frame a transfer at both sizes: its whole work_made).
# Measured (5f9360e): vendor 182.9 / 182.5, NCM 167.8 / 167.5, ECM
# 180.4 / 180.4. The run takes about 300 s, 100 s more than at 64 B
# alone (303 s against 202 s back to back, load 3-5: six runs more).
# The 3 % is the run-to-run spread of a count (how bursts fill); a
# per-byte cost outside the copy (1 instruction a byte is 1450 a packet
# more) or a per-transfer cost that grows with the frame fails it.
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
# Profiles by instruction (DUMP_INSTR=1): the copies as made and the
# per-transfer share are counted by address. net_null at 64 B only.
if ! env PMD_SO="$1" "${calib[@]}" PLOT=0 DUMP_INSTR=1 \
	CONFIGS="ch39x ch39x_ncm ch39x_ecm net_null" FRAMES="64 1514" \
	NULL_FRAMES=64 SHORT=1 LONG=3 TOP=10 \
	bash "$top/scripts/bench/pmd_instr.sh" "$out" \
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
		"$out/pmd_instr.txt" own "$cfg@64" net_null@64 "$lim" \
		"the PMD's own instructions per 64-byte packet ($name framing, $cfg) against net_null's" ||
		rc=1
	python3 "$top/tests/instr_ratio.py" "$out/pmd_instr.csv" \
		"$out/pmd_instr.txt" pkt_work "$cfg@1514" "$cfg@64" \
		"${MAX_1514:-1.03}" \
		"per-packet work beside the copy and the per-transfer share, 1514 B against 64 B ($name framing, $cfg)" ||
		rc=1
done
exit $rc
