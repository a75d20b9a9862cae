/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * eth_in: the slow path's start for what is not known to be IP yet (all
 * of it without a flow cache, else what flow4 and flow6 do not take but
 * ARP and the rest): by EtherType to ARP, IPv4 or IPv6; anything else is
 * not routed (PPPoE discovery and PPP control are pppoe_in's).
 */

#include "dpconf.h"
#include "ip4.h"

enum {
	ETH_IN_ARP,
	ETH_IN_IP4,
	ETH_IN_IP6,
	ETH_IN_DROP_BAD,
	ETH_IN_DROP_NOT_IP,
	ETH_IN_NB
};

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct cpe_eth_in *c = ctx;
	const struct rte_ether_hdr *eh =
		rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	c->pkts++;
	cpe_mb_init(m, 0);
	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + 20) {
		c->bad++;
		return ETH_IN_DROP_BAD;
	}
	if (eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP))
		return ETH_IN_ARP;
	if (eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return ETH_IN_IP4;
	/* IPv6 without a prefix anywhere: not routed, as the rest. */
	if (eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6) &&
	    c->v6_on)
		return ETH_IN_IP6;
	c->not_ip++;
	return ETH_IN_DROP_NOT_IP;
}

static uint16_t
eth_in_process(struct rte_graph *g, struct rte_node *node, void **objs,
	       uint16_t cnt)
{
	struct cpe_eth_in *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
eth_in_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_eth_in *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->v6_on = dp->v6_on;
	return 0;
}

static struct rte_node_register eth_in_node = {
	.name = "eth_in",
	.process = eth_in_process,
	.init = eth_in_init,
	.fini = cpe_node_fini,
	.nb_edges = ETH_IN_NB,
	.next_nodes = {
		[ETH_IN_ARP] = "arp_in",
		[ETH_IN_IP4] = "ip4_input",
		[ETH_IN_IP6] = "ip6_input",
		[ETH_IN_DROP_BAD] = "drop-bad",
		[ETH_IN_DROP_NOT_IP] = "drop-not_ip",
	},
};

RTE_NODE_REGISTER(eth_in_node);
