#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The soak run: SECONDS (default 600) of mixed traffic between two
# simulated CH398 with a USB fault, link flap or failing request every
# 200 ms (tests/soak.c). Not part of CI. Usage: scripts/bench/soak.sh [SECONDS]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bash "$top/scripts/build.sh" >/dev/null
exec "$top/build/tests/ch39x-soak" --no-huge --no-pci -m 1024 -l 0,1 \
	--file-prefix "ch39x_soak_$$" --log-level=pmd.net.ch39x:error \
	--vdev net_ch39x0,wire=pair:soak,rx_copybreak=512 \
	--vdev net_ch39x1,wire=pair:soak -- "${1:-600}"
