/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * drop-<reason>: what the router drops, a node per reason (control/
 * graph.c clones this one for each of CPE_DROP_REASONS), so that the
 * graph's statistics and a packet's trace name why. The counters the
 * router kept before the graph (statistics' "drops", per module) are
 * counted where the decision is made; these count by reason too.
 */

#include "dpconf.h"
#include "port.h"

enum {
	DROP_NB
};

static uint16_t
drop_process(struct rte_graph *g, struct rte_node *node, void **objs,
	     uint16_t cnt)
{
	struct cpe_drop *c = CPE_CTX(node);
	uint16_t i;

	RTE_SET_USED(g);
	for (i = 0; i < cnt; i++)
		cpe_kept(c->env, node, objs[i], CPE_KEPT_DROPPED);
	rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, cnt);
	c->pkts += cnt;
	return cnt;
}

static int
drop_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_drop *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &cpe_dp_conf()->env;
	return 0;
}

static struct rte_node_register drop_node = {
	.name = "drop",
	.process = drop_process,
	.init = drop_init,
	.fini = cpe_node_fini,
	.nb_edges = DROP_NB,
};

RTE_NODE_REGISTER(drop_node);
