/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ip6_rewrite: a routed IPv6 packet made ready to leave: a first
 * fragment's way recorded for its later ones, a SYN's MSS clamped to the
 * smaller MTU of the two interfaces (TCP right after the IPv6 header
 * only), the hop limit down by one, the interface's MAC as the source;
 * the next hop's is nd6's.
 */

#include <rte_ip.h>

#include "dpconf.h"
#include "fragdp.h"
#include "ip6.h"

enum {
	IP6_REWRITE_ND,
	IP6_REWRITE_NB
};

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct cpe_ip6_rewrite *c = ctx;
	struct cpe_mb *mb = cpe_mb(m);
	const struct cpe_iface *p = &c->ifs->ifs[mb->out];
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eh + 1);
	uint32_t dl = rte_pktmbuf_data_len(m);
	struct cpe_frag_info fi;

	if ((mb->flags & CPE_MB_FIRST) &&
	    cpe_fragdp_info(c->frag, m, &fi) == 1)
		cpe_fragdp_first6(c->frag, &fi, false);
	/* SYNs: the MSS the smaller MTU of the two sides allows. */
	if (ip->proto == IPPROTO_TCP &&
	    dl >= RTE_ETHER_HDR_LEN + sizeof(*ip) + 20)
		cpe_fragdp_mss(c->frag, (uint8_t *)(ip + 1),
			       RTE_MIN((uint32_t)mb->tot, dl -
				       RTE_ETHER_HDR_LEN -
				       (uint32_t)sizeof(*ip)),
			       RTE_MIN(c->ifs->ifs[cpe_in(m)].mtu, p->mtu) -
			       60u);
	ip->hop_limits--;
	rte_ether_addr_copy(&p->mac, &eh->src_addr);
	c->fwd++;
	return IP6_REWRITE_ND;
}

static uint16_t
ip6_rewrite_process(struct rte_graph *g, struct rte_node *node, void **objs,
		    uint16_t cnt)
{
	struct cpe_ip6_rewrite *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
ip6_rewrite_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_ip6_rewrite *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->frag = dp->frag;
	return 0;
}

static struct rte_node_register ip6_rewrite_node = {
	.name = "ip6_rewrite",
	.process = ip6_rewrite_process,
	.init = ip6_rewrite_init,
	.fini = cpe_node_fini,
	.nb_edges = IP6_REWRITE_NB,
	.next_nodes = {
		[IP6_REWRITE_ND] = "nd6",
	},
};

RTE_NODE_REGISTER(ip6_rewrite_node);
