/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Unit test of the delegated-prefix commands' parameters
 * (app/ch39x-cpe/pd6.c, /cpe/wan/prefix6 and /cpe/wan/prefix6/clear):
 * what a good delegation parses to (host bits cleared, lifetimes), the
 * reason of each refusal, the length bounds at their exact edges, and
 * every truncation of a good one from exact-size heap copies
 * (AddressSanitizer sees an overread).
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "pd6.h"

#include "check.h"

/* params parsed from an exact-size heap copy (NULL stays NULL). */
static int
parse(const char *params, struct cpe_pd6 *g, int clear)
{
	char *p = NULL;
	int rc;

	if (params != NULL)
		p = (char *)dup_exact((const uint8_t *)params,
				      strlen(params) + 1);
	rc = clear ? cpe_pd6_parse_clear(p, g) : cpe_pd6_parse(p, g);
	free(p);
	return rc;
}

#define PARSE(s) parse((s), &g, 0)
#define CLEAR(s) parse((s), &g, 1)

/* g holds prefix text/plen and the lifetimes given. */
static void
check_deleg(const struct cpe_pd6 *g, const char *text, uint8_t plen,
	    uint32_t preferred, uint32_t valid, int line)
{
	uint8_t want[16];
	bool ok;

	ok = inet_pton(AF_INET6, text, want) == 1 &&
		memcmp(g->a, want, 16) == 0 && g->plen == plen &&
		g->preferred == preferred && g->valid == valid;
	check_at(ok, __FILE__, line, text);
}

#define DELEG(t, l, p, v) check_deleg(&g, (t), (l), (p), (v), __LINE__)

static bool
zeroed(const struct cpe_pd6 *g)
{
	static const struct cpe_pd6 zero;

	return memcmp(g, &zero, sizeof(zero)) == 0;
}

static void
test_good(void)
{
	struct cpe_pd6 g;

	CHECK_EQ(PARSE("2001:db8:100::/56,3600,7200"), 0);
	DELEG("2001:db8:100::", 56, 3600, 7200);
	/* Host bits cleared, in the byte LEN ends in and after it. */
	CHECK_EQ(PARSE("2001:db8:1:2ff::1/60,0,1"), 0);
	DELEG("2001:db8:1:2f0::", 60, 0, 1);
	CHECK_EQ(PARSE("2001:db8:1:2ff:ffff::/63,5,5"), 0);
	DELEG("2001:db8:1:2fe::", 63, 5, 5);
	/* Infinite lifetimes (RFC 8415 7.7), upper-case hex, /3 and /64. */
	CHECK_EQ(PARSE("2001:DB8::/64,4294967295,4294967295"), 0);
	DELEG("2001:db8::", 64, UINT32_MAX, UINT32_MAX);
	CHECK_EQ(PARSE("3fff:ffff::/3,1,2"), 0);
	DELEG("2000::", 3, 1, 2);
	/* The dotted tail of an address, cleared as host bits. */
	CHECK_EQ(PARSE("2001:db8::10.0.0.1/64,1,2"), 0);
	DELEG("2001:db8::", 64, 1, 2);
}

static void
test_refused(void)
{
	static const struct {
		const char *s;
		int rc;
	} bad[] = {
		{ "", -CPE_PD6_FIELDS },
		{ "2001:db8::/56", -CPE_PD6_FIELDS },
		{ "2001:db8::/56,1", -CPE_PD6_FIELDS },
		{ "2001:db8::/56,1,2,3", -CPE_PD6_FIELDS },
		{ ",2001:db8::/56,1,2", -CPE_PD6_FIELDS },
		{ "2001:db8::/56,,1,2", -CPE_PD6_FIELDS },
		{ "2001:db8::/56,1,2,", -CPE_PD6_FIELDS },
		{ ",", -CPE_PD6_FIELDS },
		{ "2001:db8::,1,2", -CPE_PD6_PREFIX },
		{ "2001:db8::/,1,2", -CPE_PD6_PREFIX },
		{ "2001:db8::/x,1,2", -CPE_PD6_PREFIX },
		{ "2001:db8::/56x,1,2", -CPE_PD6_PREFIX },
		{ "2001:db8::/-1,1,2", -CPE_PD6_PREFIX },
		{ "2001:db8::/ 56,1,2", -CPE_PD6_PREFIX },
		{ "2001:db8::/56/56,1,2", -CPE_PD6_PREFIX },
		{ "2001:zb8::/56,1,2", -CPE_PD6_PREFIX },
		{ "/56,1,2", -CPE_PD6_PREFIX },
		{ "10.0.0.0/8,1,2", -CPE_PD6_PREFIX },
		{ "2001:db8::/0,1,2", -CPE_PD6_LEN },
		{ "2001:db8::/65,1,2", -CPE_PD6_LEN },
		{ "2001:db8::/128,1,2", -CPE_PD6_LEN },
		{ "2001:db8::/99999999999999999999999,1,2", -CPE_PD6_LEN },
		{ "fe80::/64,1,2", -CPE_PD6_SCOPE },
		{ "fd00::/48,1,2", -CPE_PD6_SCOPE },
		{ "4000::/3,1,2", -CPE_PD6_SCOPE },
		{ "::/64,1,2", -CPE_PD6_SCOPE },
		/* In 2000::/3 as an address, but the prefixes ::/2, ::/1. */
		{ "2001:db8::/2,1,2", -CPE_PD6_SCOPE },
		{ "3fff::/1,1,2", -CPE_PD6_SCOPE },
		{ "2001:db8::/56,x,2", -CPE_PD6_LIFE },
		{ "2001:db8::/56,+1,2", -CPE_PD6_LIFE },
		{ "2001:db8::/56, 1,2", -CPE_PD6_LIFE },
		{ "2001:db8::/56,-1,2", -CPE_PD6_LIFE },
		{ "2001:db8::/56,1x,2", -CPE_PD6_LIFE },
		{ "2001:db8::/56,1,4294967296", -CPE_PD6_LIFE },
		{ "2001:db8::/56,1,99999999999999999999999", -CPE_PD6_LIFE },
		{ "2001:db8::/56,0,0", -CPE_PD6_ORDER },
		{ "2001:db8::/56,7201,7200", -CPE_PD6_ORDER },
		/* The prefix is judged first, then each lifetime in turn. */
		{ "fe80::/0,x,0", -CPE_PD6_LEN },
		{ "2001:db8::/56,x,0", -CPE_PD6_LIFE },
	};
	struct cpe_pd6 g;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&g, 0xa5, sizeof(g));
		rc = PARSE(bad[i].s);
		if (rc != bad[i].rc)
			printf("refused: \"%s\": %d, want %d\n", bad[i].s, rc,
			       bad[i].rc);
		CHECK_EQ(rc, bad[i].rc);
		/* Nothing half-parsed is left for the caller to use. */
		CHECK(zeroed(&g));
	}
	CHECK_EQ(PARSE(NULL), -CPE_PD6_FIELDS);
}

