/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_FUZZ_H
#define CH39X_FUZZ_H

/*
 * Shared bits of the fuzz harnesses. Every harness is built two ways: with
 * clang -fsanitize=fuzzer (scripts/fuzz.sh) and with the project's compiler
 * plus standalone_main.c, which replays a corpus (tests/fuzz/meson.build).
 *
 * An invariant that fails aborts, so libFuzzer and the replay both stop
 * with the input that broke it.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: invariant violated: %s\n", \
			__FILE__, __LINE__, #cond); \
		abort(); \
	} \
} while (0)

/*
 * An exactly sized heap copy of n bytes, so that AddressSanitizer reports
 * any read or write past the end of what the device or host supplied.
 */
static inline uint8_t *
fuzz_dup(const uint8_t *p, size_t n)
{
	uint8_t *b = malloc(n);

	if (b == NULL && n > 0)
		abort();
	if (n > 0)
		memcpy(b, p, n);
	return b;
}

#endif /* CH39X_FUZZ_H */
