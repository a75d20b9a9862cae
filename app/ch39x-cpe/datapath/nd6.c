/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * nd6: the IPv6 next hop's MAC (nd6_tab.c), as neigh4 for IPv4. Known:
 * the packet is finished (to flow6_learn when it may be cached, else
 * out); unknown: held, a few per hop, while a solicitation asks. On the
 * PPPoE interface the next hop is the concentrator, no ND.
 */

#include "dpconf.h"
#include "ntab.h"
#include "pppoe_dp.h"

enum {
	ND6_OUT,
	ND6_LEARN,
	ND6_DROP_PPPOE,
	ND6_NB
};

struct nd6_node {
	struct cpe_env *env;
	struct cpe_ifaces *ifs;
	struct cpe_nd6 *nd6;
	const struct rte_node *node;
};

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct nd6_node *c = ctx;
	struct cpe_mb *mb = cpe_mb(m);
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	uint16_t out = mb->out;
	uint16_t id = cpe_trace_id(c->env, m);
	int rc;

	cpe_set_out(m, out);
	if (unlikely(c->ifs->ifs[out].pppoe)) {
		if (cpe_pppoe_nexthop(&c->ifs->pppoe, &eh->dst_addr) != 0)
			return ND6_DROP_PPPOE;
	} else if (unlikely(c->ifs->ifs[out].p2p)) {
		rte_ether_addr_copy(&c->ifs->ifs[out].peer, &eh->dst_addr);
	} else {
		rc = cpe_nd6_resolve(c->nd6, out, mb->nh6, m, &eh->dst_addr);
		if (rc != 0) {
			/* Held until ND answers, or dropped (counted). */
			if (unlikely(id != 0))
				cpe_trace_rec(c->env->trace, c->node, id,
					      rc > 0 ? CPE_KEPT_HELD :
					      CPE_KEPT_DROPPED);
			return CPE_CONSUMED;
		}
	}
	if ((mb->flags & (CPE_MB_KEY6 | CPE_MB_NOCACHE)) == CPE_MB_KEY6)
		return ND6_LEARN;
	return ND6_OUT;
}

static uint16_t
nd6_process(struct rte_graph *g, struct rte_node *node, void **objs,
	    uint16_t cnt)
{
	struct nd6_node *c = CPE_CTX(node);
	struct cpe_ntab *t = cpe_nd6_ntab(c->nd6);

	cpe_node_each(g, node, c->env, objs, cnt, one, c);
	/* The solicitations it asked, and what an answer let go of. */
	cpe_ntab_send(t, g, node, c->env, ND6_OUT);
	return cnt;
}

static int
nd6_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct nd6_node *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->nd6 = dp->nd6;
	c->node = node;
	return 0;
}

static struct rte_node_register nd6_node = {
	.name = "nd6",
	.process = nd6_process,
	.init = nd6_init,
	.fini = cpe_node_fini,
	.nb_edges = ND6_NB,
	.next_nodes = {
		[ND6_OUT] = "port_out",
		[ND6_LEARN] = "flow6_learn",
		[ND6_DROP_PPPOE] = "drop-pppoe",
	},
};

RTE_NODE_REGISTER(nd6_node);
