/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ip6_route: the hop limit (ICMPv6 time exceeded), the route (rt.h;
 * ICMPv6 no route) and the egress MTU (ICMPv6 packet too big: IPv6 is
 * never fragmented by routers, RFC 8200 5) of a packet to forward; then
 * its fragments' way (ip6_frag) and the firewall.
 */

#include <rte_ip.h>

#include "dpconf.h"
#include "ip6.h"
#include "rt.h"

enum {
	IP6_ROUTE_FRAG,
	IP6_ROUTE_ICMP,
	IP6_ROUTE_NB
};

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct cpe_ip6_route *c = ctx;
	struct cpe_mb *mb = cpe_mb(m);
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	uint16_t out;

	if (ip->hop_limits <= 1) {
		c->drop_hop_limit++;
		mb->why = CPE_ICMP6_TIME;
		return IP6_ROUTE_ICMP;
	}
	if (cpe_rt6_lookup(c->rt, IP6_DST(ip), &out, mb->nh6) != 0) {
		c->drop_no_route++;
		mb->why = CPE_ICMP6_UNREACH;
		return IP6_ROUTE_ICMP;
	}
	if (sizeof(*ip) + mb->tot > c->ifs->ifs[out].mtu) {
		c->drop_mtu++;
		mb->why = CPE_ICMP6_TOO_BIG;
		mb->mtu = c->ifs->ifs[out].mtu;
		return IP6_ROUTE_ICMP;
	}
	mb->out = (uint8_t)out;
	mb->flags |= CPE_MB_ROUTED;
	return IP6_ROUTE_FRAG;
}

static uint16_t
ip6_route_process(struct rte_graph *g, struct rte_node *node, void **objs,
		  uint16_t cnt)
{
	struct cpe_ip6_route *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
ip6_route_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_ip6_route *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->rt = dp->rt6;
	return 0;
}

static struct rte_node_register ip6_route_node = {
	.name = "ip6_route",
	.process = ip6_route_process,
	.init = ip6_route_init,
	.fini = cpe_node_fini,
	.nb_edges = IP6_ROUTE_NB,
	.next_nodes = {
		[IP6_ROUTE_FRAG] = "ip6_frag",
		[IP6_ROUTE_ICMP] = "icmp6_error",
	},
};

RTE_NODE_REGISTER(ip6_route_node);
