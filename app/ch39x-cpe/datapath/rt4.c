/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* The IPv4 route table (rt.h). */

#include <errno.h>
#include <stdlib.h>

#include <rte_errno.h>
#include <rte_lpm.h>

#include "rt.h"

struct route {
	uint32_t gw;			/* 0: connected, next hop = dst */
	uint16_t out;
	uint32_t prefix;		/* host order, for listing and delete */
	uint8_t plen;
	bool used;
};

struct cpe_rt4 {
	struct rte_lpm *lpm;
	struct route routes[CPE_MAX_ROUTES + CPE_MAX_PORTS];
	uint32_t nb_routes;
	/* rte_lpm takes depths 1..32: the default route is kept aside. */
	int32_t default_route;
	struct cpe_env *env;
};

struct cpe_rt4 *
cpe_rt4_create(struct cpe_env *env)
{
	struct rte_lpm_config cfg = {
		.max_rules = 1024,
		.number_tbl8s = 256,
	};
	struct cpe_rt4 *r = calloc(1, sizeof(*r));

	if (r == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	r->default_route = -1;
	r->env = env;
	r->lpm = rte_lpm_create("cpe_lpm", SOCKET_ID_ANY, &cfg);
	if (r->lpm == NULL) {
		free(r);
		return NULL;
	}
	return r;
}

void
cpe_rt4_free(struct cpe_rt4 *r)
{
	if (r == NULL)
		return;
	rte_lpm_free(r->lpm);
	free(r);
}

/* The slot of the route for exactly prefix/plen, or -1. */
static int32_t
route_find(const struct cpe_rt4 *r, uint32_t prefix, uint8_t plen)
{
	uint32_t i;

	for (i = 0; i < r->nb_routes; i++)
		if (r->routes[i].used && r->routes[i].plen == plen &&
		    r->routes[i].prefix == prefix)
			return (int32_t)i;
	return -1;
}

/* A free slot (one freed by cpe_rt4_del first), or -1. */
static int32_t
route_slot(const struct cpe_rt4 *r)
{
	uint32_t i;

	for (i = 0; i < r->nb_routes; i++)
		if (!r->routes[i].used)
			return (int32_t)i;
	return r->nb_routes < RTE_DIM(r->routes) ? (int32_t)r->nb_routes : -1;
}

/* Adds a route, or replaces the one for the same prefix/plen. */
int
cpe_rt4_add(struct cpe_rt4 *r, uint32_t prefix, uint8_t plen, uint32_t gw,
	    uint16_t out)
{
	int32_t id = route_find(r, prefix, plen);
	int rc;

	/* An existing prefix keeps its next hop id: no LPM work. */
	if (id < 0) {
		id = route_slot(r);
		if (id < 0)
			return -ENOSPC;
		if (plen != 0) {
			rc = rte_lpm_add(r->lpm, prefix, plen, (uint32_t)id);
			if (rc != 0)
				return rc;
		}
	}
	if (plen == 0)
		r->default_route = id;
	r->routes[id].gw = gw;
	r->routes[id].out = out;
	r->routes[id].prefix = prefix;
	r->routes[id].plen = plen;
	r->routes[id].used = true;
	if ((uint32_t)id == r->nb_routes)
		r->nb_routes++;
	/* Cached flows carry the old next hop: they must go. */
	r->env->gen++;
	return 0;
}

/* 0 and *gw (0: connected), or -ENOENT: no route for exactly that. */
int
cpe_rt4_get(const struct cpe_rt4 *r, uint32_t prefix, uint8_t plen,
	    uint32_t *gw)
{
	int32_t id = route_find(r, prefix, plen);

	if (id < 0)
		return -ENOENT;
	*gw = r->routes[id].gw;
	return 0;
}

/* 0, or -ENOENT: no route for exactly prefix/plen. */
int
cpe_rt4_del(struct cpe_rt4 *r, uint32_t prefix, uint8_t plen)
{
	int32_t id = route_find(r, prefix, plen);
	int rc;

	if (id < 0)
		return -ENOENT;
	if (plen == 0) {
		r->default_route = -1;
	} else {
		rc = rte_lpm_delete(r->lpm, prefix, plen);
		if (rc != 0)
			return rc;
	}
	r->routes[id].used = false;
	r->env->gen++;
	return 0;
}

/* Calls fn for every route, in table order (connected ones first). */
void
cpe_rt4_walk(const struct cpe_rt4 *r,
	     void (*fn)(const struct cpe_route_cfg *rt, uint16_t out, void *arg),
	     void *arg)
{
	struct cpe_route_cfg rt;
	uint32_t i;

	for (i = 0; i < r->nb_routes; i++) {
		if (!r->routes[i].used)
			continue;
		rt.prefix = r->routes[i].prefix;
		rt.plen = r->routes[i].plen;
		rt.gw = r->routes[i].gw;
		fn(&rt, r->routes[i].out, arg);
	}
}

/* 0: *out and *nexthop (host order) set; -ENOENT: no route. */
int
cpe_rt4_lookup(const struct cpe_rt4 *r, uint32_t dst, uint16_t *out,
	       uint32_t *nexthop)
{
	uint32_t id;

	if (rte_lpm_lookup(r->lpm, dst, &id) != 0) {
		if (r->default_route < 0)
			return -ENOENT;
		id = (uint32_t)r->default_route;
	}
	*out = r->routes[id].out;
	*nexthop = r->routes[id].gw ? r->routes[id].gw : dst;
	return 0;
}
