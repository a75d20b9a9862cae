/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_CPE_PD6_H
#define CH39X_CPE_PD6_H

/*
 * The parameters of the delegated-prefix commands (wan6.c), as the
 * DHCPv6 client's hook writes them:
 *
 *   /cpe/wan/prefix6,PREFIX/LEN,PREFERRED,VALID
 *   /cpe/wan/prefix6/clear[,PREFIX/LEN]
 *
 * Pure functions over a string (no DPDK): wan6.c parses the telemetry
 * thread's parameters with them, the unit test and the fuzzer call them
 * directly. A reason per refusal, so that the tests can tell which check
 * refused; the command's reply is the same for all of them.
 */

#include <stdint.h>

/* Longest parameters (characters) of each command; longer is refused. */
#define CPE_PD6_MAX		95
#define CPE_PD6_CLEAR_MAX	63

struct cpe_pd6 {
	uint8_t a[16];		/* the prefix, host bits clear */
	uint8_t plen;		/* 1..64; 0 from clear: the current one */
	uint32_t preferred, valid;	/* s */
};

/* Why parameters were refused: the negated value is returned. */
enum cpe_pd6_err {
	CPE_PD6_FIELDS = 1,	/* none, too long, not the fields expected */
	CPE_PD6_PREFIX,		/* no "ADDR/LEN", not an IPv6 address */
	CPE_PD6_LEN,		/* LEN not 1..64 */
	CPE_PD6_SCOPE,		/* the prefix not in 2000::/3 */
	CPE_PD6_LIFE,		/* a lifetime not a number 0..2^32-1 */
	CPE_PD6_ORDER,		/* VALID 0 or PREFERRED above it */
};

/* PREFIX/LEN,PREFERRED,VALID into g: 0 or -enum cpe_pd6_err. */
int cpe_pd6_parse(const char *params, struct cpe_pd6 *g);

/*
 * Nothing (NULL or "": g's plen 0) or PREFIX/LEN into g: 0 or
 * -enum cpe_pd6_err. Lifetimes are left 0.
 */
int cpe_pd6_parse_clear(const char *params, struct cpe_pd6 *g);

#endif /* CH39X_CPE_PD6_H */
