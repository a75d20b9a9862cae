#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What a failed libFuzzer run said, in a few lines for the end of a CI log
# (CI shows only the log's end): the saved input's name, the error lines,
# the stack's frames in this checkout's sources (not the sanitizer's,
# libFuzzer's or libc's), the sanitizer's summary, and the input itself
# in base64 when it is small, so that the log alone reproduces the crash:
#   echo B64 | base64 -d > input; build-fuzz/fuzz_HARNESS input
#
# Usage: scripts/fuzz_report.sh HARNESS OUTDIR SRCDIR
#   OUTDIR holds logs/fuzz_HARNESS.log and artifacts/fuzz_HARNESS-*
#   (scripts/fuzz.sh's layout); SRCDIR is the checkout the harness was
#   built from.
set -uo pipefail

h=$1 out=$2 src=$3
log=$out/logs/fuzz_$h.log
art=$(ls -1 "$out/artifacts/" 2>/dev/null | grep "^fuzz_$h-" | head -1)
echo "fuzz_$h: ${art:-no input saved}"
[ -f "$log" ] || { echo "    no log $log"; exit 0; }
grep -m2 -E 'ERROR:|runtime error|invariant violated|Killed|timeout' "$log" |
	sed 's/^/    /'
grep -E '^ *#[0-9]+ ' "$log" | grep -F " $src/" | head -6 |
	sed 's/ (\/.*//; s/^ */    /'
grep -m1 '^SUMMARY:' "$log" | sed 's/^/    /'
if [ -n "$art" ] && [ "$(stat -c %s "$out/artifacts/$art")" -le 4096 ]; then
	echo "    input (base64): $(base64 -w0 "$out/artifacts/$art")"
fi
exit 0
