/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The delegated-prefix commands' parameters (pd6.h). The fields are split
 * as every command's (fields.c): exactly the fields expected, no empty
 * one; neither file needs DPDK (the fuzzer, the unit test).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "fields.h"
#include "pd6.h"

/* A lifetime in seconds, 0..2^32-1, decimal digits only. */
static int
parse_life(const char *s, uint32_t *v)
{
	unsigned long long x;
	char *end;

	if (s[0] < '0' || s[0] > '9')
		return -CPE_PD6_LIFE;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || x > UINT32_MAX)
		return -CPE_PD6_LIFE;
	*v = (uint32_t)x;
	return 0;
}

/* a's bits past plen cleared: a prefix names its network, not a host. */
static void
clear_host(uint8_t *a, uint8_t plen)
{
	unsigned int k;

	for (k = plen / 8u; k < 16; k++)
		a[k] &= k == plen / 8u ? (uint8_t)(0xff << (8 - plen % 8)) : 0;
}

/* PREFIX/LEN (LEN 1..64, the prefix in 2000::/3) into g, host bits clear. */
static int
parse_pfx(char *s, struct cpe_pd6 *g)
{
	char *slash = strchr(s, '/'), *end;
	unsigned long len;

	if (slash == NULL || slash[1] < '0' || slash[1] > '9')
		return -CPE_PD6_PREFIX;
	*slash = '\0';
	len = strtoul(slash + 1, &end, 10);
	if (*end != '\0' || inet_pton(AF_INET6, s, g->a) != 1)
		return -CPE_PD6_PREFIX;
	if (len < 1 || len > 64)
		return -CPE_PD6_LEN;
	g->plen = (uint8_t)len;
	clear_host(g->a, g->plen);
	/*
	 * The prefix, not the address given, in 2000::/3: a /1 or /2 would
	 * be ::/1 or ::/2 once cleared, most of it no global unicast.
	 */
	if (g->plen < 3 || (g->a[0] & 0xe0) != 0x20)
		return -CPE_PD6_SCOPE;
	return 0;
}

int
cpe_pd6_parse(const char *params, struct cpe_pd6 *g)
{
	char buf[CPE_PD6_MAX + 1], *f[3];
	int rc;

	memset(g, 0, sizeof(*g));
	if (cpe_ctl_split(params, buf, sizeof(buf), f, 3) != 3)
		return -CPE_PD6_FIELDS;
	rc = parse_pfx(f[0], g);
	if (rc == 0)
		rc = parse_life(f[1], &g->preferred);
	if (rc == 0)
		rc = parse_life(f[2], &g->valid);
	if (rc == 0 && (g->valid == 0 || g->preferred > g->valid))
		rc = -CPE_PD6_ORDER;
	if (rc != 0)
		memset(g, 0, sizeof(*g));
	return rc;
}

int
cpe_pd6_parse_clear(const char *params, struct cpe_pd6 *g)
{
	char buf[CPE_PD6_CLEAR_MAX + 1], *f[1];
	int rc;

	memset(g, 0, sizeof(*g));
	if (params == NULL || params[0] == '\0')
		return 0;
	if (cpe_ctl_split(params, buf, sizeof(buf), f, 1) != 1)
		return -CPE_PD6_FIELDS;
	rc = parse_pfx(f[0], g);
	if (rc != 0)
		memset(g, 0, sizeof(*g));
	return rc;
}
