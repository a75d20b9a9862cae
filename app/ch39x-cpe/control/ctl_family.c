/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The families of the route and neighbour commands (ctl_route.h): IPv4's
 * and IPv6's tables, addresses, subnets and listings.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "ctl_family.h"
#include "ntab.h"
#include "rt.h"

static void
fmt_v4(char *buf, size_t cap, uint32_t ip)
{
	snprintf(buf, cap, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255,
		 (ip >> 8) & 255, ip & 255);
}

/* As ip(8) prints them: lower case. */
void
cpe_ctl_fmt_mac(char *buf, size_t cap, const struct rte_ether_addr *mac)
{
	const uint8_t *b = mac->addr_bytes;

	snprintf(buf, cap, "%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2],
		 b[3], b[4], b[5]);
}

static void
fmt_prefix(char *buf, size_t cap, uint32_t ip, uint8_t plen)
{
	char a[16];

	fmt_v4(a, sizeof(a), ip);
	snprintf(buf, cap, "%s/%u", a, plen);
}

static void
fmt_prefix6(char *buf, size_t cap, const uint8_t *a, uint8_t plen)
{
	char s[INET6_ADDRSTRLEN];

	cpe_ip6_fmt(s, sizeof(s), a);
	snprintf(buf, cap, "%s/%u", s, plen);
}

static bool
is_zero6(const uint8_t *a)
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

int
cpe_ctl_parse_addr(const char *s, struct ctl_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (strchr(s, ':') != NULL) {
		a->af = AF_INET6;
		return inet_pton(AF_INET6, s, a->v6) == 1 ? 0 : -EINVAL;
	}
	a->af = AF_INET;
	return cpe_parse_ip(s, &a->v4);
}

int
cpe_ctl_parse_prefix(const char *s, struct ctl_addr *a, uint8_t *plen)
{
	char buf[64], *slash, *end;
	unsigned long len;
	uint32_t i, max;

	if (strcmp(s, "default") == 0) {
		memset(a, 0, sizeof(*a));
		a->af = AF_INET;
		*plen = 0;
		return 0;
	}
	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash == NULL || slash[1] < '0' || slash[1] > '9')
		return -EINVAL;
	*slash = '\0';
	if (cpe_ctl_parse_addr(buf, a) != 0)
		return -EINVAL;
	max = a->af == AF_INET ? 32 : 128;
	len = strtoul(slash + 1, &end, 10);
	if (*end != '\0' || len > max)
		return -EINVAL;
	*plen = (uint8_t)len;
	if (a->af == AF_INET)
		return len < 32 && (a->v4 & (~0u >> len)) != 0 ? -EINVAL : 0;
	for (i = len; i < 128; i++)
		if (a->v6[i / 8] & (0x80 >> (i % 8)))
			return -EINVAL;
	return 0;
}

/* The interface whose subnet holds a (not the router itself), or -1. */
static int
port_of(const struct cpe_router *r, const struct ctl_addr *a)
{
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	const struct cpe_iface *p;
	uint32_t ip = a->v4;
	uint16_t i;

	for (i = 0; i < ifs->nb; i++) {
		p = &ifs->ifs[i];
		if (((ip ^ p->ip) & p->mask) == 0 && ip != p->ip &&
		    (ip & ~p->mask) != 0 && (ip & ~p->mask) != ~p->mask)
			return i;
	}
	return -1;
}

static void
list_subnets(const struct cpe_router *r, struct rte_tel_data *a)
{
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	const struct cpe_iface *p;
	char buf[24];
	uint16_t i;

	for (i = 0; a != NULL && i < ifs->nb; i++) {
		p = &ifs->ifs[i];
		fmt_prefix(buf, sizeof(buf), p->ip & p->mask,
			   (uint8_t)__builtin_popcount(p->mask));
		rte_tel_data_add_array_string(a, buf);
	}
}

/*
 * The interface whose IPv6 prefix holds a (not the router itself), or
 * -1: a connected route's next hop is the destination itself.
 * Neighbours: link-local ones are the link's own business.
 */
static int
port_of6(const struct cpe_router *r, const struct ctl_addr *a)
{
	if (cpe_is_ll6(a->v6))
		return -1;
	return cpe_addr_gw6_port(r, a->v6);
}

/* A gateway: also a link-local one, the WAN's router. */
static int
gw_port6(const struct cpe_router *r, const struct ctl_addr *a)
{
	return cpe_addr_gw6_port(r, a->v6);
}

