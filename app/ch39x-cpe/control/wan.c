/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The WAN's IPv4 address at run time (wan.h). With --wan PORT=dhcp the
 * router starts without one: a DHCP client on the WAN's TAP (Linux, the
 * control plane) gets the lease and its hook (usertools/ch39x-cpe-udhcpc)
 * reports it over telemetry (wan_ctl.c: /cpe/wan/set, /cpe/wan/clear);
 * with --wan PORT=pppoe pppd's does (/cpe/wan/pppoe). Here, on the
 * forwarding lcore: the port's address and connected route, the default
 * route through the lease's gateway, and NAT: its sessions all carry the
 * old address, so they are flushed (counted) when it changes; the flow
 * cache follows the generation that the route change bumps. Until an
 * address is there, what goes to the WAN through NAT is dropped
 * (wan_no_addr, counted by nat4_out).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_telemetry.h>

#include "ip4.h"
#include "nat.h"
#include "rt.h"
#include "wan.h"
#include "wan6.h"
#include "wan_pppoe.h"
#include "wan_state.h"

const char *
cpe_wan_mode(const struct cpe_router *r)
{
	int16_t wan = r->dp->ifs.wan;

	if (wan < 0)
		return "none";
	if (r->o->ports[wan].pppoe)
		return "pppoe";
	if (r->o->ports[wan].mbim)
		return "mbim";
	return r->o->ports[wan].dhcp ? "dhcp" : "static";
}

/* What NAT dropped for want of the WAN's address (nat4_out). */
static uint64_t
no_addr_drops(void)
{
	const struct cpe_nat4_out *n = cpe_node_state_of("nat4_out");

	return n != NULL ? n->wan_no_addr : 0;
}

static void
fmt4(char *b, size_t n, uint32_t a)
{
	snprintf(b, n, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255,
		 (a >> 8) & 255, a & 255);
}

/* The address, its connected route and the default route gone. */
static void
drop_addr(struct cpe_router *r, struct cpe_iface *p, struct cpe_port_cfg *c)
{
	struct cpe_wan *w = r->wan;

	if (p->ip == 0)
		return;
	cpe_rt4_del(r->dp->rt4, p->ip & p->mask, c->plen);
	if (w->gw != 0)
		cpe_rt4_del(r->dp->rt4, 0, 0);
	w->nat_flushed += cpe_nat_flush(r->dp->nat);
	p->ip = 0;
	p->ip_be = 0;
	p->mask = ~0u;
	c->ip = 0;
	c->plen = 0;
	w->gw = 0;
}

/*
 * The address: a DHCP lease's on its subnet (plen 1..30, the gateway on
 * it), or PPP's (plen 32, the peer anywhere but the address: the link
 * is point to point, its next hop the concentrator).
 */
int
cpe_wan_set4(struct cpe_router *r, uint32_t ip, uint8_t plen, uint32_t gw,
	 const char **err)
{
	struct cpe_wan *w = r->wan;
	int16_t wan = r->dp->ifs.wan;
	struct cpe_iface *p;
	struct cpe_port_cfg *c;
	uint32_t mask;

	if (plen == 32) {
		if (ip == 0 || (ip >> 28) >= 14 || (ip >> 24) == 127 ||
		    gw == ip) {
			*err = "a unicast local address, the peer another";
			return -EINVAL;
		}
		mask = ~0u;
	} else {
		mask = plen ? ~0u << (32 - plen) : 0;
		if (plen < 1 || plen > 30 || (ip & ~mask) == 0 ||
		    (ip & ~mask) == ~mask) {
			*err = "a host address with a prefix length 1..30";
			return -EINVAL;
		}
		if (gw != 0 && (((gw ^ ip) & mask) != 0 || gw == ip)) {
			*err = "a gateway on the lease's subnet, not the "
				"address";
			return -EINVAL;
		}
	}
	p = &r->dp->ifs.ifs[wan];
	c = &r->o->ports[wan];
	/* A renewal of the same lease: nothing moves. */
	if (p->ip == ip && c->plen == plen && w->gw == gw) {
		w->renewals++;
		return 0;
	}
	drop_addr(r, p, c);
	p->ip = ip;
	p->ip_be = rte_cpu_to_be_32(ip);
	p->mask = mask;
	c->ip = ip;
	c->plen = plen;
	cpe_rt4_add(r->dp->rt4, ip & mask, plen, 0, (uint16_t)wan);
	if (gw != 0)
		cpe_rt4_add(r->dp->rt4, 0, 0, gw, (uint16_t)wan);
	w->gw = gw;
	w->sets++;
	w->since = rte_rdtsc();
	return 0;
}

