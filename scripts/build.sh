#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up (packages, driver-SDK headers) and build into ./build.
# Extra arguments go to "meson setup" the first time (e.g. -Dsanitize=true).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${BUILDDIR:-$top/build}
bash "$top/scripts/setup.sh"
if [ ! -f "$builddir/build.ninja" ]; then
	meson setup "$builddir" "$top" "$@" >/dev/null
fi
ninja -C "$builddir" >/dev/null
echo "build: $builddir/drivers/net/ch39x/librte_net_ch39x.so"
