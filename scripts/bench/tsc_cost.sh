#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# What one TSC read (rdtsc, DPDK's rte_rdtsc()) costs on this machine, in
# TSC cycles: 10 million reads, the minimum of RUNS runs (a run the
# scheduler preempted only counts more). On a virtual
# machine it is several times a bare core's: doc/perf/cpe_graph.txt
# counts the router's reads per walk with it. x86 only.
# Usage: scripts/bench/tsc_cost.sh [RUNS]
set -euo pipefail
# shellcheck source=scripts/bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"
runs=${1:-5}
bench_priv tsc
cat > "$priv/tsc.c" <<'C'
#include <stdint.h>
#include <stdio.h>
#include <x86intrin.h>

int
main(void)
{
	uint64_t sum = 0, t0, t1;
	int i;

	t0 = __rdtsc();
	for (i = 0; i < 10000000; i++)
		sum += __rdtsc();
	t1 = __rdtsc();
	printf("%.1f\n", (double)(t1 - t0) / 1e7 + (double)(sum & 0));
	return 0;
}
C
cc -O2 -o "$priv/tsc" "$priv/tsc.c"
for _ in $(seq "$runs"); do "$priv/tsc"; done > "$priv/all"
printf 'TSC cycles per rte_rdtsc(): minimum %s of %s runs (%s); load average %s\n' \
	"$(sort -g "$priv/all" | head -1)" \
	"$runs" "$(paste -sd' ' "$priv/all")" "$(cut -d' ' -f1-3 /proc/loadavg)"