static void
list_subnets6(const struct cpe_router *r, struct rte_tel_data *a)
{
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	const struct cpe_ip6 *p;
	char buf[CTL_PFX6_LEN];
	uint8_t pfx[16], j;
	uint16_t i;

	for (i = 0; a != NULL && i < ifs->nb; i++) {
		for (j = 0; j < ifs->ifs[i].nb_ip6; j++) {
			p = &ifs->ifs[i].ip6[j];
			cpe_ip6_prefix_of(pfx, p->a, p->plen);
			fmt_prefix6(buf, sizeof(buf), pfx, p->plen);
			rte_tel_data_add_array_string(a, buf);
		}
	}
}

/*
 * One route of a listing, its prefix and gateway (NULL: connected)
 * already text, so that both families' walks share the layout.
 */
static void
route_show(struct list_ctx *l, const char *p, const char *gw, uint16_t out)
{
	char buf[RTE_TEL_MAX_STRING_LEN];
	uint16_t id = l->r->dp->ifs.ifs[out].id;

	if (l->static_only && gw == NULL)
		return;
	l->count++;
	if (l->a == NULL || l->shown == l->max)
		return;
	if (gw == NULL)
		snprintf(buf, sizeof(buf), "%s connected port %u", p, id);
	else
		snprintf(buf, sizeof(buf), "%s via %s port %u", p, gw, id);
	/* Prefixes only: the allowed values of /cpe/route/del. */
	rte_tel_data_add_array_string(l->a, l->static_only ? p : buf);
	l->shown++;
}

static void
route_line(const struct cpe_route_cfg *rt, uint16_t out, void *arg)
{
	char p[24], gw[16];

	fmt_prefix(p, sizeof(p), rt->prefix, rt->plen);
	fmt_v4(gw, sizeof(gw), rt->gw);
	route_show(arg, p, rt->gw == 0 ? NULL : gw, out);
}

static void
route6_line(const struct cpe_route6_cfg *rt, uint16_t out, void *arg)
{
	char p[CTL_PFX6_LEN], gw[INET6_ADDRSTRLEN];

	fmt_prefix6(p, sizeof(p), rt->prefix.a, rt->prefix.plen);
	cpe_ip6_fmt(gw, sizeof(gw), rt->gw);
	route_show(arg, p, is_zero6(rt->gw) ? NULL : gw, out);
}

/* One neighbour of a listing, as route_show() for routes. */
static void
neigh_show(struct list_ctx *l, const char *a, uint16_t idx,
	   const struct rte_ether_addr *mac, const char *state)
{
	char buf[RTE_TEL_MAX_STRING_LEN], m[RTE_ETHER_ADDR_FMT_SIZE];

	l->count++;
	if (l->a == NULL || l->shown == l->max)
		return;
	cpe_ctl_fmt_mac(m, sizeof(m), mac);
	snprintf(buf, sizeof(buf), "%s lladdr %s port %u %s", a, m,
		 l->r->dp->ifs.ifs[idx].id, state);
	/* Addresses only: the allowed values of /cpe/neigh/del. */
	rte_tel_data_add_array_string(l->a, l->static_only ? a : buf);
	l->shown++;
}

static void
neigh_line(uint32_t ip, uint16_t idx, const struct rte_ether_addr *mac,
	   const char *state, void *arg)
{
	char a[16];

	fmt_v4(a, sizeof(a), ip);
	neigh_show(arg, a, idx, mac, state);
}

static void
neigh6_line(const uint8_t *ip, uint16_t idx, const struct rte_ether_addr *mac,
	    const char *state, void *arg)
{
	char a[INET6_ADDRSTRLEN];

	cpe_ip6_fmt(a, sizeof(a), ip);
	neigh_show(arg, a, idx, mac, state);
}

/* --- IPv4: rt4 and the ARP table ---------------------------------------- */

static void
fmt_addr4(char *buf, size_t cap, const struct ctl_addr *a)
{
	fmt_v4(buf, cap, a->v4);
}

static int
route_get4(const struct cpe_router *r, const struct ctl_addr *dst,
	   uint8_t plen, bool *connected)
{
	uint32_t gw;
	int rc = cpe_rt4_get(r->dp->rt4, dst->v4, plen, &gw);

	*connected = rc == 0 && gw == 0;
	return rc;
}

