#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The arm64 (aarch64) cross build and every suite that needs no USB host
# (unit, pmd, fuzz seed corpora, app, cpe) on its binaries under
# qemu-aarch64 user emulation (the cross file's exe_wrapper), ending with
# "N passed, N failed" over build-arm64/meson-logs/testlog.json.
# scripts/test.sh runs it too (CH39X_ARM64=0: not); README.md, "ARM
# boards (arm64)".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${ARM64_BUILDDIR:-$top/build-arm64}
bash "$top/scripts/setup.sh" --tests >/dev/null ||
	{ echo "0 passed, 1 failed"; exit 1; }
BUILDDIR=$builddir bash "$top/scripts/build.sh" --arch arm64 ||
	{ echo "0 passed, 1 failed"; exit 1; }
rc=0
# What the board gets is arm64 code.
so=$builddir/drivers/net/ch39x/librte_net_ch39x.so
if ! readelf -h "$so" | grep -q 'Machine:.*AArch64'; then
	echo "FAIL: $so is not an AArch64 ELF"
	echo "0 passed, 1 failed"
	exit 1
fi
meson test -C "$builddir" --print-errorlogs --num-processes 1 \
	--timeout-multiplier "${TIMEOUT_MULTIPLIER:-1}" \
	--suite unit --suite pmd --suite fuzz --suite app --suite cpe || rc=1
read -r ok bad < <(python3 "$top/scripts/testlog_count.py" "$builddir")
echo "arm64: ${ok:-0} passed, ${bad:-1} failed"
[ "${bad:-1}" -eq 0 ] || rc=1
exit $rc
