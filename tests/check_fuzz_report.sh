#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/fuzz_report.sh: what the end of scripts/test.sh's log says of a
# failed fuzz harness (README.md, "Testing"), from a log shaped as
# libFuzzer writes one: the input's name, the invariant and error lines,
# only the frames in the checkout's sources, the summary, and the input in
# base64 that decodes to the saved bytes; no base64 of a large input.
set -euo pipefail
# The assertions read "$out" from here-strings, not "echo | grep -q": under
# pipefail a grep -q that stops at its match can kill echo, which writes a
# line at a time, with SIGPIPE and fail a match (seen once on a busy CI
# rehearsal); tests/check.sh's check() says the same.
report=$1
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
src=/src/ch39x
mkdir -p "$w/logs" "$w/artifacts"
printf 'sim=rndis\0\0\0\x7fop' > "$w/artifacts/fuzz_devargs-crash-f50f"
cat > "$w/logs/fuzz_devargs.log" <<LOG
#178943	REDUCE cov: 403 ft: 756 corp: 192/7547b lim: 669 exec/s: 11929 rss: 420Mb
$src/tests/fuzz/fuzz_devargs.c:74: invariant violated: c->framing == CH39X_FRAMING_MBIM
==627== ERROR: libFuzzer: deadly signal
    #0 0x55a953eb80d1 in __sanitizer_print_stack_trace (/b/fuzz_devargs+0x14a0d1) (BuildId: c6)
    #1 0x55a953e2aa28 in fuzzer::PrintStackTrace() (/b/fuzz_devargs+0xbca28) (BuildId: c6)
    #6 0x7f0be8764471 in abort stdlib/./stdlib/abort.c:79:7
    #7 0x55a953eed5c6 in check_args $src/tests/fuzz/fuzz_devargs.c:71:2
    #8 0x55a953eed5c6 in LLVMFuzzerTestOneInput $src/tests/fuzz/fuzz_devargs.c:477:3
    #9 0x55a953e116e3 in fuzzer::Fuzzer::ExecuteCallback(unsigned char const*, unsigned long) (/b/fuzz_devargs+0xa36e3) (BuildId: c6)
SUMMARY: libFuzzer: deadly signal
stat::number_of_executed_units: 181398
LOG
out=$(bash "$report" devargs "$w" "$src")
echo "$out"
fail() { echo "FAIL: $*"; exit 1; }
[ "$(echo "$out" | head -1)" = "fuzz_devargs: fuzz_devargs-crash-f50f" ] ||
	fail "the first line names the harness and its input"
grep -q '^    .*fuzz_devargs.c:74: invariant violated' <<< "$out" ||
	fail "the invariant line"
grep -q '^    ==627== ERROR: libFuzzer: deadly signal' <<< "$out" ||
	fail "the error line"
[ "$(grep -c '^    #[0-9]' <<< "$out")" = 2 ] ||
	fail "only the two frames in $src"
grep -q '#7 .* in check_args /src/ch39x/tests/fuzz/fuzz_devargs.c:71:2$' <<< "$out" ||
	fail "frame 7 whole"
grep -q 'fuzzer::' <<< "$out" && fail "a libFuzzer frame"
grep -q '^    SUMMARY: libFuzzer: deadly signal' <<< "$out" || fail "the summary"
b64=$(sed -n 's/^    input (base64): //p' <<< "$out")
[ -n "$b64" ] || fail "no base64 of a 16-byte input"
echo "$b64" | base64 -d | cmp - "$w/artifacts/fuzz_devargs-crash-f50f" ||
	fail "the base64 is not the input"
# A large input is named, not printed.
head -c 5000 /dev/zero > "$w/artifacts/fuzz_devargs-crash-f50f"
out=$(bash "$report" devargs "$w" "$src")
grep -q 'base64' <<< "$out" && fail "a 5000-byte input printed"
# A harness without a log says so.
[ "$(bash "$report" tso "$w" "$src")" = "fuzz_tso: no input saved
    no log $w/logs/fuzz_tso.log" ] || fail "the missing log"
echo "ok: fuzz_report"
