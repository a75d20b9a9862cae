/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ip4_route: the TTL (ICMP time exceeded when it runs out) and the route
 * (rt.h; ICMP net unreachable without one), by the destination NAT gave
 * a reply back. The interface out and next hop set, a packet from a LAN
 * to the WAN goes through NAPT (nat4_out); what NAT did not already take
 * (routed between LANs, or with --no-nat) through the firewall's zone
 * policy (fw); a NAT reply or a translated ICMP error straight on to be
 * rewritten (ip4_rewrite).
 */

#include <rte_ip.h>

#include "dpconf.h"
#include "ip4.h"
#include "rt.h"

enum {
	IP4_ROUTE_NAT,
	IP4_ROUTE_FW,
	IP4_ROUTE_REWRITE,
	IP4_ROUTE_ICMP,
	IP4_ROUTE_NB
};

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct cpe_ip4_route *c = ctx;
	struct cpe_mb *mb = cpe_mb(m);
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	uint16_t in = cpe_in(m), out;
	uint32_t nh;

	if (ip->time_to_live <= 1) {
		c->drop_ttl++;
		mb->why = CPE_ICMP4_TTL;
		return IP4_ROUTE_ICMP;
	}
	if (cpe_rt4_lookup(c->rt, rte_be_to_cpu_32(mb->flags & CPE_MB_NAT_IN ?
						   mb->dip : ip->dst_addr),
			   &out, &nh) != 0) {
		c->drop_no_route++;
		mb->why = CPE_ICMP4_UNREACH;
		return IP4_ROUTE_ICMP;
	}
	mb->out = (uint8_t)out;
	mb->nh = nh;
	mb->flags |= CPE_MB_ROUTED;
	if (mb->flags & (CPE_MB_NAT_IN | CPE_MB_ICMP_XLATED))
		return IP4_ROUTE_REWRITE;
	if (c->nat_on && c->ifs->ifs[out].wan && !c->ifs->ifs[in].wan)
		return IP4_ROUTE_NAT;
	return IP4_ROUTE_FW;
}

static uint16_t
ip4_route_process(struct rte_graph *g, struct rte_node *node, void **objs,
		  uint16_t cnt)
{
	struct cpe_ip4_route *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
ip4_route_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_ip4_route *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->rt = dp->rt4;
	c->nat_on = dp->nat_on;
	return 0;
}

static struct rte_node_register ip4_route_node = {
	.name = "ip4_route",
	.process = ip4_route_process,
	.init = ip4_route_init,
	.fini = cpe_node_fini,
	.nb_edges = IP4_ROUTE_NB,
	.next_nodes = {
		[IP4_ROUTE_NAT] = "nat4_out",
		[IP4_ROUTE_FW] = "firewall",
		[IP4_ROUTE_REWRITE] = "ip4_rewrite",
		[IP4_ROUTE_ICMP] = "icmp4_error",
	},
};

RTE_NODE_REGISTER(ip4_route_node);