static int
route_add4(struct cpe_router *r, const struct ctl_addr *dst, uint8_t plen,
	   const struct ctl_addr *gw, uint16_t out)
{
	return cpe_rt4_add(r->dp->rt4, dst->v4, plen, gw->v4, out);
}

static int
route_del4(struct cpe_router *r, const struct ctl_addr *dst, uint8_t plen)
{
	return cpe_rt4_del(r->dp->rt4, dst->v4, plen);
}

static void
route_walk4(struct list_ctx *l)
{
	cpe_rt4_walk(l->r->dp->rt4, route_line, l);
}

static int
neigh_set4(struct cpe_router *r, const struct ctl_addr *a, uint16_t out,
	   const struct rte_ether_addr *mac)
{
	return cpe_arp_static_set(r->dp->arp, a->v4, out, mac);
}

static int
neigh_del4(struct cpe_router *r, const struct ctl_addr *a)
{
	return cpe_arp_remove(r->dp->arp, a->v4);
}

static void
neigh_walk4(struct list_ctx *l)
{
	cpe_arp_walk(l->r->dp->arp, neigh_line, l);
}

/* --- IPv6: rt6 and the ND table ----------------------------------------- */

static void
fmt_addr6(char *buf, size_t cap, const struct ctl_addr *a)
{
	cpe_ip6_fmt(buf, cap, a->v6);
}

static int
route_get6(const struct cpe_router *r, const struct ctl_addr *dst,
	   uint8_t plen, bool *connected)
{
	uint8_t gw[16];
	int rc = cpe_rt6_get(r->dp->rt6, dst->v6, plen, gw);

	*connected = rc == 0 && is_zero6(gw);
	return rc;
}

static int
route_add6(struct cpe_router *r, const struct ctl_addr *dst, uint8_t plen,
	   const struct ctl_addr *gw, uint16_t out)
{
	return cpe_rt6_add(r->dp->rt6, dst->v6, plen, gw->v6, out);
}

static int
route_del6(struct cpe_router *r, const struct ctl_addr *dst, uint8_t plen)
{
	return cpe_rt6_del(r->dp->rt6, dst->v6, plen);
}

static void
route_walk6(struct list_ctx *l)
{
	cpe_rt6_walk(l->r->dp->rt6, route6_line, l);
}

static int
neigh_set6(struct cpe_router *r, const struct ctl_addr *a, uint16_t out,
	   const struct rte_ether_addr *mac)
{
	return cpe_nd6_static_set(r->dp->nd6, a->v6, out, mac);
}

static int
neigh_del6(struct cpe_router *r, const struct ctl_addr *a)
{
	return cpe_nd6_remove(r->dp->nd6, a->v6);
}

static void
neigh_walk6(struct list_ctx *l)
{
	cpe_nd6_walk(l->r->dp->nd6, neigh6_line, l);
}

/*
 * The "off" texts differ because IPv4 also refuses a subnet's network
 * and broadcast addresses.
 */
static const struct ctl_family family4 = {
	.addr_len = 16,
	.gw_off = "is on no port's subnet (or is the router, or a "
		  "subnet's network/broadcast address)",
	.addr_off = "is on no port's subnet (or is the router, or a "
		    "network/broadcast address)",
	.fmt = fmt_addr4,
	.port_of = port_of,
	.gw_port = port_of,
	.subnets = list_subnets,
	.route_get = route_get4,
	.route_add = route_add4,
	.route_del = route_del4,
	.route_walk = route_walk4,
	.neigh_set = neigh_set4,
	.neigh_del = neigh_del4,
	.neigh_walk = neigh_walk4,
};

static const struct ctl_family family6 = {
	.addr_len = INET6_ADDRSTRLEN,
	.gw_off = "is on no port's IPv6 prefix (or is the router); "
		  "link-local ones are the WAN's",
	.addr_off = "is on no port's IPv6 prefix (or is the router)",
	.fmt = fmt_addr6,
	.port_of = port_of6,
	.gw_port = gw_port6,
	.subnets = list_subnets6,
	.route_get = route_get6,
	.route_add = route_add6,
	.route_del = route_del6,
	.route_walk = route_walk6,
	.neigh_set = neigh_set6,
	.neigh_del = neigh_del6,
	.neigh_walk = neigh_walk6,
};

const struct ctl_family *
cpe_ctl_family(int af)
{
	return af == AF_INET6 ? &family6 : &family4;
}
