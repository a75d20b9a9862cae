#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# Every meson suite on a loaded machine (issue 14): STRESS busy processes
# (default: one per CPU) spin beside the tests, which run RUNS times in a
# row (default 5) with --num-processes 1. One line per run: date, load,
# passed and failed tests; then "N passed, N failed" over all runs.
# The busy processes are killed on every exit (trap), Ctrl-C included.
#
#   scripts/under_load.sh                 # STRESS=nproc, RUNS=5
#   STRESS=4 RUNS=1 scripts/under_load.sh --suite pmd   # extra meson args
#   scripts/test.sh --under-load          # the same, after build.sh
#
# The heavy VM test (tests/vm/run.sh) is not a meson test: not run here.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${BUILDDIR:-$top/build}
stress=${STRESS:-$(nproc)}
runs=${RUNS:-5}

case "$stress" in ''|*[!0-9]*) echo "STRESS=$stress: a number" >&2; exit 2;; esac
case "$runs" in ''|*[!0-9]*|0) echo "RUNS=$runs: a number >= 1" >&2; exit 2;; esac

pids=()
stop_load() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	pids=()
}
trap stop_load EXIT
trap 'exit 130' INT TERM

for ((i = 0; i < stress; i++)); do
	# A busy loop in its own bash: no I/O, one CPU's worth of work.
	bash -c 'while :; do :; done' &
	pids+=($!)
done

# Pass and fail counts of the last meson run, from its JSON log.
count() {
	python3 "$top/scripts/testlog_count.py" "$builddir"
}

tok=0
tbad=0
for ((r = 1; r <= runs; r++)); do
	start=$(date -u +%FT%TZ)
	rm -f "$builddir/meson-logs/testlog.json"
	t0=$(date +%s)
	meson test -C "$builddir" --num-processes 1 --print-errorlogs "$@" \
		> "$builddir/meson-logs/under_load_run$r.txt" 2>&1
	read -r ok bad < <(count)
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	echo "run $r: $start, STRESS=$stress on $(nproc) CPUs, load $load," \
		"$(( $(date +%s) - t0 )) s: $ok passed, $bad failed"
	if [ "$bad" -ne 0 ]; then
		grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)' \
			"$builddir/meson-logs/under_load_run$r.txt"
	fi
	tok=$((tok + ok))
	tbad=$((tbad + bad))
done
echo "$tok passed, $tbad failed"
[ "$tbad" -eq 0 ]
