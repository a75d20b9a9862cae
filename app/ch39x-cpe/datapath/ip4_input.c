/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ip4_input: the IPv4 header's checks (version, lengths, checksum unless
 * the PMD checked it; Ethernet padding trimmed), whether the packet is
 * the router's (one of its addresses, a broadcast or multicast: never
 * routed, RFC 1812 5.3.5), and its source (BCP 38 and bogons: fwdp.h).
 * Fragments go to ip4_frag, the router's packets to ip4_local, the rest
 * to the route (ip4_route) but on a NAT WAN: behind NAPT the LAN hosts
 * are reached through sessions only. TCP SYNs from the WAN over the
 * guard's budget (--synflood-budget) are dropped first.
 */

#include <rte_ip.h>

#include "dpconf.h"
#include "fwdp.h"
#include "guard_dp.h"
#include "ip4.h"

enum {
	IP4_IN_FRAG,
	IP4_IN_LOCAL,
	IP4_IN_ROUTE,
	IP4_IN_DROP_BAD,
	IP4_IN_DROP_FW,
	IP4_IN_DROP_NAT,
	IP4_IN_DROP_SYNFLOOD,
	IP4_IN_NB
};

/* 0 and *ipp, the packet's lengths in mb (padding trimmed), or -1. */
static int
check(struct rte_mbuf *m, struct cpe_mb *mb, struct rte_ipv4_hdr **ipp)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t ihl = rte_ipv4_hdr_len(ip);
	uint32_t tot = rte_be_to_cpu_16(ip->total_length);

	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + 20 ||
	    (ip->version_ihl >> 4) != 4 || ihl < 20 ||
	    rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + ihl || tot < ihl ||
	    rte_pktmbuf_pkt_len(m) < RTE_ETHER_HDR_LEN + tot)
		return -1;
	if (!(m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_GOOD) &&
	    rte_ipv4_cksum(ip) != 0)
		return -1;
	/* Ethernet padding of short frames is not ours to forward. */
	if (rte_pktmbuf_pkt_len(m) > RTE_ETHER_HDR_LEN + tot)
		rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) -
				 RTE_ETHER_HDR_LEN - tot);
	mb->tot = (uint16_t)tot;
	mb->l4_len = (uint16_t)(RTE_MIN(tot, (uint32_t)rte_pktmbuf_data_len(m)
					- RTE_ETHER_HDR_LEN) - ihl);
	*ipp = ip;
	return 0;
}

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct cpe_ip4_input *c = ctx;
	struct cpe_mb *mb = cpe_mb(m);
	uint16_t in = cpe_in(m);
	struct rte_ipv4_hdr *ip;
	bool local;

	c->pkts++;
	if (check(m, mb, &ip) != 0) {
		c->bad++;
		return IP4_IN_DROP_BAD;
	}
	/* The budget of SYNs from the WAN, before any lookup (guard_dp.h). */
	if (c->ifs->ifs[in].wan && c->fw->guard_on &&
	    !cpe_guard_syn_ok(&c->fw->guard, m, c->env->now))
		return IP4_IN_DROP_SYNFLOOD;
	local = cpe_if_local4(c->ifs, rte_be_to_cpu_32(ip->dst_addr), in);
	if (local)
		mb->flags |= CPE_MB_LOCAL;
	if (cpe_fwdp_src4(c->fw, in, local, ip->src_addr) != CPE_FW_ACCEPT)
		return IP4_IN_DROP_FW;
	if (ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG |
						   RTE_IPV4_HDR_OFFSET_MASK)) {
		mb->flags |= CPE_MB_FRAG;
		return IP4_IN_FRAG;
	}
	if (local)
		return IP4_IN_LOCAL;
	if (c->nat_on && c->ifs->ifs[in].wan) {
		/* Behind NAPT, LAN hosts are reached through sessions only. */
		c->nat_no_mapping++;
		if (c->fw->on)
			cpe_fw_drop(&c->fw->fw, CPE_FW_DROP_FWD_NEW);
		return IP4_IN_DROP_NAT;
	}
	return IP4_IN_ROUTE;
}

static uint16_t
ip4_input_process(struct rte_graph *g, struct rte_node *node, void **objs,
		  uint16_t cnt)
{
	struct cpe_ip4_input *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
ip4_input_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_ip4_input *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->fw = dp->fw;
	c->nat_on = dp->nat_on;
	return 0;
}

static struct rte_node_register ip4_input_node = {
	.name = "ip4_input",
	.process = ip4_input_process,
	.init = ip4_input_init,
	.fini = cpe_node_fini,
	.nb_edges = IP4_IN_NB,
	.next_nodes = {
		[IP4_IN_FRAG] = "ip4_frag",
		[IP4_IN_LOCAL] = "ip4_local",
		[IP4_IN_ROUTE] = "ip4_route",
		[IP4_IN_DROP_BAD] = "drop-bad",
		[IP4_IN_DROP_FW] = "drop-fw",
		[IP4_IN_DROP_NAT] = "drop-nat",
		[IP4_IN_DROP_SYNFLOOD] = "drop-synflood",
	},
};

RTE_NODE_REGISTER(ip4_input_node);
