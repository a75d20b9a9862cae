/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * IPv6 routes, as route.c for IPv4: rte_lpm6 gives the longest matching
 * prefix, whose next hop id indexes a table of (egress port, gateway).
 * Connected routes come from the ports' IPv6 prefixes, static ones from
 * --route PREFIX/LEN,GW with a gateway on a connected prefix.
 */

#include <errno.h>
#include <string.h>

#include <rte_lpm6.h>

#include "cpe.h"

struct route6 {
	uint8_t gw[16];
	bool connected;			/* next hop = destination */
	uint16_t out;
};

static struct rte_lpm6 *lpm6;
static struct route6 routes[CPE_MAX_ROUTES + CPE_MAX_PORTS * CPE_MAX_IP6];
static uint32_t nb_routes;
/* rte_lpm6 takes depths 1..128: ::/0 is kept aside. */
static int32_t default_route = -1;

int
cpe_route6_init(void)
{
	struct rte_lpm6_config cfg = {
		.max_rules = 1024,
		.number_tbl8s = 1024,
	};

	lpm6 = rte_lpm6_create("cpe_lpm6", SOCKET_ID_ANY, &cfg);
	return lpm6 == NULL ? -ENOMEM : 0;
}

int
cpe_route6_add(const uint8_t *prefix, uint8_t plen, const uint8_t *gw,
	       uint16_t out)
{
	struct route6 *r;
	int rc;

	if (nb_routes == RTE_DIM(routes))
		return -ENOSPC;
	r = &routes[nb_routes];
	r->connected = gw == NULL;
	if (gw != NULL)
		memcpy(r->gw, gw, 16);
	r->out = out;
	if (plen == 0) {
		default_route = (int32_t)nb_routes;
	} else {
		rc = rte_lpm6_add(lpm6, prefix, plen, nb_routes);
		if (rc != 0)
			return rc;
	}
	nb_routes++;
	/* Cached flows carry the old next hop: they must go. */
	cpe.gen++;
	return 0;
}

int
cpe_route6_lookup(const uint8_t *dst, uint16_t *out, uint8_t *nexthop)
{
	uint32_t id;

	if (lpm6 == NULL)
		return -ENOENT;
	if (rte_lpm6_lookup(lpm6, dst, &id) != 0) {
		if (default_route < 0)
			return -ENOENT;
		id = (uint32_t)default_route;
	}
	*out = routes[id].out;
	memcpy(nexthop, routes[id].connected ? dst : routes[id].gw, 16);
	return 0;
}
