/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * IPv6 routes, as route.c for IPv4: rte_lpm6 gives the longest matching
 * prefix, whose next hop id indexes a table of (egress port, gateway).
 * Connected routes come from the ports' IPv6 prefixes, static ones from
 * --route PREFIX/LEN,GW with a gateway on a connected prefix, and at run
 * time from ctl.c (the forwarding lcore: no locking), which may replace or
 * delete them.
 */

#include <errno.h>
#include <string.h>

#include <rte_lpm6.h>

#include "cpe.h"

struct route6 {
	uint8_t gw[16];
	bool connected;			/* next hop = destination */
	uint16_t out;
	uint8_t prefix[16];		/* for listing and delete */
	uint8_t plen;
	bool used;
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

/* The slot of the route for exactly prefix/plen, or -1. */
static int32_t
route_find(const uint8_t *prefix, uint8_t plen)
{
	uint32_t i;

	for (i = 0; i < nb_routes; i++)
		if (routes[i].used && routes[i].plen == plen &&
		    memcmp(routes[i].prefix, prefix, 16) == 0)
			return (int32_t)i;
	return -1;
}

/* A free slot (one freed by cpe_route6_del first), or -1. */
static int32_t
route_slot(void)
{
	uint32_t i;

	for (i = 0; i < nb_routes; i++)
		if (!routes[i].used)
			return (int32_t)i;
	return nb_routes < RTE_DIM(routes) ? (int32_t)nb_routes : -1;
}

/* Adds a route (gw NULL: connected), or replaces the one for prefix/plen. */
int
cpe_route6_add(const uint8_t *prefix, uint8_t plen, const uint8_t *gw,
	       uint16_t out)
{
	int32_t id = route_find(prefix, plen);
	struct route6 *r;
	int rc;

	/* An existing prefix keeps its next hop id: no LPM work. */
	if (id < 0) {
		id = route_slot();
		if (id < 0)
			return -ENOSPC;
		if (plen != 0) {
			rc = rte_lpm6_add(lpm6, LPM6_ADDR(prefix), plen, (uint32_t)id);
			if (rc != 0)
				return rc;
		}
	}
	if (plen == 0)
		default_route = id;
	r = &routes[id];
	r->connected = gw == NULL;
	memset(r->gw, 0, 16);
	if (gw != NULL)
		memcpy(r->gw, gw, 16);
	r->out = out;
	memcpy(r->prefix, prefix, 16);
	r->plen = plen;
	r->used = true;
	if ((uint32_t)id == nb_routes)
		nb_routes++;
	/* Cached flows carry the old next hop: they must go. */
	cpe.gen++;
	return 0;
}

/* 0 and gw (all zero: connected), or -ENOENT: no route for exactly that. */
int
cpe_route6_get(const uint8_t *prefix, uint8_t plen, uint8_t *gw)
{
	int32_t id = route_find(prefix, plen);

	if (id < 0)
		return -ENOENT;
	memcpy(gw, routes[id].gw, 16);
	return 0;
}

/* 0, or -ENOENT: no route for exactly prefix/plen. */
int
cpe_route6_del(const uint8_t *prefix, uint8_t plen)
{
	int32_t id = route_find(prefix, plen);
	int rc;

	if (id < 0)
		return -ENOENT;
	if (plen == 0) {
		default_route = -1;
	} else {
		rc = rte_lpm6_delete(lpm6, LPM6_ADDR(prefix), plen);
		if (rc != 0)
			return rc;
	}
	routes[id].used = false;
	cpe.gen++;
	return 0;
}

/* Calls fn for every route, in table order (connected ones first). */
void
cpe_route6_walk(void (*fn)(const struct cpe_route6_cfg *r, uint16_t out,
			   void *arg), void *arg)
{
	struct cpe_route6_cfg r;
	uint32_t i;

	for (i = 0; i < nb_routes; i++) {
		if (!routes[i].used)
			continue;
		memcpy(r.prefix.a, routes[i].prefix, 16);
		r.prefix.plen = routes[i].plen;
		memcpy(r.gw, routes[i].gw, 16);
		fn(&r, routes[i].out, arg);
	}
}

int
cpe_route6_lookup(const uint8_t *dst, uint16_t *out, uint8_t *nexthop)
{
	uint32_t id;

	if (lpm6 == NULL)
		return -ENOENT;
	if (rte_lpm6_lookup(lpm6, LPM6_ADDR(dst), &id) != 0) {
		if (default_route < 0)
			return -ENOENT;
		id = (uint32_t)default_route;
	}
	*out = routes[id].out;
	memcpy(nexthop, routes[id].connected ? dst : routes[id].gw, 16);
	return 0;
}
