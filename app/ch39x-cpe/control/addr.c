/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The interfaces' addresses and the routes from the options: IPv4's
 * connected routes from the interfaces' subnets, then --route's, whose
 * gateways must be on one; IPv6's link-local addresses (EUI-64 of the
 * MAC), prefixes with their connected routes, the multicast groups each
 * port must hear for neighbour discovery, and --route's IPv6 routes. A
 * delegated prefix's /64s come and go at run time (wan6.c:
 * cpe_addr_port_pd()).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_errno.h>
#include <rte_ethdev.h>

#include "addr.h"
#include "router.h"
#include "rt.h"

/* Connected IPv4 routes from the interfaces, then --route. */
static int
routes4(struct cpe_router *r)
{
	const struct cpe_opts *o = r->o;
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	const struct cpe_route_cfg *rt;
	uint32_t nh;
	uint16_t i, out;
	int rc;

	for (i = 0; i < ifs->nb; i++) {
		if (ifs->ifs[i].ip == 0)
			continue;	/* an IPv6-only port */
		rc = cpe_rt4_add(r->dp->rt4, ifs->ifs[i].ip & ifs->ifs[i].mask,
				 o->ports[i].plen, 0, i);
		if (rc != 0) {
			fprintf(stderr, "ch39x-cpe: port %u: cannot add its "
				"connected route: %s\n", ifs->ifs[i].id,
				rte_strerror(-rc));
			return rc;
		}
	}
	for (i = 0; i < o->nb_routes; i++) {
		rt = &o->routes[i];
		/* The gateway must be on a connected subnet. */
		if (cpe_rt4_lookup(r->dp->rt4, rt->gw, &out, &nh) != 0 ||
		    nh != rt->gw) {
			fprintf(stderr, "ch39x-cpe: --route %u.%u.%u.%u/%u,"
				"%u.%u.%u.%u: the gateway is on no port's "
				"subnet; allowed gateways are addresses of the "
				"--lan/--wan subnets\n", rt->prefix >> 24,
				(rt->prefix >> 16) & 255,
				(rt->prefix >> 8) & 255, rt->prefix & 255,
				rt->plen, rt->gw >> 24, (rt->gw >> 16) & 255,
				(rt->gw >> 8) & 255, rt->gw & 255);
			return -EINVAL;
		}
		rc = cpe_rt4_add(r->dp->rt4, rt->prefix, rt->plen, rt->gw, out);
		if (rc != 0) {
			fprintf(stderr, "ch39x-cpe: --route: cannot add route "
				"%u of %u: %s\n", i + 1, o->nb_routes,
				rte_strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/*
 * The groups a DPDK port must hear: all-nodes, all-routers (router
 * solicitations for the control plane) and the solicited-node group of
 * each address of each interface on it (its VLAN sub-interfaces share
 * the filter). Without a multicast filter, all multicast.
 */
static void
join_groups(const struct cpe_ifaces *ifs, uint16_t port_id)
{
	struct rte_ether_addr mc[2 + CPE_MAX_PORTS * (1 + CPE_MAX_IP6)];
	const struct cpe_iface *p;
	uint32_t n = 0;
	uint16_t j;
	uint8_t i;

	mc[n++] = (struct rte_ether_addr){ { 0x33, 0x33, 0, 0, 0, 1 } };
	mc[n++] = (struct rte_ether_addr){ { 0x33, 0x33, 0, 0, 0, 2 } };
	for (j = 0; j < ifs->nb; j++) {
		p = &ifs->ifs[j];
		if (p->id != port_id)
			continue;
		mc[n++] = (struct rte_ether_addr){ { 0x33, 0x33, 0xff,
			p->ll6[13], p->ll6[14], p->ll6[15] } };
		for (i = 0; i < p->nb_ip6; i++)
			mc[n++] = (struct rte_ether_addr){ { 0x33, 0x33, 0xff,
				p->ip6[i].a[13], p->ip6[i].a[14],
				p->ip6[i].a[15] } };
	}
	if (rte_eth_dev_set_mc_addr_list(port_id, mc, n) != 0 &&
	    rte_eth_allmulticast_enable(port_id) != 0)
		fprintf(stderr, "ch39x-cpe: port %u: neither a multicast "
			"filter nor all-multicast: IPv6 neighbour discovery "
			"may not hear solicitations\n", port_id);
}

/* Connected IPv6 routes from the prefixes. */
static int
connected6(struct cpe_router *r)
{
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	const struct cpe_ip6 *a;
	uint8_t pfx[16];
	uint16_t i, j;
	int rc;

	for (i = 0; i < ifs->nb; i++) {
		for (j = 0; j < ifs->ifs[i].nb_ip6; j++) {
			a = &ifs->ifs[i].ip6[j];
			cpe_ip6_prefix_of(pfx, a->a, a->plen);
			rc = cpe_rt6_add(r->dp->rt6, pfx, a->plen, NULL, i);
			if (rc != 0) {
				fprintf(stderr, "ch39x-cpe: port %u: cannot "
					"add a connected IPv6 route: %s\n",
					ifs->ifs[i].id, rte_strerror(-rc));
				return rc;
			}
		}
	}
	return 0;
}

/* --route's IPv6 routes, their gateways on a prefix (or the WAN's). */
static int
routes6(struct cpe_router *r)
{
	const struct cpe_opts *o = r->o;
	char pb[INET6_ADDRSTRLEN], gb[INET6_ADDRSTRLEN];
	const struct cpe_route6_cfg *rt;
	uint16_t i;
	int rc;

	for (i = 0; i < o->nb_routes6; i++) {
		rt = &o->routes6[i];
		rc = cpe_addr_gw6_port(r, rt->gw);
		if (rc < 0) {
			cpe_ip6_fmt(pb, sizeof(pb), rt->prefix.a);
			cpe_ip6_fmt(gb, sizeof(gb), rt->gw);
			fprintf(stderr, "ch39x-cpe: --route %s/%u,%s: the "
				"gateway is on no port's prefix; allowed "
				"gateways are addresses of the --lan/--wan "
				"IPv6 prefixes, or link-local ones (on the "
				"WAN)\n", pb, rt->prefix.plen, gb);
			return -EINVAL;
		}
		rc = cpe_rt6_add(r->dp->rt6, rt->prefix.a, rt->prefix.plen,
				 rt->gw, (uint16_t)rc);
		if (rc != 0) {
			fprintf(stderr, "ch39x-cpe: --route: cannot add IPv6 "
				"route %u of %u: %s\n", i + 1, o->nb_routes6,
				rte_strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* The interfaces' IPv6 addresses; whether any routes IPv6. */
static bool
addrs6(struct cpe_router *r)
{
	struct cpe_ifaces *ifs = &r->dp->ifs;
	struct cpe_iface *p;
	bool on = false;
	uint16_t i;

	for (i = 0; i < ifs->nb; i++) {
		p = &ifs->ifs[i];
		p->nb_ip6 = r->o->ports[i].nb_ip6;
		memcpy(p->ip6, r->o->ports[i].ip6, sizeof(p->ip6));
		cpe_ip6_link_local(&p->mac, p->ll6);
		/* A LAN waiting for its delegated prefix routes IPv6 too. */
		if (p->nb_ip6 || r->o->ports[i].pd)
			on = true;
	}
	return on;
}

int
cpe_addr_setup(struct cpe_router *r)
{
	uint16_t k;
	int rc;

	r->dp->rt4 = cpe_rt4_create(&r->dp->env);
	if (r->dp->rt4 == NULL) {
		fprintf(stderr, "ch39x-cpe: cannot create the route table: "
			"%s\n", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	rc = routes4(r);
	r->dp->v6_on = addrs6(r);
	if (rc != 0 || !r->dp->v6_on)
		return rc;
	for (k = 0; k < r->dp->ifs.nb_phys; k++)
		join_groups(&r->dp->ifs, r->dp->ifs.phys[k].id);
	r->dp->rt6 = cpe_rt6_create(&r->dp->env);
	if (r->dp->rt6 == NULL) {
		fprintf(stderr, "ch39x-cpe: cannot create the IPv6 route "
			"table: %s\n", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	rc = connected6(r);
	return rc != 0 ? rc : routes6(r);
}

/*
 * The interface a gateway is reached by, or -1: the one whose prefix
 * holds it (a connected route: the next hop is the gateway itself, and
 * not the router), or for a link-local gateway the WAN (the ISP's router
 * as its advertisements name it; a LAN's routers are the LAN's own
 * business).
 */
int
cpe_addr_gw6_port(const struct cpe_router *r, const uint8_t *gw)
{
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	uint8_t nh[16];
	uint16_t out;

	if (cpe_is_ll6(gw))
		return ifs->wan >= 0 && !cpe_if_mine6(ifs, ifs->wan, gw) ?
			ifs->wan : -1;
	if (cpe_rt6_lookup(r->dp->rt6, gw, &out, nh) != 0 ||
	    memcmp(nh, gw, 16) != 0 || cpe_if_mine6(ifs, out, gw))
		return -1;
	return out;
}

/*
 * Interface idx's address from a delegated prefix (a, a /64; NULL: none
 * any more), replacing the one it had: the address is the last of the
 * interface's (static ones first), with its connected route and its
 * solicited-node group.
 */
int
cpe_addr_port_pd(struct cpe_router *r, uint16_t idx, const uint8_t *a)
{
	struct cpe_iface *p = &r->dp->ifs.ifs[idx];
	struct cpe_ip6 *e;
	uint8_t pfx[16];
	int rc = 0;

	if (p->pd6) {
		e = &p->ip6[p->nb_ip6 - 1];
		cpe_ip6_prefix_of(pfx, e->a, e->plen);
		cpe_rt6_del(r->dp->rt6, pfx, e->plen);
		p->nb_ip6--;
		p->pd6 = false;
	}
	if (a != NULL && p->nb_ip6 < CPE_MAX_IP6) {
		e = &p->ip6[p->nb_ip6];
		memcpy(e->a, a, 16);
		e->plen = 64;
		cpe_ip6_prefix_of(pfx, a, 64);
		rc = cpe_rt6_add(r->dp->rt6, pfx, 64, NULL, idx);
		if (rc == 0) {
			p->nb_ip6++;
			p->pd6 = true;
		}
	} else if (a != NULL) {
		rc = -ENOSPC;
	}
	join_groups(&r->dp->ifs, p->id);
	return rc;
}