void
cpe_wan_clear4(struct cpe_router *r)
{
	int16_t wan = r->dp->ifs.wan;

	if (wan < 0)
		return;
	cpe_wan_pppoe_down(r);
	if (r->dp->ifs.ifs[wan].ip != 0) {
		r->wan->clears++;
		r->wan->since = rte_rdtsc();
	}
	drop_addr(r, &r->dp->ifs.ifs[wan], &r->o->ports[wan]);
}

static uint64_t
uptime_s(const struct cpe_router *r)
{
	return r->wan->since ?
		(rte_rdtsc() - r->wan->since) / r->dp->env.hz : 0;
}

void
cpe_wan_tel(struct cpe_router *r, struct rte_tel_data *d)
{
	const struct cpe_wan *w = r->wan;
	int16_t wan = r->dp->ifs.wan;
	const struct cpe_iface *p;
	char a[24], g[16];

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "mode", cpe_wan_mode(r));
	if (wan < 0)
		return;
	p = &r->dp->ifs.ifs[wan];
	if (p->ip != 0) {
		fmt4(a, sizeof(a), p->ip);
		snprintf(a + strlen(a), sizeof(a) - strlen(a), "/%u",
			 r->o->ports[wan].plen);
		rte_tel_data_add_dict_string(d, "address", a);
	} else {
		rte_tel_data_add_dict_string(d, "address", "none");
	}
	fmt4(g, sizeof(g), w->gw);
	rte_tel_data_add_dict_string(d, "gateway", w->gw ? g : "none");
	cpe_tel_u64(d, "uptime_s", uptime_s(r));
	cpe_tel_u64(d, "sets", w->sets);
	cpe_tel_u64(d, "renewals", w->renewals);
	cpe_tel_u64(d, "clears", w->clears);
	cpe_tel_u64(d, "nat_flushed", w->nat_flushed);
	cpe_tel_u64(d, "no_addr_drops", no_addr_drops());
	if (r->o->ports[wan].pppoe)
		cpe_wan_pppoe_tel(r, d);
	cpe_wan6_tel(r, d);
}

void
cpe_wan_print(struct cpe_router *r, FILE *f)
{
	const struct cpe_wan *w = r->wan;
	int16_t wan = r->dp->ifs.wan;
	uint32_t ip = wan >= 0 ? r->dp->ifs.ifs[wan].ip : 0;
	char a[16], g[16];

	fmt4(a, sizeof(a), ip);
	fmt4(g, sizeof(g), w->gw);
	fprintf(f, "  wan: mode %s address %s gateway %s sets %" PRIu64
		" renewals %" PRIu64 " clears %" PRIu64 " nat_flushed %"
		PRIu64 " no_addr_drops %" PRIu64 "\n", cpe_wan_mode(r),
		ip ? a : "none", w->gw ? g : "none", w->sets, w->renewals,
		w->clears, w->nat_flushed, no_addr_drops());
	if (wan >= 0 && r->o->ports[wan].pppoe)
		cpe_wan_pppoe_print(r, f);
	cpe_wan6_print(r, f);
}

void
cpe_wan_json(struct cpe_router *r, FILE *f)
{
	const struct cpe_wan *w = r->wan;
	int16_t wan = r->dp->ifs.wan;
	uint32_t ip = wan >= 0 ? r->dp->ifs.ifs[wan].ip : 0;
	char a[16], g[16];

	fmt4(a, sizeof(a), ip);
	fmt4(g, sizeof(g), w->gw);
	fprintf(f, "  \"wan\": {\"mode\": \"%s\", \"address\": \"%s\", "
		"\"prefix_len\": %u, \"gateway\": \"%s\", \"uptime_s\": %"
		PRIu64 ", \"sets\": %" PRIu64 ", \"renewals\": %" PRIu64
		", \"clears\": %" PRIu64 ", \"nat_flushed\": %" PRIu64
		", \"no_addr_drops\": %" PRIu64 ", ", cpe_wan_mode(r),
		ip ? a : "", wan >= 0 ? r->o->ports[wan].plen : 0,
		w->gw ? g : "", uptime_s(r), w->sets, w->renewals, w->clears,
		w->nat_flushed, no_addr_drops());
	cpe_wan6_json(r, f);
	fprintf(f, "},\n");
	if (wan >= 0 && r->o->ports[wan].pppoe)
		cpe_wan_pppoe_json(r, f);
}

int
cpe_wan_create(struct cpe_router *r)
{
	r->wan = calloc(1, sizeof(*r->wan));
	return r->wan == NULL ? -ENOMEM : 0;
}

void
cpe_wan_free(struct cpe_router *r)
{
	free(r->wan);
	r->wan = NULL;
}