/* head, zeros, tail: parameters of exactly n characters. */
static const char *
padded(char *b, size_t cap, const char *head, const char *tail, size_t n)
{
	size_t h = strlen(head), t = strlen(tail);

	if (n < h + t || n >= cap)
		abort();
	memcpy(b, head, h);
	memset(b + h, '0', n - h - t);
	memcpy(b + n - t, tail, t + 1);
	return b;
}

static void
test_bounds(void)
{
	struct cpe_pd6 g;
	char b[256];

	/* VALID with leading zeros up to the longest parameters. */
	CHECK_EQ(PARSE(padded(b, sizeof(b), "2001:db8::/56,3600,", "7200",
			      CPE_PD6_MAX)), 0);
	DELEG("2001:db8::", 56, 3600, 7200);
	CHECK_EQ(PARSE(padded(b, sizeof(b), "2001:db8::/56,3600,", "7200",
			      CPE_PD6_MAX + 1)), -CPE_PD6_FIELDS);
	/* clear's LEN with leading zeros. */
	CHECK_EQ(CLEAR(padded(b, sizeof(b), "2001:db8::/", "48",
			      CPE_PD6_CLEAR_MAX)), 0);
	DELEG("2001:db8::", 48, 0, 0);
	CHECK_EQ(CLEAR(padded(b, sizeof(b), "2001:db8::/", "48",
			      CPE_PD6_CLEAR_MAX + 1)), -CPE_PD6_FIELDS);
}

static void
test_clear(void)
{
	struct cpe_pd6 g;

	memset(&g, 0xa5, sizeof(g));
	CHECK_EQ(CLEAR(NULL), 0);
	CHECK(zeroed(&g));
	memset(&g, 0xa5, sizeof(g));
	CHECK_EQ(CLEAR(""), 0);
	CHECK(zeroed(&g));
	CHECK_EQ(CLEAR("2001:db8:100:ff::/56"), 0);
	DELEG("2001:db8:100::", 56, 0, 0);
	CHECK_EQ(CLEAR("2001:db8:100::/56,3600,7200"), -CPE_PD6_FIELDS);
	CHECK(zeroed(&g));
	CHECK_EQ(CLEAR("2001:db8:100::/56,"), -CPE_PD6_FIELDS);
	CHECK_EQ(CLEAR(","), -CPE_PD6_FIELDS);
	CHECK_EQ(CLEAR("2001:db8:100::"), -CPE_PD6_PREFIX);
	CHECK_EQ(CLEAR("2001:db8:100::/65"), -CPE_PD6_LEN);
	CHECK_EQ(CLEAR("fe80::/64"), -CPE_PD6_SCOPE);
	CHECK_EQ(CLEAR("2001:db::/2"), -CPE_PD6_SCOPE);
	CHECK(zeroed(&g));
}

/* Every cut of a good delegation: a verdict, no overread. */
static void
test_truncated(void)
{
	static const char good[] = "2001:db8:100::/56,3600,7200";
	struct cpe_pd6 g;
	char b[sizeof(good)];
	unsigned int ok = 0;
	size_t n;

	for (n = 0; n < sizeof(good); n++) {
		memcpy(b, good, n);
		b[n] = '\0';
		if (PARSE(b) == 0)
			ok++;
		(void)CLEAR(b);
	}
	/* The whole only: a cut VALID (720, 72, 7) is below PREFERRED. */
	CHECK_EQ(ok, 1);
}

int
main(void)
{
	test_good();
	test_refused();
	test_bounds();
	test_clear();
	test_truncated();
	printf("test_pd6: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
