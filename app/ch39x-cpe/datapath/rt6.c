/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* The IPv6 route table (rt.h), as rt4.c's for IPv4. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lpm6.h>

#include "rt.h"

struct route6 {
	uint8_t gw[16];
	bool connected;			/* next hop = destination */
	uint16_t out;
	uint8_t prefix[16];		/* for listing and delete */
	uint8_t plen;
	bool used;
};

struct cpe_rt6 {
	struct rte_lpm6 *lpm6;
	struct route6 routes[CPE_MAX_ROUTES + CPE_MAX_PORTS * CPE_MAX_IP6];
	uint32_t nb_routes;
	/* rte_lpm6 takes depths 1..128: ::/0 is kept aside. */
	int32_t default_route;
	struct cpe_env *env;
};

struct cpe_rt6 *
cpe_rt6_create(struct cpe_env *env)
{
	struct rte_lpm6_config cfg = {
		.max_rules = 1024,
		.number_tbl8s = 1024,
	};
	struct cpe_rt6 *r = calloc(1, sizeof(*r));

	if (r == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	r->default_route = -1;
	r->env = env;
	r->lpm6 = rte_lpm6_create("cpe_lpm6", SOCKET_ID_ANY, &cfg);
	if (r->lpm6 == NULL) {
		free(r);
		return NULL;
	}
	return r;
}

void
cpe_rt6_free(struct cpe_rt6 *r)
{
	if (r == NULL)
		return;
	rte_lpm6_free(r->lpm6);
	free(r);
}

/* The slot of the route for exactly prefix/plen, or -1. */
static int32_t
route_find(const struct cpe_rt6 *r, const uint8_t *prefix, uint8_t plen)
{
	uint32_t i;

	for (i = 0; i < r->nb_routes; i++)
		if (r->routes[i].used && r->routes[i].plen == plen &&
		    memcmp(r->routes[i].prefix, prefix, 16) == 0)
			return (int32_t)i;
	return -1;
}

/* A free slot (one freed by cpe_rt6_del first), or -1. */
static int32_t
route_slot(const struct cpe_rt6 *r)
{
	uint32_t i;

	for (i = 0; i < r->nb_routes; i++)
		if (!r->routes[i].used)
			return (int32_t)i;
	return r->nb_routes < RTE_DIM(r->routes) ? (int32_t)r->nb_routes : -1;
}

/* Adds a route (gw NULL: connected), or replaces the one for prefix/plen. */
int
cpe_rt6_add(struct cpe_rt6 *r, const uint8_t *prefix, uint8_t plen,
	    const uint8_t *gw, uint16_t out)
{
	int32_t id = route_find(r, prefix, plen);
	struct route6 *e;
	int rc;

	/* An existing prefix keeps its next hop id: no LPM work. */
	if (id < 0) {
		id = route_slot(r);
		if (id < 0)
			return -ENOSPC;
		if (plen != 0) {
			rc = rte_lpm6_add(r->lpm6, LPM6_ADDR(prefix), plen, (uint32_t)id);
			if (rc != 0)
				return rc;
		}
	}
	if (plen == 0)
		r->default_route = id;
	e = &r->routes[id];
	e->connected = gw == NULL;
	memset(e->gw, 0, 16);
	if (gw != NULL)
		memcpy(e->gw, gw, 16);
	e->out = out;
	memcpy(e->prefix, prefix, 16);
	e->plen = plen;
	e->used = true;
	if ((uint32_t)id == r->nb_routes)
		r->nb_routes++;
	/* Cached flows carry the old next hop: they must go. */
	r->env->gen++;
	return 0;
}

/* 0 and gw (all zero: connected), or -ENOENT: no route for exactly that. */
int
cpe_rt6_get(const struct cpe_rt6 *r, const uint8_t *prefix, uint8_t plen,
	    uint8_t *gw)
{
	int32_t id = r != NULL ? route_find(r, prefix, plen) : -1;

	if (id < 0)
		return -ENOENT;
	memcpy(gw, r->routes[id].gw, 16);
	return 0;
}

/* 0, or -ENOENT: no route for exactly prefix/plen. */
int
cpe_rt6_del(struct cpe_rt6 *r, const uint8_t *prefix, uint8_t plen)
{
	int32_t id = r != NULL ? route_find(r, prefix, plen) : -1;
	int rc;

	if (id < 0)
		return -ENOENT;
	if (plen == 0) {
		r->default_route = -1;
	} else {
		rc = rte_lpm6_delete(r->lpm6, LPM6_ADDR(prefix), plen);
		if (rc != 0)
			return rc;
	}
	r->routes[id].used = false;
	r->env->gen++;
	return 0;
}

/* Calls fn for every route, in table order (connected ones first). */
void
cpe_rt6_walk(const struct cpe_rt6 *r,
	     void (*fn)(const struct cpe_route6_cfg *rt, uint16_t out,
			void *arg), void *arg)
{
	struct cpe_route6_cfg rt;
	uint32_t i;

	for (i = 0; r != NULL && i < r->nb_routes; i++) {
		if (!r->routes[i].used)
			continue;
		memcpy(rt.prefix.a, r->routes[i].prefix, 16);
		rt.prefix.plen = r->routes[i].plen;
		memcpy(rt.gw, r->routes[i].gw, 16);
		fn(&rt, r->routes[i].out, arg);
	}
}

int
cpe_rt6_lookup(const struct cpe_rt6 *r, const uint8_t *dst, uint16_t *out,
	       uint8_t *nexthop)
{
	uint32_t id;

	/* No IPv6 prefix anywhere: no table, no route. */
	if (r == NULL)
		return -ENOENT;
	if (rte_lpm6_lookup(r->lpm6, LPM6_ADDR(dst), &id) != 0) {
		if (r->default_route < 0)
			return -ENOENT;
		id = (uint32_t)r->default_route;
	}
	*out = r->routes[id].out;
	memcpy(nexthop, r->routes[id].connected ? dst : r->routes[id].gw, 16);
	return 0;
}
