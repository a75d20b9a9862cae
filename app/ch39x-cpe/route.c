/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * IPv4 routes: rte_lpm gives the longest matching prefix, whose next hop
 * id indexes a small table of (egress port, gateway). Connected routes come
 * from the port addresses; static ones from --route, their egress port
 * from the connected subnet of the gateway, and at run time from ctl.c
 * (the forwarding lcore: no locking), which may replace or delete them.
 */

#include <errno.h>

#include <rte_lpm.h>

#include "cpe.h"

struct route {
	uint32_t gw;			/* 0: connected, next hop = dst */
	uint16_t out;
	uint32_t prefix;		/* host order, for listing and delete */
	uint8_t plen;
	bool used;
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

/* The slot of the route for exactly prefix/plen, or -1. */
static int32_t
route_find(uint32_t prefix, uint8_t plen)
{
	uint32_t i;

	for (i = 0; i < nb_routes; i++)
		if (routes[i].used && routes[i].plen == plen &&
		    routes[i].prefix == prefix)
			return (int32_t)i;
	return -1;
}

/* A free slot (one freed by cpe_route_del first), or -1. */
static int32_t
route_slot(void)
{
	uint32_t i;

	for (i = 0; i < nb_routes; i++)
		if (!routes[i].used)
			return (int32_t)i;
	return nb_routes < RTE_DIM(routes) ? (int32_t)nb_routes : -1;
}

/* Adds a route, or replaces the one for the same prefix/plen. */
int
cpe_route_add(uint32_t prefix, uint8_t plen, uint32_t gw, uint16_t out)
{
	int32_t id = route_find(prefix, plen);
	int rc;

	/* An existing prefix keeps its next hop id: no LPM work. */
	if (id < 0) {
		id = route_slot();
		if (id < 0)
			return -ENOSPC;
		if (plen != 0) {
			rc = rte_lpm_add(lpm, prefix, plen, (uint32_t)id);
			if (rc != 0)
				return rc;
		}
	}
	if (plen == 0)
		default_route = id;
	routes[id].gw = gw;
	routes[id].out = out;
	routes[id].prefix = prefix;
	routes[id].plen = plen;
	routes[id].used = true;
	if ((uint32_t)id == nb_routes)
		nb_routes++;
	/* Cached flows carry the old next hop: they must go. */
	cpe.gen++;
	return 0;
}

/* 0 and *gw (0: connected), or -ENOENT: no route for exactly that. */
int
cpe_route_get(uint32_t prefix, uint8_t plen, uint32_t *gw)
{
	int32_t id = route_find(prefix, plen);

	if (id < 0)
		return -ENOENT;
	*gw = routes[id].gw;
	return 0;
}

/* 0, or -ENOENT: no route for exactly prefix/plen. */
int
cpe_route_del(uint32_t prefix, uint8_t plen)
{
	int32_t id = route_find(prefix, plen);
	int rc;

	if (id < 0)
		return -ENOENT;
	if (plen == 0) {
		default_route = -1;
	} else {
		rc = rte_lpm_delete(lpm, prefix, plen);
		if (rc != 0)
			return rc;
	}
	routes[id].used = false;
	cpe.gen++;
	return 0;
}

/* Calls fn for every route, in table order (connected ones first). */
void
cpe_route_walk(void (*fn)(const struct cpe_route_cfg *r, uint16_t out,
			  void *arg), void *arg)
{
	struct cpe_route_cfg r;
	uint32_t i;

	for (i = 0; i < nb_routes; i++) {
		if (!routes[i].used)
			continue;
		r.prefix = routes[i].prefix;
		r.plen = routes[i].plen;
		r.gw = routes[i].gw;
		fn(&r, routes[i].out, arg);
	}
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
