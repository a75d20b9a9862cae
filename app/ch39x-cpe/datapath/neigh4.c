/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * neigh4: the next hop's MAC (arp_tab.c). Known: the packet is finished
 * (to the flow cache's learning when it may be cached, else out);
 * unknown: held, a few per hop, while ARP asks (the requests leave with
 * what the table lets go of). On the PPPoE interface the next hop is the
 * concentrator, no ARP (pppoe_dp.h); without a session nothing leaves.
 * On a point-to-point interface (an MBIM session) the fixed peer's.
 */

#include "dpconf.h"
#include "ntab.h"
#include "pppoe_dp.h"

enum {
	NEIGH4_OUT,
	NEIGH4_LEARN,
	NEIGH4_DROP_PPPOE,
	NEIGH4_NB
};

struct neigh4 {
	struct cpe_env *env;
	struct cpe_ifaces *ifs;
	struct cpe_arp *arp;
	const struct rte_node *node;
	uint64_t held;
};

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct neigh4 *c = ctx;
	struct cpe_mb *mb = cpe_mb(m);
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	uint16_t out = mb->out;
	uint16_t id = cpe_trace_id(c->env, m);
	int rc;

	cpe_set_out(m, out);
	if (unlikely(c->ifs->ifs[out].pppoe)) {
		if (cpe_pppoe_nexthop(&c->ifs->pppoe, &eh->dst_addr) != 0)
			return NEIGH4_DROP_PPPOE;
	} else if (unlikely(c->ifs->ifs[out].p2p)) {
		rte_ether_addr_copy(&c->ifs->ifs[out].peer, &eh->dst_addr);
	} else {
		rc = cpe_arp_resolve(c->arp, out, mb->nh, m, &eh->dst_addr);
		if (rc != 0) {
			/* Held until ARP answers, or dropped (counted). */
			if (unlikely(id != 0))
				cpe_trace_rec(c->env->trace, c->node, id,
					      rc > 0 ? CPE_KEPT_HELD :
					      CPE_KEPT_DROPPED);
			return CPE_CONSUMED;
		}
	}
	if ((mb->flags & (CPE_MB_KEY4 | CPE_MB_NOCACHE |
			  CPE_MB_ICMP_XLATED)) == CPE_MB_KEY4)
		return NEIGH4_LEARN;
	return NEIGH4_OUT;
}

static uint16_t
neigh4_process(struct rte_graph *g, struct rte_node *node, void **objs,
	       uint16_t cnt)
{
	struct neigh4 *c = CPE_CTX(node);
	struct cpe_ntab *t = cpe_arp_ntab(c->arp);

	cpe_node_each(g, node, c->env, objs, cnt, one, c);
	/* The requests it asked, and what an answer let go of. */
	cpe_ntab_send(t, g, node, c->env, NEIGH4_OUT);
	return cnt;
}

static int
neigh4_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct neigh4 *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->arp = dp->arp;
	c->node = node;
	return 0;
}

static struct rte_node_register neigh4_node = {
	.name = "neigh4",
	.process = neigh4_process,
	.init = neigh4_init,
	.fini = cpe_node_fini,
	.nb_edges = NEIGH4_NB,
	.next_nodes = {
		[NEIGH4_OUT] = "port_out",
		[NEIGH4_LEARN] = "flow4_learn",
		[NEIGH4_DROP_PPPOE] = "drop-pppoe",
	},
};

RTE_NODE_REGISTER(neigh4_node);
