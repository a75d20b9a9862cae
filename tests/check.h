/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_TEST_CHECK_H
#define CH39X_TEST_CHECK_H

/*
 * The checks of the standalone unit tests: each counts a pass or prints
 * the failed expression with its place, and main() ends with
 * "NAME: N passed, M failed".
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned int n_pass;
static unsigned int n_fail;

static inline void
check_at(bool ok, const char *file, int line, const char *what)
{
	if (ok) {
		n_pass++;
		return;
	}
	n_fail++;
	printf("%s:%d: CHECK failed: %s\n", file, line, what);
}

static inline void
check_eq_at(const char *file, int line, const char *what,
	    unsigned long long got, unsigned long long want)
{
	if (got == want) {
		n_pass++;
		return;
	}
	n_fail++;
	printf("%s:%d: CHECK_EQ failed: %s (got 0x%llx, want 0x%llx)\n",
	       file, line, what, got, want);
}

static inline void
check_mem_at(const char *file, int line, const char *what,
	     const uint8_t *got, const uint8_t *want, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			n_fail++;
			printf("%s:%d: CHECK_MEM failed: %s differs at byte "
			       "%zu (got 0x%02x, want 0x%02x)\n", file, line,
			       what, i, got[i], want[i]);
			return;
		}
	}
	n_pass++;
}

#define CHECK(c) check_at((c), __FILE__, __LINE__, #c)
#define CHECK_EQ(g, w) check_eq_at(__FILE__, __LINE__, #g " == " #w, \
	(unsigned long long)(g), (unsigned long long)(w))
#define CHECK_MEM(g, w, n) check_mem_at(__FILE__, __LINE__, #g, \
	(const uint8_t *)(g), (const uint8_t *)(w), (n))

/* A named case of a test program (DPDK's unit_test_suite, in small). */
struct check_case {
	const char *name;
	void (*fn)(void);
};

/*
 * The cases in order, each one's verdict ("NAME: ok" or "NAME: FAILED"),
 * then "SUITE: N passed, M failed"; main()'s exit status.
 */
static inline int
check_run(const char *suite, const struct check_case *c, size_t n)
{
	unsigned int before;
	size_t i;

	for (i = 0; i < n; i++) {
		before = n_fail;
		c[i].fn();
		printf("%s: %s\n", c[i].name,
		       n_fail == before ? "ok" : "FAILED");
	}
	printf("%s: %u passed, %u failed\n", suite, n_pass, n_fail);
	return n_fail ? 1 : 0;
}

/*
 * A byte pattern that differs across records and across 256-byte steps,
 * for frames whose bytes a test checks after a round trip.
 */
static inline uint8_t
pat(uint8_t seed, uint32_t i)
{
	return (uint8_t)(seed + i * 7u + (i >> 8));
}

static inline void
fill_pat(uint8_t *d, uint32_t len, uint8_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		d[i] = pat(seed, i);
}

static inline bool
pat_ok(const uint8_t *d, uint32_t len, uint8_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (d[i] != pat(seed, i))
			return false;
	return true;
}

/* An exactly sized heap copy, so that AddressSanitizer sees overreads. */
static inline uint8_t *
dup_exact(const uint8_t *v, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);

	if (p == NULL) {
		perror("malloc");
		exit(2);
	}
	memcpy(p, v, n);
	return p;
}

#endif /* CH39X_TEST_CHECK_H */
