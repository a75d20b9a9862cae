/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * nat4_out: NAPT of what goes from a LAN to the WAN (nat.h): its session
 * (found or made) is the connection's state, the firewall needs no other.
 * An ICMP error a LAN host sends about a session's reply is translated
 * in place; a later fragment (no ports) whose first was not seen has
 * nothing to follow; before a DHCP WAN has its lease there is no address
 * to translate to.
 */

#include <rte_ip.h>

#include "dpconf.h"
#include "fragdp.h"
#include "ip4.h"
#include "nat.h"

enum {
	NAT4_OUT_REWRITE,
	NAT4_OUT_DROP_NAT,
	NAT4_OUT_DROP_FRAG,
	NAT4_OUT_DROP_NO_ADDR,
	NAT4_OUT_NB
};

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct cpe_nat4_out *c = ctx;
	struct cpe_mb *mb = cpe_mb(m);
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	const uint8_t *l4 = (const uint8_t *)ip + rte_ipv4_hdr_len(ip);

	if (ip->next_proto_id == IPPROTO_ICMP && mb->l4_len >= 8 &&
	    (l4[0] == 3 || l4[0] == 11 || l4[0] == 12)) {
		if (cpe_nat_icmp_error(c->nat, m, false) != 0) {
			c->no_mapping++;
			return NAT4_OUT_DROP_NAT;
		}
		mb->flags |= CPE_MB_ICMP_XLATED;
		return NAT4_OUT_REWRITE;
	}
	if (mb->flags & CPE_MB_LATER) {
		/* NAPT needs the ports, only in the first fragment: one not
		 * seen (or --frag-max 0), nothing to follow.
		 */
		cpe_fragdp_no_first(c->frag);
		c->no_first++;
		return NAT4_OUT_DROP_FRAG;
	}
	if (c->ifs->ifs[mb->out].ip == 0) {
		/* --wan PORT=dhcp before its lease: nothing to NAT to. */
		c->wan_no_addr++;
		return NAT4_OUT_DROP_NO_ADDR;
	}
	if (cpe_nat_out(c->nat, m, mb, l4, mb->l4_len) != 0) {
		c->no_mapping++;
		return NAT4_OUT_DROP_NAT;
	}
	return NAT4_OUT_REWRITE;
}

static uint16_t
nat4_out_process(struct rte_graph *g, struct rte_node *node, void **objs,
		 uint16_t cnt)
{
	struct cpe_nat4_out *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
nat4_out_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_nat4_out *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->nat = dp->nat;
	c->frag = dp->frag;
	return 0;
}

static struct rte_node_register nat4_out_node = {
	.name = "nat4_out",
	.process = nat4_out_process,
	.init = nat4_out_init,
	.fini = cpe_node_fini,
	.nb_edges = NAT4_OUT_NB,
	.next_nodes = {
		[NAT4_OUT_REWRITE] = "ip4_rewrite",
		[NAT4_OUT_DROP_NAT] = "drop-nat",
		[NAT4_OUT_DROP_FRAG] = "drop-frag",
		[NAT4_OUT_DROP_NO_ADDR] = "drop-wan_no_addr",
	},
};

RTE_NODE_REGISTER(nat4_out_node);
