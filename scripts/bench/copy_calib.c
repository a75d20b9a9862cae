/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The copy calibration of scripts/bench/pmd_instr.sh: what one frame's
 * copy costs in instructions, with the memcpy the PMD copies frames with
 * (DPDK's rte_memcpy(), inline), built by meson beside the PMD with the
 * same compiler, flags and DPDK headers. pmd_instr.sh runs it under
 * callgrind in the same run as testpmd and reads the counts of the four
 * loops below:
 *   copy_loop   N copies of LEN bytes, as the PMD's two copies of a frame
 *               make them: RX, from a transfer buffer at each of the 16
 *               offsets modulo 16 into an mbuf's data (cache-line
 *               aligned, after the 128-byte headroom); TX, from the
 *               mbuf's data into a transfer buffer at each offset; the
 *               offsets in turn, RX and TX alternating
 *   empty_loop  the same loop with the copy left out
 *   copy_loop_aligned, empty_loop_aligned
 *               the same two with both ends 16-byte aligned in every
 *               copy (rte_memcpy()'s aligned path: ECM's frames start
 *               their transfers)
 * so that a copy is (copy_loop - empty_loop) / N, an aligned one
 * (copy_loop_aligned - empty_loop_aligned) / N. pmd_instr.sh also counts
 * each copy loop's copies by instruction address, by the rule it counts
 * the PMD's copies with (callgrind.inlined_addrs(): the inlined
 * rte_memcpy() by the debug information, and the code that runs only
 * inside it): the two counts agreeing says that the rule finds the whole
 * copy and nothing else, the same rte_memcpy() called with a size known
 * only at run time, as the PMD calls it.
 * Usage: copy_calib LEN [N]   (N: copies, default 3200)
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_memcpy.h>

#define HEADROOM	128
#define ROOM		(HEADROOM + 16384 + 64)

static uint8_t xfer[16384 + 128] __rte_cache_aligned;
static uint8_t mbuf[ROOM] __rte_cache_aligned;

/* The i-th copy's destination and source; mask 15 or 0 (aligned). */
static __rte_always_inline void
pick(unsigned int i, uint8_t **dst, const uint8_t **src, unsigned int mask)
{
	unsigned int off = (i >> 1) & mask;

	if (i & 1) {
		*dst = xfer + 64 + off;
		*src = mbuf + HEADROOM;
	} else {
		*dst = mbuf + HEADROOM;
		*src = xfer + 64 + off;
	}
}

static __rte_always_inline void
copies(size_t len, unsigned int n, unsigned int mask)
{
	const uint8_t *src;
	uint8_t *dst;
	unsigned int i;

	for (i = 0; i < n; i++) {
		pick(i, &dst, &src, mask);
		rte_memcpy(dst, src, len);
		/* Each copy done, in full, before the next. */
		__asm__ volatile("" : : "r"(dst) : "memory");
	}
}

static __rte_always_inline void
no_copies(size_t len, unsigned int n, unsigned int mask)
{
	const uint8_t *src;
	uint8_t *dst;
	unsigned int i;

	for (i = 0; i < n; i++) {
		pick(i, &dst, &src, mask);
		__asm__ volatile("" : : "r"(dst), "r"(src), "r"(len) : "memory");
	}
}

static __rte_noinline void
copy_loop(size_t len, unsigned int n)
{
	copies(len, n, 15u);
}

static __rte_noinline void
empty_loop(size_t len, unsigned int n)
{
	no_copies(len, n, 15u);
}

/*
 * The aligned loops' offset mask, 0, read at run time: known to the
 * compiler, it would resolve rte_memcpy()'s alignment test, which the
 * PMD's copies make at run time.
 */
static volatile unsigned int aligned_mask;

static __rte_noinline void
copy_loop_aligned(size_t len, unsigned int n)
{
	copies(len, n, aligned_mask);
}

static __rte_noinline void
empty_loop_aligned(size_t len, unsigned int n)
{
	no_copies(len, n, aligned_mask);
}

int
main(int argc, char **argv)
{
	size_t len = argc > 1 ? strtoul(argv[1], NULL, 0) : 0;
	unsigned int n = argc > 2 ? (unsigned int)strtoul(argv[2], NULL, 0) :
		3200;

	if (len == 0 || len > 16384 || n == 0 || n % 32 != 0) {
		fprintf(stderr, "usage: copy_calib LEN [N]: LEN 1..16384, N a "
			"multiple of 32 (both directions at each offset)\n");
		return 2;
	}
	copy_loop(len, n);
	empty_loop(len, n);
	copy_loop_aligned(len, n);
	empty_loop_aligned(len, n);
	printf("%zu %u\n", len, n);
	return 0;
}
