#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The soak run: SECONDS (default 600) of mixed traffic between two
# simulated CH398 with a USB fault, link flap or failing request every
# 200 ms (tests/soak.c). Not part of CI. Usage: scripts/bench/soak.sh [SECONDS]
set -euo pipefail
# shellcheck source=scripts/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"
bench_build
bench_eal 1024 soak
exec "$build/tests/ch39x-soak" "${eal[@]}" -l 0,1 \
	--log-level=pmd.net.ch39x:error \
	--vdev net_ch39x0,wire=pair:soak,rx_copybreak=512 \
	--vdev net_ch39x1,wire=pair:soak -- "${1:-600}"
