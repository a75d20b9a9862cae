/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz the router's delegated-prefix commands' parameters
 * (app/ch39x-cpe/pd6.c): /cpe/wan/prefix6,PREFIX/LEN,PREFERRED,VALID and
 * /cpe/wan/prefix6/clear[,PREFIX/LEN], text from the telemetry socket.
 * The input, up to its first NUL, is a string in an exactly sized heap
 * copy, given to both parsers.
 *
 * Besides "no out-of-bounds access": a delegation taken is one wan6.c
 * can use (LEN 1..64, host bits clear, VALID not 0, PREFERRED not above
 * it), a refusal returns a known reason and leaves nothing, the reason
 * is the same for the prefix in both commands, and what was taken,
 * written out again, parses to the same delegation.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "fuzz.h"
#include "pd6.h"

static bool
zeroed(const struct cpe_pd6 *g)
{
	static const struct cpe_pd6 zero;

	return memcmp(g, &zero, sizeof(zero)) == 0;
}

/* Bits past plen clear (a prefix, not a host). */
static bool
host_clear(const struct cpe_pd6 *g)
{
	unsigned int k;

	for (k = 0; k < 16; k++) {
		unsigned int bits = k * 8 >= g->plen ? 8 :
			k * 8 + 8 <= g->plen ? 0 : 8 - (g->plen - k * 8);

		if ((g->a[k] & ((1u << bits) - 1)) != 0)
			return false;
	}
	return true;
}

static void
check_taken(const struct cpe_pd6 *g, bool clear)
{
	FUZZ_CHECK(g->plen >= 1 && g->plen <= 64);
	FUZZ_CHECK(host_clear(g));
	if (clear)
		FUZZ_CHECK(g->preferred == 0 && g->valid == 0);
	else
		FUZZ_CHECK(g->valid != 0 && g->preferred <= g->valid);
}

/* Written out again (as the hook would), the same delegation. */
static void
round_trip(const struct cpe_pd6 *g, bool clear)
{
	char a[INET6_ADDRSTRLEN], s[128];
	struct cpe_pd6 h;

	FUZZ_CHECK(inet_ntop(AF_INET6, g->a, a, sizeof(a)) != NULL);
	if (clear) {
		snprintf(s, sizeof(s), "%s/%u", a, g->plen);
		FUZZ_CHECK(cpe_pd6_parse_clear(s, &h) == 0);
	} else {
		snprintf(s, sizeof(s), "%s/%u,%u,%u", a, g->plen,
			 g->preferred, g->valid);
		FUZZ_CHECK(cpe_pd6_parse(s, &h) == 0);
	}
	FUZZ_CHECK(memcmp(&h, g, sizeof(h)) == 0);
}

static void
one(const char *s, bool clear)
{
	struct cpe_pd6 g;
	int rc;

	rc = clear ? cpe_pd6_parse_clear(s, &g) : cpe_pd6_parse(s, &g);
	if (rc != 0) {
		FUZZ_CHECK(rc >= -CPE_PD6_ORDER && rc <= -CPE_PD6_FIELDS);
		FUZZ_CHECK(!clear || rc != -CPE_PD6_LIFE);
		FUZZ_CHECK(!clear || rc != -CPE_PD6_ORDER);
		FUZZ_CHECK(zeroed(&g));
		return;
	}
	if (clear && s[0] == '\0') {
		FUZZ_CHECK(zeroed(&g));
		return;
	}
	check_taken(&g, clear);
	round_trip(&g, clear);
}

/*
 * The first field of prefix6's parameters as clear's: a prefix refused
 * by one for its own reasons is refused by the other for the same.
 */
static void
same_prefix(const char *s)
{
	struct cpe_pd6 g, h;
	const char *comma = strchr(s, ',');
	char f[CPE_PD6_CLEAR_MAX + 1];
	int rc, rc_clear;
	size_t n;

	if (comma == NULL || comma == s)
		return;
	n = (size_t)(comma - s);
	if (n >= sizeof(f))
		return;
	memcpy(f, s, n);
	f[n] = '\0';
	rc = cpe_pd6_parse(s, &g);
	rc_clear = cpe_pd6_parse_clear(f, &h);
	if (rc == -CPE_PD6_PREFIX || rc == -CPE_PD6_LEN ||
	    rc == -CPE_PD6_SCOPE)
		FUZZ_CHECK(rc_clear == rc);
	if (rc == 0) {
		FUZZ_CHECK(rc_clear == 0);
		FUZZ_CHECK(memcmp(g.a, h.a, 16) == 0 && g.plen == h.plen);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = strnlen((const char *)data, size);
	char *s = malloc(n + 1);

	if (s == NULL)
		return 0;
	memcpy(s, data, n);
	s[n] = '\0';
	one(s, false);
	one(s, true);
	same_prefix(s);
	free(s);
	return 0;
}
