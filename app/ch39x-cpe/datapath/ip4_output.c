/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ip4_output: a packet the router made (an ICMP error, an echo reply; its
 * IPv4 header complete but the checksum) on its way: the route to its
 * destination, the checksum (the port's offload where it has one), the
 * interface's MAC as the source; the next hop's is neigh4's.
 */

#include <rte_ip.h>

#include "dpconf.h"
#include "ip4.h"
#include "rt.h"

enum {
	IP4_OUTPUT_NEIGH,
	IP4_OUTPUT_DROP,
	IP4_OUTPUT_NB
};

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct cpe_ip4_output *c = ctx;
	struct cpe_mb *mb = cpe_mb(m);
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
	const struct cpe_iface *p;
	uint32_t nh;
	uint16_t out;

	if (cpe_rt4_lookup(c->rt, rte_be_to_cpu_32(ip->dst_addr), &out,
			   &nh) != 0) {
		c->no_route++;
		return IP4_OUTPUT_DROP;
	}
	p = &c->ifs->ifs[out];
	ip->hdr_checksum = 0;
	if (p->ip_csum_offload) {
		/* The port has the offload: leave the sum to it. */
		m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
		m->l2_len = sizeof(*eh);
		m->l3_len = rte_ipv4_hdr_len(ip);
	} else {
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	rte_ether_addr_copy(&p->mac, &eh->src_addr);
	mb->out = (uint8_t)out;
	mb->nh = nh;
	mb->flags |= CPE_MB_NOCACHE | CPE_MB_ROUTED;
	return IP4_OUTPUT_NEIGH;
}

static uint16_t
ip4_output_process(struct rte_graph *g, struct rte_node *node, void **objs,
		   uint16_t cnt)
{
	struct cpe_ip4_output *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
ip4_output_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_ip4_output *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->rt = dp->rt4;
	return 0;
}

static struct rte_node_register ip4_output_node = {
	.name = "ip4_output",
	.process = ip4_output_process,
	.init = ip4_output_init,
	.fini = cpe_node_fini,
	.nb_edges = IP4_OUTPUT_NB,
	.next_nodes = {
		[IP4_OUTPUT_NEIGH] = "neigh4",
		[IP4_OUTPUT_DROP] = "drop-no_route",
	},
};

RTE_NODE_REGISTER(ip4_output_node);
