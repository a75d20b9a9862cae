/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ip6_output: a packet the router made (an ICMPv6 error, an echo reply;
 * its IPv6 header complete, its checksum done) on its way: a link-local
 * destination out where it came from, the rest by the route; the egress
 * MTU; the interface's MAC as the source; the next hop's is nd6's.
 */

#include <rte_ip.h>

#include "dpconf.h"
#include "ip6.h"
#include "rt.h"

enum {
	IP6_OUTPUT_ND,
	IP6_OUTPUT_DROP_NO_ROUTE,
	IP6_OUTPUT_DROP_MTU,
	IP6_OUTPUT_NB
};

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct cpe_ip6_output *c = ctx;
	struct cpe_mb *mb = cpe_mb(m);
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eh + 1);
	uint16_t out;

	if (cpe_is_ll6(IP6_DST(ip))) {
		out = cpe_in(m);
		memcpy(mb->nh6, IP6_DST(ip), 16);
	} else if (cpe_rt6_lookup(c->rt, IP6_DST(ip), &out, mb->nh6) != 0) {
		c->drop_no_route++;
		return IP6_OUTPUT_DROP_NO_ROUTE;
	}
	if (rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN >
	    c->ifs->ifs[out].mtu) {
		c->drop_mtu++;
		return IP6_OUTPUT_DROP_MTU;
	}
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	rte_ether_addr_copy(&c->ifs->ifs[out].mac, &eh->src_addr);
	mb->out = (uint8_t)out;
	mb->flags |= CPE_MB_NOCACHE | CPE_MB_ROUTED;
	return IP6_OUTPUT_ND;
}

static uint16_t
ip6_output_process(struct rte_graph *g, struct rte_node *node, void **objs,
		   uint16_t cnt)
{
	struct cpe_ip6_output *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
ip6_output_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_ip6_output *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->rt = dp->rt6;
	return 0;
}

static struct rte_node_register ip6_output_node = {
	.name = "ip6_output",
	.process = ip6_output_process,
	.init = ip6_output_init,
	.fini = cpe_node_fini,
	.nb_edges = IP6_OUTPUT_NB,
	.next_nodes = {
		[IP6_OUTPUT_ND] = "nd6",
		[IP6_OUTPUT_DROP_NO_ROUTE] = "drop-no_route",
		[IP6_OUTPUT_DROP_MTU] = "drop-mtu",
	},
};

RTE_NODE_REGISTER(ip6_output_node);
