/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * IPv4 routes: rte_lpm gives the longest matching prefix, whose next hop
 * id indexes a small table of (egress port, gateway). Connected routes come
 * from the port addresses; static ones from --route, their egress port
 * from the connected subnet of the gateway.
 */

#include <errno.h>

#include <rte_lpm.h>

#include "cpe.h"

struct route {
	uint32_t gw;			/* 0: connected, next hop = dst */
	uint16_t out;
};

static struct rte_lpm *lpm;
static struct route routes[CPE_MAX_ROUTES + CPE_MAX_PORTS];
static uint32_t nb_routes;
/* rte_lpm takes depths 1..32: the default route is kept aside. */
static int32_t default_route = -1;

int
cpe_route_init(void)
{
	struct rte_lpm_config cfg = {
		.max_rules = 1024,
		.number_tbl8s = 256,
	};

	lpm = rte_lpm_create("cpe_lpm", SOCKET_ID_ANY, &cfg);
	return lpm == NULL ? -ENOMEM : 0;
}

int
cpe_route_add(uint32_t prefix, uint8_t plen, uint32_t gw, uint16_t out)
{
	int rc;

	if (nb_routes == RTE_DIM(routes))
		return -ENOSPC;
	routes[nb_routes].gw = gw;
	routes[nb_routes].out = out;
	if (plen == 0) {
		default_route = (int32_t)nb_routes;
	} else {
		rc = rte_lpm_add(lpm, prefix, plen, nb_routes);
		if (rc != 0)
			return rc;
	}
	nb_routes++;
	/* Cached flows carry the old next hop: they must go. */
	cpe.gen++;
	return 0;
}

/* 0: *out and *nexthop (host order) set; -ENOENT: no route. */
int
cpe_route_lookup(uint32_t dst, uint16_t *out, uint32_t *nexthop)
{
	uint32_t id;

	if (rte_lpm_lookup(lpm, dst, &id) != 0) {
		if (default_route < 0)
			return -ENOENT;
		id = (uint32_t)default_route;
	}
	*out = routes[id].out;
	*nexthop = routes[id].gw ? routes[id].gw : dst;
	return 0;
}
